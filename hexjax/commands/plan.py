"""Size a training run before paying for it: `hexjax-plan --preset accelerator --game hex
--board 11 --devices 8` (or `python experiments/plan.py ...`).

Compiles AlphaZero's jitted iteration ahead of time on this machine (`--devices N` splits the
CPU into N devices, standing in for N accelerators: the games and the replay are split as on
them) and prints the memory each device needs, whether it fits a 16 GiB chip, the work of an
iteration, and the self-play positions a second the run would reach at `--fraction` of each
named accelerator's peak. The figures come from XLA on this machine, not from a run on the
accelerator: docs/benchmarks.md says how they compare where both exist.
"""

from __future__ import annotations

import argparse
import sys

from hexjax import sharding
from hexjax.alphazero.config import PRESETS, TrainConfig
from hexjax.games import DEFAULT_SIZES, available_games, check_options
from hexjax.games.gomoku import RULES
from hexjax.play.agent import positive_int
from hexjax.training import algorithms, config_io


def _size(count: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if count >= scale:
            return f"{count / scale:.2f} {unit}"
    return f"{count} B"


def parse(argv=None) -> tuple[argparse.Namespace, TrainConfig]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", choices=PRESETS, default="accelerator")
    parser.add_argument("--game", choices=available_games(), default="hex")
    parser.add_argument("--board", type=positive_int, help="default: the game's usual size")
    parser.add_argument("--rule", choices=RULES, help="Gomoku only")
    parser.add_argument("--swap", action="store_true", default=None, help="Hex only")
    parser.add_argument("--devices", type=positive_int, default=1,
                        help="CPU devices standing in for this many accelerators")  # fmt: skip
    parser.add_argument("--fraction", type=float, default=0.3,
                        help="the part of a chip's peak FLOP/s the estimate assumes")  # fmt: skip
    config_io.add_flags(parser, TrainConfig, PRESETS["accelerator"], "in the accelerator preset")
    args = parser.parse_args(argv)
    given = {f: o for f, o in (("--rule", "rule"), ("--swap", "swap")) if getattr(args, o)}
    try:
        check_options(args.game, given)
    except ValueError as error:
        parser.error(str(error))
    if not 0 < args.fraction <= 1:
        parser.error(f"--fraction must be in (0, 1], got {args.fraction}")
    overrides = config_io.overrides_from_args(args, TrainConfig)
    overrides["game.name"] = args.game
    overrides["game.size"] = args.board or DEFAULT_SIZES[args.game]
    if args.rule:
        overrides["game.rule"] = args.rule
    if args.swap:
        overrides["game.swap"] = True
    try:
        config = algorithms.ALPHAZERO.config(args.preset, overrides)
        config.game.make()
    except (ValueError, TypeError) as error:
        parser.error(str(error))
    for size in (config.selfplay_games, config.replay_capacity, config.optimizer.batch_size):
        if size % args.devices:
            parser.error(f"--devices {args.devices} must divide the games, replay and batch")
    return args, config


def main(argv=None) -> int:
    """`hexjax-plan`."""
    args, config = parse(argv)
    sharding.split_cpu(args.devices)
    from hexjax.training import plan as plan_lib  # after the CPU is split: JAX starts here

    mesh = sharding.batch_mesh() if args.devices > 1 else None
    plan = plan_lib.plan(config, mesh)
    fits = "fits" if plan.memory_bytes <= plan_lib.CHIP_MEMORY_BYTES else "does NOT fit"
    print(f"{config.game.make()}, preset {args.preset}, {plan.devices} {plan.platform} device(s), "
          f"compiled in {plan.compile_seconds:.0f} s")  # fmt: skip
    print(f"memory a device: {_size(plan.memory_bytes)} (state in {_size(plan.argument_bytes)}, "
          f"out {_size(plan.output_bytes)}, scratch {_size(plan.temp_bytes)}): {fits} a 16 GiB "
          "chip")  # fmt: skip
    if fits != "fits":
        print("  to fit: fewer --replay_capacity positions (the replay is most of the state) or "
              "--selfplay_games, or more devices")  # fmt: skip
    tflop = plan.flops_per_iteration / 1e12
    print(f"an iteration: {plan.positions_per_iteration} positions, "
          f"{plan.evaluations_per_iteration} network evaluations of "
          f"{plan.forward_flops / 1e6:.1f} MFLOP, {tflop:.2f} TFLOP (XLA's count of the "
          f"iteration, the search's loop once: {plan.xla_flops / 1e12:.2f})")  # fmt: skip
    print(f"| chip | positions/s at {args.fraction:.0%} of peak, {plan.devices} chip(s) |")
    print("|---|---|")
    for chip, peak in plan_lib.PEAK_FLOPS.items():
        print(f"| {chip} | {plan.positions_per_second(peak, args.fraction):,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
