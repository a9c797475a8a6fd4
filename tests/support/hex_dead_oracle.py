"""Hex's dead and captured cells by their definitions, and a position's winning moves, for tests:
an empty cell is dead when, however the other empty cells are filled, the same colour wins with
either colour on it; two empty cells are captured by a colour when the other colour on either
of them and that colour on the other wins as that colour on both does, however the rest is
filled. Plain Python, written from the definitions (not from hexjax's patterns): a flood fill
for each of the 2^k fillings of a board's k empty cells, and minimax to the full board."""

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
    empty = [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v == 0]
    black_wins = black_wins_every_filling(board)
    return {
        cell
        for bit, cell in enumerate(empty)
        if all(black_wins[m] == black_wins[m ^ (1 << bit)] for m in range(len(black_wins)))
    }


def black_wins_every_filling(board) -> list[bool]:
    """For each filling of the empty cells (bit k of the index: the k-th empty cell in reading
    order Black), whether Black joins."""
    board = [list(map(int, row)) for row in board]
    empty = [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v == 0]
    wins = []
    for filling in range(1 << len(empty)):
        for bit, (r, c) in enumerate(empty):
            board[r][c] = 1 if filling >> bit & 1 else 2
        wins.append(black_joins(board))
    return wins


def captured_by_definition(board, a, b, colour: int) -> bool:
    """Whether the empty cells a and b are captured by `colour` (1 Black, 2 White): for every
    filling of the other empty cells, the other colour on either and `colour` on the other
    joins the same player as `colour` on both."""
    board = [list(map(int, row)) for row in board]
    other = 3 - colour
    outcomes = {}
    for on_a, on_b in ((colour, colour), (other, colour), (colour, other)):
        board[a[0]][a[1]], board[b[0]][b[1]] = on_a, on_b
        outcomes[on_a, on_b] = black_wins_every_filling(board)
    both = outcomes[colour, colour]
    return outcomes[other, colour] == both and outcomes[colour, other] == both


def winning_moves(board, to_play: int) -> set[tuple[int, int]]:
    """The empty cells where `to_play` (0 Black, 1 White) moves and wins against every
    defence: plain minimax to the full board (the first to join is the one joined on it)."""
    board = [list(map(int, row)) for row in board]
    memo = {}

    def black_wins(player: int) -> bool:  # Black wins from here with `player` to move
        key = (tuple(map(tuple, board)), player)
        if key not in memo:
            empty = [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v == 0]
            if not empty:
                memo[key] = black_joins(board)
            else:
                results = []
                for r, c in empty:
                    board[r][c] = player + 1
                    results.append(black_wins(1 - player))
                    board[r][c] = 0
                memo[key] = any(results) if player == 0 else all(results)
        return memo[key]

    moves = set()
    for r, row in enumerate(board):
        for c, v in enumerate(row):
            if v == 0:
                board[r][c] = to_play + 1
                if black_wins(1 - to_play) == (to_play == 0):
                    moves.add((r, c))
                board[r][c] = 0
    return moves
