"""A run on disk, back as something that plays: restore a checkpoint, load an agent, name an
opponent.

`load_trained(workdir, step, simulations)` is the one way from a run's checkpoint to a
`Trained`: its algorithm, config, game, parameters and training time, and its
`PlayerFactory` as it plays (AlphaZero with its deterministic search at `simulations`, the DQN
and PPO baselines by their best legal action). Evaluation, comparison, export and the play
front ends all go through it; nothing here imports the training loop.
`opponent(spec, game, simulations)` turns `random`, `greedy`, `mcts:N` or
`checkpoint:PATH[@STEP][:N]` into an `Entrant`; `own_simulations` reads a searching
opponent's own count (`:N`).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import sys
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from hexjax.alphazero import network as network_lib
from hexjax.alphazero.search import SearchConfig
from hexjax.base import Entrant, PlayerFactory
from hexjax.evaluation import players
from hexjax.games import Game
from hexjax.training import algorithms, config_io, models
from hexjax.training.checkpoint import Checkpointer, CheckpointError
from hexjax.training.run_dir import RunDir

OPPONENTS = "random, greedy, mcts:N, checkpoint:PATH[@STEP][:N] or model:NAME[:N]"


def checkpoint_steps(workdir) -> list[int]:
    """The steps of a run's kept checkpoints, oldest first."""
    checkpoints = Checkpointer(RunDir(workdir).checkpoints, create=False)
    try:
        return checkpoints.steps()
    finally:
        checkpoints.close()


def _algorithm(meta: dict) -> str:
    return meta.get("algorithm", algorithms.ALPHAZERO.name)  # runs before the baselines: AlphaZero


def check_algorithm(meta: dict, trainer: algorithms.Trainer, workdir) -> None:
    if _algorithm(meta) != trainer.name:
        raise CheckpointError(
            f"{workdir} holds a {_algorithm(meta)} run, not {trainer.name}'s: resume it with "
            "the trainer that started it"
        )


def restore_trained(workdir, step: int | None = None):
    """(trainer, config, state, meta) of a run's checkpoint (default: the newest readable, with
    a one-line warning on stderr naming any newer one that could not be read), on one device,
    whichever algorithm trained it; meta holds the counters saved with it (`elapsed_seconds`:
    training time so far)."""
    path = RunDir(workdir).checkpoints
    checkpoints = Checkpointer(path, create=False)
    try:
        meta = checkpoints.restore_meta(step)
        trainer = algorithms.get(_algorithm(meta))
        config = config_io.from_dict(trainer.config_type, meta["config"])
        init, _ = trainer.make_iteration(config, None, None)
        template = jax.eval_shape(init, jax.random.key(0))
        template = jax.tree.map(lambda x: np.zeros(x.shape, x.dtype), template)
        restored = checkpoints.restore(template, jax.random.key(0), step)
    finally:
        checkpoints.close()
    if restored.skipped:
        print(restored.warning(path), file=sys.stderr)
    return trainer, config, restored.state, restored.meta


def starting_params(origin, params, load_model: Callable[[str], Trained] | None = None):
    """The newest network of the AlphaZero run in `origin` (or of the stored model
    `model:NAME`, read by `load_model(name)`, by default `from_model`), to start another run
    whose fresh parameters are `params` (same structure and shapes required: a run on another
    board size needs the size-free pooled head in both); ValueError naming the first mismatch.
    -> (parameters, the origin's chain: this run's starting point first, then where it started,
    each {run, game, size, iterations, minutes}, for the run's `origin.json`)."""
    origin = str(origin)
    if origin.startswith("model:"):
        agent = (load_model or from_model)(origin.removeprefix("model:"))
        trainer, config, trained, meta = agent.algorithm, agent.config, agent.params, agent.meta
        earlier = list(meta.get("started_from", []))  # the model's own origins, as exported
    else:
        trainer, config, state, meta = restore_trained(origin)
        trained, earlier = state.params, None  # read once the network fits
    if trainer is not algorithms.ALPHAZERO:
        raise ValueError(f"--init-from {origin}: a {trainer.name} run; only an AlphaZero run's "
                         "network can start another")  # fmt: skip
    _check_fits(origin, trained, params)
    if earlier is None:
        earlier = origins(origin)
    start = {
        "run": origin,
        "game": config.game.name,
        "size": config.game.size,
        "iterations": int(meta["iteration"]),
        "minutes": round(float(meta.get("elapsed_seconds", 0.0)) / 60, 1),
    }
    fresh = jax.tree.map(lambda f, t: jnp.asarray(t, f.dtype), params, trained)
    return fresh, [start, *earlier]


def _check_fits(origin, theirs, ours) -> None:
    """ValueError naming the first layer where the network `theirs` of the run in `origin`
    does not fit this run's fresh `ours` (missing, or another shape)."""
    theirs = dict(jax.tree_util.tree_flatten_with_path(theirs)[0])
    ours = dict(jax.tree_util.tree_flatten_with_path(ours)[0])
    hint = ("; a dense head's layers fit one board size: train both runs with "
            "--network.head pooled to carry a network across sizes")  # fmt: skip
    for path in sorted(ours.keys() | theirs.keys(), key=jax.tree_util.keystr):
        name = jax.tree_util.keystr(path)
        if path not in theirs or path not in ours:
            where = "here" if path not in theirs else f"in {origin}"
            raise ValueError(f"--init-from {origin}: its network does not fit this run's: "
                             f"layer {name} only {where}{hint}")  # fmt: skip
        there, here = tuple(theirs[path].shape), tuple(ours[path].shape)
        if len(here) == 4 and there[:2] + there[3:] == here[:2] + here[3:] and there != here:
            # Only a convolution's input channels differ: the first one, which reads the planes.
            raise ValueError(f"--init-from {origin}: its network reads {there[2]} input planes, "
                             f"this run's {here[2]}: the games' options differ (such as "
                             "--game.threats or --swap)")  # fmt: skip
        if there != here:
            raise ValueError(
                f"--init-from {origin}: its network does not fit this run's: layer {name} is "
                f"{there} there, {here} here{hint}"
            )


def origins(workdir) -> list[dict]:
    """The runs whose network `workdir`'s run started from, nearest first (empty for a run
    from scratch, or one started before they were recorded)."""
    path = RunDir(workdir).origin
    if not path.is_file():
        return []
    try:
        chain = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not JSON ({error.msg})") from None
    if not isinstance(chain, list) or not all(isinstance(item, dict) for item in chain):
        raise ValueError(f"{path} is not a list of runs")
    return chain


@dataclasses.dataclass(frozen=True)
class Trained:
    """A trained network as it plays: its algorithm, config, parameters and the meta saved
    with it, restored from a run's checkpoint (`load_trained`) or a shipped model, and the
    search choices it plays with. Evaluation plays it as an `Entrant`; the front ends' `Agent`
    (hexjax/play/agent.py) searches with it one position at a time."""

    algorithm: algorithms.Trainer
    config: object  # the algorithm's config type
    params: object
    meta: dict  # saved with the checkpoint: "iteration", "elapsed_seconds", "config", ...
    source: str  # what was loaded, for messages ("runs/hex7 at iteration 400")
    simulations: int | None = None  # AlphaZero's search; None: the config's own count
    considered_actions: int | None = None  # Gumbel's root actions; None: grow with the count
    search_policy: str | None = None  # "gumbel" or "puct"; None: the one it trained with
    tactics: bool | None = None  # the game's forced results in the search; None: as trained
    contempt: float | None = None  # a draw's cost to it in the search (SearchConfig); None: 0

    def __post_init__(self):
        network = getattr(self.config, "network", None)
        if self.contempt and not getattr(network, "draw_head", False):
            raise ValueError(
                f"contempt reads the network's chance of a draw: {self.source} has no draw "
                "head (train with --network.draw_head true)"
            )

    @functools.cached_property
    def game(self) -> Game:
        return self.config.game.make()

    @functools.cached_property
    def net(self):
        return network_lib.make_network(self.config.network, self.game.num_actions)

    @property
    def search(self) -> SearchConfig | None:
        """The deterministic search it plays with; None for an algorithm without search."""
        if not self.algorithm.searches:
            return None
        return self.search_at(self.simulations)

    def search_at(self, simulations: int | None) -> SearchConfig:
        """Its deterministic search at `simulations` (None: the config's own count)."""
        return self.config.search.deterministic(
            simulations,
            considered_actions=self.considered_actions,
            policy=self.search_policy,
            tactics=self.tactics,
            contempt=self.contempt,
        )

    @functools.cached_property
    def make_player(self) -> PlayerFactory:
        return self.algorithm.make_player(self.config, self.game, self.search)

    @property
    def minutes(self) -> float:
        """Training time of the checkpoint."""
        return float(self.meta.get("elapsed_seconds", 0.0)) / 60

    @property
    def iteration(self) -> int:
        return int(self.meta["iteration"])

    @property
    def label(self) -> str:
        """How it plays, for tables."""
        search = self.search
        if search is not None:
            puct = ", PUCT" if search.policy == "puct" else ""
            tactics = ", tactics" if search.tactics else ""
            contempt = f", contempt {search.contempt:g}" if search.contempt else ""
            return f"{search.num_simulations} simulations{puct}{tactics}{contempt}"
        return f"{self.algorithm.name}, best legal action"

    def entrant(self, kind: str = "agent") -> Entrant:
        return Entrant(kind, self.make_player, self.params)


def load_trained(
    workdir,
    step: int | None = None,
    simulations: int | None = None,
    algorithm: str | None = None,
    **search: str | int | None,
) -> Trained:
    """The agent of a run's checkpoint (default: the newest readable), whichever algorithm
    trained it; with `algorithm`, CheckpointError for a run of another one. `search` takes
    Trained's `considered_actions`, `search_policy` and `tactics`."""
    trainer, config, state, meta = restore_trained(workdir, step)
    if algorithm is not None:
        check_algorithm(meta, algorithms.get(algorithm), workdir)
    source = f"{workdir} at iteration {meta['iteration']}"
    return Trained(trainer, config, state.params, meta, source, simulations, **search)


def from_model(name: str, simulations: int | None = None, directory=None, **search) -> Trained:
    """A stored model (by default a shipped one) as a `Trained`, searching `simulations` (and
    `search`: `considered_actions`, `search_policy`, `tactics`) as `load_trained` would."""
    info, params = models.load(name, models.MODELS_DIR if directory is None else directory)
    how = info.about.get("trained", {})
    meta = {
        "iteration": how.get("iterations", 0),
        "elapsed_seconds": 60 * how.get("minutes", 0.0),
        "started_from": how.get("started_from", []),  # the runs its own run started from
    }
    return Trained(
        algorithms.ALPHAZERO, info.config, params, meta, f"model {name}", simulations, **search
    )


def own_simulations(spec: str) -> tuple[str, int | None]:
    """A searching opponent's spec without its own simulation count, and the count: `PATH:256`
    is (`PATH`, 256), `PATH` is (`PATH`, None). ValueError for a count below 1."""
    head, colon, count = spec.rpartition(":")
    if not colon or not count.isdigit():
        return spec, None
    if int(count) < 1:
        raise ValueError(f"an opponent's simulation count must be positive: {spec!r}")
    return head, int(count)


def opponent(
    spec: str,
    game: Game,
    simulations: int | None = None,
    load_model: Callable[..., Trained] | None = None,
    **search: str | int | None,
) -> Entrant:
    """An opponent by name: `random`, `greedy`, `mcts:N` (UCT with random playouts, N
    simulations a move), `checkpoint:PATH[@STEP][:N]` (another run's agent, as it plays: with
    `simulations` and `search` as `load_trained` takes them, or, given `:N`, with its own default
    search at N simulations, whatever the agent's flags) or, given `load_model(name,
    simulations, **search)`, `model:NAME[:N]` the same way. ValueError naming the problem for
    anything else."""
    if spec == "random":
        return Entrant.fixed(spec, players.random_player(game))
    if spec == "greedy":
        return Entrant.fixed(spec, players.greedy_player(game))
    if spec.startswith("mcts:"):
        count = spec.partition(":")[2]
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"mcts opponent needs a positive simulation count: {spec!r}")
        return Entrant.fixed(spec, players.rollout_mcts_player(game, int(count)))
    if spec.startswith("model:") and load_model is not None:
        name, count = own_simulations(spec.partition(":")[2])
        load = functools.partial(load_model, name)
        return _searching(spec, spec, game, load, count, simulations, search)
    if spec.startswith("checkpoint:"):
        run, count = own_simulations(spec.partition(":")[2])
        path, _, step = run.partition("@")
        if step and not step.isdigit():
            raise ValueError(f"checkpoint step must be a number: {spec!r}")
        load = functools.partial(load_trained, path, int(step) if step else None)
        label = f"run:{run}" + (f":{count}" if count else "")
        return _searching(spec, label, game, load, count, simulations, search)
    raise ValueError(f"unknown opponent {spec!r}: use {OPPONENTS}")


def _searching(spec, label, game, load, count, simulations, search) -> Entrant:
    """A searching opponent from `load(simulations, **search)`: with its own count `count`, its
    default search at that count; else the agent's `simulations` and `search`."""
    other = load(simulations, **search) if count is None else load(count)
    if other.game.as_played != game.as_played:  # the threat planes, say, may differ
        raise ValueError(f"{spec} plays {other.game.as_played}, not {game.as_played}")
    return other.entrant(label)
