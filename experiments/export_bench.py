"""Time per position of an exported network, as its consumer runs it, beside its peer, the
Flax network under `jax.jit`, in the same run:

    python experiments/export_model.py --format onnx --model hex7 --directory exported
    python experiments/export_model.py --format stablehlo --model hex7 --directory exported
    python experiments/export_bench.py exported/hex7.onnx exported/hex7.stablehlo --flax hex7

Calls each file (and with `--flax NAME`, the shipped model's Flax network, jitted) on zero
observations (the time does not depend on their content) at batch 1 and batch 256, after a
warm-up call, and prints the median over `--repeats` calls per position (a tenth as many at
batch 256). ONNX runs in onnxruntime on the CPU (`--threads`: its intra-op threads, by
default one a physical core), StableHLO through `jax.export.deserialize`.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import time

import numpy as np

BATCHES = (1, 256)


def file_runner(path: pathlib.Path, threads: int):
    if path.suffix == ".onnx":
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        session = onnxruntime.InferenceSession(
            str(path), options, providers=["CPUExecutionProvider"]
        )
        return lambda obs: session.run(None, {"observations": obs})
    from hexjax.play import export

    call = export.load_stablehlo(path.read_bytes())
    return lambda obs: [np.asarray(x) for x in call(obs)]


def flax_runner(name: str):
    import jax

    from hexjax.play import export
    from hexjax.training import models

    info, params = models.load(name)
    apply = jax.jit(export.forward(info.config, params))
    return lambda obs: [np.asarray(x) for x in apply(obs)]


def median_microseconds(run, shape, batch: int, repeats: int) -> float:
    obs = np.zeros((batch, *shape), np.float32)
    run(obs)  # warm-up (compilation, session set-up)
    times = []
    for _ in range(repeats if batch == 1 else max(repeats // 10, 3)):
        start = time.perf_counter()
        run(obs)
        times.append(time.perf_counter() - start)
    return statistics.median(times) / batch * 1e6


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=pathlib.Path, help="NAME.onnx, NAME.stablehlo")
    parser.add_argument("--flax", metavar="NAME", help="also time this shipped model in Flax")
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--threads", type=int, default=0,
                        help="onnxruntime's intra-op threads (0: its default)")  # fmt: skip
    args = parser.parse_args(argv)
    shape = json.loads(args.files[0].with_suffix(".json").read_text())["input"]["shape"][1:]
    runs = [
        (f"{p.name} ({p.stat().st_size / 1024:.0f} KiB)", file_runner(p, args.threads))
        for p in args.files
    ]
    if args.flax:
        runs.append((f"{args.flax} Flax, jax.jit", flax_runner(args.flax)))
    print(f"microseconds a position, median; observations {shape}")
    print(f"{'':34s}" + "".join(f"{f'batch {b}':>12s}" for b in BATCHES))
    for label, run in runs:
        times = [median_microseconds(run, shape, b, args.repeats) for b in BATCHES]
        print(f"{label:34s}" + "".join(f"{t:12.1f}" for t in times))


if __name__ == "__main__":
    main()
