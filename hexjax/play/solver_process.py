"""The engines' exact solvers on a process of their own, beside the search: the root solver, and
the screen of a searched move.

The root solvers (`evaluation/root_solvers.py`) are Python: on a thread beside the search they
hold the interpreter's lock, which the search needs between its chunks, and the search slowed
to a small part of its rate (docs/play.md). So they run in one process for the whole engine,
started on the cores the search leaves (`play/cores.py`), Ctrl-C left to the engine. `solve`
hands it a position and returns a future of the solver's answer; the process keeps a solver for
each game it was asked about, so that their tables last the session. One request runs at a
time: a move's solve may wait behind the last move's, and each stops at its deadline
(time.monotonic(), the same clock in both processes). A process that died is started again at
the next request (the request it died on fails: its move goes to the search).
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import functools
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable

import numpy as np

from hexjax.evaluation import root_solvers
from hexjax.games import GameConfig
from hexjax.play import compile_cache, cores

_pool: concurrent.futures.ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()


def _started(spare: frozenset[int]) -> None:
    """In the solver's process, first: Ctrl-C is the engine's to handle (a terminal sends it to
    both); the spare cores, before JAX (renju's reading) starts threads here; the engine's
    compilation cache."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if spare:
        os.sched_setaffinity(0, spare)
    compile_cache.enable()  # what the solvers compile (renju's reading) is kept as the engine's


@functools.cache
def _game_here(game: GameConfig):
    """In the solver's process, one game object a config: its solvers share what it compiled
    (renju's reading)."""
    return game.make()


@functools.cache
def _solver_here(make_solver: Callable, game: GameConfig) -> Callable:
    """In the solver's process, one solver a factory and game, kept (its tables last)."""
    return make_solver(_game_here(game))


def _ready_here(make_solver: Callable, game: GameConfig) -> None:
    _solver_here(make_solver, game)


def _solve_here(make_solver: Callable, game: GameConfig, board, to_play: int, deadline):
    return _solver_here(make_solver, game)(board, to_play, deadline)


def _screen_here(make_screen: Callable, game: GameConfig, board, to_play: int, moves, deadline):
    return root_solvers.first_safe(_solver_here(make_screen, game), board, to_play, moves, deadline)


def _submit(work: Callable, *args) -> concurrent.futures.Future:
    """`work(*args)` in the solver's process; a process that died (killed, out of memory) is
    started again."""
    global _pool
    with _pool_lock, _on_spare_cores():
        for _ in range(2):
            if _pool is None:
                # spawn: a fork would copy JAX's threads and locks mid-use.
                _pool = concurrent.futures.ProcessPoolExecutor(
                    1, multiprocessing.get_context("spawn"), _started, (cores.spare(),)
                )  # fmt: skip
            try:
                return _pool.submit(work, *args)  # the process starts here, the first time
            except concurrent.futures.BrokenExecutor:
                _pool = None
        raise AssertionError("a new pool refused its first task")  # unreachable


@contextlib.contextmanager
def _on_spare_cores():
    """This thread on the spare cores for a while: a process started now starts there, and its
    start (importing Python, NumPy, JAX: seconds) stays off the search's core."""
    before, spare = os.sched_getaffinity(0), cores.spare()
    if spare:
        os.sched_setaffinity(0, spare)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


@atexit.register
def _stop() -> None:
    """Stop the process before the interpreter's teardown (left to the executor's own clean-up
    then, it prints an ignored exception): a solve under way ends at its deadline."""
    if _pool is not None:
        _pool.shutdown(wait=True, cancel_futures=True)


def prepare(make_solver: Callable, game: GameConfig) -> concurrent.futures.Future:
    """Start the process, and the game's solver in it (what it compiles, compiled), without
    waiting for them: an engine calls this when it readies a game."""
    return _submit(_ready_here, make_solver, game)


def solve(make_solver: Callable, game: GameConfig, board: np.ndarray, to_play: int,
          deadline: float) -> concurrent.futures.Future:  # fmt: skip
    """The future answer of `make_solver(game.make())(board, to_play, deadline)`."""
    return _submit(_solve_here, make_solver, game, np.asarray(board), to_play, deadline)


def screen(make_screen: Callable, game: GameConfig, board: np.ndarray, to_play: int,
           moves: list[int], deadline: float) -> concurrent.futures.Future:  # fmt: skip
    """The future answer of `root_solvers.first_safe(make_screen(game.make()), board, to_play,
    moves, deadline)`: the first of `moves` that does not lose (None: none cleared in time)."""
    return _submit(_screen_here, make_screen, game, np.asarray(board), to_play, moves, deadline)
