"""evaluate.py's flags as typed records, what the evaluations read: the agent and its search,
the opponents, the arena's games, the move clock, the mode and the outputs."""

from __future__ import annotations

import dataclasses
import pathlib
from collections.abc import Mapping

from hexjax.play.agent import search_choices
from hexjax.training import restore
from hexjax.training.restore import Trained

MATCHES = "matches"  # the mode without a flag: the agent against each opponent


@dataclasses.dataclass(frozen=True)
class AgentChoice:
    """The agent: a run's checkpoint or a shipped model, and how it searches."""

    checkpoint: str | None
    model: str | None
    model_dir: str
    simulations: int
    simulations_given: bool  # --simulations given, not its default
    considered_actions: int | None
    search: str | None
    tactics: bool | None = None  # --tactics: the search reads the game's forced results
    contempt: float | None = None  # --contempt: a draw's cost to the agent in its search

    @property
    def search_choices(self) -> dict:
        """The search flags as `restore`'s loaders take them."""
        return search_choices(self)

    def load(self, step: int | None) -> Trained:
        """The agent at a checkpoint's `step` (None: the newest readable), or the model."""
        choices = self.search_choices
        if self.model:
            return restore.from_model(self.model, self.simulations, self.model_dir, **choices)
        return restore.load_trained(self.checkpoint, step, self.simulations, **choices)


@dataclasses.dataclass(frozen=True)
class Games:
    """The arena's games: how many, from which openings, the seed that draws them."""

    games: int
    opening_plies: int
    openings: str | None  # a file, `first-moves` or `first-moves:K`
    seed: int


@dataclasses.dataclass(frozen=True)
class MoveClock:
    """--move-time: the agent searches what fits in `seconds` a move (None: by simulations)."""

    seconds: float | None
    search: str  # clock.TIMED_SEARCHES
    solve: bool  # a solver before the search
    prune: bool = True  # the root's moves pruned as the game allows (Hex: dead, captured)


@dataclasses.dataclass(frozen=True)
class Opponents:
    """Who the agent plays, and the engines' setup lines (by the index of their spec)."""

    specs: tuple[str, ...]
    setup: Mapping[int, list[str]]
    timeout: float  # seconds an engine may take over a move
    engine_jobs: int


@dataclasses.dataclass(frozen=True)
class Evaluation:
    """evaluate.py's flags, checked: what to evaluate, against whom, how, and where to write."""

    agent: AgentChoice
    opponents: Opponents
    games: Games
    clock: MoveClock
    mode: str  # MATCHES or one of MODES
    step: int | None
    records: bool
    sgf: str | None
    positions: tuple[str, ...]
    out: str | None
    workdir: pathlib.Path  # the JSON, plots and records: the run's folder, or the model's
    cpu_devices: int | None

    @property
    def every_step(self) -> bool:
        """Every kept checkpoint of the run, not one."""
        return self.mode in ("all_steps", "elo")

    def settings(self, game) -> dict:
        """What every evaluation record starts with."""
        timed = self.clock.seconds is not None
        return {
            "checkpoint": self.agent.checkpoint,
            "model": self.agent.model,
            "model_dir": self.agent.model_dir if self.agent.model else None,
            "game": repr(game),
            "simulations": self.agent.simulations,
            "move_time": self.clock.seconds,
            "timed_search": self.clock.search if timed else None,
            "solver": self.clock.solve if timed else None,
            "pruned": self.clock.prune if timed else None,
            "considered_actions": self.agent.considered_actions,
            "search": self.agent.search,
            "contempt": self.agent.contempt,
            "opening_plies": self.games.opening_plies,
            "openings": self.games.openings,
            "games": self.games.games,
        }
