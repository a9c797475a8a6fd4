"""Renju: Black's forbidden points against hand-checked positions and the plain-Python
reference (tests/support/renju_oracle.py, written from the rules, fully recursive)."""

import functools

import jax
import numpy as np
import pytest
from support.playouts import random_playouts
from support.renju_golden import GOLDEN
from support.renju_oracle import forbidden_points, is_forbidden

import hexjax

NUM_POSITIONS = 10_000


@functools.cache
def renju(size=15):
    return hexjax.make("gomoku", size=size, rule="renju")


@functools.cache
def batched_mask(size=15):
    return jax.jit(jax.vmap(renju(size)._forbidden.mask))


def board_of(black, white, n=15):
    board = np.zeros((n, n), np.int8)
    for r, c in black:
        board[r, c] = 1
    for r, c in white:
        board[r, c] = 2
    return board


def test_golden_positions_are_enough_and_distinct():
    assert len(GOLDEN) >= 30
    assert len({name for name, *_ in GOLDEN}) == len(GOLDEN)


@pytest.mark.parametrize(
    ("name", "black", "white", "point", "forbidden"), GOLDEN, ids=[g[0] for g in GOLDEN]
)
def test_golden_position(name, black, white, point, forbidden):
    board = board_of(black, white)
    game = renju()
    state = game.from_board(board, to_play=0)
    mask = game.forbidden_mask(state)
    assert bool(mask[point]) == forbidden
    assert is_forbidden(board.tolist(), *point) == forbidden  # the reference agrees
    # Forbidden points leave Black's legal mask; White may always play there.
    assert bool(state.legal_action_mask[point[0] * 15 + point[1]]) == (not forbidden)
    white_to_move = game.from_board(board, to_play=1)
    assert bool(white_to_move.legal_action_mask[point[0] * 15 + point[1]])


def renju_positions(count, size=15, seed=0):
    """Boards from random renju games, all plies, until `count` positions are collected."""
    game = renju(size)
    boards = []
    key = jax.random.key(seed)
    while sum(len(b) for b in boards) < count:
        key, play_key = jax.random.split(key)
        # 64 games, as test_games_renju_in_play.py plays: one program in the compilation cache
        states, _ = random_playouts(game, play_key, batch=64)
        live = ~np.asarray(states.terminated)
        boards.append(np.asarray(states.board)[live])
    return np.concatenate(boards)[:count]


@pytest.mark.parametrize(
    "count", [200, pytest.param(NUM_POSITIONS, marks=pytest.mark.slow)], ids=["200", "all"]
)
def test_matches_the_reference_on_positions_from_random_games(count):
    """Every empty cell of positions from random renju games, against the fully recursive
    reference: all agree (the bound on the recursion, in hexjax/games/_renju.py, is never
    reached here). The slow tier judges all 10,000 positions (1.86 million points), the quick
    one every fiftieth of them, early and late plies alike; the oracle's plain Python is most of
    the time."""
    boards = renju_positions(NUM_POSITIONS)
    boards = boards[:: len(boards) // count][:count]
    masks = np.asarray(batched_mask()(boards)).reshape(-1, 15, 15)
    differing, forbidden, compared = [], 0, 0
    for index, (board, mask) in enumerate(zip(boards, masks, strict=True)):
        expected = forbidden_points(board.tolist())
        got = set(map(tuple, np.argwhere(mask).tolist()))
        differing += [(index, point) for point in expected ^ got]
        forbidden += len(expected)
        compared += int((board == 0).sum())
    print(f"{len(differing)} of {compared} points differ ({forbidden} forbidden): {differing}")
    assert forbidden > 100  # the positions do exercise the rules
    assert not differing, differing


def test_matches_the_reference_on_dense_black_boards():
    """Composed boards crowded with Black stones: many fours, threes and fake threes, up to
    10 doubtful points and 5 read extension points in one position (the slots are 12 and 6)."""
    rng = np.random.default_rng(5)
    boards = rng.choice([0, 1, 2], size=(300, 15, 15), p=[0.62, 0.28, 0.10]).astype(np.int8)
    masks = np.asarray(batched_mask()(boards)).reshape(-1, 15, 15)
    differing = forbidden = compared = 0
    for board, mask in zip(boards, masks, strict=True):
        expected = forbidden_points(board.tolist())
        got = set(map(tuple, np.argwhere(mask).tolist()))
        differing += len(expected ^ got)
        forbidden += len(expected)
        compared += int((board == 0).sum())
    assert forbidden > 3000 and compared > 40_000
    assert differing == 0, f"{differing} of {compared} points differ"


def test_black_exact_five_wins_white_overline_wins():
    game = renju()
    moves = "a1 h8 a3 h9 a5 h10 a7 h12 a9 h13 a11 h11"  # White's h11 makes six: a win
    state = game.from_moves(moves)
    assert bool(state.terminated) and int(state.winner) == 1
    state = game.from_moves("h8 a1 i8 a3 j8 a5 k8 a7 l8")
    assert int(state.winner) == 0


def test_forbidden_move_is_refused_on_the_host_and_loses_in_jit():
    game = renju()
    # Black builds h8 i8 and j10 j9 around j8 (double-three), White plays far away.
    state = game.from_moves("h8 a1 i8 a3 j10 a5 j9 a7")
    point = game.string_to_action("j8")
    assert game.forbidden_mask(state)[np.unravel_index(point, (15, 15))]
    assert not bool(state.legal_action_mask[point])
    with pytest.raises(ValueError, match=r"move 9 \(j8\): that point is forbidden for Black"):
        game.from_moves("h8 a1 i8 a3 j10 a5 j9 a7 j8")
    lost = jax.jit(game.step)(state, point)
    assert bool(lost.terminated) and int(lost.winner) == 1
    obs = np.asarray(game.observe(state))
    assert obs.shape == (15, 15, 4) and obs[:, :, 3].sum() >= 1
    assert obs[:, :, 3].reshape(-1)[point] == 1


def test_forbidden_points_only_for_renju():
    """Every game answers `forbidden_mask` (front ends ask it of any game): none but in renju.
    Reading a board's forbidden points is renju's alone."""
    gomoku = hexjax.make("gomoku", size=9)
    state = gomoku.from_board(["." * 9] * 4 + ["..xxx.x.."] + ["." * 9] * 4, 0)
    assert not gomoku.forbidden_mask(state).any()
    renju = hexjax.make("gomoku", size=9, rule="renju")
    overline = renju.from_board(["." * 9] * 4 + ["..xxx.xx."] + ["." * 9] * 4, 0)
    assert renju.forbidden_mask(overline)[4, 5]  # x at f5 would make six
    with pytest.raises(ValueError, match="only renju has forbidden points"):
        gomoku.forbidden_points(np.asarray(state.board))


@pytest.mark.parametrize("size", [9, 19])
def test_other_sizes_match_the_reference(size):
    rng = np.random.default_rng(size)
    boards = rng.choice([0, 1, 2], size=(60, size, size), p=[0.65, 0.25, 0.10]).astype(np.int8)
    masks = np.asarray(batched_mask(size)(boards)).reshape(-1, size, size)
    for board, mask in zip(boards, masks, strict=True):
        got = set(map(tuple, np.argwhere(mask).tolist()))
        assert got == forbidden_points(board.tolist())
