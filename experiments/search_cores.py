"""How fast does an engine's search run pinned to one core, against free to use them all?

For each shipped model and each `--search-cores` choice, a fresh process (the pin must come
before JAX starts its threads, as in the engines) prepares the engines' timed search
(`play/lasting.py`, a new tree each move, no solver) and runs `--simulations` on each of
`--positions` positions (the empty board, then positions from random legal moves), `--rounds`
times, the two choices alternating so that the machine's load falls on both. With `--beside-busy`
a process that keeps one core busy runs beside each measurement, as an opponent engine thinking
on the same machine would. Prints each model's median simulations a second for each choice and
their ratio (one / all).

    python experiments/search_cores.py                         # the table of docs/play.md
    python experiments/search_cores.py --models hex7 gomoku9 --rounds 5
    python experiments/search_cores.py --beside-busy           # an opponent thinking beside
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

CHOICES = ("one", "all")


def measure(model: str, cores: str, simulations: int, positions: int, seed: int) -> dict:
    """In this process: pin as the engines do, then the search's rate on each position."""
    from hexjax.play import cores as cores_lib

    used = cores_lib.pin_search(cores)
    from hexjax.play.agent import Agent
    from hexjax.play.lasting import LastingSearch
    from hexjax.play.search_rate import measured_rates

    search = LastingSearch(Agent.from_model(model), simulations, keep=False, solve=False)
    search.prepare()
    rates = measured_rates(search, simulations, positions, seed)
    return {"cores": sorted(used), "rates": rates}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=["hex7", "hex11", "gomoku9", "gomoku15"])
    parser.add_argument("--simulations", type=int, default=512)
    parser.add_argument("--positions", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--beside-busy", action="store_true",
                        help="a process keeping one core busy beside each measurement")  # fmt: skip
    parser.add_argument("--child", nargs=2, metavar=("MODEL", "CORES"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        model, cores = args.child
        print(json.dumps(measure(model, cores, args.simulations, args.positions, args.seed)))
        return 0
    beside = ", one core kept busy beside" if args.beside_busy else ""
    print(f"{'model':<10} {'one core':>10} {'all cores':>10} {'ratio':>6}   (simulations a second, "
          f"median of {args.rounds} rounds x {args.positions} positions{beside})")  # fmt: skip
    for model in args.models:
        rates = {choice: [] for choice in CHOICES}
        for round_ in range(args.rounds):
            for choice in CHOICES if round_ % 2 == 0 else CHOICES[::-1]:
                argv = [sys.executable, __file__, "--child", model, choice, "--simulations",
                        str(args.simulations), "--positions", str(args.positions), "--seed",
                        str(args.seed)]  # fmt: skip
                busy = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if (
                    args.beside_busy) else None  # fmt: skip
                try:
                    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
                finally:
                    if busy is not None:
                        busy.kill()
                        busy.wait()
                rates[choice] += json.loads(out.splitlines()[-1])["rates"]
        one, all_ = (statistics.median(rates[choice]) for choice in CHOICES)
        print(f"{model:<10} {one:>10.0f} {all_:>10.0f} {one / all_:>6.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
