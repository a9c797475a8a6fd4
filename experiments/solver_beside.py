"""What running the exact solver beside the search, on the spare core, gives a timed move.

Pinned as the engines pin (`play/cores.py`), this plays timed moves (`play/lasting.py`, a new
tree each move) on positions from random legal openings of `--plies` moves, once with the
solver first (its quarter of the time, then the search) and once with it beside the search
(for the whole move), the order alternating; each way keeps its own solver and tables, as an
engine's session would. Prints, per way: moves proven (a win played without searching), the
median simulations of the moves searched, and the median and slowest move.

    python experiments/solver_beside.py                        # hex7 at 0.5 s, docs/play.md
    python experiments/solver_beside.py --model gomoku15 --plies 6 20 --budget 1.0
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="hex7")
    parser.add_argument("--budget", type=float, default=0.5, help="seconds a move")
    parser.add_argument("--simulations", type=int, default=4096, help="the most a move")
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--plies", type=int, nargs=2, default=(4, 24), metavar=("LEAST", "MOST"),
                        help="random opening moves before a position, in this range")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    from hexjax.play import cores

    pinned = cores.pin_search("one")  # before JAX starts its threads, as the engines do
    import jax
    import numpy as np

    from hexjax.play.agent import Agent
    from hexjax.play.lasting import LastingSearch

    agent = Agent.from_model(args.model)
    game, rng = agent.game, np.random.default_rng(args.seed)
    ways = {
        name: LastingSearch(agent, args.simulations, keep=False, beside=beside)
        for name, beside in (("solver first", False), ("solver beside", True))
    }
    for search in ways.values():
        search.prepare()
    moves = {name: [] for name in ways}  # (proven, simulations, seconds)
    for index in range(args.positions):
        state = game.new_state()
        for _ in range(rng.integers(args.plies[0], args.plies[1] + 1)):
            legal = np.flatnonzero(np.asarray(game.legal_actions(state)))
            after = game.step(state, jax.numpy.int32(rng.choice(legal)))
            if bool(after.terminated):
                break
            state = after
        for name in list(ways) if index % 2 == 0 else list(ways)[::-1]:
            began = time.monotonic()
            reply = ways[name].move(state, args.budget)
            moves[name].append((reply.proven, reply.simulations, time.monotonic() - began))
    print(f"{args.model}, {args.budget} s a move, {args.positions} positions after "
          f"{args.plies[0]}-{args.plies[1]} random moves; search on core(s) {sorted(pinned)}, "
          f"spare {sorted(cores.spare())}")  # fmt: skip
    print(f"{'way':<14} {'proven':>7} {'median simulations (searched)':>30} "
          f"{'median s':>9} {'slowest s':>10}")  # fmt: skip
    for name, rows in moves.items():
        searched = [simulations for proven, simulations, _ in rows if not proven]
        seconds = [s for _, _, s in rows]
        median = statistics.median(searched) if searched else 0
        print(f"{name:<14} {sum(p for p, _, _ in rows):>7} {median:>30.0f} "
              f"{statistics.median(seconds):>9.3f} {max(seconds):>10.3f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
