"""Renju: Black's forbidden points (overline, double-four, double-three), for all cells at once.

Every line feature of a point p (Black to play there) is decided by the 10 cells at offsets
-5..5 around it along that line: a five through p, a four's completion point or a straight
four's open ends all lie within offsets -4..4, and whether a five is *exactly* five needs one
more cell beyond. So each (cell, direction) gets a base-3 pattern code of those 10 cells
(0 empty, 1 Black, 2 White or off the board; the board's own values) and one lookup in a
precomputed table of 3**10 = 59049 entries gives:

    bit 0      Black at p makes exactly five in this line
    bit 1      ... six or more (overline)
    bits 2-3   number of fours in this line (a straight four .BBBB. is one four; B.BBB.B with
               p in the middle is two)
    bits 4-11  which offsets x in -4..-1, 1..4 (one bit each) are moves where one more Black
               stone makes a straight four containing p; the line is a three when one of
               those moves is allowed

Codes for all cells are sums of shifted views of the padded board (static slices), so a board
costs 40 shift-and-add passes and 4 n*n lookups.


Double-three is recursive: a three counts only if its extension move x is itself allowed on
the board with p added. The key observation that keeps this vectorised: Black on p and on x
makes a straight four along the p-x line d, so from x's point of view that line is then exactly
one four (no five, no overline, no three), and x's other three lines do not pass through p. So
"x is forbidden once p is played" depends only on (x, d) and the base board's features of x's
other lines: no five there, and an overline, or a four (with the new one, two), or two threes.
That gives, for every cell and direction at once, a "blocked" map; p's three along d is real
when one of its extension offsets lands on an unblocked cell, which is a static shifted slice of
that map. No candidate selection, no gathers beyond the table lookups, no data-dependent loop.

The threes of x in that test are themselves counted with the previous level's answer: level 1
counts them naively (recursion depth 2: p -> x), level 2 with level-1 threes (depth 3:
p -> x -> y). `levels=2` is the default. The approximation at depth 3 is that y's lines are read
from the board without p and x, which is exact unless y shares a line with p. Against the fully
recursive reference (tests/renju_oracle.py): of the 1.86 million empty cells of 10,000
positions from random renju games on 15x15, 8 differ (two points in four consecutive positions
of one game, where y's diagonal passes through p), and on 300 composed boards crowded with Black
stones 1 point in about 42,000 differs (levels=1 leaves 14 boards with differences; levels 3
and 4 still leave that point, so it comes from the reading without p and x, not the depth).
Nothing here depends on the board size: larger boards get the same bound, and need the same
crowding to reach it.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

RADIUS = 5
OFFSETS = [i for i in range(-RADIUS, RADIUS + 1) if i != 0]  # the 10 coded cells
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
EXTENSION_OFFSETS = [-4, -3, -2, -1, 1, 2, 3, 4]
FIVE, OVERLINE = 1, 2
FOUR_SHIFT, EXT_SHIFT = 2, 4
EMPTY, BLACK, BLOCKED = 0, 1, 2


def _run_through_centre(line: np.ndarray) -> np.ndarray:
    """line: int[N, 11] with the centre (index 5) Black -> length of the Black run through it."""
    centre = RADIUS
    left = np.zeros(len(line), np.int32)
    alive = np.ones(len(line), bool)
    for i in range(centre - 1, -1, -1):
        alive &= line[:, i] == BLACK
        left += alive
    right = np.zeros(len(line), np.int32)
    alive = np.ones(len(line), bool)
    for i in range(centre + 1, 2 * RADIUS + 1):
        alive &= line[:, i] == BLACK
        right += alive
    return 1 + left + right, centre - left, centre + right  # length, first index, last index


@functools.cache
def pattern_table() -> np.ndarray:
    """uint16[3**10]: the line features of every pattern code (see the module docstring)."""
    codes = np.arange(3**10)
    digits = (codes[:, None] // 3 ** np.arange(10)) % 3  # [N, 10] in OFFSETS order
    line = np.insert(digits, RADIUS, BLACK, axis=1)  # [N, 11], centre Black
    length, _, _ = _run_through_centre(line)
    table = np.where(length == 5, FIVE, 0) | np.where(length >= 6, OVERLINE, 0)

    fives_at = []  # per extension offset: Black there makes exactly five with the centre
    straight_at = []  # ... makes a straight four containing the centre
    for offset in EXTENSION_OFFSETS:
        index = RADIUS + offset
        empty = line[:, index] == EMPTY
        placed = line.copy()
        placed[:, index] = BLACK
        new_length, first, last = _run_through_centre(placed)
        joined = (first <= index) & (index <= last)
        fives_at.append(empty & joined & (new_length == 5))
        # A straight four: exactly four in a row, both ends empty, and Black on either end
        # makes exactly five (the cell beyond that end is not Black).
        rows = np.arange(len(line))
        before, after = first - 1, last + 1
        ends_empty = (before >= 0) & (after <= 2 * RADIUS)
        before_c, after_c = np.clip(before, 0, 2 * RADIUS), np.clip(after, 0, 2 * RADIUS)
        ends_empty &= (placed[rows, before_c] == EMPTY) & (placed[rows, after_c] == EMPTY)
        beyond_before = np.clip(before - 1, 0, 2 * RADIUS)
        beyond_after = np.clip(after + 1, 0, 2 * RADIUS)
        exact_before = (before - 1 < 0) | (placed[rows, beyond_before] != BLACK)
        exact_after = (after + 1 > 2 * RADIUS) | (placed[rows, beyond_after] != BLACK)
        straight_at.append(
            empty & joined & (new_length == 4) & ends_empty & exact_before & exact_after
        )
    fives_at = np.stack(fives_at, axis=1)  # [N, 8]
    points = fives_at.sum(axis=1)
    # Two completion points five apart around four consecutive stones: one straight four.
    low = np.argmax(fives_at, axis=1)
    high = 7 - np.argmax(fives_at[:, ::-1], axis=1)
    span = np.asarray(EXTENSION_OFFSETS)[high] - np.asarray(EXTENSION_OFFSETS)[low]
    fours = points - ((points == 2) & (span == 5))
    table |= np.minimum(fours, 3) << FOUR_SHIFT
    extension_bits = (np.stack(straight_at, axis=1) << np.arange(8)).sum(axis=1)
    table |= extension_bits << EXT_SHIFT
    # A five makes every other feature moot: keep only the five bit then.
    table = np.where(length == 5, FIVE, table)
    return table.astype(np.uint16)


class Forbidden:
    """Black's forbidden points on n x n boards: `mask(board) -> bool[n*n]`."""

    def __init__(self, n: int, levels: int = 2):
        self.n = n
        self.levels = levels  # recursion depth of the double-three check, minus one
        self._table = pattern_table()
        self._weights = {offset: 3**j for j, offset in enumerate(OFFSETS)}  # base-3 digits

    def codes(self, board: jax.Array) -> jax.Array:
        """int32[4, n, n]: pattern code of every cell in each direction. board: int8[n, n]."""
        n = self.n
        padded = jnp.pad(board.astype(jnp.int32), RADIUS, constant_values=BLOCKED)
        per_direction = []
        for dr, dc in DIRECTIONS:
            code = jnp.zeros((n, n), jnp.int32)
            for offset, weight in self._weights.items():
                r0, c0 = RADIUS + offset * dr, RADIUS + offset * dc
                code = code + weight * padded[r0 : r0 + n, c0 : c0 + n]
            per_direction.append(code)
        return jnp.stack(per_direction)

    def _lookup(self, codes: jax.Array) -> jax.Array:
        # The barrier materialises the lookups once; otherwise XLA fuses the gather into every
        # consumer and repeats it (measured: the mask ran 2-3x slower).
        return jax.lax.optimization_barrier(jnp.asarray(self._table)[codes])

    def mask(self, board: jax.Array) -> jax.Array:
        """bool[n*n]: empty cells where a Black stone is forbidden. board: int8[n, n]."""
        n = self.n
        features = list(self._lookup(self.codes(board)))  # 4 x uint16[n, n], one a direction
        any_bits = features[0] | features[1] | features[2] | features[3]
        fours_d = [((f >> FOUR_SHIFT) & 3).astype(jnp.int8) for f in features]
        threes_d = [((f >> EXT_SHIFT) != 0).astype(jnp.int8) for f in features]
        fours = sum(fours_d)
        five, overline = (any_bits & FIVE) != 0, (any_bits & OVERLINE) != 0

        # EXTENSION POINTS, EVALUATED WITH p ADDED. Black on p and on an extension x of p's
        # three along d makes a straight four on that line: from x's view that line is then
        # exactly one four (no five, overline or three), and x's other lines do not pass
        # through p. So "x is forbidden once p is played" depends only on (x, d): x's other
        # lines have no five, and an overline, or a four (the new one makes two), or two
        # threes. Each level counts x's threes with the previous level's answer; level 1
        # counts them naively (recursion depth 2), level 2 with depth-2 threes (depth 3).
        threes_d = [t.astype(jnp.bool_) for t in threes_d]  # per direction, naive
        # extension[d][i][p]: p's three along d extends at offset EXTENSION_OFFSETS[i].
        extension = [
            [((f >> (EXT_SHIFT + i)) & 1).astype(jnp.bool_) for i in range(8)] for f in features
        ]
        for _ in range(self.levels):
            threes = sum(t.astype(jnp.int8) for t in threes_d)
            new_threes_d = []
            for d, (dr, dc) in enumerate(DIRECTIONS):
                others = [f for e, f in enumerate(features) if e != d]
                other_bits = others[0] | others[1] | others[2]
                blocked = ((other_bits & FIVE) == 0) & (
                    ((other_bits & OVERLINE) != 0)
                    | (fours - fours_d[d] >= 1)
                    | (threes - threes_d[d].astype(jnp.int8) >= 2)
                )
                allowed = jnp.pad(~blocked, 4)  # off the board: never an extension anyway
                real = jnp.zeros((n, n), jnp.bool_)
                for i, o in enumerate(EXTENSION_OFFSETS):
                    # allowed at p + o * (dr, dc), for every p: a static slice.
                    at = allowed[4 + o * dr : 4 + o * dr + n, 4 + o * dc : 4 + o * dc + n]
                    real = real | (extension[d][i] & at)
                new_threes_d.append(real)
            threes_d = new_threes_d
        real_threes = sum(t.astype(jnp.int8) for t in threes_d)
        forbidden = ~five & (overline | (fours >= 2) | (real_threes >= 2))
        return ((board == 0) & forbidden).reshape(-1)
