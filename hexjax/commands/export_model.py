"""Store a training run's network as a model: `python experiments/export_model.py
--checkpoint runs/hex7 --name hex7` writes hexjax/models/hex7.json and hex7.msgpack.

The JSON keeps the run's config (game, network, search) and how it was trained (iterations and
training minutes of the checkpoint, plus `--command`, the command that trained it). The play
front ends load shipped models by game (`Agent.shipped("hex", size=7)`) or by name.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

from hexjax.play import models
from hexjax.training import restore
from hexjax.training.checkpoint import CheckpointError


def main(argv=None) -> int:
    """`hexjax-export-model`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", required=True, help="a training run's --workdir")
    parser.add_argument("--step", type=int, help="checkpoint step (default: the latest)")
    parser.add_argument("--name", required=True, help="model name, e.g. hex7")
    parser.add_argument("--command", default="", help="the command that trained the run")
    parser.add_argument("--directory", default=str(models.MODELS_DIR), help="where to write")
    args = parser.parse_args(argv)
    if not args.name.replace("-", "").replace("_", "").isalnum():
        parser.error(f"--name must be letters, digits, - and _, got {args.name!r}")
    try:
        agent = restore.load_agent(args.checkpoint, args.step, algorithm="alphazero")
    except (ValueError, CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    trained = {
        "iterations": agent.iteration,
        "minutes": round(agent.minutes, 1),
        "command": args.command,
    }
    models.export(agent.config, agent.params, args.name, {"trained": trained}, args.directory)
    size = sum(p.stat().st_size for p in pathlib.Path(args.directory).glob(f"{args.name}.*"))
    print(f"wrote model {args.name} ({size / 1024:.0f} KiB) to {args.directory}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
