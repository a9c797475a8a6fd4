"""Do the engines answer within their time limits? A measurement over the real protocols.

Starts `python -m hexjax.play.gomocup` as a tournament manager does, sends START, the INFO time
limits and BEGIN, then answers each of the brain's moves with a random empty point (TURN) for
`--moves` moves, timing every answer from the command written to the line read. With
`--protocol gtp` it starts `python -m hexjax.play.gtp` (Hex) instead: boardsize, a byo-yomi of
the session's time for every move (`time_settings 0 T 1`), then `genmove b` answered by a random
`play w`, a new game (`clear_board`) whenever one ends. Prints, per
session, the seconds until the process answers ABOUT (Python, JAX and hexjax imported), the
START time after that, the first (under a rule named after START, it may wait for that rule's
model), median and slowest move and how many went over the limit. The
engine uses the persistent compilation cache it always uses (`hexjax/play/compile_cache.py`);
`--cold-and-warm` runs each session twice on a new, empty cache instead: compiling everything,
then loading it.

    python experiments/engine_time.py                    # the two sessions of docs/play.md
    python experiments/engine_time.py --sessions 1000:64 --moves 20 --size 9
    python experiments/engine_time.py --sessions 5000:4096 --size 15 --rule 4   # renju15
    python experiments/engine_time.py --timed-search counts    # the clock before the lasting search
    python experiments/engine_time.py --cold-and-warm --moves 5       # START: compiled, then cached
    python experiments/engine_time.py --no-solver      # the engine without its exact solver
    python experiments/engine_time.py --size 15 --model gomoku15   # START readies one model only
    python experiments/engine_time.py --protocol gtp --size 7 --sessions 500:4096 --moves 200
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time


def session(
    timeout_ms: int, simulations: int, moves: int, size: int, seed: int, rule: int = 0,
    search: str = "kept", cache: str | None = None, flags: tuple[str, ...] = (),
) -> dict:  # fmt: skip
    argv = [sys.executable, "-m", "hexjax.play.gomocup", "--simulations", str(simulations),
            "--timed-search", search, *flags]  # fmt: skip
    env = dict(os.environ, **({"JAX_COMPILATION_CACHE_DIR": cache} if cache else {}))
    began = time.monotonic()
    process = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    )
    rng = random.Random(seed)
    empty = {(x, y) for x in range(size) for y in range(size)}

    def ask(command: str) -> tuple[str, float]:
        started = time.monotonic()
        process.stdin.write(command + "\r\n")
        process.stdin.flush()
        answer = process.stdout.readline().strip()
        return answer, time.monotonic() - started

    try:
        ask("ABOUT")
        ready_s = time.monotonic() - began
        answer, start_s = ask(f"START {size}")
        if answer != "OK":
            raise SystemExit(f"START {size} answered {answer!r}")
        process.stdin.write(f"INFO timeout_turn {timeout_ms}\r\nINFO rule {rule}\r\n")
        command, seconds = "BEGIN", []
        while len(seconds) < moves:
            answer, took = ask(command)
            if "," not in answer:  # ERROR: the game is over (a five): a new one
                if ask("RESTART")[0] != "OK":
                    raise SystemExit(f"{command} answered {answer!r}, and RESTART failed")
                empty = {(x, y) for x in range(size) for y in range(size)}
                command = "BEGIN"
                continue
            seconds.append(took)
            empty.discard(tuple(map(int, answer.split(","))))
            theirs = rng.choice(sorted(empty))
            empty.discard(theirs)
            command = f"TURN {theirs[0]},{theirs[1]}"
        ask("END")
    finally:
        process.kill()
    return _row("timeout_turn", timeout_ms, simulations, search, ready_s, start_s, seconds)


def gtp_session(
    timeout_ms: int, simulations: int, moves: int, size: int, seed: int, rule: int = 0,
    search: str = "kept", cache: str | None = None, flags: tuple[str, ...] = (),
) -> dict:  # fmt: skip
    """As `session`, over GTP: the engine prepares before it reads, so `ready` includes it."""
    del rule
    argv = [sys.executable, "-m", "hexjax.play.gtp", "--size", str(size), "--simulations",
            str(simulations), "--timed-search", search, *flags]  # fmt: skip
    env = dict(os.environ, **({"JAX_COMPILATION_CACHE_DIR": cache} if cache else {}))
    began = time.monotonic()
    process = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    )
    rng = random.Random(seed)
    cells = [f"{chr(ord('a') + c)}{r + 1}" for r in range(size) for c in range(size)]

    def ask(command: str) -> tuple[str, float]:
        started = time.monotonic()
        process.stdin.write(command + "\n")
        process.stdin.flush()
        answer = process.stdout.readline().strip()
        while process.stdout.readline().strip():  # a GTP answer ends with an empty line
            pass
        return answer, time.monotonic() - started

    try:
        ask("name")
        ready_s = time.monotonic() - began
        _, start_s = ask(f"boardsize {size}")
        ask(f"time_settings 0 {timeout_ms / 1000} 1")
        empty, seconds = set(cells), []
        while len(seconds) < moves:
            answer, took = ask("genmove b")
            if not answer.startswith("= "):  # the game is over: a new one
                ask("clear_board")
                empty = set(cells)
                continue
            seconds.append(took)
            empty.discard(answer[2:])
            theirs = rng.choice(sorted(empty)) if empty else None
            if theirs is None or not ask(f"play w {theirs}")[0].startswith("="):
                ask("clear_board")
                empty = set(cells)
                continue
            empty.discard(theirs)
        ask("quit")
    finally:
        process.kill()
    return _row("byo-yomi", timeout_ms, simulations, search, ready_s, start_s, seconds)


def _row(limit_name, timeout_ms, simulations, search, ready_s, start_s, seconds) -> dict:
    limit = timeout_ms / 1000
    return {
        "session": f"{limit_name} {timeout_ms}, --simulations {simulations}, {search}",
        "ready_s": ready_s,
        "start_s": start_s,
        "moves": len(seconds),
        "first_s": seconds[0],
        "median_s": statistics.median(seconds),
        "max_s": max(seconds),
        "over": sum(s > limit for s in seconds),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", nargs="+", default=["1000:64", "500:4096"],
                        help="TIMEOUT_MS:SIMULATIONS for each session")  # fmt: skip
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--size", type=int, default=9, help="a board with a shipped model")
    parser.add_argument("--rule", type=int, default=0, choices=(0, 1, 4),
                        help="INFO rule: 0 freestyle, 1 exactly five, 4 renju")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--protocol", choices=("gomocup", "gtp"), default="gomocup",
                        help="gomocup (Gomoku, renju) or gtp (Hex)")  # fmt: skip
    parser.add_argument("--timed-search", choices=("kept", "fresh", "counts"), default="kept",
                        help="the engine's --timed-search")  # fmt: skip
    parser.add_argument("--no-solver", action="store_true",
                        help="the engine's --no-solver: no exact solver, no screen")  # fmt: skip
    parser.add_argument("--model", help="the engine's --model: START readies this shipped "
                        "model only (by default every rule shipped for the board)")  # fmt: skip
    parser.add_argument("--cold-and-warm", action="store_true",
                        help="each session twice on a new cache: compiled, then read")  # fmt: skip
    args = parser.parse_args(argv)
    columns = "session cache ready START moves first_move median_move slowest_move over_the_limit"
    print("| " + " | ".join(c.replace("_", " ") for c in columns.split()) + " |")
    print("|---" * len(columns.split()) + "|")
    flags = ("--no-solver",) * args.no_solver + (("--model", args.model) if args.model else ())
    for spec in args.sessions:
        timeout_ms, simulations = map(int, spec.split(":"))
        runs = [("as it is", None)]
        if args.cold_and_warm:
            folder = tempfile.mkdtemp(prefix="hexjax-engine-time-")
            runs = [("cold", folder), ("warm", folder)]
        for cache_name, cache in runs:
            play = gtp_session if args.protocol == "gtp" else session
            row = play(timeout_ms, simulations, args.moves, args.size, args.seed, args.rule,
                       args.timed_search, cache, flags)  # fmt: skip
            cells = [row["session"], cache_name, f"{row['ready_s']:.1f} s",
                     f"{row['start_s']:.1f} s", row["moves"], f"{row['first_s']:.3f} s",
                     f"{row['median_s']:.3f} s",
                     f"{row['max_s']:.3f} s", row["over"]]  # fmt: skip
            print("| " + " | ".join(map(str, cells)) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
