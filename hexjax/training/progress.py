"""A progress line on stderr, shared by the training loop and the evaluation command: redrawn in
place on a terminal; written to a file or a pipe, a plain line every `every` seconds and the
last one at the end (a log of carriage returns is one unreadable line)."""

from __future__ import annotations

import sys
import time


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
