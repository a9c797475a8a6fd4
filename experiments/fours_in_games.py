"""Where did a Gomoku player first let its opponent win by continuous fours, and could it have not?

For each SGF game (evaluate.py --sgf writes them), the first move of the player named by
--player (a part of its PB/PW name) after which the opponent has a win by continuous fours
(`hexjax.evaluation.vcf`), and how many other moves there (empty points within two of a stone)
would have left it none. A game with such moves was lost to fours that a screen of the move could
have avoided; one without was lost before (to threes, or earlier fours).

    python experiments/fours_in_games.py runs/ladder/sgf-gomoku15-time-screen --player model

With `--threats S` a win by continuous threats counts too
(`hexjax.evaluation.vct`), each position read for at most S seconds (a threat win not found in
that time is not counted).

    python experiments/fours_in_games.py runs/ladder/sgf-g15-max_node-1000-new --threats 0.3
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np

from hexjax.evaluation.hex_solver import OutOfTime
from hexjax.evaluation.sgf import read_sgf
from hexjax.evaluation.vcf import VcfSolver
from hexjax.evaluation.vct import VctSolver

NEAR = 2  # alternatives: empty points within this many rows and columns of a stone


def first_allowed_win(solver: VcfSolver, actions: list[int], side: int, threats_s=None):
    """(ply, alternatives that allow no such win) at `side`'s first move after which the
    opponent wins by fours (or, with `threats_s` and a VctSolver, by threats found in that
    many seconds), or None if it never did."""
    n = solver.size
    board = np.zeros((n, n), np.int8)
    for ply, action in enumerate(actions):
        mover = ply % 2
        if mover == side and _allows(solver, board, side, action, threats_s):
            return ply, _safe_alternatives(solver, board, side, action, threats_s)
        board.flat[action] = mover + 1
    return None


def _allows(solver, board, side: int, action: int, threats_s) -> bool:
    if threats_s is None:
        return solver.loses_to_fours(board, side, action)
    try:
        return solver.loses_to_threats(board, side, action, time.monotonic() + threats_s)
    except OutOfTime:  # the fours were not settled in time
        return False


def _safe_alternatives(solver, board: np.ndarray, side: int, played: int, threats_s) -> int:
    stones = np.argwhere(board != 0)
    safe = 0
    for action in np.flatnonzero(board.reshape(-1) == 0):
        r, c = divmod(int(action), solver.size)
        near = len(stones) and np.abs(stones - [r, c]).max(axis=1).min() <= NEAR
        if action != played and near and not _allows(solver, board, side, int(action), threats_s):
            safe += 1
    return safe


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=pathlib.Path, help="a folder of .sgf games")
    parser.add_argument("--player", default="model", help="a part of the player's PB/PW name")
    parser.add_argument("--threats", type=float, metavar="S",
                        help="count wins by continuous threats too, read for S seconds a "
                        "position")  # fmt: skip
    args = parser.parse_args(argv)
    if args.threats is not None and not args.threats > 0:
        parser.error(f"--threats must be a positive number of seconds, got {args.threats}")
    kind = "fours" if args.threats is None else "fours or threats"
    make_solver = VcfSolver if args.threats is None else VctSolver
    paths = sorted(args.folder.glob("*.sgf"))
    if not paths:
        print(f"error: no .sgf files in {args.folder}", file=sys.stderr)
        return 2
    solvers, allowed, avoidable = {}, 0, 0
    for path in paths:
        try:
            record = read_sgf(path.read_text())
            solver = solvers.get((record.game.size, record.game.rule)) or make_solver(record.game)
        except ValueError as error:
            print(f"error: {path.name}: {error}", file=sys.stderr)
            return 2
        solvers[record.game.size, record.game.rule] = solver
        names = [record.black or "", record.white or ""]
        sides = [s for s in (0, 1) if args.player in names[s]]
        if len(sides) != 1:
            print(f"error: {path.name}: --player {args.player!r} names {len(sides)} players",
                  file=sys.stderr)  # fmt: skip
            return 2
        found = first_allowed_win(solver, record.actions, sides[0], args.threats)
        if found is None:
            print(f"{path.name}: {len(record.actions)} plies, never allowed a win by {kind}")
            continue
        ply, safe = found
        allowed += 1
        avoidable += safe > 0
        print(f"{path.name}: {len(record.actions)} plies, allowed one at ply {ply + 1}; "
              f"{safe} other moves near the stones would not have")  # fmt: skip
    print(f"{len(paths)} games: a win by {kind} allowed in {allowed}, avoidable in {avoidable}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
