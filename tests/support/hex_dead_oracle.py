"""Hex's dead cells by their definition, for tests: an empty cell is dead when, however the other
empty cells are filled, the same colour wins with either colour on it. Plain Python, written
from the definition (not from hexjax's patterns): a flood fill for each of the 2^k fillings of
a board's k empty cells."""

from __future__ import annotations

OFFSETS = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))


def black_joins(board: list[list[int]]) -> bool:
    """Whether Black (1) joins row 0 to row n-1 on a board."""
    n = len(board)
    seen = {(0, c) for c in range(n) if board[0][c] == 1}
    frontier = list(seen)
    while frontier:
        r, c = frontier.pop()
        if r == n - 1:
            return True
        for dr, dc in OFFSETS:
            rr, cc = r + dr, c + dc
            if 0 <= rr < n and 0 <= cc < n and board[rr][cc] == 1 and (rr, cc) not in seen:
                seen.add((rr, cc))
                frontier.append((rr, cc))
    return False


def dead_cells(board) -> set[tuple[int, int]]:
    """The dead empty cells of `board` (0 empty, 1 Black, 2 White), as (row, column)."""
    board = [list(map(int, row)) for row in board]
    empty = [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v == 0]
    black_wins = []
    for filling in range(1 << len(empty)):
        for bit, (r, c) in enumerate(empty):
            board[r][c] = 1 if filling >> bit & 1 else 2
        black_wins.append(black_joins(board))
    return {
        cell
        for bit, cell in enumerate(empty)
        if all(black_wins[m] == black_wins[m ^ (1 << bit)] for m in range(len(black_wins)))
    }
