"""Renju test positions for the forbidden-point differentials, and the third-party referee.

- `crowded_boards`: random boards crowded with Black stones (many fours, threes, fake threes).
- `nested_chain_boards`: boards built around a chain of nested double-threes on purpose: a point
  p0 gets threes in two lines; one extension point p1 of them gets two threes in two other lines;
  one extension point p2 of those gets its own two, and so on, `depth` levels deep, in random
  directions, near edges as often as in the middle, with White stones and a random last level
  (a double-four, an overline, a real or a spoiled double-three) so that the verdicts flip along
  the chain. The chain points stay empty: each level is judged on the board with the points
  before it played, which is exactly what a nested reading has to get right.
- `judge_points`: the forbidden points by the PyPI package `renju` (a port of the Piskvork judge
  used by Gomocup renju tournaments), the third-party referee.

numpy only; boards are int8[n, n] with 0 empty, 1 Black, 2 White.
"""

from __future__ import annotations

import itertools

import numpy as np

DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
# Two stones that make a three with the point at offset 0: every pair of offsets in -3..3 such
# that some fourth offset completes four consecutive cells.
THREE_SHAPES = [
    pair
    for pair in itertools.combinations([-3, -2, -1, 1, 2, 3], 2)
    if any(
        sorted({0, *pair, e}) == list(range(min(0, *pair, e), min(0, *pair, e) + 4))
        for e in range(-3, 4)
        if e not in (0, *pair)
    )
]


def _extensions(pair) -> list[int]:
    """Offsets e that turn the stones at 0 and `pair` into four consecutive stones."""
    return [
        e
        for e in range(-3, 4)
        if e not in (0, *pair)
        and sorted({0, *pair, e}) == list(range(min(0, *pair, e), min(0, *pair, e) + 4))
    ]


def crowded_boards(count: int, n: int = 15, seed: int = 0) -> np.ndarray:
    """int8[count, n, n]: about 28% Black, 10% White, placed at random."""
    rng = np.random.default_rng(seed)
    return rng.choice([0, 1, 2], size=(count, n, n), p=[0.62, 0.28, 0.10]).astype(np.int8)


def _on(n, r, c):
    return 0 <= r < n and 0 <= c < n


def nested_chain_board(rng: np.random.Generator, depth: int, n: int = 15) -> np.ndarray:
    """One board with a chain of `depth` + 1 nested would-be double-threes (module docstring)."""
    board = np.zeros((n, n), np.int8)
    reserved = set()  # the chain points: they stay empty
    # Start near an edge half of the time.
    if rng.random() < 0.5:
        r, c = rng.integers(0, n, 2)
        edge = rng.integers(0, 4)
        r, c = [
            (rng.integers(1, 4), c),
            (n - 1 - rng.integers(1, 4), c),
            (r, rng.integers(1, 4)),
            (r, n - 1 - rng.integers(1, 4)),
        ][edge]
    else:
        r, c = rng.integers(3, n - 3, 2)
    r, c = int(r), int(c)
    incoming = None
    for _ in range(depth + 1):
        reserved.add((r, c))
        lines = [d for d in range(4) if d != incoming]
        rng.shuffle(lines)
        nexts = []
        for d in lines[:2]:
            dr, dc = DIRECTIONS[d]
            pair = THREE_SHAPES[rng.integers(len(THREE_SHAPES))]
            cells = [(r + o * dr, c + o * dc) for o in pair]
            if not all(_on(n, *p) and p not in reserved for p in cells):
                continue
            for p in cells:
                board[p] = 1
            for e in _extensions(pair):
                x = (r + e * dr, c + e * dc)
                if _on(n, *x) and board[x] == 0:
                    nexts.append((x, d))
            if rng.random() < 0.3:  # White near the three: sometimes spoils it
                o = int(rng.choice([-5, -4, 4, 5]))
                w = (r + o * dr, c + o * dc)
                if _on(n, *w) and board[w] == 0 and w not in reserved:
                    board[w] = 2
        if not nexts:
            break
        (r, c), incoming = nexts[rng.integers(len(nexts))]
    # The last level: a few more Black stones around it (often a four, an overline or a
    # third three), so the reading at the bottom of the chain goes either way.
    for _ in range(rng.integers(0, 4)):
        d = rng.integers(4)
        dr, dc = DIRECTIONS[d]
        o = int(rng.choice([-4, -3, -2, -1, 1, 2, 3, 4]))
        p = (r + o * dr, c + o * dc)
        if _on(n, *p) and board[p] == 0 and p not in reserved:
            board[p] = 1
    # Some noise elsewhere.
    noise = rng.random((n, n)) < 0.04
    colours = rng.choice([1, 2], size=(n, n))
    for p in zip(*np.nonzero(noise & (board == 0)), strict=True):
        if p not in reserved:
            board[p] = colours[p]
    return board


def nested_chain_boards(count: int, depth: int, n: int = 15, seed: int = 0) -> np.ndarray:
    """int8[count, n, n] of `nested_chain_board`s."""
    rng = np.random.default_rng(seed)
    return np.stack([nested_chain_board(rng, depth, n) for _ in range(count)])


def judge_points(board: np.ndarray) -> set[tuple[int, int]]:
    """Empty points where the `renju` package's judge forbids Black: (row, column) from the top.

    Its `get_foul_type(board, x, y)` reads board[x][y] with 1 Black and 2 White and returns 0
    (allowed), 1 (double-three), 2 (double-four) or 3 (overline)."""
    from renju.check_forbid import get_foul_type

    rows = board.tolist()
    n = len(rows)
    return {
        (r, c)
        for r in range(n)
        for c in range(n)
        if rows[r][c] == 0 and get_foul_type(rows, r, c) != 0
    }
