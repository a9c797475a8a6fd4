"""A slow, obviously correct Hex referee in plain Python, written from the rules alone.

Cells (r, c) of an n x n rhombus; neighbours (r-1, c) (r-1, c+1) (r, c-1) (r, c+1) (r+1, c-1)
(r+1, c). Player 0 (stones = 1) joins row 0 to row n-1; player 1 (stones = 2) joins column 0 to
column n-1. A breadth-first search from one edge over the player's stones.
"""

from collections import deque

NEIGHBOUR_OFFSETS = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))


def connects(board, player):
    """True when `player` (0 or 1) has a chain of stones joining its two edges."""
    n = len(board)
    stone = player + 1
    if player == 0:
        start = [(0, c) for c in range(n) if board[0][c] == stone]
    else:
        start = [(r, 0) for r in range(n) if board[r][0] == stone]
    seen = set(start)
    queue = deque(start)
    while queue:
        r, c = queue.popleft()
        if (player == 0 and r == n - 1) or (player == 1 and c == n - 1):
            return True
        for dr, dc in NEIGHBOUR_OFFSETS:
            rr, cc = r + dr, c + dc
            if 0 <= rr < n and 0 <= cc < n and (rr, cc) not in seen and board[rr][cc] == stone:
                seen.add((rr, cc))
                queue.append((rr, cc))
    return False


def winner(board):
    """-1 if nobody has joined their edges, else the player who has."""
    wins = [p for p in (0, 1) if connects(board, p)]
    assert len(wins) <= 1, "both players connected: impossible in Hex"
    return wins[0] if wins else -1
