"""The agent behind every front end: a trained network plus search, one position at a time.

`agent.move(state, simulations=64)` runs one compiled search and returns the chosen action, the
search policy over all actions and the root value from the mover's view. The search is the
deterministic evaluation form of the one the model was trained with (Gumbel MuZero: no Gumbel
noise, best move), its considered actions growing with the count (`considered_actions` and
`search_policy` override them: the front ends' `--considered-actions` and `--search`).

Simulation counts are powers of two up to MAX_SIMULATIONS (a request is rounded down), so a
front end compiles at most a dozen searches however its users ask; `prepare` compiles one ahead
of time. A search runs on a worker thread while the caller waits in Python: Ctrl-C (a
KeyboardInterrupt in the caller) stops it within a simulation, and `progress(done, total)` is
called while it runs (each simulation reports to the host, a cost that is small for one
position at a time).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import logging
import pathlib
import threading
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from hexjax.alphazero import search as search_lib
from hexjax.alphazero.search import PLAY_SIMULATIONS
from hexjax.games import Game, State
from hexjax.training import models, restore
from hexjax.training.algorithms import ALPHAZERO

MAX_SIMULATIONS = 4096
PROGRESS_INTERVAL_S = 0.1  # how often a waiting caller reports progress and sees Ctrl-C


def simulation_count(requested: int) -> int:
    """The count a search runs for `requested` simulations: the largest power of two not above
    it, at most MAX_SIMULATIONS; ValueError below 1."""
    if requested < 1:
        raise ValueError(f"simulations must be at least 1, got {requested}")
    return 1 << (min(int(requested), MAX_SIMULATIONS).bit_length() - 1)


class SearchStopped(RuntimeError):
    """A search ended early by `Agent.stop_searches` (a server shutting down)."""


class _Cancelled(Exception):
    """Raised inside a search's host callback to stop it."""


# JAX logs every exception a callback raises; a stopped search is not an error.
logging.getLogger("jax._src.debugging").addFilter(
    lambda record: not (record.exc_info and isinstance(record.exc_info[1], _Cancelled))
)


@dataclasses.dataclass(frozen=True)
class AgentMove:
    action: int
    policy: np.ndarray  # float32[num_actions]: the search's policy, 0 on illegal actions
    value: float  # root value after search in [-1, 1], from the mover's view
    simulations: int = 0  # the count searched (a power of two)
    proven: bool = False  # an exact solver proved the move wins (no search)
    moves_to_win: int | None = None  # proven: the mover's moves to its win, where known

    @classmethod
    def of_proof(cls, proven, num_actions: int) -> AgentMove:
        """The move of a solver's proof (`root_solvers.Proven`): certain, won, not searched."""
        policy = np.zeros(num_actions, np.float32)
        policy[proven.move] = 1.0
        return cls(proven.move, policy, 1.0, 0, proven=True, moves_to_win=proven.moves_to_win)

    @property
    def win_probability(self) -> float:
        """The mover's chance to win as the value reads it (a draw counts half)."""
        return (self.value + 1) / 2

    def top(self, count: int = 5) -> list[tuple[int, float]]:
        """The `count` most likely actions with their probabilities, best first."""
        order = np.argsort(-self.policy, kind="stable")[:count]
        return [(int(a), float(self.policy[a])) for a in order if self.policy[a] > 0]


def _batch_of_one(state: State) -> State:
    return jax.tree.map(lambda x: jnp.asarray(x)[None], state)


@dataclasses.dataclass
class _Running:
    """A search in flight: simulations done so far, and the flag that stops it."""

    done: int = 0
    cancelled: threading.Event = dataclasses.field(default_factory=threading.Event)


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
        self._key = jax.random.key(0)  # the search is deterministic; the key only feeds mctx
        self._compiled: dict[int, object] = {}  # simulation count -> compiled search
        self._compile_lock = threading.Lock()
        self._count_locks: dict[int, threading.Lock] = {}
        self._running: dict[int, _Running] = {}  # searches in flight, by ticket
        self._stopping = False  # stop_searches was called: every search ends at once
        self._tickets = itertools.count()

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
        (`considered_actions`, `search_policy`, `tactics`) as `restore.Trained` takes it. Raises
        ModelError or CheckpointError with a message."""
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
        total)` is called every PROGRESS_INTERVAL_S while the search runs. A KeyboardInterrupt
        while waiting stops the search and is raised again."""
        count = simulation_count(self.default_simulations if simulations is None else simulations)
        if bool(state.terminated):
            raise ValueError("the game is over: there is no move to search")
        batched = _batch_of_one(state)
        search = self.prepare(count)
        ticket = next(self._tickets)
        running = self._running[ticket] = _Running()
        if self._stopping:
            running.cancelled.set()
        outcome, finished = {}, threading.Event()

        def work():
            try:
                outcome["result"] = jax.device_get(search(self.params, self._key, batched, ticket))
            except BaseException as error:  # handed to the waiting caller
                outcome["error"] = error
            finally:
                finished.set()

        # An Event, not Thread.join: a join interrupted by Ctrl-C can wrongly report the thread
        # as finished, and the search would outlive its caller.
        worker = threading.Thread(target=work, name=f"search-{ticket}", daemon=True)
        try:
            worker.start()
            while not finished.wait(PROGRESS_INTERVAL_S):
                if progress is not None:
                    progress(running.done, count)
        except KeyboardInterrupt:
            running.cancelled.set()
            finished.wait()
            worker.join()  # safe now: the thread has nothing left to do
            raise
        finally:
            del self._running[ticket]
        if "error" in outcome:
            if running.cancelled.is_set():
                raise SearchStopped("the search was stopped") from outcome["error"]
            raise outcome["error"]
        action, policy, value = outcome["result"]
        policy = np.asarray(policy[0], dtype=np.float32)
        return AgentMove(int(action[0]), policy, float(value[0]), count)

    @property
    def network(self):
        """The Flax module its parameters fit."""
        return self._net

    @property
    def stopping(self) -> bool:
        """`stop_searches` was called: searches that check between steps end too."""
        return self._stopping

    def stop_searches(self) -> None:
        """End the searches in flight within a simulation, and every later one at once (they
        raise SearchStopped): for a server that is shutting down."""
        self._stopping = True
        for running in list(self._running.values()):
            running.cancelled.set()

    def prepare(self, simulations: int):
        """The compiled search for `simulations` (rounded down to a power of two), compiled now
        if it is not yet; safe from several threads, each count compiled once."""
        count = simulation_count(simulations)
        with self._compile_lock:
            lock = self._count_locks.setdefault(count, threading.Lock())
        with lock:
            if count not in self._compiled:
                self._compiled[count] = self._compile(count)
        return self._compiled[count]

    def is_prepared(self, simulations: int) -> bool:
        return simulation_count(simulations) in self._compiled

    def _compile(self, count: int):
        config = self.search_config(count)

        def run_search(params, key, states, ticket):
            states = self.searched_root(states)

            def tick():  # each simulation reports to the host: progress, and a way to stop
                jax.debug.callback(self._tick, ticket)

            search = search_lib.make_search(self.game, self._net, config, on_simulation=tick)
            result = search(params, key, states, states.step_count)
            legal = states.legal_action_mask
            return result.action, jnp.where(legal, result.policy, 0.0), result.value

        example = _batch_of_one(self.game.new_state())
        lowered = jax.jit(run_search).lower(self.params, self._key, example, 0)
        return lowered.compile()

    def searched_root(self, states: State) -> State:
        """Batched root states as its searches see them: their legal moves the game's
        `moves_to_search` where it prunes (traceable)."""
        if not self.prune:
            return states
        return states.replace(legal_action_mask=jax.vmap(self.game.moves_to_search)(states))

    def search_config(self, simulations: int) -> search_lib.SearchConfig:
        """The search a move of `simulations` (rounded down to a power of two) runs."""
        return self.trained.search_at(simulation_count(simulations))

    def _tick(self, ticket) -> None:
        running = self._running.get(int(ticket))
        if running is None:
            return
        running.done += 1
        if running.cancelled.is_set():
            raise _Cancelled("search interrupted")

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


def add_agent_flags(parser: argparse.ArgumentParser, simulations: int | None = None) -> None:
    """The flags every front end shares: which network plays, and how hard it searches."""
    parser.add_argument("--checkpoint", help="play a training run's network (its --workdir)")
    parser.add_argument("--model", help="play the model of this name (default: the game's)")
    parser.add_argument("--model-dir", default=str(models.MODELS_DIR), help="where models are")
    default = f" (default {simulations})" if simulations else ""
    parser.add_argument("--simulations", type=positive_int, default=simulations,
                        help=f"search simulations per move{default}")  # fmt: skip
    parser.add_argument("--considered-actions", type=positive_int,
                        help="Gumbel: root actions considered (default: grows with "
                        "the simulations)")  # fmt: skip
    parser.add_argument("--search", choices=("gumbel", "puct"),
                        help="the search (default: the one the model trained with)")  # fmt: skip
    parser.add_argument("--tactics", action=argparse.BooleanOptionalAction,
                        help="the search reads the game's forced results (Gomoku: fives and "
                        "open fours, a few plies ahead) where the network would guess "
                        "(default: as the model trained)")  # fmt: skip


def search_choices(args) -> dict:
    """`add_agent_flags`' search flags (or a record with `considered_actions`, `search` and
    `tactics`, as evaluate's) as `Agent`, `Agent.load` and `Agents` take them."""
    if args.considered_actions is not None and args.search == "puct":
        raise ValueError("--considered-actions applies to the Gumbel search, not to --search puct")
    return {
        "considered_actions": args.considered_actions,
        "search_policy": args.search,
        "tactics": args.tactics,
    }
