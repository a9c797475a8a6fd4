"""Slow, plain-Python reference ("oracle") for RIF renju forbidden moves.

Standard library only. Boards are square lists of lists ``board[r][c]`` (n from 5 to 19) holding
0 (empty), 1 (Black) or 2 (White); row 0 is the top. Lines are rows, columns, the diagonal
direction (1, 1) and the anti-diagonal direction (1, -1). The caller's board is never mutated: it
is copied into a tuple of tuples and every "placement" builds a new tuple.

Rules as implemented (RIF renju):

* White wins with five or more in a row; Black wins with exactly five. White has no forbidden
  moves.
* A Black move that makes exactly five in any line is a win and never forbidden, whatever else it
  makes in other lines.
* Otherwise a Black move on an empty point is forbidden, reported in this priority, when it makes
  1. "overline": six or more black stones in a row through the point;
  2. "double-four": two or more fours in total over the four lines (two in one line count);
  3. "double-three": two or more open threes (at most one per line, so in different lines).
* Fours in one line (after the move at s): let P be the empty points of the line where a Black
  stone makes exactly five together with s. |P| = 1 is one four; |P| = 2 is one four if it is a
  straight four ``.BBBB.`` (the two points are the two ends of four consecutive black stones),
  otherwise two fours (e.g. ``B.BBB.B`` with s the middle stone). |P| <= 2 always, see
  ``_fours_in_line``.
* A straight four is four consecutive black stones (maximal run of exactly four) whose two end
  points are both on the board, empty, and each make exactly five when Black plays there (so an
  end blocked by White or the edge, or one that would make six, disqualifies it).
* An open three in a line (after the move at s) exists when some empty point x of that line turns
  the line into a straight four containing both s and x, x makes no five in any line (RIF's
  definition of a three: a stone added "without at the same time a five in a row is made"), and
  x is not itself forbidden for Black on the board after s (checked with these same rules,
  recursively, without any depth bound; this terminates because every level adds a stone).
  Threes whose only extension points are forbidden or make a five are "fake" and do not count.
"""

from __future__ import annotations

from functools import lru_cache

EMPTY, BLACK, WHITE = 0, 1, 2
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))

Board = tuple[tuple[int, ...], ...]


# ----------------------------------------------------------------------------- board helpers


def _freeze(board) -> Board:
    """Immutable copy of the caller's board (also what the memo cache is keyed on)."""
    frozen = tuple(tuple(int(v) for v in row) for row in board)
    n = len(frozen)
    if not 5 <= n <= 19 or any(len(row) != n for row in frozen):
        raise ValueError(f"board must be square, 5..19 wide; got {n} rows")
    if any(v not in (EMPTY, BLACK, WHITE) for row in frozen for v in row):
        raise ValueError("board cells must be 0, 1 or 2")
    return frozen


def _check_empty(b: Board, r: int, c: int) -> None:
    if not _on(b, r, c):
        raise IndexError(f"({r}, {c}) is off the {len(b)}x{len(b)} board")
    if b[r][c] != EMPTY:
        raise ValueError(f"({r}, {c}) is not empty")


def _on(b: Board, r: int, c: int) -> bool:
    return 0 <= r < len(b) and 0 <= c < len(b)


def _at(b: Board, r: int, c: int) -> int | None:
    """Cell value, or None off the board (so the edge never matches a colour)."""
    return b[r][c] if _on(b, r, c) else None


def _place(b: Board, r: int, c: int, colour: int) -> Board:
    """New board with `colour` at (r, c); `b` itself is untouched."""
    row = b[r][:c] + (colour,) + b[r][c + 1 :]
    return b[:r] + (row,) + b[r + 1 :]


def _run(b: Board, r: int, c: int, dr: int, dc: int) -> tuple[int, int]:
    """Maximal run of board[r][c]'s colour through (r, c) along (dr, dc).

    Returned as offsets (lo, hi), lo <= 0 <= hi: the run is the points (r + k*dr, c + k*dc) for
    lo <= k <= hi. Its length is hi - lo + 1.
    """
    colour = b[r][c]
    lo = 0
    while _at(b, r + (lo - 1) * dr, c + (lo - 1) * dc) == colour:
        lo -= 1
    hi = 0
    while _at(b, r + (hi + 1) * dr, c + (hi + 1) * dc) == colour:
        hi += 1
    return lo, hi


def _run_length(b: Board, r: int, c: int, dr: int, dc: int) -> int:
    lo, hi = _run(b, r, c, dr, dc)
    return hi - lo + 1


def _line_offsets(b: Board, r: int, c: int, dr: int, dc: int) -> list[int]:
    """All offsets k with (r + k*dr, c + k*dc) on the board: the whole line through (r, c)."""
    n = len(b)
    return [k for k in range(-n, n + 1) if _on(b, r + k * dr, c + k * dc)]


# ----------------------------------------------------------------------------- shapes


def _makes_five(b: Board, r: int, c: int, colour: int) -> bool:
    """`b` already holds `colour` at (r, c). Exactly five for Black, five or more for White."""
    for dr, dc in DIRECTIONS:
        length = _run_length(b, r, c, dr, dc)
        if length == 5 or (colour == WHITE and length > 5):
            return True
    return False


def _five_points(b: Board, r: int, c: int, dr: int, dc: int) -> list[int]:
    """Offsets of the empty points of the line where a Black stone makes exactly five that
    contains the black stone at (r, c). `b` already holds that stone."""
    points = []
    for k in _line_offsets(b, r, c, dr, dc):
        pr, pc = r + k * dr, c + k * dc
        if b[pr][pc] != EMPTY:
            continue
        lo, hi = _run(_place(b, pr, pc, BLACK), pr, pc, dr, dc)
        # Relative to p, the stone (r, c) sits at offset -k; it must lie inside the new five.
        if hi - lo + 1 == 5 and lo <= -k <= hi:
            points.append(k)
    return points


def _fours_in_line(b: Board, r: int, c: int, dr: int, dc: int) -> int:
    """Number of fours through the black stone at (r, c) in this line (already placed in `b`)."""
    points = _five_points(b, r, c, dr, dc)
    # At most one point on each side of (r, c): a run through a point p that reaches (r, c) must
    # cover every point between them, so no other empty point can lie between p and (r, c).
    assert len(points) <= 2, points
    if len(points) == 2 and points[1] - points[0] == 5:
        # Both runs reach (r, c), so together they cover everything between the two points:
        # four consecutive black stones with a five-making point at each end, i.e. .BBBB.
        # A straight four is one four, not two.
        return 1
    # Otherwise each point completes a different five (e.g. B.BBB.B): each one is a four.
    return len(points)


def _is_straight_four(b: Board, r: int, c: int, dr: int, dc: int) -> bool:
    """Is the maximal black run through (r, c) a straight four .BBBB. in this line?"""
    lo, hi = _run(b, r, c, dr, dc)
    if hi - lo + 1 != 4:
        return False
    for k in (lo - 1, hi + 1):
        er, ec = r + k * dr, c + k * dc
        if not _on(b, er, ec) or b[er][ec] != EMPTY:
            return False  # end blocked by the edge or by White
        if _run_length(_place(b, er, ec, BLACK), er, ec, dr, dc) != 5:
            return False  # this end would make an overline, not five
    return True


def _is_open_three_line(b: Board, r: int, c: int, dr: int, dc: int) -> bool:
    """Is there an open three through the black stone at (r, c) in this line (placed in `b`)?"""
    for k in _line_offsets(b, r, c, dr, dc):
        xr, xc = r + k * dr, c + k * dc
        if b[xr][xc] != EMPTY:
            continue
        b2 = _place(b, xr, xc, BLACK)
        lo, hi = _run(b2, r, c, dr, dc)
        # x must be part of the straight four it creates (a straight four that was already there
        # would make this line a four, not a three), and (r, c) is in it by construction.
        if not (lo <= k <= hi and _is_straight_four(b2, r, c, dr, dc)):
            continue
        # The extension only counts if Black may legally play x on the board after (r, c) and x
        # makes no five (RIF: a three is a row to which Black can add a stone to make a
        # straight four "without at the same time a five in a row is made"): this is the full
        # recursive rule (a "fake" three otherwise).
        if not _makes_five(b2, xr, xc, BLACK) and _kind(b, xr, xc) is None:
            return True
    return False


@lru_cache(maxsize=1 << 16)
def _kind(b: Board, r: int, c: int) -> str | None:
    """Forbidden kind of a Black move at the empty (r, c) of the frozen board `b`."""
    b1 = _place(b, r, c, BLACK)
    if _makes_five(b1, r, c, BLACK):
        return None  # exactly five wins, whatever else the move makes
    if any(_run_length(b1, r, c, dr, dc) >= 6 for dr, dc in DIRECTIONS):
        return "overline"
    if sum(_fours_in_line(b1, r, c, dr, dc) for dr, dc in DIRECTIONS) >= 2:
        return "double-four"
    # Threes last and only when needed: they are the expensive (recursive) part.
    if sum(_is_open_three_line(b1, r, c, dr, dc) for dr, dc in DIRECTIONS) >= 2:
        return "double-three"
    return None


# ----------------------------------------------------------------------------- public API


def is_five(board, r: int, c: int, colour: int) -> bool:
    """Would `colour` at the empty (r, c) make a winning five (exactly five for Black)?"""
    if colour not in (BLACK, WHITE):
        raise ValueError(f"colour must be 1 or 2, got {colour}")
    b = _freeze(board)
    _check_empty(b, r, c)
    return _makes_five(_place(b, r, c, colour), r, c, colour)


def forbidden_kind(board, r: int, c: int) -> str | None:
    """None if Black may play the empty (r, c), else "overline", "double-four" or
    "double-three" (first applicable, in that priority)."""
    b = _freeze(board)
    _check_empty(b, r, c)
    return _kind(b, r, c)


def is_forbidden(board, r: int, c: int) -> bool:
    """True if a Black move at (r, c) is forbidden; False for occupied points."""
    b = _freeze(board)
    if not _on(b, r, c):
        raise IndexError(f"({r}, {c}) is off the {len(b)}x{len(b)} board")
    return b[r][c] == EMPTY and _kind(b, r, c) is not None


def forbidden_points(board) -> set[tuple[int, int]]:
    """All empty points where a Black move is forbidden."""
    b = _freeze(board)
    n = len(b)
    return {
        (r, c)
        for r in range(n)
        for c in range(n)
        if b[r][c] == EMPTY and _kind(b, r, c) is not None
    }


def count_fours(board, r: int, c: int) -> int:
    """Number of fours a Black stone at the empty (r, c) makes (summed over the four lines)."""
    b = _freeze(board)
    _check_empty(b, r, c)
    b1 = _place(b, r, c, BLACK)
    return sum(_fours_in_line(b1, r, c, dr, dc) for dr, dc in DIRECTIONS)


def count_open_threes(board, r: int, c: int) -> int:
    """Number of lines in which a Black stone at the empty (r, c) makes an open three."""
    b = _freeze(board)
    _check_empty(b, r, c)
    b1 = _place(b, r, c, BLACK)
    return sum(_is_open_three_line(b1, r, c, dr, dc) for dr, dc in DIRECTIONS)
