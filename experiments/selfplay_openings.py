"""Does a Hex 7x7 run's own self-play refute the losing first moves?

The value after each first move learns from the outcomes of self-play games through it. This
plays `--games` games from each of the 49 first moves with the run's self-play search (its
training config's: sampled, at its simulation count, or `--simulations`), the network on both
sides, and prints the first player's share of wins after each first move beside the solved
value, marking with ! the first moves whose games mostly went the other way: there no value
target can teach the right sign. With `--step`, a given checkpoint (default: the newest); with
`--model`, a stored model (its training config's search).

    python experiments/selfplay_openings.py --checkpoint runs/hex7
    python experiments/selfplay_openings.py --model hex7
    python experiments/selfplay_openings.py --checkpoint runs/hex7 --simulations 64 --games 32
    python experiments/selfplay_openings.py --checkpoint runs/hex7 --gumbel-scale 0 --games 1
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

import numpy as np

from hexjax.evaluation import solved_openings
from hexjax.training import restore


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--checkpoint", help="a Hex 7x7 run's workdir")
    source.add_argument("--model", help="a stored model (hex7: the shipped one)")
    parser.add_argument("--step", type=int, help="default: the newest readable checkpoint")
    parser.add_argument("--games", type=int, default=16, help="games from each first move")
    parser.add_argument("--simulations", type=int, help="default: the run's self-play count")
    parser.add_argument("--considered-actions", type=int, help="Gumbel's root moves")
    parser.add_argument(
        "--gumbel-scale", type=float, help="0: each side plays its best move (default: as trained)"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    counts = (args.simulations, args.considered_actions)
    if args.games < 1 or any(count is not None and count < 1 for count in counts):
        parser.error("--games, --simulations and --considered-actions must be positive")
    if args.gumbel_scale is not None and args.gumbel_scale < 0:
        parser.error("--gumbel-scale must not be negative")
    if args.model is not None:
        if args.step is not None:
            parser.error("--step picks a checkpoint of --checkpoint's run")
        trained = restore.from_model(args.model)
    else:
        trained = restore.load_trained(args.checkpoint, args.step, algorithm="alphazero")
    if not solved_openings.applies(trained.game):
        parser.error(f"{trained.source} plays {trained.game.label}: the solved table is 7x7 Hex's")
    given = {
        "num_simulations": args.simulations,
        "max_considered_actions": args.considered_actions,
        "gumbel_scale": args.gumbel_scale,
    }
    search = dataclasses.replace(
        trained.config.search, **{k: v for k, v in given.items() if v is not None}
    )
    wins = solved_openings.selfplay_first_player_wins(
        trained.game, trained.net, trained.params, search, args.games, args.seed
    )
    first_wins = solved_openings.FIRST_PLAYER_WINS.reshape(-1)
    wrong = np.flatnonzero((wins > 0.5) != first_wins)  # ties count against the solved side
    print(f"{trained.source}: {args.games} self-play games from each first move, {search.policy} "
          f"search, {search.num_simulations} simulations, {search.max_considered_actions} "
          f"considered, Gumbel scale {search.gumbel_scale:g}")  # fmt: skip
    losing = ~first_wins
    print(f"first player's wins after its losing first moves: {wins[losing].mean():.1%}; after "
          f"its winning ones: {wins[first_wins].mean():.1%}")  # fmt: skip
    names = " ".join(trained.game.action_to_string(int(a)) for a in wrong) or "none"
    print(f"first moves whose games mostly went against the solved value: {len(wrong)} ({names})")
    print("\nthe first player's share of wins after each first move (! against the solved value)")
    print("\n".join(solved_openings.board(wins, wrong)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
