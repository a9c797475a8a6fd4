"""What the exact renju reading costs, and which tier settles which board: a measurement.

On boards built against the nested double-three reading (`stress_boards` in
tests/support/renju_positions.py: chains deeper than the slots, shared extension points, more
doubtful points than the candidates, the deepest boards of a mutation search) and on positions of
random renju games, counts the boards the bounded reading settles (`Forbidden.read` at the
default bounds, no overflow) and those left to the unbounded one (`Forbidden.exact`), and times,
jitted over the whole batch, the bounded reading, the unbounded one and `mask` (the first, then
the second where it overflowed). Medians of --repeats calls; ms per board.

    python experiments/renju_reading.py                  # docs/games.md's figures
    python experiments/renju_reading.py --boards 200 --repeats 3
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "tests"))
from support.playouts import random_playouts  # noqa: E402
from support.renju_positions import stress_boards  # noqa: E402

import hexjax  # noqa: E402
from hexjax.games._renju import Forbidden  # noqa: E402

N = 15


def random_game_boards(count: int, seed: int) -> np.ndarray:
    """Boards of random renju games with Black to move and a doubtful point (the ones that
    need a reading), `count` of them or fewer."""
    game = hexjax.make("gomoku", size=N, rule="renju")
    states, _ = random_playouts(game, jax.random.key(seed), batch=64)
    flat = jax.tree.map(lambda x: x.reshape(-1, *x.shape[2:]), states)
    boards = np.asarray(flat.board).reshape(-1, N, N)
    black = (np.asarray(flat.current_player) == 0) & ~np.asarray(flat.terminated)
    counts = jax.vmap(game._forbidden.initial)(jnp.asarray(boards))
    flat_boards = jnp.asarray(boards.reshape(len(boards), -1))
    _, doubtful = jax.vmap(game._forbidden.status)(counts, flat_boards)
    needs = black & np.asarray(doubtful.any(axis=1))
    return boards[needs][:count]


def timed(function, boards: jax.Array, repeats: int) -> float:
    """Median ms per board of `function(boards)` (compiled first)."""
    jax.block_until_ready(function(boards))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(function(boards))
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times) / len(boards)


def measure(name: str, boards: np.ndarray, repeats: int) -> dict:
    forbidden = Forbidden(N)

    def read(board):
        codes = forbidden.codes(board).reshape(4, -1)
        return forbidden.read(board.reshape(-1), codes, forbidden.candidates, forbidden.slots)

    bounded = jax.jit(jax.vmap(read))
    exact = jax.jit(jax.vmap(lambda board: forbidden.exact(board.reshape(-1))))
    mask = jax.jit(jax.vmap(forbidden.mask))
    batch = jnp.asarray(boards)
    first, overflow = (np.asarray(x) for x in bounded(batch))
    unbounded = np.asarray(exact(batch))
    return {
        "boards": name,
        "count": len(boards),
        "settled by the bounded reading": int((~overflow).sum()),
        "left to the unbounded reading": int(overflow.sum()),
        "bounded answer wrong": int((first != unbounded).any(axis=1).sum()),
        "bounded ms/board": timed(lambda b: bounded(b)[0], batch, repeats),
        "unbounded ms/board": timed(exact, batch, repeats),
        "mask ms/board": timed(mask, batch, repeats),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=500, help="boards of each kind")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rows = [
        measure("stress_boards", stress_boards(args.boards, seed=args.seed), args.repeats),
        measure("random games", random_game_boards(args.boards, args.seed), args.repeats),
    ]
    keys = list(rows[0])
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for row in rows:
        cells = [f"{v:.3f}" if isinstance(v, float) else str(v) for v in row.values()]
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
