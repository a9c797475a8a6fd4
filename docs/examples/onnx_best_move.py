"""The exported network's best legal move for a board, with onnxruntime and numpy only (no JAX,
no hexjax): an example of what a consumer of `hexjax-export-model --format onnx` writes.

    hexjax-export-model --format onnx --model hex7 --directory exported
    python docs/examples/onnx_best_move.py exported/hex7.onnx board.txt

board.txt has one row per line, top row first: `.` empty, `x` the first player's stone (Black),
`o` the second's; spaces are ignored. The side to move is counted from the stones (x when both
have as many) unless `--to-play` says it; Othello needs `--to-play`. The observation is built
as NAME.json (beside the .onnx file) describes it. The board is taken to be a game still in
play: the script does not look for a finished game. Renju is not covered (its forbidden points
need the renju rules).
"""

import argparse
import json
import pathlib
import sys

import numpy as np
import onnxruntime

STONES = {".": 0, "x": 1, "o": 2}
DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]


def read_board(text: str, n: int) -> np.ndarray:
    """int8[n, n]: 0 empty, 1 x (player 0), 2 o (player 1)."""
    rows = [row.replace(" ", "").lower() for row in text.splitlines() if row.strip()]
    if len(rows) != n or any(len(row) != n or set(row) - set(STONES) for row in rows):
        sys.exit(f"error: the board must be {n} rows of {n} cells from '.', 'x', 'o'")
    return np.array([[STONES[cell] for cell in row] for row in rows], np.int8)


def othello_placements(board: np.ndarray, mover: int) -> np.ndarray:
    """bool[n, n]: empty cells that flip at least one of the opponent's stones."""
    n = len(board)
    own, other = mover + 1, 2 - mover
    legal = np.zeros((n, n), bool)
    for r, c in zip(*np.nonzero(board == 0), strict=True):
        for dr, dc in DIRECTIONS:
            i, j, seen = r + dr, c + dc, 0
            while 0 <= i < n and 0 <= j < n and board[i, j] == other:
                i, j, seen = i + dr, j + dc, seen + 1
            if seen and 0 <= i < n and 0 <= j < n and board[i, j] == own:
                legal[r, c] = True
                break
    return legal


def observe(game: dict, board: np.ndarray, mover: int):
    """(observation float32[n, n, C], legal mask bool[A]) as the JSON's planes describe."""
    n = game["size"]
    own, other = board == mover + 1, board == 2 - mover
    empty = (board == 0).reshape(-1)
    if game["name"] == "hex":
        rows, cols = np.indices((n, n))
        edges = [(rows == 0) | (rows == n - 1), (cols == 0) | (cols == n - 1)]
        planes = [own, other, edges[mover], edges[1 - mover]]
        legal = list(empty)
        if game["swap"]:
            swap = mover == 1 and (board == 1).sum() == 1 and (board == 2).sum() == 0
            planes.append(np.full((n, n), swap))
            legal.append(swap)
    elif game["name"] == "gomoku" and game["rule"] != "renju" and not game.get("threats"):
        planes, legal = [own, other, np.full((n, n), mover == 0)], list(empty)
    elif game["name"] == "othello":
        placements = othello_placements(board, mover)
        planes = [own, other, placements]
        legal = [*placements.reshape(-1), not placements.any()]  # pass only when stuck
    else:
        variant = "threat-plane" if game.get("threats") else game["rule"]
        sys.exit(f"error: this example does not build {variant} observations")
    return np.stack(planes, axis=-1).astype(np.float32), np.array(legal, bool)


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
    observation, legal = observe(game, board, mover)
    if not legal.any():
        sys.exit("error: no legal move on this board")

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
