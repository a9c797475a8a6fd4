"""A progress line on stderr, shared by the training loop and the evaluation command: redrawn in
place on a terminal; written to a file or a pipe, a plain line every `every` seconds and the
last one at the end (a log of carriage returns is one unreadable line)."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hexjax.training.algorithms import Trainer


class ProgressLine:
    def __init__(self, every: float = 10.0, stream=None):
        self.every = every
        self.stream = sys.stderr if stream is None else stream
        self.live = self.stream.isatty()
        self._last_written: float | None = None
        self._pending: str | None = None

    def update(self, line: str) -> None:
        if self.live:
            print(f"\r\033[K{line}", end="", file=self.stream, flush=True)
            return
        now = time.monotonic()
        if self._last_written is None or now - self._last_written >= self.every:
            print(line, file=self.stream, flush=True)
            self._last_written, self._pending = now, None
        else:
            self._pending = line

    def close(self, clear: bool = False) -> None:
        """End the line (on a terminal; with `clear`, erase it) or write the last update that
        was held back."""
        if self.live:
            print("\r\033[K" if clear else "", end="" if clear else "\n", file=self.stream)
        elif self._pending is not None:
            print(self._pending, file=self.stream, flush=True)
        self._last_written, self._pending = None, None


def format_seconds(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    return f"{seconds // 60}:{seconds % 60:02d}"


class RunProgress:
    """The run's progress line (`ProgressLine`: in place on a terminal, plain lines elsewhere)."""

    def __init__(self, options, trainer: Trainer, every: float = 10.0):
        """`options`: the run's `loop.RunOptions` (its budget)."""
        self.options, self.trainer = options, trainer
        self.line = ProgressLine(every)

    def update(self, record: dict, seconds: float, iterations: int) -> None:
        self.line.update(_progress_line(record, self.options, seconds, iterations, self.trainer))

    def close(self) -> None:
        self.line.close()


def _progress_line(record, options, seconds, iterations, trainer) -> str:
    if options.minutes is not None:
        fraction = seconds / (options.minutes * 60)
    else:
        fraction = iterations / options.iterations
    if options.iterations is not None and options.minutes is not None:
        fraction = max(fraction, iterations / options.iterations)
    eta = seconds / max(fraction, 1e-9) - seconds
    width = 20
    bar = "#" * int(width * min(fraction, 1)) + "-" * (width - int(width * min(fraction, 1)))
    line = (
        f"[{bar}] it {record['iteration']} {format_seconds(seconds)} "
        f"ETA {format_seconds(eta)} | {record['positions_per_second']:.0f} pos/s |"
    )
    line += " ".join(f" {label} {record[name]:.2f}" for name, label in trainer.progress)
    for name in ("random", "greedy"):
        if f"vs_{name}" in record:
            line += f" | vs {name} {100 * record[f'vs_{name}']:.0f}%"
    return line
