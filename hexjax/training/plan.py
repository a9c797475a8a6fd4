"""Size a training run before paying for the machine: the jitted iteration compiled ahead of
time on whatever devices are here (forced CPU devices stand in for an accelerator's), its
memory per device from XLA's `memory_analysis`, and the work of one iteration.

XLA's cost analysis counts a while loop's body once, and the search runs its simulations in
one, so the FLOPs of an iteration are counted from the network instead: one forward pass
(`cost_analysis` of the network on a batch, no loops) times the evaluations an iteration makes
(every position searched evaluates its root and one leaf a simulation), plus training (a
forward and backward pass, about three forwards, per sample of every optimizer step). The
positions per second a device would reach follow from a stated fraction of its peak.
"""

from __future__ import annotations

import dataclasses
import time

import jax
import jax.numpy as jnp

from hexjax import sharding
from hexjax.alphazero import network as network_lib
from hexjax.alphazero.config import TrainConfig
from hexjax.training import algorithms

# Dense bfloat16 peak FLOP/s of the chips people rent or get in Colab (vendors' data sheets).
PEAK_FLOPS = {"H100": 989e12, "A100": 312e12, "TPU v5e": 197e12}
CHIP_MEMORY_BYTES = 16 * 2**30  # the smallest accelerator memory the accelerator preset targets
TRAINING_FORWARDS = 3  # a forward and backward pass cost about three forward passes


@dataclasses.dataclass(frozen=True)
class Plan:
    devices: int
    platform: str
    compile_seconds: float
    argument_bytes: int  # per device: the state and key in
    output_bytes: int  # per device: the state and metrics out (aliased with the inputs if donated)
    temp_bytes: int  # per device: XLA's scratch
    positions_per_iteration: int
    evaluations_per_iteration: int  # network forward passes, one position each
    forward_flops: float  # one position through the network
    flops_per_iteration: float
    xla_flops: float  # XLA's own count for the iteration (the search's loop body once)

    @property
    def memory_bytes(self) -> int:
        """What one device holds during an iteration (inputs, outputs, scratch)."""
        return self.argument_bytes + self.output_bytes + self.temp_bytes

    def positions_per_second(self, peak_flops: float, fraction: float) -> float:
        """Self-play positions a second with the devices at `fraction` of `peak_flops` each."""
        return (
            self.positions_per_iteration
            * fraction
            * peak_flops
            * self.devices
            / (self.flops_per_iteration)
        )


def plan(config: TrainConfig, mesh=None) -> Plan:
    """Compile AlphaZero's iteration for `config` (on `mesh`'s devices, else one) without
    allocating its state, and count its work."""
    trainer = algorithms.ALPHAZERO
    game = config.game.make()
    init, iteration = trainer.make_iteration(config, game, mesh)
    key = jax.random.key(0)
    state = jax.eval_shape(init, key)
    started = time.monotonic()
    jitted = sharding.jitted_iteration(iteration, state, mesh, trainer.shardings)
    compiled = jitted.lower(state, key).compile()
    seconds = time.monotonic() - started
    memory = compiled.memory_analysis()
    cost = compiled.cost_analysis()
    cost = cost[0] if isinstance(cost, list) else cost
    positions = config.selfplay_games * config.plies_per_iteration
    evaluations = round(positions * (config.simulations_per_position + 1))
    forward = _forward_flops(config, game)
    optimizer = config.optimizer
    training = TRAINING_FORWARDS * optimizer.batch_size * config.steps_per_iteration
    return Plan(
        devices=1 if mesh is None else mesh.size,
        platform=jax.devices()[0].platform,
        compile_seconds=seconds,
        argument_bytes=int(memory.argument_size_in_bytes),
        output_bytes=int(memory.output_size_in_bytes),
        temp_bytes=int(memory.temp_size_in_bytes),
        positions_per_iteration=positions,
        evaluations_per_iteration=evaluations,
        forward_flops=forward,
        flops_per_iteration=forward * (evaluations + training),
        xla_flops=float(cost.get("flops", 0.0)),
    )


def _forward_flops(config: TrainConfig, game, batch: int = 64) -> float:
    net = network_lib.make_network(config.network, game.num_actions)
    params = jax.eval_shape(
        lambda key: network_lib.init_params(net, key, game.observation_shape), jax.random.key(0)
    )
    obs = jax.ShapeDtypeStruct((batch, *game.observation_shape), jnp.float32)
    compiled = jax.jit(lambda p, o: network_lib.apply(net, p, o)).lower(params, obs).compile()
    cost = compiled.cost_analysis()
    cost = cost[0] if isinstance(cost, list) else cost
    return float(cost["flops"]) / batch
