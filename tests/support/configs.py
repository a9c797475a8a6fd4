"""Tiny training configs shared by the tests and the multi-device check."""

import dataclasses

from hexjax.alphazero.config import TrainConfig
from hexjax.alphazero.network import NetworkConfig
from hexjax.alphazero.optimizer import OptimizerConfig
from hexjax.alphazero.search import SearchConfig
from hexjax.games import GameConfig


def tiny_config(**changes) -> TrainConfig:
    """Hex 4x4, a tiny network, 4 simulations, 8 games: compiles in seconds."""
    config = TrainConfig(
        game=GameConfig(name="hex", size=4),
        network=NetworkConfig(preset="tiny"),
        search=SearchConfig(num_simulations=4, max_considered_actions=4),
        optimizer=OptimizerConfig(batch_size=16, warmup_steps=1),
        steps_per_iteration=2,
        selfplay_games=8,
        plies_per_iteration=4,
        replay_capacity=256,
        min_replay=16,
    )
    return dataclasses.replace(config, **changes)


def iterate_compiled_once(config: TrainConfig, iterations: int = 5):
    """(state, metrics of the last iteration) after `iterations` jitted iterations of `config`
    from seed 0; fails if the iteration is traced more than once."""
    import chex
    import jax

    from hexjax.alphazero.iteration import make_iteration

    init, iteration = make_iteration(config)
    chex.clear_trace_counter()
    iteration = jax.jit(chex.assert_max_traces(iteration, n=1))
    state = init(jax.random.key(0))
    for i in range(iterations):
        state, metrics = iteration(state, jax.random.key(i + 1))
    return state, jax.device_get(metrics)
