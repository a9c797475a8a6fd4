"""Evaluate a trained agent in the arena: `python experiments/evaluate.py --checkpoint runs/hex7
--opponent mcts:1000 --games 200`.

Opponents by spec: `random`, `greedy`, `mcts:N` (UCT with random playouts, N simulations per
move), `checkpoint:PATH[@STEP]` (another run's network with the same search). The agent searches
`--simulations` per move deterministically (Gumbel without noise). Games alternate colours and
open with `--opening-plies` random plies. Prints a table and writes JSON (default:
<checkpoint>/evaluation.json). `--all-steps` evaluates every kept checkpoint of the run and
also draws the score against training minutes (<checkpoint>/plots/curve.png).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import pathlib
import sys
import time
from typing import NamedTuple

import jax
import numpy as np

from hexjax import network as network_lib
from hexjax import players, plots, run, sharding
from hexjax.checkpoint import CheckpointError


class _Agent(NamedTuple):
    config: object
    game: object
    make_player: object  # params -> player
    params: object
    minutes: float  # training time of the checkpoint


def _agent(workdir: str, step: int | None, simulations: int) -> _Agent:
    config, state, meta = run.restore_run(workdir, step)
    game = config.game.make()
    net = network_lib.make_network(config.network, game.num_actions)
    search = dataclasses.replace(
        players.evaluation_config(config.search), num_simulations=simulations
    )
    minutes = float(meta.get("elapsed_seconds", 0.0)) / 60
    make_player = players.make_search_player(game, net, search)
    return _Agent(config, game, make_player, state.params, minutes)


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
        other = _agent(path, int(step) if step else None, simulations)
        if repr(other.game) != repr(game):
            raise ValueError(f"{spec} plays {other.game!r}, not {game!r}")
        return other.make_player(other.params)
    raise ValueError(
        f"unknown opponent {spec!r}: use random, greedy, mcts:N or checkpoint:PATH[@STEP]"
    )


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", required=True, help="a run's workdir")
    parser.add_argument("--step", type=int, help="checkpoint step (default: the latest)")
    parser.add_argument(
        "--all-steps", action="store_true", help="every kept checkpoint, and the curve"
    )
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
    if args.games < 2 or args.games % 2:
        raise ValueError(f"--games must be even and at least 2, got {args.games}")
    if args.cpu_devices is not None and args.cpu_devices < 1:
        raise ValueError(f"--cpu-devices must be at least 1, got {args.cpu_devices}")
    if args.all_steps and args.step is not None:
        raise ValueError("give --step or --all-steps, not both")
    if args.opening_plies < 0 or args.simulations < 1:
        raise ValueError("--opening-plies must not be negative and --simulations positive")
    return args


def _print_row(label: str, summary: dict) -> None:
    print(
        f"{label:<34} {summary['games']:>5} {summary['wins']:>4} {summary['draws']:>4} "
        f"{summary['losses']:>4} {100 * summary['score']:>6.1f}%  "
        f"[{100 * summary['low']:.1f}, {100 * summary['high']:.1f}]  "
        f"{100 * summary['as_black']:>6.1f}% {100 * summary['as_white']:>6.1f}%  "
        f"{summary['seconds']}"
    )


def main(argv=None) -> int:
    try:
        args = _parse(argv)
        sharding.use_cpu_cores([args.games // 2], args.cpu_devices)
        mesh = sharding.batch_mesh() if jax.device_count() > 1 else None
        steps = run.checkpoint_steps(args.checkpoint) if args.all_steps else [args.step]
        if not steps:
            raise CheckpointError(f"no checkpoint in {args.checkpoint}")
        latest = _agent(args.checkpoint, steps[-1], args.simulations)
        game = latest.game
        opponents = {
            spec: _opponent(spec, game, args.simulations) for spec in args.opponent or ["random"]
        }
    except (ValueError, CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    matches = {
        spec: jax.jit(
            lambda params, k, o=opponent: players.arena(
                game, latest.make_player(params), o, k, args.games, args.opening_plies, mesh
            )
        )
        for spec, opponent in opponents.items()
    }
    print(f"{game!r}, agent: {args.checkpoint} with {args.simulations} simulations")
    header = f"{'opponent':<34} {'games':>5} {'W':>4} {'D':>4} {'L':>4} {'score':>7}"
    print(f"{header}  95% interval   Black   White  secs")
    evaluations = []
    for step in steps:
        try:
            agent = latest if step == steps[-1] else _agent(args.checkpoint, step, args.simulations)
        except CheckpointError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        key = jax.random.key(args.seed)  # the same openings for every checkpoint
        results = {}
        for spec, match in matches.items():
            key, match_key = jax.random.split(key)
            start = time.monotonic()
            summary = players.summarize(np.asarray(match(agent.params, match_key)))
            summary["seconds"] = round(time.monotonic() - start, 1)
            results[spec] = summary
            label = spec if not args.all_steps else f"{spec} @ {agent.minutes:.1f} min"
            _print_row(label, summary)
        evaluations.append({"step": step, "minutes": round(agent.minutes, 2), "results": results})
    record = {
        "checkpoint": args.checkpoint,
        "game": repr(game),
        "simulations": args.simulations,
        "opening_plies": args.opening_plies,
        "games": args.games,
        **(evaluations[0] if not args.all_steps else {"evaluations": evaluations}),
    }
    out = pathlib.Path(args.out or pathlib.Path(args.checkpoint) / "evaluation.json")
    out.write_text(json.dumps(record, indent=2))
    if args.all_steps:
        plots.score_curve(evaluations, pathlib.Path(args.checkpoint) / "plots" / "curve.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
