"""The exported network's best legal move for a board, with onnxruntime and numpy only (no JAX,
no hexjax): an example of what a consumer of `hexjax-export-model --format onnx` writes.

    hexjax-export-model --format onnx --model renju15 --directory exported
    python docs/examples/onnx_best_move.py exported/renju15.onnx board.txt

board.txt has one row per line, top row first: `.` empty, `x` the first player's stone (Black),
`o` the second's; spaces are ignored. The side to move is counted from the stones (x when both
have as many) unless `--to-play` says it; Othello needs `--to-play`. The observation's planes
are built in the order of NAME.json's `input.plane_keys` (NAME.json lies beside the .onnx file;
`input.planes` and `input.terms` say what each holds): every shipped model's, Gomoku's threat
planes and renju's forbidden points included. The legal moves follow the rules (renju: Black's
forbidden points are not moves), and a finished game is reported instead of a move.
"""

import argparse
import functools
import json
import pathlib
import sys

import numpy as np
import onnxruntime

STONES = {".": 0, "x": 1, "o": 2}
K = 5  # Gomoku's stones in a row
LINES = ((0, 1), (1, 0), (1, 1), (1, -1))  # a row, a column, the two diagonals
DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]
HEX_NEIGHBOURS = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))


def read_board(text: str, n: int) -> np.ndarray:
    """int8[n, n]: 0 empty, 1 x (player 0), 2 o (player 1)."""
    rows = [row.replace(" ", "").lower() for row in text.splitlines() if row.strip()]
    if len(rows) != n or any(len(row) != n or set(row) - set(STONES) for row in rows):
        sys.exit(f"error: the board must be {n} rows of {n} cells from '.', 'x', 'o'")
    return np.array([[STONES[cell] for cell in row] for row in rows], np.int8)


def inside(board: np.ndarray, r: int, c: int) -> bool:
    return 0 <= r < len(board) and 0 <= c < len(board)


# --- Hex ------------------------------------------------------------------------------------


def hex_joined(board: np.ndarray, player: int) -> bool:
    """Whether the player's stones join its edges: rows 0 and n-1 for x, columns for o."""
    # Transposed, o's columns become rows; the six neighbours stay neighbours.
    stones = board == 1 if player == 0 else (board == 2).T
    todo = [(0, c) for c in range(len(board)) if stones[0, c]]
    seen = set(todo)
    while todo:
        r, c = todo.pop()
        if r == len(board) - 1:
            return True
        for dr, dc in HEX_NEIGHBOURS:
            near = (r + dr, c + dc)
            if inside(board, *near) and stones[near] and near not in seen:
                seen.add(near)
                todo.append(near)
    return False


# --- Gomoku: runs, windows, threat planes ----------------------------------------------------


def extent(board: np.ndarray, r: int, c: int, dr: int, dc: int, colour: int = 1):
    """(behind, ahead): how many stones of `colour` follow (r, c) in a row backwards and
    forwards along (dr, dc); (r, c) itself is not read."""
    counts = []
    for sign in (-1, 1):
        i, j, count = r + sign * dr, c + sign * dc, 0
        while inside(board, i, j) and board[i, j] == colour:
            i, j, count = i + sign * dr, j + sign * dc, count + 1
        counts.append(count)
    return tuple(counts)


def run(board: np.ndarray, r: int, c: int, dr: int, dc: int, colour: int = 1) -> int:
    """The length of the row of `colour` through (r, c), (r, c) counted as a stone of it."""
    return sum(extent(board, r, c, dr, dc, colour)) + 1


def gomoku_win(game: dict, board: np.ndarray) -> tuple[int, int] | None:
    """(player, length) of a winning row: K or more in a row (standard, renju's Black:
    exactly K); None without one."""
    for player, colour in ((0, 1), (1, 2)):
        exact = game["rule"] == "standard" or (game["rule"] == "renju" and player == 0)
        for r, c in zip(*np.nonzero(board == colour), strict=True):
            for line in LINES:
                length = run(board, r, c, *line, colour)
                if length == K or (length > K and not exact):
                    return player, length
    return None


@functools.cache
def windows(n: int) -> np.ndarray:
    """int[W, K]: the flat indices of every K cells in a line wholly on the board."""
    found = []
    for dr, dc in LINES:
        for r in range(n):
            for c in range(n):
                cells = [(r + t * dr, c + t * dc) for t in range(K)]
                if all(0 <= i < n and 0 <= j < n for i, j in cells):
                    found.append([i * n + j for i, j in cells])
    return np.array(found)


def threats(mine: np.ndarray, theirs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(win points, four points) of the side owning `mine`: empty cells of a window free of
    `theirs` holding K - 1 (win) or K - 2 (four) of `mine`. Each bool[n, n]."""
    n = len(mine)
    cells = windows(n)
    open_window = ~theirs.reshape(-1)[cells].any(axis=1)
    count = mine.reshape(-1)[cells].sum(axis=1)
    empty = ~(mine | theirs).reshape(-1)
    planes = []
    for stones in (K - 1, K - 2):
        marked = np.zeros(n * n, bool)
        marked[cells[open_window & (count == stones)]] = True
        planes.append((marked & empty).reshape(n, n))
    return planes[0], planes[1]


# --- Renju: Black's forbidden points (NAME.json's input.terms) ------------------------------


def five_points(board: np.ndarray, r: int, c: int, dr: int, dc: int) -> list[int]:
    """Offsets t of the empty points (r, c) + t (dr, dc) where one more black stone makes
    exactly five in a row with the black stone on (r, c)."""
    found = []
    for t in range(-4, 5):
        i, j = r + t * dr, c + t * dc
        if t and inside(board, i, j) and board[i, j] == 0:
            board[i, j] = 1
            behind, ahead = extent(board, r, c, dr, dc)
            board[i, j] = 0
            if behind + ahead + 1 == K and -behind <= t <= ahead:
                found.append(t)
    return found


def fours(board: np.ndarray, r: int, c: int, dr: int, dc: int) -> int:
    """The fours through the black stone on (r, c) in this line: one per five point, but the
    two ends of a straight four (.XXXX., five points 5 apart) are one four."""
    points = five_points(board, r, c, dr, dc)
    return 1 if len(points) == 2 and points[1] - points[0] == K else len(points)


def straight_four(board: np.ndarray, r: int, c: int, dr: int, dc: int) -> bool:
    """Whether the black stone on (r, c) is in exactly four in a row whose two ends (empty
    points) each make exactly five."""
    behind, ahead = extent(board, r, c, dr, dc)
    return behind + ahead + 1 == 4 and five_points(board, r, c, dr, dc) == [-behind - 1, ahead + 1]


def three_points(board: np.ndarray, r: int, c: int, dr: int, dc: int) -> list[tuple[int, int]]:
    """The empty points x of the line where one more black stone makes a straight four
    holding both x and the black stone on (r, c)."""
    found = []
    for t in range(-3, 4):
        x = (r + t * dr, c + t * dc)
        if t and inside(board, *x) and board[x] == 0:
            board[x] = 1
            behind, ahead = extent(board, r, c, dr, dc)
            if -behind <= t <= ahead and straight_four(board, r, c, dr, dc):
                found.append(x)
            board[x] = 0
    return found


def forbidden(board: np.ndarray, r: int, c: int) -> bool:
    """Whether Black may not play the empty point (r, c): no exactly-five, and an overline,
    two fours, or threes in two lines (a three only through a real extension point)."""
    board = board.copy()
    board[r, c] = 1
    runs = [run(board, r, c, *line) for line in LINES]
    if K in runs:
        return False  # exactly five wins, whatever else the stone makes
    if max(runs) > K or sum(fours(board, r, c, *line) for line in LINES) >= 2:
        return True
    threes = [three_points(board, r, c, *line) for line in LINES]
    if sum(map(bool, threes)) < 2:
        return False
    real = [any(real_extension(board, *x) for x in points) for points in threes]
    return sum(real) >= 2


def real_extension(board: np.ndarray, r: int, c: int) -> bool:
    """Whether the empty point (r, c) extends a three: Black there makes no five or more in any
    line and is not forbidden itself (judged on this board, recursively)."""
    return all(run(board, r, c, *line) < K for line in LINES) and not forbidden(board, r, c)


def forbidden_points(board: np.ndarray) -> np.ndarray:
    """bool[n, n]: the empty points where Black may not play."""
    points = np.zeros(board.shape, bool)
    for r, c in zip(*np.nonzero(board == 0), strict=True):
        points[r, c] = forbidden(board, r, c)
    return points


# --- Othello -----------------------------------------------------------------------------


def othello_placements(board: np.ndarray, mover: int) -> np.ndarray:
    """bool[n, n]: empty cells that flip at least one of the opponent's stones."""
    own, other = mover + 1, 2 - mover
    legal = np.zeros(board.shape, bool)
    for r, c in zip(*np.nonzero(board == 0), strict=True):
        for dr, dc in DIRECTIONS:
            i, j, seen = r + dr, c + dc, 0
            while inside(board, i, j) and board[i, j] == other:
                i, j, seen = i + dr, j + dc, seen + 1
            if seen and inside(board, i, j) and board[i, j] == own:
                legal[r, c] = True
                break
    return legal


# --- the position ---------------------------------------------------------------------------


def playable_cells(game: dict, board: np.ndarray, mover: int) -> np.ndarray:
    """bool[n, n]: the cells where the side to move may place a stone."""
    if game["name"] == "othello":
        return othello_placements(board, mover)
    if game["name"] == "gomoku" and game["rule"] == "renju" and mover == 0:
        return (board == 0) & ~forbidden_points(board)
    return board == 0


def swap_legal(game: dict, board: np.ndarray, mover: int) -> bool:
    """Hex with swap: player 1's first move, after the single x stone."""
    first = (board == 1).sum() == 1 and not (board == 2).any()
    return game["name"] == "hex" and game["swap"] and mover == 1 and bool(first)


def legal_actions(game: dict, board: np.ndarray, mover: int, cells: np.ndarray) -> np.ndarray:
    """bool[A]: the cells, then Hex's swap or Othello's pass where the game has one."""
    extra = []
    if game["name"] == "hex" and game["swap"]:
        extra = [swap_legal(game, board, mover)]
    if game["name"] == "othello":
        extra = [not cells.any()]  # pass only when stuck
    return np.array([*cells.reshape(-1), *extra], bool)


def result(game: dict, board: np.ndarray, mover: int, cells: np.ndarray) -> str | None:
    """How a finished game ended ("x wins ...", "draw ..."), None while it goes on."""
    if game["name"] == "hex":
        winners = [player for player in (0, 1) if hex_joined(board, player)]
        return f"{'xo'[winners[0]]} wins (its edges are joined)" if winners else None
    if game["name"] == "gomoku":
        win = gomoku_win(game, board)
        if win:
            return f"{'xo'[win[0]]} wins ({win[1]} in a row)"
        return None if cells.any() else f"draw (no move left for {'xo'[mover]})"
    if cells.any() or othello_placements(board, 1 - mover).any():
        return None  # Othello goes on while either side can place
    x, o = int((board == 1).sum()), int((board == 2).sum())
    return f"{'draw' if x == o else 'x wins' if x > o else 'o wins'} ({x} to {o} discs)"


def observe(info: dict, board: np.ndarray, mover: int, cells: np.ndarray) -> np.ndarray:
    """float32[n, n, C]: the planes named by input.plane_keys, from the mover's view."""
    game = info["game"]
    n = game["size"]
    own, other = board == mover + 1, board == 2 - mover
    rows, cols = np.indices((n, n))
    edges = [(rows == 0) | (rows == n - 1), (cols == 0) | (cols == n - 1)]
    build = {
        "mover_stones": lambda: own,
        "opponent_stones": lambda: other,
        "mover_goal_edges": lambda: edges[mover],
        "opponent_goal_edges": lambda: edges[1 - mover],
        "swap_legal": lambda: np.full((n, n), swap_legal(game, board, mover)),
        "black_to_move": lambda: np.full((n, n), mover == 0),
        "forbidden": lambda: (board == 0) & ~cells,  # Black's only: White's cells are all empty
        "mover_win_points": lambda: threats(own, other)[0],
        "mover_four_points": lambda: threats(own, other)[1],
        "opponent_win_points": lambda: threats(other, own)[0],
        "opponent_four_points": lambda: threats(other, own)[1],
        "mover_placements": lambda: cells,
    }
    unknown = [key for key in info["input"]["plane_keys"] if key not in build]
    if unknown:
        sys.exit(f"error: this example does not build the planes {', '.join(unknown)}")
    planes = [build[key]() for key in info["input"]["plane_keys"]]
    return np.stack(planes, axis=-1).astype(np.float32)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=pathlib.Path, help="NAME.onnx (NAME.json beside it)")
    parser.add_argument("board", help="a file with the board, or - for standard input")
    parser.add_argument("--to-play", choices=("x", "o"), help="default: from the stone count")
    args = parser.parse_args(argv)
    info = json.loads(args.model.with_suffix(".json").read_text())
    game = info["game"]
    text = sys.stdin.read() if args.board == "-" else pathlib.Path(args.board).read_text()
    board = read_board(text, game["size"])
    if args.to_play is None and game["name"] == "othello":
        sys.exit("error: Othello needs --to-play x or o")
    mover = (
        "xo".index(args.to_play) if args.to_play else int((board == 1).sum() > (board == 2).sum())
    )
    cells = playable_cells(game, board, mover)
    finished = result(game, board, mover, cells)
    if finished:
        print(f"game over: {finished}")
        return
    observation = observe(info, board, mover, cells)
    legal = legal_actions(game, board, mover, cells)

    session = onnxruntime.InferenceSession(str(args.model), providers=["CPUExecutionProvider"])
    logits, value = session.run(None, {"observations": observation[None]})
    best = int(np.argmax(np.where(legal, logits[0], -np.inf)))
    n = game["size"]
    where = (
        f"row {best // n}, column {best % n}"
        if best < n * n
        else info["actions"]["extra"][str(best)]
    )
    print(f"best action {best} ({where}); value {value[0]:+.3f} for {'xo'[mover]} to move")


if __name__ == "__main__":
    main()
