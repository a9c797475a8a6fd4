"""A slow, obviously correct Gomoku referee in plain Python, written from the rules alone.

A "run" is a maximal line of same-coloured stones along a row, a column or a diagonal.
Freestyle: a run of k or more wins. Standard: a run of exactly k wins (longer runs do not).
"""

DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def runs(board, stone):
    """Lengths of all maximal runs of `stone` on the square board (list of lists)."""
    n = len(board)
    found = []
    for r in range(n):
        for c in range(n):
            if board[r][c] != stone:
                continue
            for dr, dc in DIRECTIONS:
                pr, pc = r - dr, c - dc
                if 0 <= pr < n and 0 <= pc < n and board[pr][pc] == stone:
                    continue  # (r, c) is inside a run, not its first stone
                length, rr, cc = 0, r, c
                while 0 <= rr < n and 0 <= cc < n and board[rr][cc] == stone:
                    length += 1
                    rr += dr
                    cc += dc
                found.append(length)
    return found


def has_won(board, player, k, rule):
    lengths = runs(board, player + 1)
    if rule == "standard":
        return k in lengths
    return any(length >= k for length in lengths)


def outcome(board, k, rule):
    """(over, winner): winner -1 for none or a draw (a full board)."""
    winners = [p for p in (0, 1) if has_won(board, p, k, rule)]
    assert len(winners) <= 1
    if winners:
        return True, winners[0]
    full = all(v != 0 for row in board for v in row)
    return full, -1
