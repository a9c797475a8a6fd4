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
costs 40 shift-and-add passes and 4 n*n lookups. Fives, overlines and double-fours are then
decided for every cell elementwise.

DOUBLE-THREES are recursive (a three counts only if its extension move is itself allowed), but
only "doubtful" points need that reading: empty, no five, no overline, under two fours, and two
or more threes counted naively. They are few (at most 6 per position in 10,000 positions from
random games, 10 on boards crowded with Black stones), so the reading runs on the first
`candidates` of them (12 up to 15x15, in proportion to the area above: 20 on 19x19),
picked by scanning a bit-packed mask (a few words per step, not the
board), with row gathers of packed (features, code) words; any further doubtful point counts as
a double-three. For a doubtful point p:

- x, each extension point of p's threes (the table never marks more than two per line). Black on
  p and x makes a straight four on their line d, so from x's view that line is exactly one four
  (no five, overline or three), and x's other lines do not pass through p: x is forbidden once p
  is played iff its other lines have no five and an overline, a four (with the new one, two), or
  two real threes.
- x's threes are counted naively unless x has two of them and nothing else decides it. For up to
  `deep_candidates` (6 up to 15x15, 10 on 19x19) such (p, x) pairs per board (at most 2 in the
  random positions, 5 on the crowded boards) they are read: y, each extension point of x's
  threes, is judged on the board with p and x, exactly: y's line through x is one four by the
  same argument, x is on no other line of y, and p can lie on one other line of y, whose code
  then gets p's stone (base-3 digit +1; p within 5 cells, beyond that it changes nothing).
  y's own threes are counted naively.

That is the recursion bound: depth 3 (p, x, y), each read on the board with the points before
it. A wrong answer needs a y whose naive double-three is itself fake, a fourth nested
double-three structure within a few cells; the differential against the fully recursive
reference (tests/support/renju_oracle.py) on random and crowded boards, and its measured
agreement, are in docs/games.md. It is not a proof: such positions can be composed, and there
the answer is the depth-3 one. Nothing depends on the board size; a larger board only has room
for more doubtful points in one position, hence the slots in proportion to the area above
15x15. A golden position keeps the case where y must be read with p on the board.
"""

from __future__ import annotations

import functools
import math

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


def _extension_slots() -> np.ndarray:
    """int32[256, 2]: the (at most two) set bits of an extension byte, as indices into
    EXTENSION_OFFSETS, -1 where absent. The pattern table never sets more than two."""
    slots = np.full((256, 2), -1, np.int32)
    for word in range(256):
        bits = [i for i in range(8) if word >> i & 1][:2]
        slots[word, : len(bits)] = bits
    return slots


# One four and nothing else: a line through x where x completes p's straight four.
_ONE_FOUR = 1 << FOUR_SHIFT


def _first(mask: jax.Array, count: int):
    """The first `count` True positions of bool[N]: (index int32[count], used bool[count],
    the mask with them cleared). Unused slots hold index 0. For short masks (the deep
    candidates among the candidates)."""
    index = jnp.arange(mask.shape[0], dtype=jnp.int32)
    picked, used = [], []
    for _ in range(count):
        cell = jnp.argmax(mask).astype(jnp.int32)
        picked.append(cell)
        used.append(mask[cell])
        mask = mask & (index != cell)
    return jnp.stack(picked), jnp.stack(used), mask


def _to_words(mask: jax.Array) -> jax.Array:
    """bool[N] -> uint32[ceil(N / 32)], bit b of word w = mask[32 w + b]."""
    words = -(-mask.shape[0] // 32)
    bits = jnp.pad(mask, (0, 32 * words - mask.shape[0])).reshape(words, 32)
    return jnp.sum(
        bits.astype(jnp.uint32) << jnp.arange(32, dtype=jnp.uint32), axis=1, dtype=jnp.uint32
    )


def _from_words(words: jax.Array, size: int) -> jax.Array:
    bits = (words[:, None] >> jnp.arange(32, dtype=jnp.uint32)) & 1
    return bits.reshape(-1)[:size].astype(jnp.bool_)


def _first_bits(words: jax.Array, count: int):
    """The first `count` set bits of a word array: (cell int32[count], used bool[count], the
    words with them cleared). Each step touches a few words, not the whole board: picking
    points this way is what keeps the candidate reading cheap."""
    word_index = jnp.arange(words.shape[0], dtype=jnp.int32)
    picked, used = [], []
    for _ in range(count):
        w = jnp.argmax(words != 0).astype(jnp.int32)
        word = jnp.sum(jnp.where(word_index == w, words, 0), dtype=jnp.uint32)
        lowest = word & (~word + jnp.uint32(1))
        bit = jax.lax.population_count(lowest - jnp.uint32(1)).astype(jnp.int32)
        picked.append(w * 32 + bit)
        used.append(word != 0)
        words = words ^ jnp.where(word_index == w, lowest, jnp.uint32(0))
    return jnp.stack(picked), jnp.stack(used), words


class Forbidden:
    """Black's forbidden points on n x n boards: `mask(board) -> bool[n*n]`.

    `candidates` bounds how many points per board get the double-three reading (see the module
    docstring); a board with more such points treats the extra ones as plain double-threes.
    """

    def __init__(self, n: int, candidates: int | None = None, deep_candidates: int | None = None):
        self.n = n
        # 12 and 6 up to 15x15, in proportion to the area above: doubtful points need room.
        scale = max(n * n / 225, 1.0)
        self.candidates = candidates or math.ceil(12 * scale)
        self.deep_candidates = deep_candidates or math.ceil(6 * scale)
        self._table = pattern_table()
        self._weights = {offset: 3**j for j, offset in enumerate(OFFSETS)}  # base-3 digits
        self._slots = _extension_slots()
        most = max(bin(int(v) >> EXT_SHIFT).count("1") for v in self._table)
        assert most <= 2  # the table's promise, relied on by the two slots

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
        # consumer and repeats it, which makes the whole mask several times slower.
        return jax.lax.optimization_barrier(jnp.asarray(self._table)[codes])

    def mask(self, board: jax.Array) -> jax.Array:
        """bool[n*n]: empty cells where a Black stone is forbidden. board: int8[n, n]."""
        n = self.n
        codes = self.codes(board)
        features = self._lookup(codes)  # uint16[4, n, n]
        any_bits = features[0] | features[1] | features[2] | features[3]
        five, overline = (any_bits & FIVE) != 0, (any_bits & OVERLINE) != 0
        fours = sum(((f >> FOUR_SHIFT) & 3).astype(jnp.int8) for f in features)
        threes = sum(((f >> EXT_SHIFT) != 0).astype(jnp.int8) for f in features)
        empty = board == 0
        sure = empty & ~five & (overline | (fours >= 2))
        # Only a point with two or more threes (counted naively) can be a double-three.
        doubtful = (empty & ~five & ~overline & (fours < 2) & (threes >= 2)).reshape(-1)

        # Features and codes of a cell in one word, so each read below is one row gather.
        packed = (features.astype(jnp.uint32) << 16) | codes.astype(jnp.uint32)
        rows = packed.reshape(4, -1).T  # uint32[n*n, 4]
        # What each cell x would be once p is played on its line d (for each d; bits 2d, 2d+1):
        # x's other lines make no five and an overline or a four (then, with p's straight
        # four, x is forbidden: "decided"), or else no five and two threes counted naively
        # (x is a double-three unless a three is fake: "open"). Elementwise, for all cells.
        summary = jnp.zeros((n, n), jnp.uint32)
        for d in range(4):
            others = [features[e] for e in range(4) if e != d]
            bits = others[0] | others[1] | others[2]
            four = sum(((f >> FOUR_SHIFT) & 3) != 0 for f in others) >= 1
            threes = sum(((f >> EXT_SHIFT) != 0).astype(jnp.int8) for f in others)
            no_five = (bits & FIVE) == 0
            decided = no_five & (((bits & OVERLINE) != 0) | four)
            open_ = no_five & ~decided & (threes >= 2)
            word = decided.astype(jnp.uint32) | (open_.astype(jnp.uint32) << 1)
            summary = summary | (word << (2 * d))
        summary = summary.reshape(-1)

        # UP TO `candidates` SUCH POINTS p (the first in reading order; any others count as
        # plain double-threes) and the extension points x of their threes.
        points, used, remaining = _first_bits(_to_words(doubtful), self.candidates)
        x_cells, x_valid = self._extensions(points, rows[points] >> 16, [0, 1, 2, 3])  # [K,4,2]
        x_summary = summary[x_cells] >> (2 * jnp.arange(4, dtype=jnp.uint32))[:, None]
        decided, open_ = (x_summary & 1) != 0, (x_summary & 2) != 0  # [K, 4, 2]
        # Where x is open, read its threes: up to `deep_candidates` such (p, x) pairs per board
        # get their ys checked; the others count naively.
        pairs, pair_used, _ = _first(
            (x_valid & open_ & used[:, None, None]).reshape(-1), self.deep_candidates
        )
        pair_p = jnp.sum(
            jnp.where(jnp.arange(self.candidates) == pairs[:, None] // 8, points, 0), 1
        )
        pair_x = jnp.sum(
            jnp.where(jnp.arange(x_cells.size) == pairs[:, None], x_cells.reshape(-1), 0), 1
        )
        pair_real = self._real_threes(rows, pair_p, pair_x, (pairs // 2) % 4)
        x_forbidden = (decided | open_).reshape(-1)
        for b in range(self.deep_candidates):  # the real count, where it was read
            here = (jnp.arange(x_cells.size) == pairs[b]) & pair_used[b]
            x_forbidden = jnp.where(here, pair_real[b] >= 2, x_forbidden)
        x_forbidden = x_forbidden.reshape(x_cells.shape)
        real = jnp.sum(jnp.any(x_valid & ~x_forbidden, axis=-1), axis=-1)  # [K]
        verdict = used & (real >= 2)

        word_index = jnp.arange(remaining.shape[0], dtype=jnp.int32)
        for k in range(self.candidates):
            bit = verdict[k].astype(jnp.uint32) << (points[k] % 32).astype(jnp.uint32)
            remaining = remaining | jnp.where(word_index == points[k] // 32, bit, jnp.uint32(0))
        return sure.reshape(-1) | _from_words(remaining, n * n)

    def _extensions(self, cells, rows, directions):
        """Extension points of `cells`' threes: (cells int32[..., D, 2], valid bool[..., D, 2])
        along each of `directions` (a static list of D direction indices)."""
        n = self.n
        ext = (rows[..., directions] >> EXT_SHIFT) & 0xFF  # [..., D]
        slot = jnp.asarray(self._slots)[ext]  # [..., D, 2]
        offset = jnp.asarray(EXTENSION_OFFSETS, jnp.int32)[jnp.maximum(slot, 0)]
        step_r = jnp.asarray([DIRECTIONS[d][0] for d in directions], jnp.int32)[:, None]
        step_c = jnp.asarray([DIRECTIONS[d][1] for d in directions], jnp.int32)[:, None]
        r, c = (cells // n)[..., None, None], (cells % n)[..., None, None]
        target = (r + offset * step_r) * n + (c + offset * step_c)
        valid = slot >= 0  # a set bit always points at an empty cell on the board
        return jnp.where(valid, target, 0), valid

    def _real_threes(self, packed_rows, p, x, d):
        """int32[M]: threes of x (int32[M]) on its lines other than d (int32[M], the line of
        p, int32[M]) that stay real once p and x are played: some extension point y of theirs
        is not forbidden then. y is read with p and x on the board: x completes a straight
        four on y's line through x (one four, nothing else), and p can lie on one other line
        of y (then that line's code gets p's stone). y's own threes are counted naively: that
        is the depth bound (module docstring)."""
        n = self.n
        x_rows = packed_rows[x] >> 16  # [M, 4]
        x_rows = jnp.where(jnp.arange(4) == d[:, None], 0, x_rows)  # line d is p's four now
        y_cells, y_valid = self._extensions(x, x_rows, [0, 1, 2, 3])  # [M, 4, 2]
        packed = packed_rows[y_cells]  # uint32[M, 4, 2, 4]
        lines = packed >> 16
        # p on a line f of y, within the coded radius: that line's code gets p's stone.
        pp = p[:, None, None]
        dr, dc = pp // n - y_cells // n, pp % n - y_cells % n
        line_of_p = jnp.full(y_cells.shape, -1, jnp.int32)
        offset = jnp.zeros(y_cells.shape, jnp.int32)
        for f, (fr, fc) in enumerate(DIRECTIONS):
            k = dr if fr != 0 else dc  # p = y + k * f, if p is on that line
            on = (dr == k * fr) & (dc == k * fc) & (jnp.abs(k) >= 1) & (jnp.abs(k) <= RADIUS)
            line_of_p = jnp.where(on, f, line_of_p)
            offset = jnp.where(on, k, offset)
        which = jnp.arange(4) == line_of_p[..., None]  # [M, 4, 2, 4]
        code = jnp.sum(jnp.where(which, packed & 0xFFFF, 0), axis=-1).astype(jnp.int32)
        digit = jnp.where(offset < 0, offset + RADIUS, offset + RADIUS - 1)
        code = code + jnp.where(line_of_p >= 0, 3 ** jnp.clip(digit, 0, 9), 0)
        changed = jnp.asarray(self._table)[code].astype(jnp.uint32)
        lines = jnp.where(which, changed[..., None], lines)
        # x completes a straight four on y's line through x (axis 1): one four there.
        incoming = jnp.arange(4)[None, :, None, None] == jnp.arange(4)
        lines = jnp.where(incoming, _ONE_FOUR, lines)
        bits = lines[..., 0] | lines[..., 1] | lines[..., 2] | lines[..., 3]
        fours = jnp.sum((lines >> FOUR_SHIFT) & 3, axis=-1)
        threes = jnp.sum((lines >> EXT_SHIFT) != 0, axis=-1)
        y_forbidden = ((bits & FIVE) == 0) & (
            ((bits & OVERLINE) != 0) | (fours >= 2) | (threes >= 2)
        )
        return jnp.sum(jnp.any(y_valid & ~y_forbidden, axis=-1), axis=-1)
