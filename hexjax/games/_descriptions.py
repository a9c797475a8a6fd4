"""The games in words, for exported models: each observation plane's meaning, the terms the
meanings use, and when a game ends. Text precise enough to compute the planes from; the game
classes choose their lines by their options."""

from __future__ import annotations

STONES = [
    ("mover_stones", "1 on the side to move's stones"),
    ("opponent_stones", "1 on the other side's stones"),
]

HEX_PLANES = [
    *STONES,
    (
        "mover_goal_edges",
        "1 on the two edges the mover must join, stones or not: rows 0 and n-1 when "
        "player 0 (x) moves, columns 0 and n-1 when player 1 (o) moves",
    ),
    ("opponent_goal_edges", "1 on the other two edges (the opponent's goal edges)"),
]
HEX_SWAP_PLANE = (
    "swap_legal",
    "all ones while the swap move is legal (player 1 to move, one x stone and "
    "no o stone on the board), else all zeros",
)
HEX_END = (
    "player 0 (x) wins by joining rows 0 and n-1, player 1 (o) by joining columns 0 and "
    "n-1, with a chain of its stones; (r, c) touches (r-1, c), (r-1, c+1), (r, c-1), "
    "(r, c+1), (r+1, c-1) and (r+1, c). No draws"
)

GOMOKU_PLANES = [
    *STONES,
    ("black_to_move", "all ones when the mover is Black (player 0, x), else all zeros"),
]
RENJU_PLANE = (
    "forbidden",
    "when Black is to move: 1 on Black's forbidden points (terms: forbidden "
    "point), the empty cells Black may not play; all zeros when White is to "
    "move or the game is over",
)
# terms: window, win point, four point.
THREAT_PLANES = [
    (
        f"{side}_{kind}_points",
        f"1 on the {side}'s {kind} points: empty cells in a window holding {count} "
        f"of the {side}'s stones and none of the other side's; all zeros once the "
        "game is over",
    )
    for side in ("mover", "opponent")
    for kind, count in (("win", 4), ("four", 3))
]
THREAT_TERMS = {
    "window": "5 cells in a row along a row, a column or either diagonal, all on the "
    "board (no window runs off an edge), none of them holding a stone of the other side "
    "(for the side's threats: only its stones and empty cells). Windows count stones, "
    "not runs: a stone that would make six still completes a window (the planes are a "
    "hint where an overline does not win: standard, renju's Black)",
    "win point": "an empty cell in some window holding 4 of the side's stones (the "
    "cell is the window's only empty one): a stone there makes five",
    "four point": "an empty cell in some window holding 3 of the side's stones (the "
    "cell and one other cell of the window empty): a stone there makes a four",
}
RENJU_TERMS = {
    "line": "the row, the column or either diagonal through a point; 'in a row' means "
    "consecutive on one line, with Black's stone on the point p counted",
    "forbidden point": "an empty point p where a black stone makes no five (exactly "
    "five black stones in a row on some line through p: that wins and is never "
    "forbidden, whatever else it makes) and makes an overline, or two or more fours "
    "over the four lines, or threes on two or more lines",
    "overline": "six or more black stones in a row through p",
    "four": "on one line through p, with Black on p: a five point is an empty point q "
    "of the line where one more black stone makes exactly five in a row containing p. "
    "One five point is one four; two five points are one four when they are the two "
    "ends of one straight four (.XXXX.), else two fours (X.XXX.X with p in the middle)",
    "straight four": "exactly four black stones in a row whose two neighbouring points "
    "on the line are both empty five points",
    "three": "a line through p (Black on p) is a three when some empty point x of it "
    "is an extension point: one more black stone on x makes a straight four holding p "
    "and x, x makes no five or more on any line, and x is not itself a forbidden point "
    "on the board with p played (these same rules, recursively). A line counts as one "
    "three at most",
}
GOMOKU_WINS = {
    "freestyle": "five or more in a row wins",
    "standard": "exactly five in a row wins (an overline does not)",
    "renju": "Black wins with exactly five in a row, White with five or more; Black "
    "may not play a forbidden point, and Black to move with only forbidden points "
    "left is a draw",
}
GOMOKU_END = (
    "{wins}; a full board is a draw. In a row: on consecutive cells of a row, a "
    "column or either diagonal"
)

OTHELLO_PLANES = [
    *STONES,
    ("mover_placements", "1 on the mover's legal placements (empty cells that flip)"),
]
OTHELLO_END = (
    "over when neither side can place (a full board included): more discs wins, equal "
    "counts draw; a side with no placement passes while the other can place"
)
