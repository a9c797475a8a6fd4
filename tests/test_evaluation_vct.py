"""hexjax.evaluation.vct against brute force: every win it claims (freestyle, standard, renju) is
checked against every reply by the plain-Python checker (tests/support/puzzle_checker.py, which
imports nothing of hexjax), and the checker's quiet five-ply wins are found."""

import itertools
import random
import time

import numpy as np
import pytest
from support import puzzle_checker as checker
from support import puzzle_generator, renju_oracle

from hexjax.evaluation import root_solvers
from hexjax.evaluation.root_solvers import OutOfTime
from hexjax.evaluation.vct import VctSolver
from hexjax.games import make

N = 15


def game_positions(rule: str, count: int, seed: int):
    """Every third position of the checker's own heuristic games (both sides to move)."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        for board, to_play in itertools.islice(puzzle_generator.play_game(rule, rng), 0, None, 3):
            positions.append((board, to_play))
    return positions[:count]


def wins_after_every_reply(board, attacker: int, move: int, rule: str, plies: int) -> bool:
    """Brute force: after `move`, whatever the defender plays (the block, if `move` is a four;
    else any empty point), the attacker wins by continuous fours within `plies`."""
    r, c = divmod(move, N)
    assert checker.may_play(board, r, c, attacker, rule), "renju: Black's move is forbidden"
    board = [row[:] for row in board]
    board[r][c] = attacker + 1
    fives = checker.five_points(board, attacker, rule)
    if len(fives) > 1:
        return True
    replies = fives or {(i, j) for i in range(N) for j in range(N) if board[i][j] == 0}
    for i, j in replies:
        board[i][j] = 2 - attacker
        try:
            if not checker.attacker_wins(board, attacker, plies, rule):
                return False
        finally:
            board[i][j] = 0
    return True


def claimed_threat_wins(rule: str, count: int, seed: int):
    """(board, attacker, (move, moves to win)) where the solver, one threat then continuous fours
    of at most three moves, claims a win that continuous fours alone do not have."""
    solver = VctSolver(make("gomoku", size=N, rule=rule), max_threats=1, threat_fours=3)
    for board, attacker in game_positions(rule, count, seed):
        array = np.asarray(board, np.int8)
        if solver.proof(array, attacker) is None:
            found = solver.win(array, attacker)
            if found is not None:
                yield board, attacker, found


def check_claims(rule: str, count: int, seed: int) -> int:
    claims = 0
    for board, attacker, (move, moves) in claimed_threat_wins(rule, count, seed):
        assert wins_after_every_reply(board, attacker, move, rule, plies=5), (board, attacker, move)
        assert 2 <= moves <= 4  # the threat, then a five in one to three more moves
        claims += 1
    return claims


def test_every_claimed_threat_win_holds_against_every_reply():
    assert check_claims("freestyle", 30, seed=1) >= 2


def test_every_claimed_renju_threat_win_holds_against_every_reply():
    """Renju, both sides attacking: Black's threats never on a forbidden point (the oracle's),
    and each claim holds against every reply, whatever it does to Black's forbidden points."""
    assert check_claims("renju", 30, seed=11) >= 2


@pytest.mark.slow
@pytest.mark.parametrize(
    ("rule", "seed"),
    [("freestyle", 2), ("standard", 3), ("standard", 4), ("renju", 9), ("renju", 12)],
)
def test_every_claimed_threat_win_holds_on_more_games(rule, seed):
    assert check_claims(rule, 60, seed) >= 1


@pytest.mark.slow
def test_finds_the_checker_s_quiet_five_ply_wins():
    """Where the checker finds a quiet move that wins within five plies against every reply, the
    solver finds a win of one threat (not necessarily that move); where it finds none and no
    continuous fours win, the solver claims none of that length."""
    solver = VctSolver(make("gomoku", size=N, rule="freestyle"), max_threats=1, threat_fours=2)
    quiet_wins = 0
    for board, attacker in game_positions("freestyle", 40, seed=5):
        array = np.asarray(board, np.int8)
        if solver.proof(array, attacker) is not None:
            continue
        if checker.five_points(board, 1 - attacker, "freestyle"):
            continue
        quiet = checker.quiet_wins_within_five([row[:] for row in board], attacker, "freestyle")
        found = solver.win(array, attacker)
        assert (found is not None) == bool(quiet), (board, attacker, quiet, found)
        quiet_wins += bool(quiet)
    assert quiet_wins >= 1


def test_a_double_three_wins_and_is_what_the_root_solver_plays():
    """Two open twos crossing at an empty point: the move there makes two open threes, a win in
    four moves (the threat, an open four, the five) that no continuous fours give."""
    board = np.zeros((N, N), np.int8)
    board[7, 5] = board[7, 6] = 1  # a row: . X X + . with the crossing at (7, 8)
    board[5, 8] = board[6, 8] = 1  # a column through the same point
    board[0, 0] = board[0, 14] = board[14, 0] = board[14, 14] = 2
    game = make("gomoku", size=N, rule="freestyle")
    solver = VctSolver(game, max_threats=1)
    assert solver.proof(board, 0) is None
    move, moves = solver.win(board, 0)
    assert moves == 4 and wins_after_every_reply(board.tolist(), 0, move, "freestyle", plies=5)
    assert root_solvers.root_solver(game)(board, 0) == root_solvers.Proven(move, 4)
    assert solver.win(board, 1) is None  # White has nothing


def test_a_four_of_the_defender_s_stops_the_threats():
    board = np.zeros((N, N), np.int8)
    board[7, 5] = board[7, 6] = board[5, 8] = board[6, 8] = 1
    board[12, 2:6] = 2  # White has four in a row with an open end: Black must block
    board[12, 1] = 1
    assert VctSolver(make("gomoku", size=N, rule="freestyle")).win(board, 0) is None


def test_renju_black_may_not_win_by_a_double_three_white_may():
    """The crossing twos in renju: Black's double three is forbidden (the oracle agrees), so
    no threat wins for Black; the same stones White's win as in freestyle."""
    board = np.zeros((N, N), np.int8)
    board[7, 5] = board[7, 6] = board[5, 8] = board[6, 8] = 1
    board[0, 0] = board[0, 14] = board[14, 0] = board[14, 14] = 2
    assert renju_oracle.is_forbidden(board.tolist(), 7, 8)
    solver = VctSolver(make("gomoku", size=N, rule="renju"), max_threats=1)
    assert solver.win(board, 0) is None
    white = np.where(board == 0, 0, 3 - board).astype(np.int8)
    move, moves = solver.win(white, 1)
    assert moves == 4 and wins_after_every_reply(white.tolist(), 1, move, "renju", plies=5)


def test_naive_threes_bound_the_oracle_s_threes():
    """`_naive_threes` (where a White reply could make a Black four forbidden) is at least the
    oracle's open threes at every empty point of renju game positions."""
    solver = VctSolver(make("gomoku", size=N, rule="renju"))
    points = 0
    for board, _ in game_positions("renju", 12, seed=9):
        cells = solver._cells(np.asarray(board, np.int8))
        for point in np.flatnonzero(cells[:-1] == 0):
            r, c = divmod(int(point), N)
            threes = renju_oracle.count_open_threes(board, r, c)
            assert solver._naive_threes(cells, int(point)) >= threes, (board, r, c)
            points += threes > 0
    assert points >= 20


def test_a_passed_deadline_raises():
    board = np.zeros((N, N), np.int8)
    board[7, 5] = board[7, 6] = board[5, 8] = board[6, 8] = 1
    solver = VctSolver(make("gomoku", size=N, rule="freestyle"))
    with pytest.raises(OutOfTime):
        solver.win(board, 0, deadline=time.monotonic() - 1.0)
    assert solver.win(board, 0, deadline=time.monotonic() + 600) is not None


def test_the_screen_sees_a_move_that_allows_a_double_three():
    """White to move against Black's two crossing twos: a move far away lets Black win by
    threats (not by fours); taking the crossing point does not."""
    board = np.zeros((N, N), np.int8)
    board[7, 5] = board[7, 6] = board[5, 8] = board[6, 8] = 1
    board[0, 0] = board[0, 14] = board[14, 0] = 2
    game = make("gomoku", size=N, rule="freestyle")
    screen = root_solvers.move_screen(game)
    far, crossing = 14 * N + 14, 7 * N + 8
    solver = VctSolver(game)
    assert not solver.loses_to_fours(board, 1, far)
    assert screen(board, 1, far) and solver.loses_to_threats(board, 1, far)
    assert not screen(board, 1, crossing)
    with pytest.raises(OutOfTime):  # the fours are settled first, or no answer
        screen(board, 1, far, time.monotonic() - 1.0)
