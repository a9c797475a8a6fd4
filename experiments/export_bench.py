"""Time per position of an exported network, as its consumer runs it:

    python experiments/export_model.py --format stablehlo --model hex7 --directory exported
    python experiments/export_bench.py exported/hex7.stablehlo
    python experiments/export_bench.py exported/hex7.onnx          # needs onnxruntime

Calls the file on zero observations (the time does not depend on their content) at batch 1 and
batch 256, after a warm-up call, and prints the median over `--repeats` calls per position.
ONNX runs in onnxruntime on the CPU, StableHLO through `jax.export.deserialize`.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import time

import numpy as np


def runner(path: pathlib.Path):
    if path.suffix == ".onnx":
        import onnxruntime

        session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        return lambda obs: session.run(None, {"observations": obs})
    from hexjax.play import export

    call = export.load_stablehlo(path.read_bytes())
    return lambda obs: [np.asarray(x) for x in call(obs)]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", type=pathlib.Path, help="NAME.onnx or NAME.stablehlo")
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args(argv)
    info = json.loads(args.file.with_suffix(".json").read_text())
    shape = info["input"]["shape"][1:]
    run = runner(args.file)
    size = args.file.stat().st_size / 1024
    print(f"{args.file.name}: {size:.0f} KiB, {info['game']['name']} {info['game']['size']}")
    for batch in (1, 256):
        obs = np.zeros((batch, *shape), np.float32)
        run(obs)  # warm-up (compilation, session set-up)
        times = []
        for _ in range(args.repeats if batch == 1 else max(args.repeats // 10, 3)):
            start = time.perf_counter()
            run(obs)
            times.append(time.perf_counter() - start)
        per = statistics.median(times) / batch * 1e6
        print(f"  batch {batch:3d}: {per:8.1f} microseconds a position")


if __name__ == "__main__":
    main()
