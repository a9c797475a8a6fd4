"""Benchmarks: random-play moves per second, hexjax against its peers, in one run.

    python experiments/bench.py               # Hex, Gomoku, Othello, renju; batch 1024 and 4096
    python experiments/bench.py --batch 1024 --repeats 9 --json results/bench.json

Every engine plays uniformly random legal moves (the same sampler for all JAX engines); a
finished game restarts at once, so every slot makes one move per ply. JAX engines run `--steps`
plies of the whole batch inside one jitted `lax.scan`. OpenSpiel plays one game at a time in a
plain Python loop: its single-process rate. The engines take turns within each repeat (the order
rotating), so a noisy neighbour slows all of them alike; we report the median rate of each and
the median of the per-repeat ratios. Compilation happens before timing.

`hexjax+observe` also builds the network observation after every step, as pgx's `step` always
does; plain `hexjax` is the step alone, which is what search and self-play call per ply.
"""

from __future__ import annotations

import argparse
import functools
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

import hexjax
from hexjax import sharding
from hexjax.games import random_legal_action


def make_random_play(init: Callable, step: Callable, batch: int, num_steps: int) -> Callable:
    """jitted `play(key) -> (first games finished, their plies, extra)`: `num_steps` batched
    random plies with auto-reset.

    init(keys[B]) -> batched state; step(state, actions[B]) -> (state, extra scalar to keep
    alive); states expose `legal_action_mask` and `terminated`.
    """

    def play(key):
        init_key, play_key = jax.random.split(key)
        start = init(jax.random.split(init_key, batch))

        def one_ply(carry, ply_key):
            state, plies, first = carry
            action = random_legal_action(ply_key, state.legal_action_mask)
            state, extra = step(state, action)
            done = state.terminated
            plies = plies + 1

            def reset(fresh, s):
                return jnp.where(done.reshape(done.shape + (1,) * (s.ndim - 1)), fresh, s)

            # Game lengths are taken from each slot's first game only: averaging every game
            # that ends inside the window would favour short games (they finish more often).
            first_done = done & first
            finished = (first_done.sum(), jnp.where(first_done, plies, 0).sum(), extra)
            carry = (jax.tree.map(reset, start, state), jnp.where(done, 0, plies), first & ~done)
            return carry, finished

        carry = (start, jnp.zeros(batch, jnp.int32), jnp.ones(batch, jnp.bool_))
        _, totals = jax.lax.scan(one_ply, carry, jax.random.split(play_key, num_steps))
        return jax.tree.map(jnp.sum, totals)

    return jax.jit(play)


class JaxEngine:
    def __init__(self, name: str, init: Callable, step: Callable, batch: int, steps: int):
        self.name, self.batch, self.steps = name, batch, steps
        self.play = make_random_play(init, step, batch, steps)
        self.runs = 0
        self.games = 0
        self.game_plies = 0
        jax.block_until_ready(self.play(jax.random.key(0)))  # compile and warm up

    def timed_rate(self) -> float:
        self.runs += 1
        start = time.perf_counter()
        finished, plies, _ = jax.block_until_ready(self.play(jax.random.key(self.runs)))
        rate = self.batch * self.steps / (time.perf_counter() - start)
        self.games += int(finished)
        self.game_plies += int(plies)
        return rate

    def plies_per_game(self) -> float:
        """Mean length of each slot's first game: a check that engines play the same game
        (unbiased when `steps` is at least the longest possible game)."""
        return self.game_plies / self.games if self.games else float("nan")


class OpenSpielEngine:
    def __init__(self, name: str, game_name: str, params: dict, seconds: float):
        import pyspiel

        self.name, self.batch, self.seconds = name, 1, seconds
        self.game = pyspiel.load_game(game_name, params)
        self.rng = random.Random(0)
        self.moves = 0
        self.games = 0

    def timed_rate(self) -> float:
        moves, start = 0, time.perf_counter()
        while time.perf_counter() - start < self.seconds:
            state = self.game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(self.rng.choice(state.legal_actions()))
                moves += 1
            self.games += 1
        self.moves += moves
        return moves / (time.perf_counter() - start)

    def plies_per_game(self) -> float:
        return self.moves / self.games if self.games else float("nan")


# Each benchmarked game: hexjax options, pgx id (None: not in pgx), OpenSpiel name and params.
GAMES = {
    "hex": (dict(name="hex", size=11), "hex", ("hex", {"board_size": 11})),
    "gomoku": (dict(name="gomoku", size=15, rule="freestyle"), None, ("gomoku", {"size": 15})),
    "othello": (dict(name="othello", size=8), "othello", ("othello", {})),
    "renju": (dict(name="gomoku", size=15, rule="renju"), None, None),  # no peer has renju
}


def game_label(name: str) -> str:
    options = GAMES[name][0]
    rule = f" {options['rule']}" if "rule" in options else ""
    return f"{options['name']} {options['size']}x{options['size']}{rule}"


def engines_for(name: str, batch: int, steps: int, seconds: float, skip: list[str]) -> list:
    options, pgx_id, spiel = GAMES[name]
    game = hexjax.make(**options)

    def hexjax_engine(label, game, observe=False):
        def step(state, action):
            state = jax.vmap(game.step)(state, action)
            # The observation is summed so that XLA cannot drop it as unused.
            return state, jax.vmap(game.observe)(state).sum() if observe else jnp.float32(0)

        return JaxEngine(label, jax.vmap(game.init), step, batch, steps)

    engines = []
    if "hexjax" not in skip:
        engines.append(hexjax_engine("hexjax", game))
        engines.append(hexjax_engine("hexjax+observe", game, observe=True))
    if "pgx" not in skip and pgx_id is not None:
        import pgx

        env = pgx.make(pgx_id)

        def pgx_step(state, action):  # pgx's step also computes the observation
            return jax.vmap(env.step)(state, action), jnp.float32(0)

        engines.append(JaxEngine("pgx", jax.vmap(env.init), pgx_step, batch, steps))
    if name == "renju" and "hexjax" not in skip:
        # The peer of renju is freestyle Gomoku on the same board, interleaved in the same
        # repeats, so "hexjax ÷ engine" is the cost of the forbidden points.
        free = hexjax.make("gomoku", size=options["size"], rule="freestyle")
        engines.append(hexjax_engine("hexjax freestyle", free))
    if "open_spiel" not in skip and spiel is not None:
        engines.append(OpenSpielEngine("open_spiel", *spiel, seconds))
    return engines


def run_interleaved(engines: list, repeats: int) -> dict[str, list[float]]:
    rates = {e.name: [] for e in engines}
    for repeat in range(repeats):
        order = engines[repeat % len(engines) :] + engines[: repeat % len(engines)]
        for engine in order:
            rates[engine.name].append(engine.timed_rate())
    return rates


def bench_game(name: str, args) -> list[dict]:
    rows = []
    label = game_label(name)
    for batch in args.batch:
        engines = engines_for(name, batch, args.steps, args.seconds, args.skip)
        rates = run_interleaved(engines, args.repeats)
        for engine in engines:
            row = {
                "game": label,
                "engine": engine.name,
                "batch": engine.batch,
                "moves_per_s": statistics.median(rates[engine.name]),
                "all": rates[engine.name],
                "plies_per_game": engine.plies_per_game(),
            }
            for ours, key in (("hexjax", "hexjax_ratio"), ("hexjax+observe", "observe_ratio")):
                if (
                    ours in rates
                    and not engine.name.startswith("hexjax")
                    or (ours in rates and engine.name == "hexjax freestyle")
                ):
                    pairs = zip(rates[ours], rates[engine.name], strict=True)
                    row[key] = statistics.median(a / b for a, b in pairs)
            rows.append(row)
            print(
                f"  {label} batch {batch:5d} {engine.name:15s} "
                f"{row['moves_per_s']:>12,.0f} moves/s  ({row['plies_per_game']:.1f} plies/game)",
                file=sys.stderr,
            )
    return rows


def interleaved_rates(runs, repeats: int, units: float) -> dict[str, list[float]]:
    """runs: [(name, run)], run(key) does `units` of work. Repeats in rotating order so that
    every engine sees the same machine load; -> {name: units per second per repeat}."""
    rates = {name: [] for name, _ in runs}
    for repeat in range(repeats):
        for name, run in runs[repeat % len(runs) :] + runs[: repeat % len(runs)]:
            start = time.perf_counter()
            jax.block_until_ready(run(jax.random.key(repeat + 1)))
            rates[name].append(units / (time.perf_counter() - start))
    return rates


def ratio_rows(
    label: str, batch: int, rates: dict, reference: str, unit: str, peers=None
) -> list[dict]:
    """One row per engine: its median rate and, for every engine but `reference`, the median
    per-repeat ratio of its rate to the reference's (column "÷ reference"). With `peers`
    ({engine: its reference}), only those engines get a ratio, each to its own."""
    rows = []
    for name in rates:
        if peers is not None:
            reference = peers.get(name, name)
        row = {
            "game": label,
            "engine": name,
            "batch": batch,
            "moves_per_s": statistics.median(rates[name]),
            "all": rates[name],
            "plies_per_game": float("nan"),
            "reference": reference,
        }
        if name != reference:
            pairs = zip(rates[name], rates[reference], strict=True)
            row["hexjax_ratio"] = statistics.median(a / b for a, b in pairs)
        rows.append(row)
        print(f"  {label}: {name:25s} {row['moves_per_s']:>12,.1f} {unit}", file=sys.stderr)
    return rows


def bench_selfplay(args) -> list[dict]:
    """Self-play positions per second, hexjax against pgx + mctx (experiments/selfplay_bench.py)."""
    sys.path.insert(0, str(Path(__file__).parent))
    import selfplay_bench

    batch, plies = args.selfplay_batch, args.selfplay_plies
    runs = selfplay_bench.engines(batch, args.selfplay_simulations, plies)
    runs = [(name, functools.partial(run, params)) for name, run, params in runs]
    rates = interleaved_rates(runs, args.repeats, batch * plies)
    label = f"hex 11x11 self-play, {args.selfplay_simulations} simulations"
    peers = selfplay_bench.peers(rates)
    return ratio_rows(label, batch, rates, selfplay_bench.PEER, "positions/s", peers)


def bench_sgd_loop(args) -> list[dict]:
    """Optimizer steps per second in three loop forms (experiments/sgd_loop_bench.py); the
    ratios are each form against the jitted step called from Python."""
    sys.path.insert(0, str(Path(__file__).parent))
    import sgd_loop_bench

    steps = 8
    runs, state = sgd_loop_bench.engines(steps)
    runs = [(name, lambda key, run=run: run(*state)) for name, run in runs]
    rates = interleaved_rates(runs, args.repeats, steps)
    return ratio_rows("hex 7x7 optimizer steps (cpu preset)", 256, rates, runs[0][0], "steps/s")


def bench_rollout_mcts(args) -> list[dict]:
    """Rollout-MCTS simulations per second: hexjax's tree against mctx's
    (experiments/rollout_mcts_bench.py)."""
    sys.path.insert(0, str(Path(__file__).parent))
    import rollout_mcts_bench

    batch, simulations = args.mcts_batch, args.mcts_simulations
    runs = rollout_mcts_bench.engines(batch, simulations)
    rates = interleaved_rates(runs, args.repeats, batch * simulations)
    label = f"hex 7x7 rollout MCTS, {simulations} simulations"
    return ratio_rows(label, batch, rates, "mctx tree", "simulations/s")


def table(rows: list[dict]) -> str:
    if rows and "reference" in rows[0]:  # engines against a named reference
        lines = [
            f"| measure | engine | batch | per second (median) | ÷ {rows[0]['reference']} |",
            "|---|---|---:|---:|---:|",
        ]
        for row in rows:
            ratio = f"{row['hexjax_ratio']:.2f}x" if "hexjax_ratio" in row else ""
            if ratio and row["reference"] != rows[0]["reference"]:
                ratio += f" (÷ {row['reference']})"
            lines.append(
                f"| {row['game']} | {row['engine']} | {row['batch']} | "
                f"{row['moves_per_s']:,.1f} | {ratio} |"
            )
        return "\n".join(lines)
    lines = [
        "| game | engine | batch | moves/s (median) | plies/game | hexjax ÷ engine "
        "| hexjax+observe ÷ engine |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        ratio = " | ".join(
            f"{row[key]:.2f}x" if key in row else "" for key in ("hexjax_ratio", "observe_ratio")
        )
        batch = row["batch"] if row["engine"] != "open_spiel" else "1 (Python loop)"
        lines.append(
            f"| {row['game']} | {row['engine']} | {batch} | {row['moves_per_s']:,.0f} | "
            f"{row['plies_per_game']:.1f} | {ratio} |"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--games", nargs="+", default=list(GAMES), choices=list(GAMES), help="games to measure"
    )
    parser.add_argument("--batch", type=int, nargs="+", default=[1024, 4096])
    parser.add_argument(
        "--steps",
        type=int,
        default=300,
        help="plies per timed JAX run (at least the longest game, for plies/game)",
    )
    parser.add_argument("--repeats", type=int, default=7, help="timed runs; medians are kept")
    parser.add_argument("--seconds", type=float, default=1.0, help="OpenSpiel time per repeat")
    parser.add_argument("--skip", nargs="*", default=[], choices=["hexjax", "pgx", "open_spiel"])
    parser.add_argument("--json", type=Path, default=Path("results/bench.json"))
    parser.add_argument(
        "--selfplay",
        action="store_true",
        help="measure self-play (search + network) against pgx + mctx instead of random play",
    )
    parser.add_argument(
        "--sgd-loop",
        action="store_true",
        help="measure 8 optimizer steps: lax.scan, unrolled, and a jitted step from Python",
    )
    parser.add_argument(
        "--rollout-mcts",
        action="store_true",
        help="measure the rollout-MCTS baseline: hexjax's tree against mctx's",
    )
    parser.add_argument("--mcts-batch", type=int, default=100)
    parser.add_argument("--mcts-simulations", type=int, default=800)
    parser.add_argument(
        "--cpu-devices",
        type=int,
        default=1,
        help="with --selfplay: split the CPU into this many XLA devices and add an engine "
        "running hexjax's self-play sharded over them (the trainer's default on CPU)",
    )
    parser.add_argument("--selfplay-batch", type=int, default=256)
    parser.add_argument("--selfplay-simulations", type=int, default=32)
    parser.add_argument("--selfplay-plies", type=int, default=8, help="plies per timed run")
    args = parser.parse_args(argv)
    if min(args.batch) < 1 or args.steps < 1 or args.repeats < 1 or args.seconds <= 0:
        parser.error("--batch, --steps, --repeats and --seconds must be positive")

    if args.cpu_devices < 1:
        parser.error("--cpu-devices must be at least 1")
    if args.cpu_devices > 1:
        sharding.split_cpu(args.cpu_devices)
    backend = jax.devices()[0].platform
    print(f"jax {jax.__version__} on {backend}, {platform.machine()}", file=sys.stderr)
    if args.sgd_loop:
        rows = bench_sgd_loop(args)
    elif args.rollout_mcts:
        rows = bench_rollout_mcts(args)
    elif args.selfplay:
        rows = bench_selfplay(args)
    else:
        rows = [row for name in args.games for row in bench_game(name, args)]
    print(table(rows))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "jax": jax.__version__,
        "backend": backend,
        "machine": platform.machine(),
        "argv": sys.argv[1:],
        "time": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    args.json.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    print(f"wrote {args.json}", file=sys.stderr)


if __name__ == "__main__":
    main()
