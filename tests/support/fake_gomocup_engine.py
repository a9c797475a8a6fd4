"""A small Gomoku brain over the Gomocup protocol, for the arena's tests: real protocol over
pipes, written apart from hexjax, with ways to misbehave.

    python tests/support/fake_gomocup_engine.py [--moves "x,y x,y ..."] [--illegal-at N]
        [--crash-at N] [--slow-at N] [--garbage-at N] [--log FILE] [--eval N]
        [--silent-restart] [--deaf-after N]

It plays its scripted --moves while they are empty, then the first empty point in reading
order ("0,0", "1,0", ...). N counts this process's moves from 1: at the N-th it plays an
occupied point, exits, sleeps a minute or answers nonsense. Every answer comes after a MESSAGE
line, as real brains chatter, and with --eval after a Rapfi-like line reporting evaluation N.
--log appends every command it reads to FILE; --silent-restart leaves RESTART unanswered;
--deaf-after N drops the command after its N-th move, as Rapfi may.
"""

import argparse
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--moves", default="")
    for flag in ("illegal", "crash", "slow", "garbage"):
        parser.add_argument(f"--{flag}-at", type=int, default=0)
    parser.add_argument("--log")
    parser.add_argument("--eval", type=int, help="report this evaluation before each move")
    parser.add_argument("--silent-restart", action="store_true", help="never answer RESTART")
    parser.add_argument("--deaf-after", type=int, default=0,
                        help="drop the command after its N-th move, as Rapfi may")  # fmt: skip
    args = parser.parse_args()
    script = [tuple(map(int, m.split(","))) for m in args.moves.split()]
    n, stones, moves = 15, {}, 0

    def say(text):
        print("MESSAGE thinking hard", flush=True)
        if args.eval is not None:
            print(f"MESSAGE Speed 1K | Depth 3-5 | Eval {args.eval} | Node 10 | Time 1ms")
        print(text, flush=True)

    def reply():
        nonlocal moves
        moves += 1
        if moves == args.crash_at:
            return sys.exit(1)
        if moves == args.slow_at:
            time.sleep(60)
        if moves == args.garbage_at:
            return say("I pass")
        if moves == args.illegal_at and stones:
            return say("{},{}".format(*next(iter(stones))))
        free = [p for p in script if p not in stones]
        free += [(x, y) for y in range(n) for x in range(n) if (x, y) not in stones]
        stones[free[0]] = 1
        say("{},{}".format(*free[0]))

    lines = iter(sys.stdin.readline, "")
    deaf_at = None
    for line in lines:
        if args.log:
            with open(args.log, "a") as log:
                log.write(line)
        if deaf_at is None and moves == args.deaf_after > 0:
            deaf_at = moves
            continue  # the first command after that move is lost
        words = line.strip().split(maxsplit=1)
        if not words:
            continue
        command, rest = words[0].upper(), words[1] if len(words) > 1 else ""
        if command == "START":
            n, stones = int(rest), {}
            say("OK")
        elif command == "RESTART":
            stones = {}
            if not args.silent_restart:
                say("OK")
        elif command == "INFO":
            continue
        elif command == "BEGIN":
            reply()
        elif command == "TURN":
            stones[tuple(map(int, rest.split(",")))] = 2
            reply()
        elif command == "BOARD":
            stones = {}
            for row in lines:
                if args.log:
                    with open(args.log, "a") as log:
                        log.write(row)
                if row.strip().upper() == "DONE":
                    break
                x, y, field = map(int, row.strip().split(","))
                stones[(x, y)] = field
            reply()
        elif command == "END":
            return 0
        elif command == "ABOUT":
            say('name="fake"')
        else:
            say(f"UNKNOWN {command}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
