"""Renju: Black's forbidden points against two references on every empty point of crowded
boards and of boards built around nested chains of double-threes: the fully recursive oracle
(tests/support/renju_oracle.py) and a third-party referee, the PyPI package `renju` (a port of
the Piskvork judge that Gomocup renju tournaments use)."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support.renju_golden import GOLDEN
from support.renju_oracle import forbidden_points
from support.renju_positions import crowded_boards, judge_points, nested_chain_boards

from hexjax.games._renju import Forbidden

pytest.importorskip("renju")


@functools.cache
def batched_mask(**slots):
    return jax.jit(jax.vmap(Forbidden(15, **slots).mask))


def positions(crowded, chains_per_depth, seed):
    """Crowded boards, then nested chains 1 to 6 levels deep."""
    boards = [crowded_boards(crowded, seed=seed)]
    boards += [nested_chain_boards(chains_per_depth, d, seed=seed + d) for d in range(1, 7)]
    return np.concatenate(boards)


def differences(boards):
    """(points differing from the oracle, from the judge, forbidden points, empty points)."""
    masks = np.asarray(batched_mask()(boards)).reshape(-1, 15, 15)
    from_oracle = from_judge = forbidden = compared = 0
    for board, mask in zip(boards, masks, strict=True):
        got = set(map(tuple, np.argwhere(mask).tolist()))
        oracle = forbidden_points(board.tolist())
        from_oracle += len(got ^ oracle)
        from_judge += len(got ^ judge_points(board))
        forbidden += len(oracle)
        compared += int((board == 0).sum())
    return from_oracle, from_judge, forbidden, compared


@pytest.mark.parametrize(
    ("crowded", "chains"),
    [(12, 4), pytest.param(1_000, 200, marks=pytest.mark.slow)],
    ids=["quick", "2200"],
)
def test_matches_oracle_and_referee(crowded, chains):
    """Every empty point, against both references: no difference. The slow tier judges 2,200
    positions (1,000 crowded boards and 200 nested chains of each depth 1 to 6)."""
    boards = positions(crowded, chains, seed=100)
    from_oracle, from_judge, forbidden, compared = differences(boards)
    assert forbidden > compared // 50
    assert (from_oracle, from_judge) == (0, 0), f"of {compared} points"


def board_of(black, white):
    board = np.zeros((15, 15), np.int8)
    board[tuple(np.transpose(black))] = 1
    if white:
        board[tuple(np.transpose(white))] = 2
    return board


@pytest.mark.parametrize(
    ("name", "black", "white", "point", "forbidden"), GOLDEN, ids=[g[0] for g in GOLDEN]
)
def test_referee_agrees_on_golden_positions(name, black, white, point, forbidden):
    assert (point in judge_points(board_of(black, white))) == forbidden


def test_nested_chain_needs_the_third_level():
    """The generated golden chain: a reading bounded to two levels of slots below the
    candidates reads the point wrongly and says it overflowed; the mask, which then reads
    without bounds, gets it right with those slots too."""
    name, black, white, point, forbidden = GOLDEN[-1]
    assert name == "nested chain read three levels deep" and forbidden
    board = board_of(black, white)[None]
    full = np.asarray(batched_mask()(board)).reshape(15, 15)
    shallow = np.asarray(batched_mask(slots=(16, 8))(board)).reshape(15, 15)
    assert full[point] and shallow[point]
    reading = Forbidden(15, slots=(16, 8))
    codes = reading.codes(jnp.asarray(board[0])).reshape(4, -1)
    bounded, overflow = reading.read(jnp.asarray(board[0]).reshape(-1), codes, 20, (16, 8))
    assert not bool(bounded[point[0] * 15 + point[1]]) and bool(overflow)
