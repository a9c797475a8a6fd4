"""The agent behind every front end: a trained network plus search, one position at a time.

`agent.move(state, simulations=64)` searches the position and returns the chosen action, the
search policy over all actions and the root value from the mover's view. The search is the
deterministic evaluation form of the one the model was trained with (Gumbel MuZero: no Gumbel
noise, best move), its considered actions growing with the count (`considered_actions` and
`search_policy` override them: the front ends' `--considered-actions` and `--search`).

Its moves are the lasting search counted in simulations (`LastingSearch.counted`: a new tree
each move, grown a short chunk at a time), so one compiled program serves every count; the
first search turns the compilation cache on (`compile_cache.enable`; HEXJAX_COMPILATION_CACHE=off
leaves JAX's setting alone), so a later process reads it back rather than compiling. Counts are
rounded down to powers of two up to MAX_SIMULATIONS, as every front end asks for them. Between
chunks the caller sees Ctrl-C (a KeyboardInterrupt) and `stop_searches`, and `progress(done,
total)` is called after each chunk.
"""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
import threading
from collections.abc import Callable

import jax

from hexjax.alphazero import search as search_lib
from hexjax.alphazero.search import PLAY_SIMULATIONS
from hexjax.games import Game, State
from hexjax.play import compile_cache
from hexjax.play.agent_move import AgentMove, simulation_count
from hexjax.play.lasting import LastingSearch
from hexjax.training import models, restore
from hexjax.training.algorithms import ALPHAZERO


class Agent:
    """A trained network (`restore.Trained`: config, parameters, search choices) searching one
    position at a time for a front end. Build it with `load`, `shipped`, `from_model` or
    `from_checkpoint`; `move` is safe to call from several threads."""

    def __init__(self, trained: restore.Trained, default_simulations: int = PLAY_SIMULATIONS,
                 prune: bool = True):  # fmt: skip
        self.trained = trained
        # The root's moves are the game's `moves_to_search` (Hex: no dead or captured cells).
        self.prune = prune
        self.config = trained.config
        self.game: Game = trained.game
        self.params = jax.device_put(trained.params)
        self.source = trained.source  # what was loaded, for messages ("shipped model hex7")
        self.default_simulations = default_simulations
        self._net = trained.net
        self._stopping = False  # stop_searches was called: every search ends at once
        self._counted: LastingSearch | None = None  # made on first use (`counted`)
        self._counted_lock = threading.Lock()

    @classmethod
    def of_network(cls, config, params, source: str, **search) -> Agent:
        """An AlphaZero network with its parameters, trained or not (tests, notebooks)."""
        meta = {"iteration": 0}
        return cls(restore.Trained(ALPHAZERO, config, params, meta, source, **search))

    @classmethod
    def load(cls, game: str = "hex", size: int = 7, rule: str = "freestyle", swap: bool = False,
             checkpoint=None, model: str | None = None, model_dir=models.MODELS_DIR,
             **search):  # fmt: skip
        """What the front ends' flags select: a run's `checkpoint`, else the model named `model`
        (each plays its own game), else the shipped model for the game; `search`
        (`considered_actions`, `search_policy`, `tactics`, `contempt`) as `restore.Trained`
        takes it. Raises ModelError or CheckpointError with a message."""
        if checkpoint is not None:
            return cls.from_checkpoint(checkpoint, **search)
        if model is None:
            model = models.find_model(game, size, rule, swap, model_dir).name
        return cls.from_model(model, model_dir, **search)

    @classmethod
    def shipped(cls, game: str, size: int, rule: str = "freestyle", swap: bool = False):
        """The model shipped for this game; ModelError naming what is shipped if none."""
        return cls.from_model(models.find_model(game, size, rule, swap).name)

    @classmethod
    def from_model(cls, name: str, directory=models.MODELS_DIR, **search):
        trained = restore.from_model(name, None, directory, **search)
        shipped = pathlib.Path(directory).resolve() == models.MODELS_DIR.resolve()
        return cls(dataclasses.replace(trained, source=f"{'shipped ' * shipped}model {name}"))

    @classmethod
    def from_checkpoint(cls, workdir, step: int | None = None, **search):
        """The network of a training run's checkpoint (default: the latest)."""
        return cls(restore.load_trained(workdir, step, algorithm="alphazero", **search))

    def at_size(self, size: int) -> Agent:
        """The same network on another board size of its game: a size-free (pooled head)
        network only; ValueError otherwise, or for a size the game does not take."""
        here = self.config.game.size
        if size == here:
            return self
        if self.config.network.head != "pooled":
            raise ValueError(f"{self.source} has the dense head, whose layers fit {here}x{here} "
                             "only; a network trained with --network.head pooled plays every "
                             "size")  # fmt: skip
        game = dataclasses.replace(self.config.game, size=size)
        game.make()  # the game's own message for a size it does not take
        config = dataclasses.replace(self.config, game=game)
        source = f"{self.source} at {size}x{size}"
        return Agent(dataclasses.replace(self.trained, config=config, source=source),
                     self.default_simulations, self.prune)  # fmt: skip

    def move(self, state: State, simulations: int | None = None,
             progress: Callable[[int, int], None] | None = None) -> AgentMove:  # fmt: skip
        """Search `state` (not over) and return the move to play with its policy and value.
        `simulations` is rounded down to a power of two (`simulation_count`); `progress(done,
        total)` is called after each chunk of the search. Ctrl-C stops it between chunks (the
        KeyboardInterrupt goes on to the caller); SearchStopped after `stop_searches`."""
        count = simulation_count(self.default_simulations if simulations is None else simulations)
        return self.counted.move(state, None, simulations=count, progress=progress)

    @property
    def counted(self) -> LastingSearch:
        """The agent's search counted in simulations (`LastingSearch.counted`), made on first
        use; the front ends that count simulations (the web page, the terminal) move with it."""
        with self._counted_lock:
            if self._counted is None:
                compile_cache.enable()  # a later process reads the search back (none: compiled)
                self._counted = LastingSearch.counted(self)
            return self._counted

    def prepare(self) -> None:
        """Compile the search now (or read it from the compilation cache): what a first move
        would otherwise do. Safe from several threads; once."""
        self.counted.prepare()

    @property
    def network(self):
        """The Flax module its parameters fit."""
        return self._net

    @property
    def stopping(self) -> bool:
        """`stop_searches` was called: searches end at their next chunk."""
        return self._stopping

    def stop_searches(self) -> None:
        """End the searches in flight at their next chunk, and every later one at once (they
        raise SearchStopped): for a server that is shutting down."""
        self._stopping = True

    def searched_root(self, states: State) -> State:
        """Batched root states as its searches see them: their legal moves the game's
        `moves_to_search` where it prunes (traceable)."""
        if not self.prune:
            return states
        return states.replace(legal_action_mask=jax.vmap(self.game.moves_to_search)(states))

    def search_config(self, simulations: int) -> search_lib.SearchConfig:
        """The search a move of `simulations` (rounded down to a power of two) runs."""
        return self.trained.search_at(simulation_count(simulations))

    def __repr__(self) -> str:
        return f"Agent({self.game}, {self.source})"


class Agents:
    """Agents by game, loaded on first use and kept (a web server or an engine whose board size
    changes needs several). With a `checkpoint` or a `model` name, that one agent (loaded now,
    as `only`) serves its own game and nothing else."""

    def __init__(self, checkpoint=None, model: str | None = None, model_dir=models.MODELS_DIR,
                 **search):  # fmt: skip
        self.model_dir = model_dir
        self._search = search  # as Agent takes it, for every agent loaded
        self.only: Agent | None = None
        if checkpoint is not None or model is not None:
            self.only = Agent.load(
                checkpoint=checkpoint, model=model, model_dir=model_dir, **search
            )
        self._agents: dict[tuple, Agent] = {}
        self._lock = threading.Lock()

    def available_rules(self, game: str, size: int) -> list[str]:
        """The rules this source has a model for on a board of the game and size."""
        games = [self.only.config.game] if self.only is not None else [
            m.config.game for m in models.shipped_models(self.model_dir)
        ]  # fmt: skip
        return sorted({g.as_played().rule for g in games if g.name == game and g.size == size})

    def get(self, game: str, size: int, rule: str = "freestyle", swap: bool = False) -> Agent:
        """The agent for a game; ModelError naming what is available if there is none."""
        wanted = models.GameConfig(game, size, rule, swap).as_played()
        if self.only is not None:
            have = self.only.config.game
            if have.as_played() != wanted:
                raise models.ModelError(
                    f"no model for {wanted.label}: this {self.only.source} plays {have.label} only"
                )
            return self.only
        key = (wanted.name, wanted.size, wanted.rule, wanted.swap)  # Agent.load's first four
        with self._lock:
            if key not in self._agents:
                self._agents[key] = Agent.load(*key, model_dir=self.model_dir, **self._search)
            return self._agents[key]

    def stop_searches(self) -> None:
        """`Agent.stop_searches` for every agent loaded."""
        with self._lock:
            loaded = [self.only] if self.only is not None else list(self._agents.values())
        for agent in loaded:
            agent.stop_searches()

    def available(self) -> list[models.ModelInfo]:
        """The models this collection can serve (none listed for a single agent)."""
        return [] if self.only is not None else models.shipped_models(self.model_dir)


def positive_int(text: str) -> int:
    """argparse type: a whole number of at least 1, with a message naming the bad value."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_agent_flags(parser: argparse.ArgumentParser, simulations: int | None = None,
                    simulations_help: str | None = None) -> None:  # fmt: skip
    """The flags every front end shares: which network plays, and how hard it searches
    (`simulations_help`: --simulations' help where its default is not one number)."""
    parser.add_argument("--checkpoint", help="play a training run's network (its --workdir)")
    parser.add_argument("--model", help="play the model of this name (default: the game's)")
    parser.add_argument("--model-dir", default=str(models.MODELS_DIR), help="where models are")
    default = f" (default {simulations})" if simulations else ""
    simulations_help = simulations_help or f"search simulations per move{default}"
    parser.add_argument("--simulations", type=positive_int, default=simulations,
                        help=simulations_help)  # fmt: skip
    parser.add_argument("--considered-actions", type=positive_int,
                        help="Gumbel: root actions considered (default: grows with "
                        "the simulations)")  # fmt: skip
    parser.add_argument("--search", choices=("gumbel", "puct"),
                        help="the search (default: the one the model trained with)")  # fmt: skip
    parser.add_argument("--tactics", action=argparse.BooleanOptionalAction,
                        help="the search reads the game's forced results (Gomoku: fives and "
                        "open fours, a few plies ahead) where the network would guess "
                        "(default: as the model trained)")  # fmt: skip
    parser.add_argument("--contempt", type=contempt_value,
                        help="a draw costs the engine this much in its search (0 to 1), so "
                        "that it plays for the win against a weaker player; needs a network "
                        "trained with --network.draw_head true (default 0)")  # fmt: skip


def contempt_value(text: str) -> float:
    """argparse type: a contempt in [0, 1), with a message naming the bad value."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1), got {value:g}")
    return value


def search_choices(args) -> dict:
    """`add_agent_flags`' search flags (or a record with `considered_actions`, `search`,
    `tactics` and `contempt`, as evaluate's) as `Agent`, `Agent.load` and `Agents` take them."""
    if args.considered_actions is not None and args.search == "puct":
        raise ValueError("--considered-actions applies to the Gumbel search, not to --search puct")
    return {
        "considered_actions": args.considered_actions,
        "search_policy": args.search,
        "tactics": args.tactics,
        "contempt": args.contempt,
    }
