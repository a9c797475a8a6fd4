"""A small Hex engine over GTP, for the arena's tests: real protocol over pipes, written apart
from hexjax (its own board and its own win check), with ways to misbehave.

    python tests/support/fake_gtp_engine.py [--illegal-at N] [--crash-at N] [--slow-at N]
        [--resign-at N] [--swap-at N] [--garbage-at N] [--wrong-verdict] [--die-at-start]
        [--no-final-score]

It plays the first empty cell in reading order (a1, b1, ... then a2), which loses to almost
anything. N counts this process's genmove commands from 1: at the N-th it plays an occupied
cell, exits, sleeps a minute, resigns, answers swap-pieces or answers nonsense. Cells are
HexGui's: column letter, row number from 1 at the top; Black joins top and bottom.
"""

import argparse
import sys
import time

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def winner(board, n):
    """'B' if Black's stones join the top and bottom rows, 'W' if White's join left and right."""
    for colour, starts, reached in (
        ("B", [(0, c) for c in range(n)], lambda r, c: r == n - 1),
        ("W", [(r, 0) for r in range(n)], lambda r, c: c == n - 1),
    ):
        seen = set()
        stack = [s for s in starts if board.get(s) == colour]
        while stack:
            r, c = stack.pop()
            if (r, c) in seen:
                continue
            seen.add((r, c))
            if reached(r, c):
                return colour
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1), (-1, 1), (1, -1)):
                cell = (r + dr, c + dc)
                if board.get(cell) == colour and cell not in seen:
                    stack.append(cell)
    return None


def main():
    parser = argparse.ArgumentParser()
    for flag in ("illegal", "crash", "slow", "resign", "swap", "garbage"):
        parser.add_argument(f"--{flag}-at", type=int, default=0)
    parser.add_argument("--wrong-verdict", action="store_true")
    parser.add_argument("--die-at-start", action="store_true")
    parser.add_argument("--no-final-score", action="store_true")
    args = parser.parse_args()
    if args.die_at_start:
        print("fake engine: giving up at once", file=sys.stderr)
        return 3
    n, board, genmoves = 11, {}, 0
    commands = ["protocol_version", "name", "version", "known_command", "list_commands",
                "boardsize", "clear_board", "play", "genmove", "quit"]  # fmt: skip
    if not args.no_final_score:
        commands.append("final_score")

    def cell(text):
        col, row = LETTERS.index(text[0]), int(text[1:]) - 1
        if not (0 <= col < n and 0 <= row < n):
            raise ValueError(f"off the board: {text}")
        return row, col

    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command, rest = words[0], words[1:]
        answer, ok = "", True
        if command == "name":
            answer = "fake"
        elif command == "known_command":
            answer = "true" if rest[0] in commands else "false"
        elif command == "boardsize":
            n, board = int(rest[0]), {}
        elif command == "clear_board":
            board = {}
        elif command == "play":
            try:
                position = cell(rest[1])
                ok = position not in board
                if ok:
                    board[position] = rest[0][0].upper()
                else:
                    answer = "cell occupied"
            except (ValueError, IndexError) as error:
                ok, answer = False, str(error)
        elif command == "genmove":
            genmoves += 1
            colour = rest[0][0].upper()
            empty = [(r, c) for r in range(n) for c in range(n) if (r, c) not in board]
            if genmoves == args.crash_at:
                print("fake engine: crashing as asked", file=sys.stderr)
                sys.stderr.flush()
                return 1
            if genmoves == args.slow_at:
                time.sleep(60)
            if genmoves == args.resign_at:
                answer = "resign"
            elif genmoves == args.swap_at:
                answer = "swap-pieces"
            elif genmoves == args.garbage_at:
                answer = "somewhere nice"
            else:
                r, c = next(iter(board)) if genmoves == args.illegal_at and board else empty[0]
                board[(r, c)] = colour
                answer = f"{LETTERS[c]}{r + 1}"
        elif command == "final_score" and not args.no_final_score:
            found = winner(board, n)
            if found and args.wrong_verdict:
                found = "W" if found == "B" else "B"
            answer = f"{found}+" if found else "0"
        elif command == "quit":
            print("=\n", flush=True)
            return 0
        elif command not in commands:
            ok, answer = False, f"unknown command {command}"
        print(f"{'=' if ok else '?'} {answer}\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
