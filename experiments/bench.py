"""Benchmarks: random-play moves per second, hexjax against its peers, in one run.

    python experiments/bench.py                      # Hex 11x11, batch 1024 and 4096
    python experiments/bench.py --batch 1024 --repeats 7 --json results/bench.json

Every engine plays uniformly random legal moves; finished games restart at once, so every slot
makes one move per step. JAX engines (hexjax, pgx) run `--steps` plies for the whole batch inside
one jitted `lax.scan`, with the same action selection; OpenSpiel plays one game at a time in a
plain Python loop (its single-process rate). Figures are medians of `--repeats` timed runs after
one warm-up (compilation) run. Ratios are taken within this run, on this machine.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp

from hexjax.sampling import random_legal_action


def make_random_play(init: Callable, step: Callable, batch: int, num_steps: int) -> Callable:
    """jitted `play(key) -> moves made`: `num_steps` batched random plies with auto-reset.

    init(keys[B]) -> batched state; step(state, actions[B]) -> state; states expose
    `legal_action_mask` and `terminated`.
    """

    def play(key):
        init_key, play_key = jax.random.split(key)
        start = init(jax.random.split(init_key, batch))

        def one_ply(state, ply_key):
            action = random_legal_action(ply_key, state.legal_action_mask)
            state = step(state, action)
            done = state.terminated
            state = jax.tree.map(
                lambda fresh, s: jnp.where(
                    done.reshape(done.shape + (1,) * (s.ndim - 1)), fresh, s
                ),
                start,
                state,
            )
            return state, done.sum()

        _, finished = jax.lax.scan(one_ply, start, jax.random.split(play_key, num_steps))
        return finished.sum()

    return jax.jit(play)


def time_jax(play: Callable, batch: int, num_steps: int, repeats: int) -> dict:
    key = jax.random.key(0)
    jax.block_until_ready(play(key))  # compile + warm up
    rates, games = [], 0
    for repeat in range(repeats):
        start = time.perf_counter()
        finished = jax.block_until_ready(play(jax.random.fold_in(key, repeat + 1)))
        rates.append(batch * num_steps / (time.perf_counter() - start))
        games += int(finished)
    return {"moves_per_s": statistics.median(rates), "all": rates, "games_finished": games}


def hexjax_hex(size: int) -> tuple[Callable, Callable]:
    import hexjax

    game = hexjax.make("hex", size=size)
    return jax.vmap(game.init), jax.vmap(game.step)


def pgx_hex(size: int) -> tuple[Callable, Callable]:
    import pgx

    env = pgx.make("hex", size=size) if size != 11 else pgx.make("hex")
    return jax.vmap(env.init), jax.vmap(env.step)


def time_open_spiel(game_name: str, params: dict, seconds: float, repeats: int) -> dict:
    import pyspiel

    game = pyspiel.load_game(game_name, params)
    rng = random.Random(0)
    rates = []
    for _ in range(repeats):
        moves, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))
                moves += 1
        rates.append(moves / (time.perf_counter() - start))
    return {"moves_per_s": statistics.median(rates), "all": rates}


def bench_hex(args) -> list[dict]:
    rows = []
    size = args.size
    for batch in args.batch:
        for engine, factory in (("hexjax", hexjax_hex), ("pgx", pgx_hex)):
            if engine in args.skip:
                continue
            init, step = factory(size)
            play = make_random_play(init, step, batch, args.steps)
            result = time_jax(play, batch, args.steps, args.repeats)
            rows.append({"game": f"hex {size}x{size}", "engine": engine, "batch": batch, **result})
            print(
                f"  {engine:9s} batch {batch:5d}: {result['moves_per_s']:>12,.0f} moves/s",
                file=sys.stderr,
            )
    if "open_spiel" not in args.skip:
        result = time_open_spiel("hex", {"board_size": size}, args.seconds, args.repeats)
        rows.append({"game": f"hex {size}x{size}", "engine": "open_spiel", "batch": 1, **result})
        print(f"  open_spiel single game: {result['moves_per_s']:>12,.0f} moves/s", file=sys.stderr)
    return rows


def table(rows: list[dict]) -> str:
    lines = [
        "| game | engine | batch | moves/s (median) | hexjax / engine |",
        "|---|---|---:|---:|---:|",
    ]
    for row in rows:
        ours = [
            r
            for r in rows
            if r["engine"] == "hexjax"
            and r["game"] == row["game"]
            and (r["batch"] == row["batch"] or row["engine"] == "open_spiel")
        ]
        ratio = ""
        if row["engine"] != "hexjax" and ours:
            ratio = " / ".join(
                f"{o['moves_per_s'] / row['moves_per_s']:.2f}x (b{o['batch']})" for o in ours
            )
        lines.append(
            f"| {row['game']} | {row['engine']} | {row['batch']} | "
            f"{row['moves_per_s']:,.0f} | {ratio} |"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=11, help="Hex board size (default 11)")
    parser.add_argument("--batch", type=int, nargs="+", default=[1024, 4096])
    parser.add_argument("--steps", type=int, default=200, help="plies per timed JAX run")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs; the median is kept")
    parser.add_argument("--seconds", type=float, default=2.0, help="OpenSpiel time per repeat")
    parser.add_argument("--skip", nargs="*", default=[], choices=["hexjax", "pgx", "open_spiel"])
    parser.add_argument("--json", type=Path, default=Path("results/bench.json"))
    args = parser.parse_args(argv)
    if not 2 <= args.size <= 19:
        parser.error(f"--size must be between 2 and 19, got {args.size}")
    if min(args.batch) < 1 or args.steps < 1 or args.repeats < 1:
        parser.error("--batch, --steps and --repeats must be positive")

    print(
        f"jax {jax.__version__} on {jax.devices()[0].platform}, {platform.machine()}",
        file=sys.stderr,
    )
    rows = bench_hex(args)
    print(table(rows))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "jax": jax.__version__,
        "backend": jax.devices()[0].platform,
        "machine": platform.machine(),
        "argv": sys.argv[1:],
    }
    args.json.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    print(f"wrote {args.json}", file=sys.stderr)


if __name__ == "__main__":
    main()
