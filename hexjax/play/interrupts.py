"""Ctrl-C that is never lost.

Python raises a SIGINT as KeyboardInterrupt in whatever Python code the main thread runs next.
When that code is a garbage collector callback (JAX registers one, `_xla_gc_callback`), the
exception cannot propagate: Python prints "Exception ignored in ..." and the Ctrl-C is gone, so
a long search runs on and an engine waits for its next command instead of exiting. `install()`
catches exactly that case and has another thread send the signal again a moment later: raised
in the hook itself it would be swallowed the same way (the hook runs inside the collector too),
and a real signal also wakes a blocking read such as the engine's next command.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

RESEND_AFTER_S = 0.02
_installed = False


def install() -> None:
    """Re-deliver a Ctrl-C that a garbage collector callback swallowed (once per process)."""
    global _installed
    if _installed:
        return
    _installed = True
    previous = sys.unraisablehook

    def hook(unraisable) -> None:
        lost = isinstance(unraisable.exc_value, KeyboardInterrupt)
        if lost and threading.current_thread() is threading.main_thread():
            threading.Thread(target=_send_again, name="ctrl-c", daemon=True).start()
            return
        previous(unraisable)

    sys.unraisablehook = hook


def _send_again() -> None:
    time.sleep(RESEND_AFTER_S)  # by then the collector has finished
    os.kill(os.getpid(), signal.SIGINT)
