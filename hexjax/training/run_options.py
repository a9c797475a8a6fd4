"""A training run's options: its budget (minutes, iterations, or on a resume the rest of the
run's own, which every checkpoint records as the point where it ends) and its evaluation and
checkpoint cadence."""

from __future__ import annotations

import dataclasses

CADENCE_FIELDS = (
    "eval_every",
    "eval_games",
    "checkpoint_every",
    "checkpoint_minutes",
    "keep_checkpoints",
)


DEFAULT_MINUTES = 5.0  # a new run's budget when it is given none


@dataclasses.dataclass(frozen=True)
class RunOptions:
    # This command's budget; neither: DEFAULT_MINUTES, or on resume the rest of the run's own.
    minutes: float | None = None  # wall-clock budget, compilation included
    iterations: int | None = None  # or a number of iterations (both: whichever ends first)
    checkpoint_every: int = 50  # iterations
    checkpoint_minutes: float = 5.0
    keep_checkpoints: int = 5  # the newest ones; older ones are deleted
    eval_every: int = 25  # iterations; 0: never
    eval_games: int = 64
    resume: bool = False
    step: int | None = None  # with resume: the checkpoint to continue (default: newest readable)
    quiet: bool = False

    def __post_init__(self):
        if self.minutes is not None and self.minutes <= 0:
            raise ValueError(f"--minutes must be positive, got {self.minutes}")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError(f"--iterations must be at least 1, got {self.iterations}")
        if self.eval_games < 2 or self.eval_games % 2:
            raise ValueError(f"eval games must be even and at least 2, got {self.eval_games}")
        if self.keep_checkpoints < 1:
            raise ValueError(f"--keep-checkpoints must be at least 1, got {self.keep_checkpoints}")
        if self.step is not None and not self.resume:
            raise ValueError("--step picks the checkpoint to resume: give it with --resume")

    @property
    def has_budget(self) -> bool:
        return self.minutes is not None or self.iterations is not None

    def ends(self, iteration: int, elapsed_seconds: float) -> dict:
        """This budget as the point where the run stops, for a run at `iteration` after
        `elapsed_seconds` of training: what a checkpoint records."""
        seconds = None if self.minutes is None else self.minutes * 60
        return {
            "iteration": None if self.iterations is None else iteration + self.iterations,
            "elapsed_seconds": None if seconds is None else elapsed_seconds + seconds,
        }

    def budgeted(self, ends: dict | None, iteration: int, elapsed_seconds: float) -> RunOptions:
        """These options with a budget: their own; else, on a resume, the rest of the run's
        (`ends`, from its checkpoint); else DEFAULT_MINUTES (a new run, or a checkpoint older
        than the budget's record)."""
        if self.has_budget:
            return self
        if ends is None:
            return dataclasses.replace(self, minutes=DEFAULT_MINUTES)
        left = {}
        if ends.get("iteration") is not None:
            left["iterations"] = ends["iteration"] - iteration
        if ends.get("elapsed_seconds") is not None:
            left["minutes"] = (ends["elapsed_seconds"] - elapsed_seconds) / 60
        if not left or min(left.values()) <= 0:
            raise ValueError(
                f"this run has already spent its budget ({_described(ends)}; it is at iteration "
                f"{iteration} after {elapsed_seconds / 60:.1f} minutes): give --iterations or "
                "--minutes to train it further"
            )
        return dataclasses.replace(self, **left)


def _described(ends: dict) -> str:
    parts = []
    if ends.get("iteration") is not None:
        parts.append(f"to iteration {ends['iteration']}")
    if ends.get("elapsed_seconds") is not None:
        parts.append(f"{ends['elapsed_seconds'] / 60:.1f} minutes of training")
    return " or ".join(parts)


# The cadence defaults, as RunOptions declares them.
CADENCE = {f.name: f.default for f in dataclasses.fields(RunOptions) if f.name in CADENCE_FIELDS}
