"""What leaving Hex's dead and captured cells out of the root search saves
(`Hex.moves_to_search`).

Plays `--games` games of a Hex model against itself (a few random opening moves each, for
variety; then the pruned agent's moves at `--simulations`) and, at every position, also asks
the same agent searching every legal move. Prints, by thirds of the game: positions, legal
moves, dead cells among them, cells left out (dead or captured), how often the unpruned search
played a cell left out (a move worth no more than another) and the share of its policy on them,
and how often the two searches chose differently.

    python experiments/dead_cells.py                        # hex11, docs/play.md
    python experiments/dead_cells.py --model hex9 --games 16 --simulations 256
"""

from __future__ import annotations

import argparse
import collections
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="hex11")
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--simulations", type=int, default=64)
    parser.add_argument("--opening-plies", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    import jax
    import jax.numpy as jnp
    import numpy as np

    from hexjax.games._hex_dead import dead_cells
    from hexjax.play.agent import Agent

    pruned = Agent.from_model(args.model)
    if pruned.game.name != "hex":
        parser.error(f"--model {args.model} plays {pruned.game.label}: dead cells are Hex's")
    whole = Agent(pruned.trained, prune=False)
    moves = jax.jit(pruned.game.moves_to_search)
    game, rng = pruned.game, np.random.default_rng(args.seed)
    rows = collections.defaultdict(lambda: collections.Counter())
    for number in range(args.games):
        state = game.new_state()
        for _ in range(args.opening_plies):
            state = game.host_step(state, int(rng.choice(game.legal_actions(state))))
        while not bool(state.terminated):
            legal = np.asarray(state.legal_action_mask)[: game.num_cells]
            dead = np.asarray(dead_cells(jnp.asarray(state.board))).reshape(-1) & legal
            left = legal & ~np.asarray(moves(state))[: game.num_cells]
            chosen = pruned.move(state, args.simulations)
            other = whole.move(state, args.simulations)
            third = min(2, 3 * int(state.step_count) // game.num_cells)
            row = rows[third]
            row["positions"] += 1
            row["legal"] += int(legal.sum())
            row["dead"] += int(dead.sum())
            row["left"] += int(left.sum())
            row["with left"] += int(left.any())
            row["left played"] += int(left[other.action]) if other.action < game.num_cells else 0
            row["left policy"] += float(other.policy[: game.num_cells][left].sum())
            row["differ"] += int(chosen.action != other.action)
            state = game.host_step(state, chosen.action)
        print(f"game {number + 1}: {int(state.step_count)} plies", file=sys.stderr)
    print(f"{args.model}, {args.games} games, {args.simulations} simulations a move")
    print("part of the board filled | positions | legal | dead | left out (dead or captured) | "
          "positions with one left out | unpruned plays one | unpruned policy on them | "
          "choices differ")  # fmt: skip
    names = ("first third", "second third", "last third")
    for third in sorted(rows):
        row, n = rows[third], rows[third]["positions"]
        print(f"{names[third]} | {n} | {row['legal'] / n:.1f} | {row['dead'] / n:.2f} | "
              f"{row['left'] / n:.2f} | {row['with left'] / n:.0%} | {row['left played']} | "
              f"{row['left policy'] / n:.2%} | {row['differ'] / n:.0%}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
