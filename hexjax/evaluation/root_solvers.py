"""The exact solver an engine asks first, before its search, where the game has one.

`root_solver(game)` gives `solve(board, to_play, deadline)` -> `Proven` (a move proven to win, and
the winner's moves to the end where the solver knows them), or None (no such move, none this
solver can prove, or none proven by `deadline`, a `time.monotonic()` time): Hex up to 7x7 is
solved outright (hex_solver.py); five in a row (Gomoku and renju) looks for a win by continuous
threats (fours, then threes: vct.py). `move_screen(game)` gives, for
five in a row, `loses(board, to_play, move, deadline)`: whether the move lets the opponent win
by fours (or threats found in time), which an engine checks of its searched
move before playing it; it raises OutOfTime past `deadline` before the fours are settled (no
answer is not "safe"); `first_safe` asks it of an engine's likeliest moves in turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from hexjax.evaluation import hex_solver, vcf, vct
from hexjax.evaluation.hex_solver import OutOfTime
from hexjax.games.gomoku import Gomoku
from hexjax.games.hex import Hex

__all__ = ["OutOfTime", "Proven", "first_safe", "move_screen", "root_solver"]


class Proven(NamedTuple):
    move: int  # a move that wins against every defence
    moves_to_win: int | None  # the winner's moves to the end, this one included (None: unknown)


def has_root_solver(game) -> bool:
    """Whether `root_solver` has one for `game`: Hex up to 7x7 without swap, five in a row."""
    return (hex_solver.solves(game) and not game.swap) or _five_in_a_row(game)


def has_move_screen(game) -> bool:
    """Whether `move_screen` has one for `game`: five in a row."""
    return _five_in_a_row(game)


def _five_in_a_row(game) -> bool:
    return isinstance(game, Gomoku) and game.win_length == vcf.K


def root_solver(game) -> Callable | None:
    """The game's root solver (kept between calls: its tables last), or None where there is
    none: Hex with swap or over 7x7, Othello, Gomoku other than five in a row."""
    if not has_root_solver(game):
        return None
    if isinstance(game, Hex):
        solver = hex_solver.HexSolver(game.size)

        def solve_hex(board, to_play, deadline=None):
            move = solver.winning_move(board, to_play, deadline)
            return None if move is None else Proven(move, None)

        return _in_time(solve_hex)
    threats = vct.VctSolver(game)

    def solve_threats(board, to_play, deadline=None):
        found = threats.win(board, to_play, deadline)
        return None if found is None else Proven(*found)

    return _in_time(solve_threats)


def _in_time(solve: Callable) -> Callable:
    """`solve`, None where its deadline passed first."""

    def solve_in_time(board, to_play, deadline=None):
        try:
            return solve(board, to_play, deadline)
        except OutOfTime:
            return None

    return solve_in_time


def move_screen(game) -> Callable | None:
    """For five in a row, `loses(board, to_play, move, deadline)` of a solver kept between calls:
    whether the move lets the opponent win by continuous fours, or by continuous threats found
    in time; None for other games (in Hex one side always
    has a winning move: no screen)."""
    if not has_move_screen(game):
        return None
    return vct.VctSolver(game).loses_to_threats


def first_safe(loses: Callable, board, to_play: int, moves, deadline: float) -> int | None:
    """The first of `moves` that the screen `loses` clears by `deadline`; None where every one
    loses, or time ran out before one was cleared."""
    for move in moves:
        try:
            if not loses(board, to_play, move, deadline):
                return move
        except OutOfTime:
            return None
    return None
