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
- `stress_boards` (`stress_mix` by generator): boards built against the nested reading's bounds:
  `flip_chain_board` (chains 4 to 8 levels deep whose verdict flips at every level, forked,
  joined or along an edge), `shared_extension_board` (one extension point under several
  doubtful points), `tiled_board` (more doubtful points than the reading's candidates) and
  `searched_boards` (a mutation search for the oracle's deepest recursion, `mutation_search`).
- `oracle_reading` / `oracle_depth`: how deep the oracle's recursion reads a board (a wrapper
  around the oracle, which stays untouched); `reference_points`: both references' forbidden
  points at a fraction of the cost, asked only where a point could be forbidden at all
  (`candidate_points`).

numpy and the standard library only (the oracle too); boards are int8[n, n] with 0 empty,
1 Black, 2 White.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from . import renju_oracle as _oracle

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


# ----------------------------------------------------------------------------- stress boards
#
# Boards built against the nested double-three reading: deep chains whose verdict flips at
# every level, chains that branch, share points or run along the edge, boards with more
# doubtful points than the reading's candidates, and a mutation search for deep recursion.
# `stress_boards` mixes them all.


class _Sketch:
    """A board under construction. Besides the stones it keeps the points that must stay
    empty (chain points, extension points, the open ends of the straight fours they make) and
    those that must not turn Black (the rest of each motif's line: a stray Black stone there
    turns a three into a four or a five into a six), so that later motifs do not spoil earlier
    ones. The oracle, not this bookkeeping, is the judge: it only makes the intended shapes
    likely."""

    def __init__(self, rng: np.random.Generator, n: int = 15):
        self.rng, self.n = rng, n
        self.board = np.zeros((n, n), np.int8)
        self.keep: set = set()
        self.no_black: set = set()
        self.nodes: dict = {}  # chain point -> its ancestors (played when it is judged)

    def cell(self, q, d, o):
        return (q[0] + o * DIRECTIONS[d][0], q[1] + o * DIRECTIONS[d][1])

    def fits(self, q, d, black=(), white=(), empty=(), not_black=()) -> bool:
        """Can the motif (offsets along line d from q) go on the board as it is?"""
        n, board = self.n, self.board
        for o in black:
            p = self.cell(q, d, o)
            if not _on(n, *p) or board[p] or p in self.keep or p in self.no_black:
                return False
        for o in white:  # off the board, the edge blocks as well as White does
            p = self.cell(q, d, o)
            if _on(n, *p) and (board[p] == 1 or p in self.keep):
                return False
        for o in empty:
            p = self.cell(q, d, o)
            if not _on(n, *p) or board[p]:
                return False
        return all(not _on(n, *p) or board[p] != 1 for p in (self.cell(q, d, o) for o in not_black))

    def put(self, q, d, black=(), white=(), empty=(), not_black=()) -> bool:
        if not self.fits(q, d, black, white, empty, not_black):
            return False
        for o in black:
            self.board[self.cell(q, d, o)] = 1
        for o in white:
            p = self.cell(q, d, o)
            if _on(self.n, *p):
                self.board[p] = 2
        self.keep.update(self.cell(q, d, o) for o in empty)
        self.no_black.update(self.cell(q, d, o) for o in not_black)
        return True

    def noise(self, share: float) -> None:
        """Random stones (two Black for one White) where they spoil nothing on purpose."""
        n = self.n
        hits = self.rng.random((n, n)) < share
        colours = self.rng.choice([1, 1, 2], size=(n, n))
        for p in zip(*np.nonzero(hits & (self.board == 0)), strict=True):
            p = (int(p[0]), int(p[1]))
            if p not in self.keep and (colours[p] == 2 or p not in self.no_black):
                self.board[p] = colours[p]


@functools.cache
def _three_motif(pair, kept):
    """A three of the stones `pair` with the point at offset 0, as `_Sketch.put` arguments
    (tuples, cached): the straight four through each extension in `kept` stays open (its ends
    empty, the cells beyond not Black); each other extension is spoiled by White (or the edge)
    at the far end of its four, so that `kept` are the three's only extension points."""
    black, white, empty = list(pair), [], [0]
    not_black = {o for o in range(-4, 5)} - {0, *pair}
    for e in _extensions(pair):
        lo, hi = min(0, *pair, e), max(0, *pair, e)
        if e in kept:
            empty += [e, lo - 1, hi + 1]
            not_black |= {lo - 2, hi + 2}
        else:
            white.append(lo - 1 if e < max(kept) else hi + 1)
    not_black = tuple(sorted(not_black - set(white)))
    return {
        "black": tuple(black),
        "white": tuple(white),
        "empty": tuple(empty),
        "not_black": not_black,
    }


# One-extension threes: the split ones (B.B*, *.BB, ...) have one by their shape, the solid ones
# (BB*, B*B, *BB) get one from White (or the edge) spoiling the other side. Two-extension ones
# fork a chain: the three is fake only if both extension points are bad.
SINGLE_THREES = [(pair, (e,)) for pair in THREE_SHAPES for e in _extensions(pair)]
DOUBLE_THREES = [
    (pair, tuple(_extensions(pair))) for pair in THREE_SHAPES if len(_extensions(pair)) == 2
]
ALL_THREES = [(pair, tuple(_extensions(pair))) for pair in THREE_SHAPES]
# What a chain's last point gets on one more line (offsets from it, to mirror at random): with
# the straight four it makes on the line it came from, a four is a double-four, and a six or a
# five spoils it too; all of them make the three above fake.
ENDINGS = {
    "four": [
        {"black": [1, 2, 3], "white": [-1], "empty": [4], "not_black": [5]},
        {"black": [1, 2, 4], "white": [-1], "empty": [3], "not_black": [5]},
        {"black": [-1, 1, 2], "empty": [-2, 3], "not_black": [-3, 4]},
    ],
    "overline": [{"black": [-2, -1, 1, 2, 3]}, {"black": [-1, 1, 2, 3, 4]}],
    "five": [
        {"black": [1, 2, 3, 4], "not_black": [-1, 5]},
        {"black": [-2, -1, 1, 2], "not_black": [-3, 3]},
    ],
}


def _mirror(motif, sign):
    return {key: [sign * o for o in offsets] for key, offsets in motif.items()}


EDGE_STRIP = 3  # how far from its edge a chain along the edge may go


def _inside(n, x, edge=None):
    """Distance from x to the nearest edge, the chosen `edge` (if any) left out."""
    sides = sorted([x[0], n - 1 - x[0], x[1], n - 1 - x[1]])
    if edge is not None:
        sides.remove(edge(x))
    return sides[0]


def _black_near(board: np.ndarray) -> np.ndarray:
    """int8[4, n, n]: Black stones within 4 points of each point along each line."""
    n = len(board)
    black = np.pad(board == 1, 4).astype(np.int8)
    near = np.zeros((4, n, n), np.int8)
    for d, (dr, dc) in enumerate(DIRECTIONS):
        for k in range(-4, 5):
            if k:
                near[d] += black[4 + k * dr : 4 + k * dr + n, 4 + k * dc : 4 + k * dc + n]
    return near


def _line(sk, q, free, shapes, join=False, edge=None, chain=False):
    """Put a three of one of `shapes` ((pair, kept extensions)) through q on one of the lines
    `free`: (line, its extension points) or None where none fits. `join` prefers a three whose
    extension is a chain point already built (two chains then share it). For a `chain` three,
    whose extension points are the next chain points: the ones at least three points away from
    the chain points built so far (a chain that curls up on itself runs out of room after a
    few levels), then the ones one to `EDGE_STRIP` points from the edge (`edge`, a distance
    to it, when the chain runs along one), then the ones away from the other edges (corners
    are dead ends), then those with the fewest Black stones on their other lines (stray fours
    and threes there would cut the chain short). Otherwise the first that fits, at random."""
    tries = [(d, pair, kept) for d in free for pair, kept in shapes]
    options = []
    for t in sk.rng.permutation(len(tries)):
        d, pair, kept = tries[t]
        motif = _three_motif(pair, kept)
        if sk.fits(q, d, **motif):
            options.append((d, motif, [sk.cell(q, d, e) for e in kept]))
            if not (join or chain):
                break
    if not options:
        return None
    if join:
        shared = [
            o for o in options if any(x in sk.nodes and x not in sk.nodes.get(q, ()) for x in o[2])
        ]
        options = shared or options
    if chain:
        near_black = _black_near(sk.board)

        def score(option):
            d, _, points = option
            gap = min(max(abs(x[0] - y[0]), abs(x[1] - y[1])) for x in points for y in sk.nodes)
            # On the edge itself no three across it can be open.
            near = -max(max(edge(x) - EDGE_STRIP, 1 - edge(x), 0) for x in points) if edge else 0
            inside = min(min(_inside(sk.n, x, edge), 3) for x in points)
            dirt = sum(int(near_black[e][x]) for x in points for e in range(4) if e != d)
            return min(gap, 3), near, inside, -dirt

        best = max(score(o) for o in options)
        options = [o for o in options if score(o) == best]
    d, motif, points = options[sk.rng.integers(len(options))]
    sk.put(q, d, **motif)
    return d, points


def _ending(sk, q, free):
    """The last point of a chain: a four, a six, a five, a double-three (all bad extensions,
    the last one read one level further), a single three or nothing (good ones). Takes the
    lines it uses out of `free`."""
    rng = sk.rng
    kind = ["four", "overline", "five", "double-three", "three", "none"][
        rng.choice(6, p=[0.3, 0.1, 0.1, 0.2, 0.15, 0.15])
    ]
    if kind in ENDINGS:
        tries = [(d, m, s) for d in free for m in ENDINGS[kind] for s in (1, -1)]
        for i in rng.permutation(len(tries)):
            d, motif, sign = tries[i]
            if sk.put(q, d, **_mirror(motif, sign)):
                free.remove(d)
                return
    for _ in range({"double-three": 2, "three": 1}.get(kind, 0)):
        got = _line(sk, q, free, ALL_THREES)
        if got:
            free.remove(got[0])


def _grow(sk, q, ancestors, incoming, depth, branch=0.0, join=0.0, edge=None, most=14):
    """Threes around the chain point q (empty, judged with `ancestors` played, making a
    straight four on the lines `incoming`): one whose extensions are the next chain points
    (grown `depth` - 1 levels further), and one real three (or, with probability `branch`,
    a second chain). A chain three has one extension point, or two (a fork) with probability
    `branch`. At depth 0, or past `most` chain points, q gets an ending (`_ending`)."""
    rng = sk.rng
    sk.nodes[q] = ancestors
    free = [d for d in range(4) if d not in incoming]
    rng.shuffle(free)
    children = []
    if depth == 0 or len(sk.nodes) >= most:
        _ending(sk, q, free)
    else:
        for role in ("chain", "chain" if rng.random() < branch else "real"):
            if role == "real":
                shapes = ALL_THREES
            else:
                shapes = DOUBLE_THREES if rng.random() < branch else SINGLE_THREES
            got = _line(sk, q, free, shapes, rng.random() < join, edge, chain=role == "chain")
            if got is None:
                continue
            d, points = got
            free.remove(d)
            if role == "chain":
                children += [(x, d) for x in points if x not in sk.nodes]
    # q's lines left over stay free of Black, so that no later stone adds a three or a four.
    for d in free:
        sk.no_black.update(sk.cell(q, d, o) for o in range(-4, 5))
    for x, d in children:
        _grow(sk, x, ancestors | {q}, {d}, depth - 1, branch, join, edge, most)


def _start(rng, n, edge):
    """A first point: near an edge (and a distance to it) or anywhere but the outer rows."""
    if not edge:
        return tuple(int(v) for v in rng.integers(2, n - 2, 2)), None
    side = int(rng.integers(4))
    along, off = int(rng.integers(2, n - 2)), int(rng.integers(1, 3))
    point = [(off, along), (n - 1 - off, along), (along, off), (along, n - 1 - off)][side]
    distance = [  # to that edge
        lambda p: p[0],
        lambda p: n - 1 - p[0],
        lambda p: p[1],
        lambda p: n - 1 - p[1],
    ][side]
    return point, distance


def flip_chain_board(
    rng: np.random.Generator,
    depth: int,
    n: int = 15,
    branch: float = 0.0,
    join: float = 0.0,
    edge: bool = False,
) -> np.ndarray:
    """One board with a chain `depth` levels deep below a doubtful point p: each chain point
    has a real three and a three whose only extension is the next chain point, which makes a
    straight four there and is judged with every point above it played. The last one gets a
    four (a double-four with its straight four), a six, a five, a double-three, a single three
    or nothing, so the verdict flips at every level on the way up: exactly what a reading
    bounded in depth gets wrong. `branch` forks the chain (two chain threes at a point, or a
    chain three with two extension points), `join` lets a three's extension be a chain point
    already built (two chains share it, judged on two different boards), `edge` starts the
    chain next to an edge and keeps it there (the edge blocks like White)."""
    sk = _Sketch(rng, n)
    start, distance = _start(rng, n, edge)
    _grow(sk, start, frozenset(), (), depth, branch, join, distance)
    sk.noise(0.02)
    return sk.board


def shared_extension_board(rng: np.random.Generator, depth: int, n: int = 15) -> np.ndarray:
    """Two or three doubtful points whose one-extension threes all end on the same point x
    (along different lines), each with a real three besides; x heads a chain `depth` levels
    deep. x is read on a different board under each of them (one of them played), and on each
    the other parents' stones give x threes of its own."""
    sk = _Sketch(rng, n)
    x = tuple(int(v) for v in rng.integers(3, n - 3, 2))
    sk.keep.add(x)
    lines = [int(d) for d in rng.permutation(4)[: rng.integers(2, 4)]]
    parents = []
    for d in lines:
        for i in rng.permutation(len(SINGLE_THREES)):
            pair, (e,) = SINGLE_THREES[i]
            p = sk.cell(x, d, -e)
            if sk.put(p, d, **_three_motif(pair, (e,))):
                parents.append((p, d))
                break
    for p, d in parents:
        sk.nodes[p] = frozenset()
        _line(sk, p, [e for e in range(4) if e != d], ALL_THREES)
    _grow(sk, x, frozenset(), [d for _, d in parents], depth, branch=0.2, join=0.2)
    sk.noise(0.02)
    return sk.board


def tiled_board(rng: np.random.Generator, spacing: int = 3, n: int = 15) -> np.ndarray:
    """Small double-three motifs tiled over the board: a point on every `spacing`-th row and
    column (each moved by up to one point) gets two threes of random shapes on two random
    lines. Neighbouring motifs cross, so most boards have more doubtful points (over 20 on
    about 85% of them at spacing 3) than the reading takes as candidates, and many of them are
    each other's extension points."""
    sk = _Sketch(rng, n)
    first = rng.integers(0, spacing, 2)
    centres = []
    for r in range(first[0], n, spacing):
        for c in range(first[1], n, spacing):
            r2, c2 = r + int(rng.integers(-1, 2)), c + int(rng.integers(-1, 2))
            centres.append((min(max(r2, 0), n - 1), min(max(c2, 0), n - 1)))
    sk.keep.update(centres)
    for q in centres:
        free = [int(d) for d in rng.permutation(4)]
        for _ in range(2):
            got = _line(sk, q, free, ALL_THREES)
            if got is None:
                break
            free.remove(got[0])
    sk.noise(0.02)
    return sk.board


# ----------------------------------------------------------------------------- oracle depth


class _TooMuchWork(Exception):
    pass


def _naive_threes(b, r, c) -> int:
    """Lines where Black at the empty (r, c) of the frozen board `b` makes a three counted
    naively (some empty point makes a straight four with it, allowed or not)."""
    b1 = _oracle._place(b, r, c, 1)
    count = 0
    for dr, dc in DIRECTIONS:
        for k in (-3, -2, -1, 1, 2, 3):
            xr, xc = r + k * dr, c + k * dc
            if not _oracle._on(b1, xr, xc) or b1[xr][xc] != 0:
                continue
            b2 = _oracle._place(b1, xr, xc, 1)
            lo, hi = _oracle._run(b2, r, c, dr, dc)
            if lo <= k <= hi and _oracle._is_straight_four(b2, r, c, dr, dc):
                count += 1
                break
    return count


def _doubtful(b, r, c) -> bool:
    """Is the empty (r, c) a point the double-three reading must read: no five, no six, under
    two fours, two or more naive threes (the implementation's "doubtful" points)?"""
    b1 = _oracle._place(b, r, c, 1)
    if _oracle._makes_five(b1, r, c, 1):
        return False
    if any(_oracle._run_length(b1, r, c, dr, dc) >= 6 for dr, dc in DIRECTIONS):
        return False
    if sum(_oracle._fours_in_line(b1, r, c, dr, dc) for dr, dc in DIRECTIONS) >= 2:
        return False
    return _naive_threes(b, r, c) >= 2


def _shifted(board: np.ndarray, fill: int, reach: int):
    """`at(d, o)`: the values at offset o along line d from every point, as an [n, n] view
    (`fill` off the board, for |o| <= `reach`)."""
    n = len(board)
    padded = np.pad(board, reach, constant_values=fill)

    def at(d, o):
        dr, dc = DIRECTIONS[d]
        return padded[reach + o * dr : reach + o * dr + n, reach + o * dc : reach + o * dc + n]

    return at


def _take(line, index):
    """line[index[r, c], r, c] for every point."""
    return np.take_along_axis(line, index[None], 0)[0]


def naive_threes(board: np.ndarray) -> np.ndarray:
    """int8[n, n]: for Black at each empty point, the lines where it makes a three counted
    naively: some empty point x at most 3 away on the line makes, with it, a straight four
    (exactly four in a row through both, each end empty and making exactly five), whether x
    is allowed or not. All points at once, in numpy: `_naive_threes` is the same count, per
    point, from the oracle's own helpers (and the quick test's reference shortcut relies on
    this one never missing a three)."""
    n = len(board)
    at = _shifted(board, 3, 7)  # 3: off the board (neither Black nor empty)
    empty = board == 0
    count = np.zeros((n, n), np.int8)
    for d in range(4):
        line = np.stack([at(d, o) for o in range(-7, 8)])  # line[o + 7]
        found = np.zeros((n, n), bool)
        for k in (-3, -2, -1, 1, 2, 3):
            black = (line == 1) | (np.arange(-7, 8) == k)[:, None, None]
            black[7] = True
            left, right = np.zeros((n, n), np.int64), np.zeros((n, n), np.int64)
            alive_left, alive_right = np.ones((n, n), bool), np.ones((n, n), bool)
            for o in range(1, 6):
                alive_left &= black[7 - o]
                alive_right &= black[7 + o]
                left += alive_left
                right += alive_right
            ends = [7 - left - 1, 7 + right + 1]  # indices into line
            beyond = [ends[0] - 1, ends[1] + 1]
            open_ends = (_take(line, ends[0]) == 0) & (_take(line, ends[1]) == 0)
            exact = (_take(line, beyond[0]) != 1) & (_take(line, beyond[1]) != 1)
            four = (left + right + 1 == 4) & (-left <= k) & (k <= right)
            found |= (line[7 + k] == 0) & four & open_ends & exact
        count += found
    return np.where(empty, count, 0).astype(np.int8)


def candidate_points(board: np.ndarray) -> np.ndarray:
    """bool[n, n]: the empty points where the rules could forbid Black at all: two naive
    threes (`naive_threes`: a double-three needs them), two lines with three or more Black
    stones within 4 points (a double-four across lines) or one line with four or more within
    5 (a six, or two fours in one line). Everywhere else Black is allowed whatever the rest of
    the board, so the references need not be asked there."""
    n = len(board)
    at = _shifted((board == 1).astype(np.int8), 0, 5)
    lines_with_three = np.zeros((n, n), np.int8)
    crowded_line = np.zeros((n, n), bool)
    for d in range(4):
        near = sum(at(d, o) for o in range(-4, 5) if o)
        wide = near + at(d, -5) + at(d, 5)
        lines_with_three += near >= 3
        crowded_line |= wide >= 4
    loaded = (lines_with_three >= 2) | crowded_line | (naive_threes(board) >= 2)
    return (board == 0) & loaded


def reference_points(board: np.ndarray) -> tuple[set, set]:
    """(oracle, judge): the forbidden points of `forbidden_points` (the oracle) and of
    `judge_points` (the `renju` judge) for the board int8[n, n], at under half their cost:
    both are asked only at the `candidate_points` (the others are allowed by the rules'
    definitions alone), and the judge's checker is built once for the board (its `foulr`
    restores the board after each point). The quick test checks both against the plain
    functions."""
    from renju.check_forbid import ForbidChecker

    rows = board.tolist()
    frozen = _oracle._freeze(rows)
    points = [tuple(p) for p in np.argwhere(candidate_points(board)).tolist()]
    checker = ForbidChecker(rows, 0, 0)
    oracle = {p for p in points if _oracle._kind(frozen, *p) is not None}
    judge = {p for p in points if checker.foulr(*p, 0) != 0}
    return oracle, judge


def stress_references(count: int, seed: int, n: int = 15):
    """`stress_boards(count, seed)` and both references' forbidden points on them:
    (boards int8[count, n, n], oracle bool[count, n, n], judge bool[count, n, n]). One chunk of
    the slow differential, run in a worker process."""
    boards = stress_boards(count, seed, n)
    oracle = np.zeros(boards.shape, bool)
    judge = np.zeros(boards.shape, bool)
    for i, board in enumerate(boards):
        for points, out in zip(reference_points(board), (oracle, judge), strict=True):
            if points:
                out[i][tuple(np.transpose(sorted(points)))] = True
    return boards, oracle, judge


def oracle_reading(board, most_calls: int = 100_000) -> tuple[int, int]:
    """(depth, nested) of the oracle's reading of nested double-threes on `board`.

    depth: the longest chain p, x1, x2, ... of points it judged, each an extension point of a
    three of the point before, judged with all the points before it played, and each a
    doubtful point there (`_doubtful`); the chain's length less one. 0: no doubtful point
    needs another one read; 4 or more: deeper than the implementation's three levels of
    slots below its candidates. nested: how many doubtful points it judged below the top
    level (a point judged on two boards counts twice), a measure of the reading's width.

    The oracle itself is untouched: its memoised `_kind` is swapped, for the length of the
    call, for a wrapper around the undecorated function that keeps its own memo and the depth
    below every point it judged. (-1, -1) when the reading took more than `most_calls`
    judgements (boards too costly to keep in a test)."""
    b = _oracle._freeze(board)
    raw = _oracle._kind.__wrapped__
    memo = {}  # (board, r, c) -> (verdict, depth below, doubtful)
    frames = [0]
    calls = 0

    def kind(bb, r, c):
        nonlocal calls
        key = (bb, r, c)
        if key not in memo:
            calls += 1
            if calls > most_calls:
                raise _TooMuchWork
            frames.append(0)
            verdict = raw(bb, r, c)
            below = frames.pop()
            doubtful = _doubtful(bb, r, c)
            memo[key] = (verdict, below if doubtful else 0, doubtful)
        verdict, below, doubtful = memo[key]
        if doubtful:
            frames[-1] = max(frames[-1], below + 1)
        return verdict

    saved, _oracle._kind = _oracle._kind, kind
    deepest = top = 0
    try:
        for r, c in np.argwhere(candidate_points(np.asarray(board))).tolist():
            if _doubtful(b, r, c):
                top += 1
                frames[:] = [0]
                kind(b, r, c)
                deepest = max(deepest, memo[(b, r, c)][1])
    except _TooMuchWork:
        return -1, -1
    finally:
        _oracle._kind = saved
    return deepest, sum(doubtful for _, _, doubtful in memo.values()) - top


def oracle_depth(board, most_calls: int = 100_000) -> int:
    """The depth of `oracle_reading`: how many levels of nested double-threes the oracle
    reads below a doubtful point of `board` (-1: over `most_calls` judgements)."""
    return oracle_reading(board, most_calls)[0]


# ----------------------------------------------------------------------------- mutation search


def symmetries(board: np.ndarray) -> list[np.ndarray]:
    """The board's 8 images under the square's rotations and reflections: the rules do not
    change, the reading order of the points (which ones a bounded reading takes) does."""
    images = [np.rot90(board, k) for k in range(4)]
    return [np.ascontiguousarray(b) for b in images + [b.T for b in images]]


def _mutate(board: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One to three random changes near Black stones: an empty point turns Black (mostly) or
    White, a stone is taken off or changes colour."""
    board = board.copy()
    n = len(board)
    black = np.pad(board == 1, 2)
    near = np.zeros((n, n), bool)
    for dr in range(-2, 3):
        for dc in range(-2, 3):
            near |= black[2 + dr : 2 + dr + n, 2 + dc : 2 + dc + n]
    cells = np.argwhere(near)
    for _ in range(rng.integers(1, 4)):
        r, c = cells[rng.integers(len(cells))]
        if board[r, c] == 0:
            board[r, c] = 1 if rng.random() < 0.75 else 2
        else:
            board[r, c] = 0 if rng.random() < 0.7 else 3 - board[r, c]
    return board


def mutation_search(
    board: np.ndarray, rng: np.random.Generator, steps: int, most_calls: int = 5_000
) -> list[tuple[int, np.ndarray]]:
    """Hill climbing on the oracle's reading (`oracle_reading`): `steps` random mutations
    (`_mutate`) of the current board, each kept when its (depth, nested) is at least the
    current one (sideways moves let the search drift; the nested count rewards wider
    readings, which is where deeper ones come from) and the oracle's reading stays under
    `most_calls` judgements. Returns the (depth, board) of every board kept, deepest last."""
    best = oracle_reading(board, most_calls)
    kept = []
    for _ in range(steps):
        candidate = _mutate(board, rng)
        reading = oracle_reading(candidate, most_calls)
        if reading[0] >= 0 and reading >= best:
            board, best = candidate, reading
            kept.append((reading[0], candidate))
    return kept


# ----------------------------------------------------------------------------- the mix


def searched_boards(count: int, rng: np.random.Generator, n: int = 15) -> list[np.ndarray]:
    """`count` boards from short mutation searches (`mutation_search`, 12 steps), started in
    turn from a flip chain 6 deep and from a tiling: the last 4 boards each search kept (its
    deepest), each with its 8 symmetric images."""
    boards: list = []
    for search in itertools.count():
        if len(boards) >= count:
            return boards[:count]
        start = flip_chain_board(rng, 6, n) if search % 2 else tiled_board(rng, 3, n)
        kept = mutation_search(start, rng, steps=12)
        for _, board in kept[-4:] or [(0, start)]:
            boards += symmetries(board)


# The mix of `stress_boards`: (name, share, maker(rng, n)).
STRESS_MIX = [
    ("flip chains", 0.25, lambda rng, n: flip_chain_board(rng, int(rng.integers(4, 9)), n)),
    (
        "forked and joined chains",
        0.15,
        lambda rng, n: flip_chain_board(rng, int(rng.integers(4, 9)), n, branch=0.3, join=0.3),
    ),
    (
        "chains along an edge",
        0.10,
        lambda rng, n: flip_chain_board(rng, int(rng.integers(4, 9)), n, edge=True),
    ),
    (
        "shared extensions",
        0.10,
        lambda rng, n: shared_extension_board(rng, int(rng.integers(2, 7)), n),
    ),
    ("tiled motifs", 0.25, lambda rng, n: tiled_board(rng, int(rng.choice([3, 3, 4])), n)),
]


def stress_mix(count: int, seed: int = 0, n: int = 15) -> dict[str, np.ndarray]:
    """int8[k, n, n] per generator of `STRESS_MIX` (its share of `count`), and the rest from
    mutation searches (`searched_boards`); `count` boards in all."""
    rng = np.random.default_rng(seed)
    parts = {}
    for name, share, make in STRESS_MIX:
        parts[name] = [make(rng, n) for _ in range(round(share * count))]
    parts["mutation searches"] = searched_boards(count - sum(map(len, parts.values())), rng, n)
    return {name: np.array(boards, np.int8).reshape(-1, n, n) for name, boards in parts.items()}


def stress_boards(count: int, seed: int = 0, n: int = 15) -> np.ndarray:
    """int8[count, n, n]: the boards of `stress_mix`, shuffled. Deep flip chains (depth 4 to
    8), forked and joined chains, chains along an edge, shared extension points, tilings with
    more doubtful points than the reading's candidates and the deepest boards of mutation
    searches."""
    boards = np.concatenate(list(stress_mix(count, seed, n).values()))
    return boards[np.random.default_rng(seed).permutation(count)]
