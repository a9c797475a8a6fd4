"""A small Othello engine over GTP, for the arena's tests: its own rules (flips, passes), the
first legal square in reading order, and `final_score` by disc count. Coordinates as Edax's:
column letter, row from 1 at the top; Black moves first from d5 e4 (White d4 e5).

    python tests/support/fake_othello_gtp_engine.py [--illegal-at N]
"""

import argparse
import sys

DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]


def flips(board, n, colour, r, c):
    if (r, c) in board:
        return []
    other, found = "W" if colour == "B" else "B", []
    for dr, dc in DIRECTIONS:
        line, rr, cc = [], r + dr, c + dc
        while 0 <= rr < n and 0 <= cc < n and board.get((rr, cc)) == other:
            line.append((rr, cc))
            rr, cc = rr + dr, cc + dc
        if line and 0 <= rr < n and 0 <= cc < n and board.get((rr, cc)) == colour:
            found += line
    return found


def legal(board, n, colour):
    return [(r, c) for r in range(n) for c in range(n) if flips(board, n, colour, r, c)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--illegal-at", type=int, default=0)
    parser.add_argument("--refuse-pass", action="store_true", help="as GRhino: `play C pass` is "
                        "a syntax error, a side that cannot move passes by itself")  # fmt: skip
    args = parser.parse_args()
    n, genmoves = 8, 0

    def start():
        return {(3, 3): "W", (4, 4): "W", (3, 4): "B", (4, 3): "B"}

    board = start()
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command, rest, answer, ok = words[0], words[1:], "", True
        if command == "name":
            answer = "fake othello"
        elif command == "known_command":
            answer = "true" if rest[0] in ("final_score", "genmove", "play") else "false"
        elif command == "boardsize":
            ok = rest == ["8"]
            answer = "" if ok else "unacceptable size"
        elif command == "clear_board":
            board = start()
        elif command in ("play", "genmove"):
            colour = rest[0][0].upper()
            moves = legal(board, n, colour)
            if command == "genmove":
                genmoves += 1
                if genmoves == args.illegal_at:
                    answer = "a1"  # a corner, never legal early on
                    print(f"= {answer}\n", flush=True)
                    continue
                move = moves[0] if moves else None
            else:
                text = rest[1].lower()
                if text == "pass" and args.refuse_pass:
                    print("? syntax error\n", flush=True)
                    continue
                move = None if text == "pass" else (int(text[1:]) - 1, "abcdefgh".index(text[0]))
                if (move is None and moves) or (move is not None and move not in moves):
                    print("? illegal move\n", flush=True)
                    continue
            if move is not None:
                for square in flips(board, n, colour, *move):
                    board[square] = colour
                board[move] = colour
            if command == "genmove":
                answer = "pass" if move is None else f"{'abcdefgh'[move[1]]}{move[0] + 1}"
        elif command == "final_score":
            black = sum(v == "B" for v in board.values())
            white = len(board) - black
            answer = (
                "0" if black == white else f"{'B' if black > white else 'W'}+{abs(black - white)}"
            )
        elif command == "quit":
            print("=\n", flush=True)
            return 0
        else:
            ok, answer = False, "unknown command"
        print(f"{'=' if ok else '?'} {answer}\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
