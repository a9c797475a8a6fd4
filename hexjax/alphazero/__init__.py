"""AlphaZero / Gumbel AlphaZero, all on the device: the policy-value network, mctx search,
batched self-play, the replay buffer, the optimizer, and one jitted training iteration.

    config = TrainConfig()                      # or PRESETS["tiny" | "cpu" | "accelerator"]
    init, iteration = make_iteration(config)    # init(key) -> state
    state, metrics = jax.jit(iteration)(state, key)

The data flow (docs/design.md): game -> search -> self-play -> replay -> train; the host loop
that calls the iteration, logs and checkpoints is `hexjax.training`.
"""

from hexjax.alphazero.config import PRESETS, TrainConfig
from hexjax.alphazero.iteration import TrainState, make_iteration
from hexjax.alphazero.network import NetworkConfig
from hexjax.alphazero.optimizer import OptimizerConfig
from hexjax.alphazero.search import SearchConfig, SearchResult, make_search

__all__ = [
    "PRESETS",
    "NetworkConfig",
    "OptimizerConfig",
    "SearchConfig",
    "SearchResult",
    "TrainConfig",
    "TrainState",
    "make_iteration",
    "make_search",
]
