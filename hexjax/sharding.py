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

import contextlib
import os

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

AXIS = "batch"

__all__ = [
    "AXIS",
    "NamedSharding",
    "PartitionSpec",
    "batch_mesh",
    "check_divisible",
    "cpu_cores",
    "fitting_count",
    "jit_iteration",
    "minibatch_sharding",
    "place",
    "replicated",
    "selfplay_shardings",
    "split_cpu",
    "use_cpu_cores",
    "state_shardings",
]


def cpu_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def split_cpu(count: int) -> int:
    """Make the CPU `count` XLA devices (one per core), before JAX starts its backends.

    XLA:CPU runs one device's program mostly on one thread: the search's many small
    operations do not spread over cores. Several CPU devices, each given a slice of the games
    by the same sharding that spreads them over GPUs, keep every core busy. It only changes
    the CPU platform; on a GPU or TPU machine the accelerators stay the default devices.
    Returns the count in effect (unchanged if the backends have already started).
    """
    with contextlib.suppress(RuntimeError):  # backends already started: keep what they have
        jax.config.update("jax_num_cpu_devices", count)
    return len(jax.devices("cpu"))


def use_cpu_cores(sizes, requested: int | None = None) -> int:
    """Before JAX starts: one CPU device per core (or `requested`), as many as divide every
    size in `sizes` (the batches to split). A device count forced through XLA_FLAGS wins.
    Returns the CPU device count in effect."""
    if "xla_force_host_platform_device_count" in os.environ.get("XLA_FLAGS", ""):
        return len(jax.devices("cpu"))
    return split_cpu(requested or fitting_count(sizes, cpu_cores()))


def fitting_count(sizes, most: int) -> int:
    """The largest device count up to `most` that divides every size in `sizes`."""
    return max(d for d in range(1, max(most, 1) + 1) if all(size % d == 0 for size in sizes))


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

    def like(tree, sharding):
        return jax.tree.map(lambda _: sharding, tree)

    scalars = lambda tree: jax.tree.map(  # noqa: E731
        lambda x: replicated if np.ndim(x) == 0 else first, tree
    )
    return state.replace(
        params=like(state.params, replicated),
        opt_state=like(state.opt_state, replicated),
        selfplay=selfplay_shardings(state.selfplay, mesh),
        replay=scalars(state.replay),
        iteration=replicated,
        updates=replicated,
    )


def selfplay_shardings(selfplay, mesh: Mesh):
    """Shardings for a SelfPlayState: every part split along its game axis."""
    first = NamedSharding(mesh, PartitionSpec(AXIS))
    second = NamedSharding(mesh, PartitionSpec(None, AXIS))
    return selfplay.replace(
        games=jax.tree.map(lambda _: first, selfplay.games),
        pending=jax.tree.map(lambda _: second, selfplay.pending),
        plies=first,
    )


def replicated(mesh: Mesh) -> NamedSharding:
    return NamedSharding(mesh, PartitionSpec())


def minibatch_sharding(mesh: Mesh) -> NamedSharding:
    return NamedSharding(mesh, PartitionSpec(AXIS))


def place(state, mesh, shardings=state_shardings):
    """Put a training state on the mesh's devices, laid out by `shardings(state, mesh)`
    (default: a TrainState's games and replay split, the rest replicated)."""
    return jax.device_put(state, shardings(state, mesh))


def jit_iteration(iteration, state, mesh=None, shardings=state_shardings):
    """`iteration` jitted once; with a mesh, its state keeps the layout of `place`."""
    if mesh is None:
        return jax.jit(iteration)
    layout = shardings(state, mesh)
    copied = replicated(mesh)
    jitted = jax.jit(iteration, in_shardings=(layout, copied), out_shardings=(layout, None))
    # Keys made on one device (e.g. restored) are copied to all before the call.
    return lambda state, key: jitted(state, jax.device_put(key, copied))
