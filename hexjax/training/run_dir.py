"""A training run's directory: every file a run writes or reads, named in this one place.

config.json      the run's config, as trained (a resumed run keeps it)
cadence.json     evaluation and checkpoint cadence, kept on --resume
devices.json     the devices it last ran on (a resumed CPU run splits the CPU the same way)
origin.json      the runs its network started from (--init-from)
metrics.jsonl    one record per iteration; metrics.superseded.jsonl: those a resume dropped
tensorboard/     the same metrics as TensorBoard events
checkpoints/     Orbax checkpoints; unreadable-checkpoints/, superseded-checkpoints/: set aside
plots/           loss and score curves
evaluation.json  the last `evaluate.py` record
"""

from __future__ import annotations

import dataclasses
import pathlib


@dataclasses.dataclass(frozen=True)
class RunDir:
    path: pathlib.Path

    def __init__(self, path) -> None:
        object.__setattr__(self, "path", pathlib.Path(path))

    def __str__(self) -> str:
        return str(self.path)

    @property
    def config(self) -> pathlib.Path:
        return self.path / "config.json"

    @property
    def cadence(self) -> pathlib.Path:
        return self.path / "cadence.json"

    @property
    def devices(self) -> pathlib.Path:
        return self.path / "devices.json"

    @property
    def origin(self) -> pathlib.Path:
        return self.path / "origin.json"

    @property
    def metrics(self) -> pathlib.Path:
        return self.path / "metrics.jsonl"

    @property
    def superseded_metrics(self) -> pathlib.Path:
        return self.path / "metrics.superseded.jsonl"

    @property
    def tensorboard(self) -> pathlib.Path:
        return self.path / "tensorboard"

    @property
    def checkpoints(self) -> pathlib.Path:
        return self.path / "checkpoints"

    @property
    def unreadable_checkpoints(self) -> pathlib.Path:
        return self.path / "unreadable-checkpoints"

    @property
    def superseded_checkpoints(self) -> pathlib.Path:
        return self.path / "superseded-checkpoints"

    @property
    def plots(self) -> pathlib.Path:
        return self.path / "plots"

    @property
    def score_plot(self) -> pathlib.Path:
        return self.plots / "evaluation.png"

    @property
    def curve_plot(self) -> pathlib.Path:
        return self.plots / "curve.png"

    @property
    def elo_plot(self) -> pathlib.Path:
        return self.plots / "elo.png"

    @property
    def evaluation(self) -> pathlib.Path:
        return self.path / "evaluation.json"

    def records(self, opponent: str) -> pathlib.Path:
        """The moves of the games against `opponent` (a file-name-safe label)."""
        return self.path / "records" / f"{opponent}.txt"
