"""Run by tests/test_training_distributed.py: the trainer's main, once per argument list (lists
separated by `--then`, run one after the other in this process), with this process's own copy
of the parameters saved beside every checkpoint it writes, as
<out>/params-p<process index>-s<step>.npz. Usage: distributed_train.py OUT ARGS [--then ARGS]."""

import pathlib
import sys

import jax
import numpy as np

from hexjax.commands import train
from hexjax.training import checkpoint


def _keep_params(out: pathlib.Path):
    save = checkpoint.Checkpointer.save

    def save_and_keep(self, step, state, key, meta):
        save(self, step, state, key, meta)
        leaves = jax.tree_util.tree_flatten_with_path(state.params)[0]
        # The copy on this process's first device: what this process would go on training with.
        arrays = {jax.tree_util.keystr(path): np.asarray(leaf.addressable_data(0))
                  for path, leaf in leaves}  # fmt: skip
        np.savez(out / f"params-p{jax.process_index()}-s{step}.npz", **arrays)

    checkpoint.Checkpointer.save = save_and_keep


def main(argv) -> int:
    out = pathlib.Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    _keep_params(out)
    runs, current = [], []
    for arg in argv[1:]:
        if arg == "--then":
            runs.append(current)
            current = []
        else:
            current.append(arg)
    runs.append(current)
    for run in runs:
        status = train.main(run)
        if status:
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
