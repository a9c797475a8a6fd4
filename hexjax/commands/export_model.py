"""Store a training run's network as a model: `python experiments/export_model.py
--checkpoint runs/hex7 --name hex7` writes hexjax/models/hex7.json and hex7.msgpack.

The JSON keeps the run's config (game, network, search) and how it was trained (iterations and
training minutes of the checkpoint, plus `--command`, the command that trained it; for a run
started from another's network, `started_from` lists those runs and `minutes_in_all` adds
them). The play front ends load shipped models by game (`Agent.shipped("hex", size=7)`) or by
name.

`--format stablehlo` or `--format onnx` writes the network instead as a file other runtimes
load (NAME.stablehlo or NAME.onnx, and NAME.json describing its input and outputs), from a run
(`--checkpoint`) or a shipped model (`--model hex7`); see docs/export.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import pathlib
import sys

from hexjax.play import export
from hexjax.training import models, restore
from hexjax.training.checkpoint import CheckpointError

DEFAULT_EXPORT_DIR = "exported"


def main(argv=None) -> int:
    """`hexjax-export-model`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--format", choices=("flax", *export.FORMATS), default="flax",
                        help="flax: a shipped model (default); stablehlo or onnx: a portable "
                        "file with a JSON beside it")  # fmt: skip
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--checkpoint", help="a training run's --workdir")
    source.add_argument("--model", help="a shipped model's name (stablehlo and onnx only)")
    parser.add_argument("--step", type=int, help="checkpoint step (default: the latest)")
    parser.add_argument("--name", help="model name, e.g. hex7 (default: --model's)")
    parser.add_argument("--command", default="", help="the command that trained the run")
    parser.add_argument("--directory", help="where to write (default: the shipped models' "
                        f"folder for flax, {DEFAULT_EXPORT_DIR}/ for the others)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.model is not None and args.format == "flax":
        parser.error("--model is already a shipped model: use --format stablehlo or onnx")
    name = args.name or args.model
    if name is None:
        parser.error("--name is required with --checkpoint")
    if not name.replace("-", "").replace("_", "").isalnum():
        parser.error(f"--name must be letters, digits, - and _, got {name!r}")
    try:
        config, params, trained = _source(args)
        if args.format == "flax":
            directory = args.directory or str(models.MODELS_DIR)
            models.export(config, params, name, {"trained": trained}, directory)
            paths = sorted(pathlib.Path(directory).glob(f"{name}.*"))
        else:
            directory = args.directory or DEFAULT_EXPORT_DIR
            paths = export.write(args.format, config, params, name, directory)
    except (ValueError, CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    size = sum(p.stat().st_size for p in paths)
    what = "model" if args.format == "flax" else f"{args.format} export"
    print(f"wrote {what} {name} ({size / 1024:.0f} KiB) to {directory}")
    return 0


def _source(args):
    """(config, params, how it was trained) of --model or --checkpoint; ValueError or
    CheckpointError (a missing run, a DQN or PPO run) naming the problem."""
    if args.model is not None:
        info, params = models.load(args.model)
        return info.config, params, info.about.get("trained", {})
    agent = restore.load_trained(args.checkpoint, args.step, algorithm="alphazero")
    trained = {
        "iterations": agent.iteration,
        "minutes": round(agent.minutes, 1),
        "command": args.command,
    }
    chain = [{**run, "run": _shown(run["run"])} for run in restore.origins(args.checkpoint)]
    if chain:  # a network that started from another run's: its minutes count too
        trained["started_from"] = chain
        trained["minutes_in_all"] = round(agent.minutes + sum(r["minutes"] for r in chain), 1)
    config = dataclasses.replace(agent.config, init_from=_shown(agent.config.init_from))
    return config, agent.params, trained


def _shown(path: str) -> str:
    """A run's path as the model file shows it: relative to the working directory when inside
    it (`runs/h9-pooled`), since an absolute path of this machine means nothing elsewhere."""
    if not path or not os.path.isabs(path):
        return path
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


if __name__ == "__main__":
    sys.exit(main())
