"""Data parallelism over devices with `jax.sharding`: games and minibatches split, parameters
replicated.

`batch_mesh()` is a 1-D mesh named "batch" over all devices (every local device on one host;
every device of every process after `jax.distributed.initialize()` on several hosts).
`state_shardings(state, mesh)` says where each part of a `TrainState` lives:

- games in flight, their pending positions and ply counters: split along the game axis;
- the replay buffer: split along its rows (each device keeps capacity / devices rows);
- parameters, optimizer state and counters: replicated.

The iteration is the same function: `jax.jit` with these shardings lets XLA partition the
vmapped self-play, the search and the loss over devices and insert the collectives (the gradient
all-reduce, the cross-shard reads of replay sampling) itself.
"""

from __future__ import annotations

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

AXIS = "batch"


def batch_mesh(devices=None) -> Mesh:
    devices = jax.devices() if devices is None else devices
    return Mesh(np.asarray(devices), (AXIS,))


def check_divisible(what: str, size: int, mesh: Mesh) -> None:
    count = mesh.devices.size
    if size % count:
        raise ValueError(f"{what} ({size}) must be a multiple of the device count ({count})")


def state_shardings(state, mesh: Mesh):
    """A pytree of NamedShardings shaped like the TrainState `state`."""
    replicated = NamedSharding(mesh, PartitionSpec())
    first = NamedSharding(mesh, PartitionSpec(AXIS))
    second = NamedSharding(mesh, PartitionSpec(None, AXIS))

    def like(tree, sharding):
        return jax.tree.map(lambda _: sharding, tree)

    scalars = lambda tree: jax.tree.map(  # noqa: E731
        lambda x: replicated if np.ndim(x) == 0 else first, tree
    )
    return state.replace(
        params=like(state.params, replicated),
        opt_state=like(state.opt_state, replicated),
        selfplay=state.selfplay.replace(
            games=like(state.selfplay.games, first),
            pending=like(state.selfplay.pending, second),
            plies=first,
        ),
        replay=scalars(state.replay),
        iteration=replicated,
        updates=replicated,
    )


def replicated(mesh: Mesh) -> NamedSharding:
    return NamedSharding(mesh, PartitionSpec())


def minibatch_sharding(mesh: Mesh) -> NamedSharding:
    return NamedSharding(mesh, PartitionSpec(AXIS))
