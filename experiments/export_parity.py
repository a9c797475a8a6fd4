"""How far an exported network's outputs are from the Flax network's, for each shipped model
(the table in docs/export.md):

    python experiments/export_parity.py                  # every shipped model
    python experiments/export_parity.py --model othello8

On `--positions` live positions of random legal games (the same ones the parity tests use),
the StableHLO file (deserialized, run by JAX) and the ONNX model (onnxruntime, CPU) against the
jitted Flax network: the largest absolute difference in logits and in values, and the largest
logit difference relative to 1 + |logit| (the tests allow 1e-5 absolute plus 1e-5 relative).
Needs the export extra: pip install 'hexjax[export]'.
"""

from __future__ import annotations

import argparse

import numpy as np


def differences(name: str, count: int) -> dict:
    import jax
    import onnxruntime

    from hexjax.games import random_positions
    from hexjax.play import export
    from hexjax.training import models

    info, params = models.load(name)
    observations = random_positions(info.config.game.make(), count).observations
    flax = jax.jit(export.forward(info.config, params))  # as the search calls it
    flax_logits, flax_values = (np.asarray(x) for x in flax(observations))
    stablehlo = export.load_stablehlo(export.to_stablehlo(info.config, params))
    session = onnxruntime.InferenceSession(
        export.to_onnx(info.config, params), providers=["CPUExecutionProvider"]
    )
    outputs = {
        "StableHLO": [np.asarray(x) for x in stablehlo(observations)],
        "ONNX": session.run(None, {"observations": observations}),
    }
    row = {}
    for fmt, (logits, values) in outputs.items():
        gap = np.abs(logits - flax_logits)
        row[f"{fmt} logits"] = gap.max()
        row[f"{fmt} values"] = np.abs(values - flax_values).max()
        row[f"{fmt} relative"] = (gap / (1 + np.abs(flax_logits))).max()
    row["largest logit (abs)"] = np.abs(flax_logits).max()
    return row


def main(argv=None) -> None:
    from hexjax.training import models

    names = [m.name for m in models.shipped_models()]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", action="append", choices=names, help="default: all")
    parser.add_argument("--positions", type=int, default=256)
    args = parser.parse_args(argv)
    if args.positions < 1:
        parser.error(f"--positions must be at least 1, got {args.positions}")
    rows = {name: differences(name, args.positions) for name in args.model or names}
    columns = list(next(iter(rows.values())))
    print(f"largest differences from Flax over {args.positions} positions of random games")
    print("| model | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for name, row in rows.items():
        print(f"| {name} | " + " | ".join(f"{row[c]:.2g}" for c in columns) + " |")


if __name__ == "__main__":
    main()
