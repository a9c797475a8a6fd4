"""Baselines without search: DQN / Double DQN (`dqn`) and PPO actor-critic (`ppo`).

Both train on the same vectorised games, the same network torso and optimizer as AlphaZero
(`hexjax.alphazero`), inside one jitted iteration, and run through the same host loop
(`hexjax.training.loop`) and evaluation.
"""

from hexjax.baselines.dqn import DQNConfig
from hexjax.baselines.ppo import PPOConfig

__all__ = ["DQNConfig", "PPOConfig"]
