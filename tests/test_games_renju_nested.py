"""Renju: Black's forbidden points on boards built against the nested double-three reading
(`stress_boards` in tests/support/renju_positions.py): chains of nested double-threes whose
verdict flips at every level, deeper than the reading's slots; forked, joined and edge-hugging
chains; extension points shared by several doubtful points; tilings with more doubtful points
than the reading's candidates; and the deepest boards of a mutation search on the oracle's
recursion. Every empty point of `Forbidden(15).mask` against the plain-Python oracle
(tests/support/renju_oracle.py) and the `renju` judge.

Most of these boards overflow the bounded reading (`Forbidden.read` at the default bounds),
which is the point: the tests below also check that they still do, and that the oracle still
reads them deeper than three levels, so that the differential keeps testing something."""

import functools
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support.renju_oracle import forbidden_points
from support.renju_positions import (
    judge_points,
    oracle_depth,
    reference_points,
    stress_boards,
    stress_references,
)

from hexjax.games._renju import Forbidden

pytest.importorskip("renju")

N = 15
QUICK = 48  # boards in the quick tier
CHUNK = 500  # boards per mask call and per worker's share of the slow tier
SLOW_CHUNKS = 20  # 10,000 boards


@functools.cache
def quick_boards():
    return stress_boards(QUICK, seed=7)


@functools.cache
def quick_references():
    """(oracle, judge) forbidden points of every quick board, asked at every empty point."""
    return [(forbidden_points(board.tolist()), judge_points(board)) for board in quick_boards()]


@functools.cache
def batched_mask():
    return jax.jit(jax.vmap(Forbidden(N).mask))


@functools.cache
def batched_read():
    """Bounded reading at the default bounds: (mask bool[k, n*n], overflow bool[k])."""
    forbidden = Forbidden(N)

    def read(board):
        codes = forbidden.codes(board).reshape(4, -1)
        return forbidden.read(board.reshape(-1), codes, forbidden.candidates, forbidden.slots)

    return jax.jit(jax.vmap(read))


def in_chunks(function, boards):
    """`function` on `CHUNK` boards at a time (the last chunk padded with empty boards, so
    that it compiles once), its outputs concatenated."""
    outputs = []
    for start in range(0, len(boards), CHUNK):
        part = boards[start : start + CHUNK]
        padded = np.zeros((CHUNK, N, N), np.int8)
        padded[: len(part)] = part
        result = function(jnp.asarray(padded))
        result = result if isinstance(result, tuple) else (result,)
        outputs.append([np.asarray(r)[: len(part)] for r in result])
    return [np.concatenate(parts) for parts in zip(*outputs, strict=True)]


def masks(boards):
    """bool[k, n, n]: `Forbidden(15).mask` of each board."""
    return in_chunks(batched_mask(), boards)[0].reshape(-1, N, N)


def points(mask):
    return set(map(tuple, np.argwhere(mask).tolist()))


def describe(board, got, oracle, judge=None):
    """A failing board, ready to paste into a test: its stones and the differing points."""
    black = [tuple(p) for p in np.argwhere(board == 1).tolist()]
    white = [tuple(p) for p in np.argwhere(board == 2).tolist()]
    text = (
        f"black = {black}\nwhite = {white}\nmask only: {sorted(got - oracle)}, "
        f"oracle only: {sorted(oracle - got)}"
    )
    return text if judge is None else f"{text}, judge differs at {sorted(got ^ judge)}"


def check(boards, got, references):
    """Every empty point of every board against both references: the failing boards."""
    failures = []
    for board, mask, (oracle, judge) in zip(boards, got, references, strict=True):
        mine = points(mask)
        if mine != oracle or mine != judge:
            failures.append(describe(board, mine, oracle, judge))
    return failures


def test_quick_boards_match_oracle_and_judge():
    """A few dozen stress boards of every kind: no difference at any empty point."""
    boards = quick_boards()
    failures = check(boards, masks(boards), quick_references())
    assert not failures, f"{len(failures)} of {len(boards)} boards differ:\n" + "\n".join(
        failures[:3]
    )


def test_reference_shortcut_matches_the_references():
    """The slow tier asks the references only where a point could be forbidden at all
    (`reference_points`): on the quick boards that gives both plain functions' answers."""
    for board, full in zip(quick_boards(), quick_references(), strict=True):
        assert reference_points(board) == full


def test_quick_boards_overflow_the_default_bounds():
    """Half the quick boards (24 of 48 when written) have a doubtful point or an open point
    beyond the bounded reading's candidates and slots, so the mask must read past the bounds
    to be right: these boards test it (on 15 of them the bounded reading alone was wrong).
    Where a board does not overflow, the bounded reading read the whole tree: it is the
    oracle's answer."""
    boards = quick_boards()
    bounded, overflow = in_chunks(batched_read(), boards)
    share = overflow.mean()
    assert share >= 0.3, f"only {share:.0%} of the quick boards overflow the default bounds"
    for board, mask, over, (oracle, _) in zip(
        boards, bounded, overflow, quick_references(), strict=True
    ):
        mine = points(mask.reshape(N, N))
        assert over or mine == oracle, describe(board, mine, oracle)


def test_quick_boards_read_deeper_than_the_slots():
    """The oracle reads the nested double-threes of several quick boards deeper than three
    levels below a doubtful point (`oracle_depth`; the bounded reading has three levels of
    slots): 7 of 48 when written, the deepest 5 levels."""
    depths = np.array([oracle_depth(board) for board in quick_boards()])
    assert depths.max() > 3, f"deepest oracle reading: {depths.max()} levels"
    assert (depths >= 4).sum() >= QUICK // 8, f"depths: {np.bincount(depths + 1)[1:]}"


@pytest.mark.slow
def test_ten_thousand_stress_boards():
    """10,000 stress boards (20 seeds of `stress_boards(500)`), every empty point against the
    oracle and the judge: no difference. The references run in worker processes, one per CPU,
    each asked only where a point could be forbidden (`reference_points`)."""
    workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    seeds = range(1000, 1000 + SLOW_CHUNKS)
    failures, compared, forbidden = [], 0, 0
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        for boards, oracle, judge in pool.map(stress_references, [CHUNK] * SLOW_CHUNKS, seeds):
            references = [(points(o), points(j)) for o, j in zip(oracle, judge, strict=True)]
            failures += check(boards, masks(boards), references)
            compared += int((boards == 0).sum())
            forbidden += int(oracle.sum())
    assert forbidden > compared // 50
    assert not failures, (
        f"{len(failures)} of {CHUNK * SLOW_CHUNKS} boards differ ({compared} points):\n"
        + "\n".join(failures[:3])
    )
