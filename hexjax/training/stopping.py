"""Stopping a run cleanly: signals turned into a request to stop between iterations, and the
exception that says the run stopped after saving."""

from __future__ import annotations

import signal
import sys
import threading


class Stopped(Exception):
    """The run was stopped by a signal after saving its checkpoint; `signum` names the signal."""

    def __init__(self, signum: int, iteration: int):
        self.signum = signum
        self.iteration = iteration
        name = signal.Signals(signum).name
        super().__init__(f"stopped by {name}; saved a checkpoint at iteration {iteration}")


class StopRequests:
    """Turns SIGINT, SIGTERM and SIGHUP into a request to stop between iterations.

    Installed even where the signal was ignored: a trainer started with `cmd &` from a script
    inherits an ignored SIGINT and would otherwise never save on Ctrl-C or `kill -INT`. SIGHUP
    stays ignored under nohup. A second SIGINT raises KeyboardInterrupt for an immediate stop.
    """

    def __init__(self):
        self.signum: int | None = None
        self._previous: dict[int, object] = {}

    def __enter__(self):
        if threading.current_thread() is not threading.main_thread():
            return self  # signal handlers can only be set from the main thread
        for signum in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)):
            if signum is None:
                continue
            previous = signal.getsignal(signum)
            if signum == getattr(signal, "SIGHUP", None) and previous == signal.SIG_IGN:
                continue
            self._previous[signum] = previous
            signal.signal(signum, self._request)
        return self

    def __exit__(self, *exc):
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)

    def _request(self, signum, frame):
        if self.signum is not None and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.signum = self.signum or signum
        name = signal.Signals(signum).name
        print(f"\n{name}: stopping after this iteration to save a checkpoint", file=sys.stderr)
