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

DOUBLE-THREES are recursive: a three counts only if its extension move x (the move that makes
the straight four) is itself allowed and makes no five on another line (RIF: a three is a row
to which Black can add a stone to make a straight four "without at the same time a five in a
row is made"), x judged on the board with p played. Only "doubtful" points need that: empty, no
five, no overline, under two fours, and two or more threes counted naively. The first
`candidates` of them (20 up to 15x15, in proportion to the area above) are picked by scanning a
bit-packed mask (a few words per step, not the board), and read as a tree, level by level:

- a node is an empty point q with the path of points above it (the doubtful point, then each
  extension point chosen on the way down), all of them played. Its four line features are the
  table's, looked up on its base codes plus the base-3 digit of every path stone on its lines
  within the coded radius (0 -> 1: the path stones were empty). That is exact: the features of
  a line depend on nothing outside the radius, and the path is the only change to the board.
- its children are the extension points of its threes (at most 2 per line, 8 in all). A child
  with a five, an overline or two fours is a bad extension (the straight four through its
  parent is one of its fours); one with under two naive threes is a good one; one with two or
  more is itself read one level down, its threes real only through good grandchildren.
- each level reads at most `slots[level]` open children per board (16, 8, 4 below the
  candidates, up to 15x15). A doubtful point beyond the candidates, or an open child beyond the
  slots or below the last level, would count its threes naively, so the reading says it
  overflowed (`read`'s second result) where any of them exists.

A reading that did not overflow read the whole tree: its mask is the fully recursive one,
whatever its bounds. Where it overflowed, `exact` reads the board again without any bound, depth
first in a `lax.while_loop` (its docstring), so `mask` equals the recursive reading on every
board; the bounded reading is the fast path that settles nearly all of them (how many each tier
settles, and what the unbounded reading costs, in docs/games.md). Nothing depends on the board
size; a larger board only has room for more doubtful points in one position, hence the slots in
proportion to the area above 15x15.

IN PLAY (`Forbidden.play`, `status`, `in_play`, used by the game's `step`), the same mask at a
fraction of the cost; `mask` above stays the reference for a board on its own.

- The state keeps each cell's counts over its four lines (`cell_table`: fives, overlines, fours,
  threes, packed in a uint16). A stone enters the codes of the 10 cells around it on each line
  and nothing else, so a move recomputes those 40 codes from the 21 cells of each line through
  it and adds the change of their counts; no codes are kept (the tiers below recode just the
  boards they read). Sure points (a double-four or an overline, no five) and doubtful points
  then follow elementwise.
- Only boards with Black to move, not over, with a doubtful point need the reading (in random
  play about a third of Black's positions have one; the first level below settles all but
  about one in forty of those). Under `jax.vmap` (every caller of `step` batches it) `in_play`
  has its own batching rule (`jax.custom_batching.custom_vmap`): inside a vmapped function a
  `lax.cond` runs both branches for every board, while the rule sees the whole batch and reads
  just those boards, a chunk at a time in a `while_loop`, in three tiers:
  1. the first level, for the first 8 doubtful points of a board (at most `candidates`): an
     extension point x is judged on its other lines, whose counts are x's less the line
     through p. A line with a good x makes a real three whatever deeper levels say and a line
     whose every x is bad makes none, so p is decided when it has two good lines or fewer
     than two lines not all bad. A board whose doubtful points all fit and are decided gets
     exactly `mask`'s answer (any slots);
  2. the others: `read` with 8 candidates and slots 4, 4, 2, 2, ...; where no doubtful or open
     point was past those bounds, it read the whole tree: the answer is exact;
  3. the rest: `read` with the full bounds, exact where it did not overflow;
  4. the boards it did not settle: `exact`.
  Called alone (`jit(step)` on one game), `in_play` is `mask` behind a `lax.cond` on the need.
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
# Open points read per level below the candidates, up to 15x15 (see the module docstring).
LEVEL_SLOTS = (16, 8, 4)
# In play (`Forbidden.in_play`): doubtful points judged at the first level per board, the
# bounds of the small reading for boards the first level leaves open, and the boards each of
# the three tiers reads at a time (see the module docstring).
FIRST_LEVEL_CANDIDATES = 8
SMALL_CANDIDATES, SMALL_SLOTS = 8, (4, 4, 2)
CHUNKS = (64, 2, 1, 1)
EMPTY, BLACK, BLOCKED = 0, 1, 2
# A cell's packed counts over its four lines (see `cell_table`): fives, overlines, fours, threes.
FIVES, OVERLINES, FOURS, THREES = 0, 3, 6, 10


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


@functools.cache
def cell_table() -> np.ndarray:
    """uint16[3**10]: what one line adds to its cell's packed counts (`Forbidden.status`): a
    five (bits 0-2 count them over the four lines), an overline (bits 3-5), its number of fours
    (bits 6-9) and whether it is a three (bits 10-12). Four lines never overflow a field."""
    table = pattern_table().astype(np.int64)
    five, overline = (table & FIVE) != 0, (table & OVERLINE) != 0
    fours, three = (table >> FOUR_SHIFT) & 3, (table >> EXT_SHIFT) != 0
    packed = five << FIVES | overline << OVERLINES | fours << FOURS | three << THREES
    return packed.astype(np.uint16)


def _extension_slots() -> np.ndarray:
    """int32[256, 2]: the (at most two) set bits of an extension byte, as indices into
    EXTENSION_OFFSETS, -1 where absent. The pattern table never sets more than two."""
    slots = np.full((256, 2), -1, np.int32)
    for word in range(256):
        bits = [i for i in range(8) if word >> i & 1][:2]
        slots[word, : len(bits)] = bits
    return slots


def _sure_and_doubtful(board: jax.Array, features: jax.Array):
    """(sure, doubtful) bool[n*n] from the board int8[n*n] and its line features uint16[4, n*n]:
    empty points forbidden whatever the reading (an overline or a double-four, no five), and
    those that need the double-three reading (two or more naive threes, nothing else)."""
    any_bits = features[0] | features[1] | features[2] | features[3]
    five, overline = (any_bits & FIVE) != 0, (any_bits & OVERLINE) != 0
    fours = sum(((f >> FOUR_SHIFT) & 3).astype(jnp.int8) for f in features)
    threes = sum(((f >> EXT_SHIFT) != 0).astype(jnp.int8) for f in features)
    open_point = (board == 0) & ~five
    return open_point & (overline | (fours >= 2)), open_point & ~overline & (fours < 2) & (
        threes >= 2
    )


def _first(mask: jax.Array, count: int):
    """The first `count` True positions of bool[N]: (index int32[count], used bool[count]).
    Unused slots hold index 0. For short masks (the open points of one level)."""
    index = jnp.arange(mask.shape[0], dtype=jnp.int32)
    picked, used = [], []
    for _ in range(count):
        cell = jnp.argmax(mask).astype(jnp.int32)
        picked.append(cell)
        used.append(mask[cell])
        mask = mask & (index != cell)
    return jnp.stack(picked), jnp.stack(used)


def _to_words(mask: jax.Array) -> jax.Array:
    """bool[N] -> uint32[ceil(N / 32)], bit b of word w = mask[32 w + b]."""
    words = -(-mask.shape[0] // 32)
    bits = jnp.pad(mask, (0, 32 * words - mask.shape[0])).reshape(words, 32)
    return jnp.sum(
        bits.astype(jnp.uint32) << jnp.arange(32, dtype=jnp.uint32), axis=1, dtype=jnp.uint32
    )


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


def _in_chunks(tier, out, pending, chunk):
    """Run `tier(index int32[chunk], out) -> (out, settled bool[chunk])` on the pending rows of
    a batch, `chunk` at a time while any is left (an index past the batch pads the last chunk;
    tiers drop it): (out, the rows still pending)."""
    batch = pending.shape[0]
    chunk = min(chunk, batch)
    steps = -(-batch // chunk)
    order = jnp.nonzero(pending, size=steps * chunk, fill_value=batch)[0].astype(jnp.int32)
    count = jnp.sum(pending, dtype=jnp.int32)

    def body(carry):
        step, out, still = carry
        index = jax.lax.dynamic_slice(order, (step * chunk,), (chunk,))
        out, settled = tier(index, out)
        still = still.at[jnp.where(settled, index, batch)].set(False, mode="drop")
        return step + 1, out, still

    _, out, still = jax.lax.while_loop(
        lambda carry: carry[0] * chunk < count, body, (jnp.int32(0), out, pending)
    )
    return out, still


class Forbidden:
    """Black's forbidden points on n x n boards: `mask(board) -> bool[n*n]`.

    `candidates` bounds how many points per board get the double-three reading and `slots` how
    many nested points each further level reads (see the module docstring); a point beyond
    them counts its threes naively.
    """

    def __init__(self, n: int, candidates: int | None = None, slots: tuple[int, ...] | None = None):
        self.n = n
        # Slots up to 15x15, in proportion to the area above: doubtful points need room.
        scale = max(n * n / 225, 1.0)
        self.candidates = candidates or math.ceil(20 * scale)
        self.slots = slots or tuple(math.ceil(k * scale) for k in LEVEL_SLOTS)
        self._table = pattern_table()
        self._weights = {offset: 3**j for j, offset in enumerate(OFFSETS)}  # base-3 digits
        self._slots = _extension_slots()
        extensions = (self._table >> EXT_SHIFT).astype(np.uint8)  # 8 bits, one per offset
        most = np.unpackbits(extensions[:, None], axis=1).sum(axis=1).max()
        assert most <= 2  # the table's promise, relied on by the two slots
        self._cells = cell_table()
        self._segments, self._targets, self._window = self._move_tables()
        # The tiers of `in_play`; tests shrink them to send boards down every path.
        # Within the full reading's bounds, so that each tier is the cheaper one; a tier that
        # does not overflow is exact whatever its bounds (see the module docstring).
        self.first_candidates = min(FIRST_LEVEL_CANDIDATES, self.candidates)
        self.small_candidates = min(SMALL_CANDIDATES, self.candidates)
        small = SMALL_SLOTS + SMALL_SLOTS[-1:] * len(self.slots)
        self.small_slots = tuple(min(a, b) for a, b in zip(small, self.slots, strict=False))
        self.chunks = CHUNKS
        self.in_play = self._in_play_function()

    def _move_tables(self):
        """For a stone on each point: int32[n*n, 4, 21] the cells at offsets -10..10 along
        each line through it (n*n, a BLOCKED cell appended to the board, off it), int32[n*n,
        4, 10] the cells at offsets -5..5 but 0 whose codes it enters (n*n off the board), and
        int32[21, 10] the weights that turn a segment into those 10 codes (see `play`)."""
        n = self.n
        span = 2 * RADIUS
        segments = np.full((n * n, 4, 2 * span + 1), n * n, np.int32)
        targets = np.full((n * n, 4, len(OFFSETS)), n * n, np.int32)
        for action in range(n * n):
            r, c = divmod(action, n)
            for d, (dr, dc) in enumerate(DIRECTIONS):
                for t in range(-span, span + 1):
                    rr, cc = r + t * dr, c + t * dc
                    if 0 <= rr < n and 0 <= cc < n:
                        segments[action, d, t + span] = rr * n + cc
                        if t in OFFSETS:
                            targets[action, d, OFFSETS.index(t)] = rr * n + cc
        # The code of the cell at offset j holds the cell at offset j + o with weight 3**i.
        window = np.zeros((2 * span + 1, len(OFFSETS)), np.int32)
        for jj, j in enumerate(OFFSETS):
            for i, o in enumerate(OFFSETS):
                window[span + j + o, jj] += 3**i
        return segments, targets, window

    # --- in play: counts kept up to date move by move ---------------------------------------

    def initial(self, board: jax.Array) -> jax.Array:
        """uint16[n*n]: each cell's packed counts over its four lines (`cell_table`) on a board
        int8[n, n]."""
        cells = jnp.asarray(self._cells)[self.codes(board)]
        return (cells[0] + cells[1] + cells[2] + cells[3]).reshape(-1)

    def play(self, counts, board, action, colour):
        """The counts after a stone of `colour` (1 Black, 2 White) on the point `action`;
        board: int8[n*n] with the stone on it. The stone enters the codes of the 10 cells
        around it on each line, so those 40 cells' counts change: their codes come from the
        21 cells of each line through it (one gather, one small product), the codes before
        the move by taking the stone out again."""
        padded = jnp.concatenate([board, jnp.full(1, BLOCKED, board.dtype)]).astype(jnp.int32)
        line = padded[jnp.asarray(self._segments)[action]]  # [4, 21]
        new = line @ jnp.asarray(self._window)  # [4, 10]
        digits = [OFFSETS.index(-j) for j in OFFSETS]  # of the stone, in each cell's code
        old = new - colour.astype(jnp.int32) * jnp.asarray([3**i for i in digits])
        table = jnp.asarray(self._cells)
        change = table[new] - table[old]  # uint16, modulo 2**16: the sums stay exact
        target = jnp.asarray(self._targets)[action]  # [4, 10], n*n off the board: dropped
        return counts.at[target].add(change, mode="drop")

    def status(self, counts, board):
        """(sure, doubtful), bool[n*n] each, from the counts and the board int8[n*n]: empty
        points that are forbidden whatever the reading (a double-four or an overline, no five),
        and those that need the double-three reading (two or more naive threes, nothing else)."""
        five = (counts >> FIVES) & 7 != 0
        overline = (counts >> OVERLINES) & 7 != 0
        fours = (counts >> FOURS) & 15
        threes = (counts >> THREES) & 7
        open_point = (board == 0) & ~five
        sure = open_point & (overline | (fours >= 2))
        doubtful = open_point & ~overline & (fours < 2) & (threes >= 2)
        return sure, doubtful

    def first_level(self, board, counts, words):
        """(points int32[K], allowed bool[K], decided bool): the reading of a board int8[n*n]
        (counts as `play` keeps them, words uint32[W]: its doubtful points, bit-packed)
        settled at the first level. Each of its first K = `first_candidates` doubtful points p
        gets the extension points x of its threes judged as in `read` (on x's other lines:
        their counts are x's less the line through p): a line with a good x makes a real three
        whatever deeper levels say, a line whose every x is bad none. So p is forbidden with
        two good lines, allowed with fewer than two lines not all bad, and otherwise needs
        deeper levels. `allowed` marks the points p (used slots only) that are allowed;
        `decided` says every doubtful point was among them and settled, so that `read` (with
        as many candidates or more, any slots) allows exactly those."""
        table, cells = jnp.asarray(self._table), jnp.asarray(self._cells)
        codes = self.codes(board.reshape(self.n, self.n)).reshape(4, -1)
        points, used, rest = _first_bits(words, self.first_candidates)
        lines = table[codes[jnp.arange(4)[None, :], points[:, None]]]  # [K, 4]
        child, valid = self._extensions(points, lines)  # [K, 4, 2]
        through_p = cells[codes[jnp.arange(4)[None, :, None], child]]  # x's line through p
        others = counts[child] - through_p  # packed counts of x's other three lines
        bad = ((others >> FIVES) & 7 != 0) | ((others >> OVERLINES) & 7 != 0)
        bad = bad | ((others >> FOURS) & 15 != 0)
        good = valid & ~bad & ((others >> THREES) & 7 < 2)
        good_lines = jnp.sum(jnp.any(good, axis=-1), axis=-1)  # [K]
        live_lines = jnp.sum(jnp.any(valid & ~bad, axis=-1), axis=-1)
        settled = (good_lines >= 2) | (live_lines < 2)
        decided = jnp.all(settled | ~used) & ~jnp.any(rest != 0)
        return points, used & (good_lines < 2), decided

    def _in_play_function(self):
        """`in_play(board, counts, sure, doubtful, needs) -> forbidden bool[n*n]`, board
        int8[n*n], the rest as `play` and `status` give them (see the module docstring). Alone
        it reads the board when `needs`; under `jax.vmap` it reads only the boards that need
        it: at the first level, then with small slots, then with the full ones, each for the
        boards the one before leaves open."""
        n = self.n

        def read(board, candidates, slots):
            codes = self.codes(board.reshape(n, n)).reshape(4, -1)
            return self.read(board, codes, candidates, slots)

        def full(board):
            return self.mask(board.reshape(n, n))

        @jax.custom_batching.custom_vmap
        def in_play(board, counts, sure, doubtful, needs):
            return jax.lax.cond(needs, full, lambda _: sure, board)

        @in_play.def_vmap
        def in_play_batched(axis_size, in_batched, *args):
            board, counts, sure, doubtful, needs = (
                x if batched else jnp.broadcast_to(x, (axis_size, *x.shape))
                for x, batched in zip(args, in_batched, strict=True)
            )
            batch, n2 = sure.shape
            words = jax.vmap(_to_words)(doubtful)

            def first(index, cleared):
                rows = jnp.minimum(index, batch - 1)
                level = jax.vmap(self.first_level)
                points, allowed, decided = level(board[rows], counts[rows], words[rows])
                write = allowed & decided[:, None] & (index < batch)[:, None]
                flat = jnp.where(write, rows[:, None] * n2 + points, batch * n2)
                return cleared.at[flat].set(True, mode="drop"), decided

            def bounded_by(candidates, slots):  # a tier settles the boards it read whole
                def tier(index, forbidden):
                    rows = jnp.minimum(index, batch - 1)
                    mask, overflow = jax.vmap(read, in_axes=(0, None, None))(
                        board[rows], candidates, slots
                    )
                    write = jnp.where(overflow, batch, index)
                    return forbidden.at[write].set(mask, mode="drop"), ~overflow

                return tier

            small = bounded_by(self.small_candidates, self.small_slots)
            bounded = bounded_by(self.candidates, self.slots)

            def last(index, forbidden):
                mask = jax.vmap(self.exact)(board[jnp.minimum(index, batch - 1)])
                return forbidden.at[index].set(mask, mode="drop"), jnp.ones_like(index, bool)

            first_chunk, small_chunk, bounded_chunk, last_chunk = self.chunks
            cleared = jnp.zeros(batch * n2, bool)
            cleared, pending = _in_chunks(first, cleared, needs, first_chunk)
            # Boards settled at the first level; the pending ones are overwritten below.
            forbidden = sure | (doubtful & needs[:, None] & ~cleared.reshape(batch, n2))
            forbidden, pending = _in_chunks(small, forbidden, pending, small_chunk)
            forbidden, pending = _in_chunks(bounded, forbidden, pending, bounded_chunk)
            forbidden, _ = _in_chunks(last, forbidden, pending, last_chunk)
            return forbidden, True

        return in_play

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
        """bool[n*n]: empty cells where a Black stone is forbidden. board: int8[n, n]. The
        bounded reading, and `exact` where it overflowed."""
        flat = board.reshape(-1)
        codes = self.codes(board).reshape(4, -1)
        forbidden, overflow = self.read(flat, codes, self.candidates, self.slots)
        return jax.lax.cond(overflow, self.exact, lambda _: forbidden, flat)

    def exact(self, board: jax.Array) -> jax.Array:
        """bool[n*n]: `mask` read without any bound, for a board int8[n*n] where the bounded
        reading overflowed. Each doubtful point p is read depth first, as the rules define it:
        one `lax.while_loop` over a stack of points (p, then an extension point of one of its
        threes that is itself a doubtful point on the board with p played, and so on), every
        point on the stack played on the board. A step judges one extension point x of the top
        point's threes by x's own lines on that board (a five, an overline or a double-four:
        a bad extension; under two threes: a good one; else x goes on the stack), or, when the
        top point has no extension left, pops it with its verdict (two lines with a good
        extension: a real double-three) and hands it to the point below as that extension's
        judgement. A line already real, or a point already a double-three, is not read
        further. The stack never holds more points than the board has empty ones, and each
        step is a few gathers, so the cost is the number of extension points judged: the
        depth of the position, not a bound."""
        n2 = self.n * self.n
        table = jnp.asarray(self._table)
        targets = jnp.asarray(self._targets)  # [n*n, 4, 10] the coded cells, n*n off the board
        weights = jnp.asarray([3**j for j in range(len(OFFSETS))], jnp.int32)
        codes = self.codes(board.reshape(self.n, self.n)).reshape(4, -1)
        features = table[codes]  # [4, n*n]
        sure, doubtful = _sure_and_doubtful(board, features)

        def lines_of(cell, stones):  # uint16[4]: `cell`'s line features, `stones` played
            return table[jnp.sum(stones[targets[cell]] * weights, axis=-1)]

        def push(carry, cell, lines):
            stones, depth, cells, child, valid, nxt, good, words, real = carry
            ext, ok = self._extensions(cell[None], lines[None])
            return (stones.at[cell].set(BLACK), depth + 1, cells.at[depth].set(cell),
                    child.at[depth].set(ext.reshape(8)), valid.at[depth].set(ok.reshape(8)),
                    nxt.at[depth].set(0), good.at[depth].set(0), words, real)  # fmt: skip

        def step(carry):
            stones, depth, cells, child, valid, nxt, good, words, real = carry
            top = jnp.maximum(depth - 1, 0)
            double_three = jnp.sum((good[top] >> jnp.arange(4)) & 1) >= 2  # two real threes
            done = (nxt[top] >= 8) | double_three

            def start(carry):  # the stack is empty: the next doubtful point, if any
                point, used, rest = _first_bits(carry[7], 1)
                carry = carry[:7] + (rest,) + carry[8:]
                return jax.lax.cond(
                    used[0], lambda c: push(c, point[0], features[:, point[0]]), lambda c: c, carry
                )

            def pop(carry):  # the top point's verdict goes to the point below, or is the answer
                stones, depth, cells, child, valid, nxt, good, words, real = carry
                below = jnp.maximum(top - 1, 0)
                line = nxt[below] // 2
                good = jnp.where(
                    (top > 0) & ~double_three, good.at[below].set(good[below] | (1 << line)), good
                )
                nxt = jnp.where(top > 0, nxt.at[below].add(1), nxt)
                real = jnp.where(top == 0, real.at[cells[0]].set(double_three), real)
                return (stones.at[cells[top]].set(EMPTY), depth - 1, cells, child, valid, nxt,
                        good, words, real)  # fmt: skip

            def judge(carry):  # the top point's next extension point
                stones, depth, cells, child, valid, nxt, good, words, real = carry
                i = nxt[top]
                line = i // 2
                x = child[top, i]
                skip = ~valid[top, i] | (((good[top] >> line) & 1) != 0)
                lines = lines_of(x, stones)
                bits = lines[0] | lines[1] | lines[2] | lines[3]
                x_fours = jnp.sum((lines >> FOUR_SHIFT) & 3)
                x_threes = jnp.sum((lines >> EXT_SHIFT) != 0)
                bad = ((bits & (FIVE | OVERLINE)) != 0) | (x_fours >= 2)
                deeper = ~skip & ~bad & (x_threes >= 2)
                settled_good = ~skip & ~bad & (x_threes < 2)
                judged = (stones, depth, cells, child, valid, nxt.at[top].add(1),
                          good.at[top].set(good[top] | (settled_good.astype(jnp.int32) << line)),
                          words, real)  # fmt: skip
                return jax.lax.cond(deeper, lambda c: push(c, x, lines), lambda c: judged, carry)

            branch = jnp.where(depth == 0, 0, jnp.where(done, 1, 2))
            return jax.lax.switch(branch, (start, pop, judge), carry)

        def going(carry):
            return (carry[1] > 0) | jnp.any(carry[7] != 0)

        stones = jnp.concatenate([board, jnp.full(1, BLOCKED, board.dtype)]).astype(jnp.int32)
        carry = (
            stones,
            jnp.int32(0),
            jnp.zeros(n2, jnp.int32),  # the stack's points
            jnp.zeros((n2, 8), jnp.int32),  # their extension points
            jnp.zeros((n2, 8), bool),
            jnp.zeros(n2, jnp.int32),  # the next extension point to judge
            jnp.zeros(n2, jnp.int32),  # the lines with a good extension, one bit each
            _to_words(doubtful),
            jnp.zeros(n2, bool),  # the doubtful points that are real double-threes
        )
        real = jax.lax.while_loop(going, step, carry)[-1]
        return sure | (doubtful & real)

    def read(self, board, flat_codes, candidates, slots):
        """(forbidden bool[n*n], overflow bool) on the board int8[n*n] with its pattern codes
        int[4, n*n], reading up to `candidates` doubtful points and `slots[level]` open points
        per level. `overflow` says that some doubtful or open point was past those bounds (or
        below the last level), where the answer may be wrong; without it, the reading was whole
        and the mask exact."""
        n = self.n
        features = self._lookup(flat_codes)  # uint16[4, n*n]
        sure, doubtful = _sure_and_doubtful(board, features)

        # UP TO `candidates` SUCH POINTS p (the first in reading order; any others count as
        # plain double-threes), then the nested reading below them.
        points, used, rest = _first_bits(_to_words(doubtful), candidates)
        flat_features = features
        root_lines = flat_features[:, points].T  # uint16[K, 4]
        # The first level, for every cell x at once: x as the extension point of a three on
        # its line d (bits 2d, 2d+1). Black on p and x makes a straight four on line d (one
        # four, nothing else there), and x's other lines do not pass through p, so their base
        # features decide: a five, an overline or a four there makes x a bad extension; two
        # threes there make it open (read one level down).
        summary = jnp.zeros(n * n, jnp.uint32)
        for d in range(4):
            others = [flat_features[e] for e in range(4) if e != d]
            bits = others[0] | others[1] | others[2]
            four = sum(((f >> FOUR_SHIFT) & 3) for f in others) >= 1
            three_count = sum(((f >> EXT_SHIFT) != 0).astype(jnp.int8) for f in others)
            bad = ((bits & (FIVE | OVERLINE)) != 0) | four
            open_ = ~bad & (three_count >= 2)
            word = bad.astype(jnp.uint32) | (open_.astype(jnp.uint32) << 1)
            summary = summary | (word << (2 * d))
        first_level = (summary, flat_features)
        real, overflow = self._double_three(
            flat_codes, points, used, points[:, None][:, :0], root_lines, slots, 0, first_level
        )
        hit = jnp.arange(n * n) == points[:, None]  # [K, n*n]
        cleared = jnp.any(hit & (used & ~real)[:, None], axis=0)
        return sure | (doubtful & ~cleared), overflow | jnp.any(rest != 0)

    def _double_three(self, flat_codes, cells, used, path, lines, slots, level, first_level=None):
        """(bool[M], overflow bool): do `cells` (int32[M], each with two or more naive threes,
        no five, overline or double-four, on the board with the stones `path` int32[M, L]
        played) make two real threes? `used` bool[M] marks the cells that are read (the others
        fill unused slots: their answers are dropped and their children come after all others).
        lines: their uint16[M, 4] line features. Reads the extension points of their threes
        (children), and recursively the children that are double-three candidates themselves,
        while slots last (`slots[level]` of them at this level); `overflow` says some open
        child of a used cell was past the slots. At the first level (the doubtful points
        themselves, no path) `first_level` = (summary uint32[n*n], features uint16[4, n*n])
        judges the children without lookups (see `read`)."""
        m = cells.shape[0]
        child, valid = self._extensions(cells, lines)  # [M, 4, 2]
        child = child.reshape(-1)
        child_path = jnp.repeat(jnp.concatenate([path, cells[:, None]], axis=1), 8, axis=0)
        if first_level is None:
            child_lines = self._lines_with(flat_codes, child, child_path)  # [8M, 4]
            bits = child_lines[:, 0] | child_lines[:, 1] | child_lines[:, 2] | child_lines[:, 3]
            child_fours = jnp.sum((child_lines >> FOUR_SHIFT) & 3, axis=-1)
            child_threes = jnp.sum((child_lines >> EXT_SHIFT) != 0, axis=-1)
            # RIF: a three's extension must make a straight four "without at the same time a
            # five in a row is made", and must itself be allowed.
            bad = ((bits & FIVE) != 0) | ((bits & OVERLINE) != 0) | (child_fours >= 2)
            open_ = ~bad & (child_threes >= 2)
        else:
            summary, flat_features = first_level
            line = jnp.tile(jnp.repeat(jnp.arange(4, dtype=jnp.uint32), 2), m)  # [8M]
            word = summary[child] >> (2 * line)
            bad, open_ = (word & 1) != 0, (word & 2) != 0
        open_ = open_ & valid.reshape(-1)
        allowed = ~bad & ~open_
        if level == len(slots):
            # The last level: open children count naively, which is right only if there are none.
            overflow = jnp.any(open_ & jnp.repeat(used, 8))
        else:
            # Read the first `slots[level]` open children; the others count naively (as
            # double-threes: not allowed).
            picked, picked_used = _first(open_, slots[level])
            if first_level is None:
                picked_lines = child_lines[picked]
            else:  # the base features, with the straight four on the incoming line
                incoming = (picked // 2) % 4
                picked_lines = jnp.where(
                    jnp.arange(4) == incoming[:, None],
                    jnp.uint16(1 << FOUR_SHIFT),
                    flat_features[:, child[picked]].T,
                )
            picked_real, overflow = self._double_three(
                flat_codes,
                child[picked],
                picked_used,
                child_path[picked],
                picked_lines,
                slots,
                level + 1,
            )
            hit = (jnp.arange(8 * m) == picked[:, None]) & picked_used[:, None]  # [S, 8M]
            read_allowed = jnp.any(hit & ~picked_real[:, None], axis=0)
            allowed = allowed | (open_ & read_allowed)
            # Children of used cells come first, so the picked ones are theirs while any is left.
            wanted = jnp.sum(open_ & jnp.repeat(used, 8), dtype=jnp.int32)
            overflow = overflow | (wanted > slots[level])
        real = jnp.sum(jnp.any(valid & allowed.reshape(m, 4, 2), axis=-1), axis=-1)  # [M]
        return real >= 2, overflow

    def _lines_with(self, flat_codes, cells, path):
        """uint16[M, 4]: line features of `cells` (int32[M]) on the board with the Black stones
        `path` (int32[M, L], all empty on the board) played: their base-3 digit goes from 0 to
        1 in the codes of the lines they lie on within the coded radius."""
        n = self.n
        dr = path // n - (cells // n)[:, None]  # [M, L]
        dc = path % n - (cells % n)[:, None]
        code = []
        for f, (fr, fc) in enumerate(DIRECTIONS):
            k = dr if fr != 0 else dc  # a stone is at cell + k * f, if on that line
            on = (dr == k * fr) & (dc == k * fc) & (jnp.abs(k) >= 1) & (jnp.abs(k) <= RADIUS)
            digit = jnp.clip(jnp.where(k < 0, k + RADIUS, k + RADIUS - 1), 0, 9)
            added = jnp.sum(jnp.where(on, 3**digit, 0), axis=1)
            code.append(flat_codes[f, cells] + added)
        return jnp.asarray(self._table)[jnp.stack(code, axis=1)]

    def _extensions(self, cells, lines):
        """Extension points of `cells`' threes: (cells int32[M, 4, 2], valid bool[M, 4, 2])
        along each direction. lines: uint16[M, 4], their line features."""
        n = self.n
        ext = (lines >> EXT_SHIFT) & 0xFF  # [M, 4]
        slot = jnp.asarray(self._slots)[ext]  # [M, 4, 2]
        offset = jnp.asarray(EXTENSION_OFFSETS, jnp.int32)[jnp.maximum(slot, 0)]
        step_r = jnp.asarray([d[0] for d in DIRECTIONS], jnp.int32)[:, None]
        step_c = jnp.asarray([d[1] for d in DIRECTIONS], jnp.int32)[:, None]
        r, c = (cells // n)[:, None, None], (cells % n)[:, None, None]
        target = (r + offset * step_r) * n + (c + offset * step_c)
        valid = slot >= 0  # a set bit always points at an empty cell on the board
        return jnp.where(valid, target, 0), valid
