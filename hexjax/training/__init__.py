"""Training runs on disk: the algorithms the host loop trains (AlphaZero, DQN, PPO), the run
directory (`RunDir`), Orbax checkpoints and the model store beside them, typed configs as flags
and JSON, restoring a run or a model as a `Trained` network, and the host loop itself (budget,
progress, logs, evaluation, checkpoints, signals).

    record = loop.run(config, "runs/hex7", loop.RunOptions(minutes=5))
    agent = restore.load_trained("runs/hex7", simulations=64)   # its player, params, game

`restore` does not import the loop: the play front ends and evaluation load agents without it.
"""

from hexjax.training.checkpoint import Checkpointer, CheckpointError
from hexjax.training.restore import Trained, checkpoint_steps, load_trained, opponent
from hexjax.training.run_dir import RunDir

__all__ = [
    "CheckpointError",
    "Checkpointer",
    "RunDir",
    "Trained",
    "checkpoint_steps",
    "load_trained",
    "opponent",
]
