"""Evaluate a trained agent in the arena: `python experiments/evaluate.py --checkpoint runs/hex7
--opponent mcts:1000 --games 200`.

Opponents by spec: `random`, `greedy`, `mcts:N` (UCT with random playouts, N simulations per
move), `checkpoint:PATH[@STEP]` (another run's network with the same search). The agent searches
`--simulations` per move deterministically (Gumbel without noise). Games alternate colours and
open with `--opening-plies` random plies. Prints a table and writes JSON (default:
<checkpoint>/evaluation.json).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pathlib
import sys
import time

import jax
import numpy as np

from hexjax import network as network_lib
from hexjax import players, run, sharding
from hexjax.checkpoint import CheckpointError


def _agent(workdir: str, step: int | None, simulations: int):
    config, state = run.restore_run(workdir, step)
    game = config.game.make()
    net = network_lib.make_network(config.network, game.num_actions)
    search = dataclasses.replace(
        players.evaluation_config(config.search), num_simulations=simulations
    )
    return config, game, players.make_search_player(game, net, search)(state.params)


def _opponent(spec: str, game, simulations: int):
    if spec == "random":
        return players.random_player(game)
    if spec == "greedy":
        return players.greedy_player(game)
    if spec.startswith("mcts:"):
        count = spec.partition(":")[2]
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"mcts opponent needs a positive simulation count: {spec!r}")
        return players.rollout_mcts_player(game, int(count))
    if spec.startswith("checkpoint:"):
        path, _, step = spec.partition(":")[2].partition("@")
        if step and not step.isdigit():
            raise ValueError(f"checkpoint step must be a number: {spec!r}")
        config, other_game, player = _agent(path, int(step) if step else None, simulations)
        if repr(other_game) != repr(game):
            raise ValueError(f"{spec} plays {other_game!r}, not {game!r}")
        return player
    raise ValueError(
        f"unknown opponent {spec!r}: use random, greedy, mcts:N or checkpoint:PATH[@STEP]"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", required=True, help="a run's workdir")
    parser.add_argument("--step", type=int, help="checkpoint step (default: the latest)")
    parser.add_argument("--opponent", action="append", help="repeatable; default: random")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--simulations", type=int, default=64)
    parser.add_argument("--opening-plies", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="JSON output (default: <checkpoint>/evaluation.json)")
    parser.add_argument(
        "--cpu-devices",
        type=int,
        help="split the CPU into this many XLA devices, the games shared out among them "
        "(default: one per core, as many as divide half the games; 1: off)",
    )
    args = parser.parse_args(argv)
    try:
        if args.games < 2 or args.games % 2:
            raise ValueError(f"--games must be even and at least 2, got {args.games}")
        if args.cpu_devices is not None and args.cpu_devices < 1:
            raise ValueError(f"--cpu-devices must be at least 1, got {args.cpu_devices}")
        if "xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
            most = sharding.cpu_cores()
            sharding.split_cpu(args.cpu_devices or sharding.fitting_count([args.games // 2], most))
        mesh = sharding.batch_mesh() if jax.device_count() > 1 else None
        config, game, agent = _agent(args.checkpoint, args.step, args.simulations)
        opponents = {
            spec: _opponent(spec, game, args.simulations) for spec in args.opponent or ["random"]
        }
    except (ValueError, CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    results = {}
    key = jax.random.key(args.seed)
    print(f"{game!r}, agent: {args.checkpoint} with {args.simulations} simulations")
    print(
        f"{'opponent':<24} {'games':>5} {'W':>4} {'D':>4} {'L':>4} {'score':>7}  95% interval  secs"
    )
    for spec, opponent in opponents.items():
        key, match_key = jax.random.split(key)
        match = jax.jit(
            lambda k, o=opponent: players.arena(
                game, agent, o, k, args.games, args.opening_plies, mesh
            )
        )
        start = time.monotonic()
        summary = players.summarize(np.asarray(match(match_key)))
        summary["seconds"] = round(time.monotonic() - start, 1)
        results[spec] = summary
        print(
            f"{spec:<24} {summary['games']:>5} {summary['wins']:>4} {summary['draws']:>4} "
            f"{summary['losses']:>4} {100 * summary['score']:>6.1f}%  "
            f"[{100 * summary['low']:.1f}, {100 * summary['high']:.1f}]  {summary['seconds']}"
        )
    out = pathlib.Path(args.out or pathlib.Path(args.checkpoint) / "evaluation.json")
    record = {
        "checkpoint": args.checkpoint,
        "step": args.step,
        "game": repr(game),
        "simulations": args.simulations,
        "opening_plies": args.opening_plies,
        "results": results,
    }
    out.write_text(json.dumps(record, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
