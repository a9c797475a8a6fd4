"""The accelerator figures, in one prepared run on a GPU or TPU machine.

    python experiments/accelerator_check.py --out results/accelerator          # all of it
    python experiments/accelerator_check.py --parts selfplay                   # a short lease

1. selfplay: self-play positions per second, hexjax against pgx + mctx on this device (Hex
   11x11, the same 32x2 network, --simulations 32), for each --batches size (bench.py
   --selfplay, interleaved repeats, medians and per-repeat ratios);
2. train: a Hex 11x11 run with the accelerator preset for --minutes (train.py);
3. evaluate: that run against rollout MCTS-5000, 200 games (evaluate.py).

Each part writes under --out (selfplay-B.json, the run in run/, evaluation.json) and prints as
it goes, so a lease that ends early keeps what finished. On a CPU it stops unless --allow-cpu
(the tests run it that way at toy sizes).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import jax

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench.py, selfplay_bench.py
import bench  # noqa: E402

from hexjax.commands import evaluate, train  # noqa: E402

PARTS = ("selfplay", "train", "evaluate")


def parse(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("results/accelerator"))
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    parser.add_argument("--batches", type=int, nargs="+", default=[1024, 2048, 4096, 8192])
    parser.add_argument("--simulations", type=int, default=32)
    parser.add_argument("--plies", type=int, default=16, help="self-play plies per timed run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--minutes", type=float, default=20.0, help="the training's budget")
    parser.add_argument("--train-flags", default="--preset accelerator --board 11",
                        help="train.py flags besides --minutes and --workdir")  # fmt: skip
    parser.add_argument("--opponent", default="mcts:5000")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--allow-cpu", action="store_true", help="run on a CPU anyway (tests)")
    args = parser.parse_args(argv)
    if min(args.batches) < 1 or args.simulations < 1 or args.plies < 1 or args.repeats < 1:
        parser.error("--batches, --simulations, --plies and --repeats must be positive")
    if args.minutes <= 0:
        parser.error(f"--minutes must be positive, got {args.minutes:g}")
    if "evaluate" in args.parts and "train" not in args.parts and not (args.out / "run").exists():
        parser.error(f"--parts evaluate needs a run in {args.out / 'run'}: add train")
    return args


def main(argv=None) -> int:
    args = parse(argv)
    device = jax.devices()[0]
    if device.platform == "cpu" and not args.allow_cpu:
        print("error: no GPU or TPU here (jax sees only the CPU); pass --allow-cpu to run "
              "anyway", file=sys.stderr)  # fmt: skip
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    about = {
        "device": device.device_kind,
        "platform": device.platform,
        "devices": jax.device_count(),
        "jax": jax.__version__,
        "machine": platform.machine(),
        "time": time.strftime("%Y-%m-%d %H:%M:%S"),
        "argv": sys.argv[1:] if argv is None else list(argv),
    }
    (args.out / "device.json").write_text(json.dumps(about, indent=1))
    print(f"{about['devices']} x {about['device']} ({about['platform']}), jax {jax.__version__}")
    if "selfplay" in args.parts:
        for batch in args.batches:
            bench.main(
                ["--selfplay", "--selfplay-batch", str(batch), "--repeats", str(args.repeats),
                 "--selfplay-simulations", str(args.simulations), "--selfplay-plies",
                 str(args.plies), "--json", str(args.out / f"selfplay-{batch}.json")]
            )  # fmt: skip
    run = args.out / "run"
    if "train" in args.parts:
        flags = [*args.train_flags.split(), "--minutes", str(args.minutes)]
        status = train.main([*flags, "--workdir", str(run)])
        if status:
            return status
    if "evaluate" in args.parts:
        return evaluate.main(
            ["--checkpoint", str(run), "--opponent", args.opponent, "--games", str(args.games),
             "--out", str(args.out / "evaluation.json")]
        )  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
