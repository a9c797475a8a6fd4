"""What reading Gomoku's forced results at every node (`--tactics`) costs the search's rate.

For each model, the engines' search (`play/lasting.py`, a new tree each move, no solver) is
prepared twice, without and with `SearchConfig.tactics`, and runs `--simulations` on each of
`--positions` positions (the empty board, then two random legal moves further each time),
`--rounds` times, the two alternating so that the machine's load falls on both. Prints each
model's median simulations a second each way and their ratio (with / without).

    python experiments/tactics_cost.py                       # the figure of docs/play.md
    python experiments/tactics_cost.py --models gomoku9 --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import sys

from hexjax.play.agent import Agent
from hexjax.play.lasting import LastingSearch
from hexjax.play.search_rate import measured_rates
from hexjax.training import restore


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=["gomoku9", "gomoku15", "renju15"])
    parser.add_argument("--simulations", type=int, default=512)
    parser.add_argument("--positions", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"{'model':<10} {'without':>8} {'with':>8} {'ratio':>6}   (simulations a second, "
          f"median of {args.rounds} rounds x {args.positions} positions)")  # fmt: skip
    for model in args.models:
        searches = {}
        for tactics in (False, True):
            agent = Agent(restore.from_model(model, tactics=tactics))
            searches[tactics] = LastingSearch(agent, args.simulations, keep=False, solve=False)
            searches[tactics].prepare()
        found = {False: [], True: []}
        for round_ in range(args.rounds):
            for tactics in (False, True) if round_ % 2 == 0 else (True, False):
                found[tactics] += measured_rates(
                    searches[tactics], args.simulations, args.positions, args.seed
                )
        without, with_ = (statistics.median(found[t]) for t in (False, True))
        print(f"{model:<10} {without:>8.0f} {with_:>8.0f} {with_ / without:>6.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
