"""Engines thinking on the opponent's time: their commands read on a thread of their own.

With --ponder an engine answers a command and then grows its kept tree (`SearchClock.ponder`)
until the next command arrives. `CommandLines(input)` reads the input on a daemon thread into a
queue, so that the engine's own thread can search and look between two chunks whether a line
is waiting; iterating it gives the lines as `iter(input.readline, "")` does.
"""

from __future__ import annotations

import queue
import threading
from typing import TextIO


class CommandLines:
    """The lines of `input`, read ahead on a thread: `waiting()` says whether one has come."""

    def __init__(self, input: TextIO):
        self._lines: queue.Queue = queue.Queue()
        reader = threading.Thread(target=self._read, args=(input,), name="input", daemon=True)
        reader.start()

    def _read(self, input: TextIO) -> None:
        try:
            for line in iter(input.readline, ""):
                self._lines.put(line)
        finally:
            self._lines.put(None)  # the end of the input (or a read that failed)

    def __iter__(self) -> CommandLines:
        return self

    def __next__(self) -> str:
        line = self._lines.get()
        if line is None:
            self._lines.put(None)  # ended for every later call too
            raise StopIteration
        return line

    def waiting(self) -> bool:
        return not self._lines.empty()
