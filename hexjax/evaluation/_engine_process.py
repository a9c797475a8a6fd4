"""An engine's process: lines written to its stdin, lines read from its stdout by a thread with
a timeout, its last stderr lines kept for the message when it fails."""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import shlex
import subprocess
import threading
import time

_STDERR_LINES = 20  # kept for error messages


class EngineFailure(Exception):
    """The engine failed: `kind` is 'died', 'timeout', 'bad answer' or 'refused'."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


class EngineProcess:
    """An engine process: lines written to its stdin, lines read from its stdout with a
    timeout (a reader thread queues them), the tail of its stderr kept for messages."""

    def __init__(self, argv: list[str]):
        self.argv = argv
        try:
            self.popen = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                bufsize=1,
                start_new_session=True,  # Ctrl-C in the terminal stops us, not it mid-answer
            )
        except OSError as error:
            raise EngineFailure("died", f"cannot start {shlex.join(argv)}: {error}") from None
        self.lines: queue.Queue = queue.Queue()
        self.stderr: collections.deque = collections.deque(maxlen=_STDERR_LINES)
        self.pumps = [
            threading.Thread(target=self._pump, args=(stream, put, closing), daemon=True)
            for stream, put, closing in ((self.popen.stdout, self.lines.put, True),
                                         (self.popen.stderr, self.stderr.append, False))
        ]  # fmt: skip
        for pump in self.pumps:
            pump.start()

    @staticmethod
    def _pump(stream, put, closing: bool) -> None:
        """Copy lines from `stream` until it closes; then, with `closing`, put None: the
        process is gone."""
        try:
            for line in iter(stream.readline, ""):
                put(line.rstrip("\r\n"))
        except (OSError, ValueError):  # closed under us by `close`
            pass
        if closing:
            put(None)

    def send(self, line: str) -> None:
        try:
            self.popen.stdin.write(line + "\n")
            self.popen.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise EngineFailure("died", self._gone(f"while sending {line!r}")) from None

    def read(self, deadline: float, waiting_for: str) -> str:
        """The next line of stdout, before `deadline` (time.monotonic)."""
        try:
            line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise EngineFailure("timeout", f"no answer to {waiting_for!r} in time") from None
        if line is None:
            raise EngineFailure("died", self._gone(f"while answering {waiting_for!r}"))
        return line

    def _gone(self, when: str) -> str:
        try:
            code = self.popen.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        self.pumps[1].join(timeout=1.0)  # its last words on stderr
        said = " | ".join(line for line in self.stderr if line.strip())[-400:]
        status = "closed its output" if code is None else f"exited with code {code}"
        return f"the engine {status} {when}" + (f"; its last words: {said}" if said else "")

    def close(self, goodbye: str | None) -> None:
        """Say goodbye, give it a moment, then kill it."""
        if self.popen.poll() is None and goodbye is not None:
            try:
                self.send(goodbye)
                self.popen.wait(timeout=2.0)
            except (EngineFailure, subprocess.TimeoutExpired):
                pass
        if self.popen.poll() is None:
            try:
                os.killpg(self.popen.pid, 9)
            except OSError:
                self.popen.kill()
            self.popen.wait()
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            with contextlib.suppress(OSError):
                stream.close()
