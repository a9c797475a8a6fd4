"""Training runs on disk: the algorithms the host loop trains (AlphaZero, DQN, PPO), Orbax
checkpoints, typed configs as flags and JSON, restoring a run as an agent, and the host loop
itself (budget, progress, logs, evaluation, checkpoints, signals).

    record = loop.run(config, "runs/hex7", loop.RunOptions(minutes=5))
    agent = restore.load_agent("runs/hex7", simulations=64)   # its player, params, game

`restore` does not import the loop: the play front ends and evaluation load agents without it.
"""

from hexjax.training.checkpoint import Checkpointer, CheckpointError
from hexjax.training.restore import TrainedAgent, checkpoint_steps, load_agent, opponent

__all__ = [
    "CheckpointError",
    "Checkpointer",
    "TrainedAgent",
    "checkpoint_steps",
    "load_agent",
    "opponent",
]
