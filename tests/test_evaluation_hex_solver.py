"""hexjax.hex_solver against hand-checked positions and a plain minimax written from the rules.

Boards are drawn as in hexjax.games.hex, each row shifted right: X is player 0 (joins top to
bottom), O is player 1 (joins left to right). Neighbours of (r, c): (r-1, c) (r-1, c+1)
(r, c-1) (r, c+1) (r+1, c-1) (r+1, c).
"""

import time

import numpy as np
import pytest
from support.hex_oracle import connects

from hexjax.evaluation.hex_solver import HexSolver, OutOfTime
from hexjax.evaluation.solver_accuracy import accuracy

STONES = {".": 0, "X": 1, "O": 2}


def board_from(picture: str) -> np.ndarray:
    """int8[n, n] from rows of `.`, `X`, `O` separated by spaces."""
    rows = [line.split() for line in picture.strip().splitlines()]
    return np.array([[STONES[cell] for cell in row] for row in rows], dtype=np.int8)


def brute_force_wins(board: list[list[int]], player: int) -> bool:
    """Plain minimax: `player` wins iff some empty cell either joins its edges at once or
    leaves a position the opponent, moving next, does not win. No pruning, no table."""
    n = len(board)
    for r in range(n):
        for c in range(n):
            if board[r][c] == 0:
                board[r][c] = player + 1
                won = connects(board, player) or not brute_force_wins(board, 1 - player)
                board[r][c] = 0
                if won:
                    return True
    return False


def brute_force_winning_moves(board: np.ndarray, player: int) -> frozenset[int]:
    """The actions after which `player` wins, each settled by `brute_force_wins`."""
    cells = board.tolist()
    n = len(cells)
    winning = set()
    for action in range(n * n):
        r, c = divmod(action, n)
        if cells[r][c] == 0:
            cells[r][c] = player + 1
            if connects(cells, player) or not brute_force_wins(cells, 1 - player):
                winning.add(action)
            cells[r][c] = 0
    return frozenset(winning)


def random_partial_games(size: int, stone_counts: range, count: int, seed: int):
    """(board, player to move) after random legal moves from the empty board, unfinished."""
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        stones = int(rng.choice(stone_counts))
        board = np.zeros(size * size, dtype=np.int8)
        for turn, cell in enumerate(rng.permutation(size * size)[:stones]):
            board[cell] = 1 + turn % 2
        board = board.reshape(size, size)
        cells = board.tolist()
        if not (connects(cells, 0) or connects(cells, 1)):
            positions.append((board, stones % 2))
    return positions


def nearly_full_boards(size: int, empty_cells: int, count: int, seed: int):
    """(board, player to move) with `empty_cells` empty cells and no one connected: random
    alternate moves that skip any cell where the stone would connect."""
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        cells = [[0] * size for _ in range(size)]
        player = 0
        for action in rng.permutation(size * size):
            r, c = divmod(int(action), size)
            cells[r][c] = player + 1
            if connects(cells, player):
                cells[r][c] = 0  # stays empty: a winning move for that player later
            else:
                player = 1 - player
        board = np.array(cells, dtype=np.int8)
        stones = np.flatnonzero(board)
        # Empty a few more random cells, whoever's they were, to reach the target.
        extra = int((board == 0).sum()) - empty_cells
        if extra <= 0:
            board.flat[rng.choice(stones, -extra, replace=False)] = 0
            positions.append((board, int(rng.integers(2))))
    return positions


# INPUT CHECKS


@pytest.mark.parametrize("size", [-1, 0, 1, 8, 11, 4.5])
def test_sizes_other_than_2_to_7_are_refused(size):
    with pytest.raises(ValueError, match="size"):
        HexSolver(size)


def test_a_board_of_the_wrong_shape_is_refused():
    solver = HexSolver(3)
    with pytest.raises(ValueError, match="shape"):
        solver.wins(np.zeros((4, 4), dtype=np.int8), 0)
    with pytest.raises(ValueError, match="shape"):
        solver.winning_moves(np.zeros(9, dtype=np.int8), 0)


def test_board_values_other_than_0_1_2_are_refused():
    board = np.zeros((3, 3), dtype=np.int8)
    board[1, 1] = 3
    with pytest.raises(ValueError, match="values"):
        HexSolver(3).wins(board, 0)
    board[1, 1] = -1
    with pytest.raises(ValueError, match="values"):
        HexSolver(3).winning_moves(board, 0)


@pytest.mark.parametrize("to_play", [-1, 2, 0.5, True])
def test_a_player_other_than_0_or_1_is_refused(to_play):
    with pytest.raises(ValueError, match="to_play"):
        HexSolver(3).wins(np.zeros((3, 3), dtype=np.int8), to_play)


# HAND-CHECKED POSITIONS


def test_2x2_first_player_wins_from_the_two_obtuse_corners_only():
    # X at (0, 1) touches the top edge and both bottom cells (1, 0) and (1, 1): O blocks one,
    # X takes the other. (1, 0) is the same by a half turn. X at (0, 0) has one bottom
    # neighbour, (1, 0): O takes it and then joins the columns at (0, 1) or (1, 1), two cells
    # X cannot both block. (1, 1) is (0, 0) turned half a turn.
    empty = np.zeros((2, 2), dtype=np.int8)
    assert HexSolver(2).wins(empty, 0)
    assert HexSolver(2).winning_moves(empty, 0) == {1, 2}
    # Mirrored across the long diagonal, O moving first wins from the same two cells.
    assert HexSolver(2).winning_moves(empty, 1) == {1, 2}


def test_3x3_centre_wins_for_the_first_player():
    # X at (1, 1) has two empty cells above it, (0, 1) and (0, 2), each touching the top edge,
    # and two below, (2, 0) and (2, 1): X answers an O stone in either pair in the same pair.
    board = np.zeros((3, 3), dtype=np.int8)
    assert 4 in HexSolver(3).winning_moves(board, 0)
    board[1, 1] = 1
    assert not HexSolver(3).wins(board, 1)


def test_a_move_that_joins_the_edges_is_a_winning_move():
    # X's column 0 stones reach row 2; (3, 0) completes it.
    board = board_from(
        """
        X . . .
        X O . .
        X O . .
        . O . .
        """
    )
    assert HexSolver(4).wins(board, 0)
    assert 12 in HexSolver(4).winning_moves(board, 0)


def test_two_separate_immediate_threats_of_the_opponent_lose():
    # O joins the columns at (1, 3) or at (3, 3); X can stop only one, and X cannot join rows
    # 0 to 3 in one move (rows 1 and 3 each have a single empty cell).
    board = board_from(
        """
        X X X .
        O O O .
        X X . X
        O O O .
        """
    )
    assert not HexSolver(4).wins(board, 0)
    assert HexSolver(4).winning_moves(board, 0) == frozenset()
    assert HexSolver(4).wins(board, 1)
    assert HexSolver(4).winning_moves(board, 1) >= {7, 15}


def test_a_finished_game_is_won_by_the_player_who_connected():
    board = board_from(
        """
        O X .
        O X .
        . X .
        """
    )
    assert HexSolver(3).wins(board, 0)
    assert not HexSolver(3).wins(board, 1)
    assert HexSolver(3).winning_moves(board, 0) == frozenset()
    assert HexSolver(3).winning_moves(board, 1) == frozenset()


# AGAINST A PLAIN MINIMAX


def test_every_first_move_of_3x3_matches_the_brute_force():
    empty = np.zeros((3, 3), dtype=np.int8)
    for player in (0, 1):
        assert HexSolver(3).winning_moves(empty, player) == brute_force_winning_moves(empty, player)


def test_4x4_positions_with_6_to_10_stones_match_the_brute_force():
    solver = HexSolver(4)  # one table for all positions, as in use
    for board, player in random_partial_games(4, range(6, 11), count=40, seed=0):
        expected = brute_force_winning_moves(board, player)
        assert solver.winning_moves(board, player) == expected
        assert solver.wins(board, player) == bool(expected)


@pytest.mark.slow
def test_200_4x4_positions_with_4_to_10_stones_match_the_brute_force():
    solver = HexSolver(4)
    for board, player in random_partial_games(4, range(4, 11), count=200, seed=1):
        assert solver.winning_moves(board, player) == brute_force_winning_moves(board, player)


def test_5x5_positions_with_15_to_17_stones_match_the_brute_force():
    solver = HexSolver(5)
    for board, player in random_partial_games(5, range(15, 18), count=12, seed=3):
        assert solver.winning_moves(board, player) == brute_force_winning_moves(board, player)


@pytest.mark.slow
def test_50_5x5_positions_with_14_to_17_stones_match_the_brute_force():
    solver = HexSolver(5)
    for board, player in random_partial_games(5, range(14, 18), count=50, seed=4):
        assert solver.winning_moves(board, player) == brute_force_winning_moves(board, player)


@pytest.mark.parametrize("size", [6, 7])
def test_nearly_full_large_boards_match_the_brute_force(size):
    # Checks the bit layout on boards of up to 49 cells.
    for board, player in nearly_full_boards(size, empty_cells=7, count=3, seed=size):
        assert HexSolver(size).winning_moves(board, player) == brute_force_winning_moves(
            board, player
        )


def test_off_turn_4x4_positions_match_the_brute_force():
    # The solver takes any side to move, not only the one the stone counts imply.
    for board, player in random_partial_games(4, range(7, 11), count=20, seed=2):
        other = 1 - player
        assert HexSolver(4).winning_moves(board, other) == brute_force_winning_moves(board, other)


# KNOWN RESULTS


@pytest.mark.parametrize("size", [2, 3, 4, 5])
def test_the_first_player_wins_the_empty_board(size):
    empty = np.zeros((size, size), dtype=np.int8)
    assert HexSolver(size).wins(empty, 0)
    assert HexSolver(size).wins(empty, 1)


def test_the_centre_wins_the_empty_5x5():
    board = np.zeros((5, 5), dtype=np.int8)
    board[2, 2] = 1
    assert not HexSolver(5).wins(board, 1)


def test_4x4_winning_openings_are_the_short_diagonal():
    # The known 4x4 result: the four cells from (0, 3) to (3, 0) win, all others lose. (Also
    # checked while writing this test by a memoized minimax over all 4x4 positions, ~40 s.)
    empty = np.zeros((4, 4), dtype=np.int8)
    black = HexSolver(4).winning_moves(empty, 0)
    assert black == {3, 6, 9, 12}
    # Mirroring across the long diagonal, (r, c) -> (c, r), swaps the players' edges, and maps
    # the short diagonal onto itself.
    assert HexSolver(4).winning_moves(empty, 1) == {3, 6, 9, 12}


@pytest.mark.slow
def test_5x5_winning_openings_mirror_between_the_players_and_include_the_centre():
    empty = np.zeros((5, 5), dtype=np.int8)
    black = HexSolver(5).winning_moves(empty, 0)
    white = HexSolver(5).winning_moves(empty, 1)
    assert white == {(a % 5) * 5 + a // 5 for a in black}
    assert 12 in black
    # A half turn maps the board to itself with each player keeping their edges.
    assert black == {24 - a for a in black}


# ACCURACY


def test_accuracy_counts_only_positions_with_a_winning_move():
    empty = np.zeros((2, 2), dtype=np.int8)
    lost = board_from(
        """
        X .
        O O
        """
    )  # O joined the columns: X, to move, has no winning move
    result = accuracy(HexSolver(2), [empty, empty, lost], [0, 0, 0], [1, 0, 1])
    # Opening (0, 1) wins, opening (0, 0) loses (see the 2x2 test above).
    assert result == {"positions": 2, "correct": 1, "skipped": 1, "accuracy": 0.5}


def test_accuracy_needs_one_action_and_player_per_board():
    with pytest.raises(ValueError, match="same length"):
        accuracy(HexSolver(2), [np.zeros((2, 2), dtype=np.int8)], [0], [])


def test_accuracy_of_no_positions_is_zero():
    result = accuracy(HexSolver(3), [], [], [])
    assert result == {"positions": 0, "correct": 0, "skipped": 0, "accuracy": 0.0}


def test_winning_move_is_one_of_the_brute_force_winning_moves():
    # From 6 stones up: with fewer the unpruned brute force takes minutes (165 s from 4).
    solver = HexSolver(4)
    kinds = set()
    for board, player in random_partial_games(4, range(6, 11), count=40, seed=3):
        expected = brute_force_winning_moves(board, player)
        move = solver.winning_move(board, player)
        assert (move in expected) if expected else move is None, (board, player, move)
        kinds.add((bool(expected), len(expected) > 1))
    assert kinds == {(False, False), (True, False), (True, True)}  # none, one, several wins


def test_winning_move_stops_at_its_deadline_and_goes_on_later():
    solver = HexSolver(6)
    empty = np.zeros((6, 6), np.int8)
    with pytest.raises(OutOfTime):
        solver.winning_move(empty, 0, deadline=time.monotonic() - 1.0)
    # Nothing half-settled was kept: with time the same solver answers, and rightly.
    board, player = random_partial_games(5, range(15, 18), count=1, seed=4)[0]
    small = HexSolver(5)
    with pytest.raises(OutOfTime):
        small.winning_move(np.zeros((5, 5), np.int8), 0, deadline=0.0)
    move = small.winning_move(board, player, deadline=time.monotonic() + 600)
    expected = brute_force_winning_moves(board, player)
    assert (move in expected) if expected else move is None
