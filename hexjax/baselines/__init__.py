"""Baselines without search: DQN / Double DQN (`dqn`) and PPO actor-critic (`ppo`).

Both train on the same vectorised games and the same network torso as AlphaZero, inside one
jitted iteration, and run through the same host loop (`hexjax.run`) and evaluation.
"""
