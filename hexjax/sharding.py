"""Data parallelism over devices with `jax.sharding`: games and minibatches split, parameters
replicated.

`batch_mesh()` is a 1-D mesh named "batch" over all devices (every local device on one host;
every device of every process after `jax.distributed.initialize()` on several hosts).
Each algorithm says where each part of its state lives beside the state itself (AlphaZero's
`iteration.state_shardings`, the baselines' `state_shardings`): games split along the game
axis, replay rows split, parameters, optimizer state and counters replicated.

The iteration is the same function: `jax.jit` with these shardings lets XLA partition the
vmapped self-play, the search and the loss over devices and insert the collectives (the gradient
all-reduce, the cross-shard reads of replay sampling) itself.
"""

from __future__ import annotations

import contextlib
import functools
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
    "check_sizes",
    "cpu_cores",
    "fitting_count",
    "initialize_distributed",
    "jit_iteration",
    "minibatch_sharding",
    "place",
    "replicate",
    "replicated",
    "sizes",
    "split_cpu",
    "use_cpu_cores",
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
    if count > 1:
        # XLA:CPU ends a run whose devices wait on each other's all-reduce for 40 s, which a
        # busy machine can cause (seen: an evaluation killed at game 199); wait much longer.
        flags = os.environ.get("XLA_FLAGS", "")
        for flag in CPU_COLLECTIVE_TIMEOUTS:
            if flag not in flags:
                flags += f" --{flag}={CPU_COLLECTIVE_TIMEOUT_S}"
        os.environ["XLA_FLAGS"] = flags.strip()
    with contextlib.suppress(RuntimeError):  # backends already started: keep what they have
        jax.config.update("jax_num_cpu_devices", count)
    return len(jax.devices("cpu"))


CPU_COLLECTIVE_TIMEOUTS = (
    "xla_cpu_collective_timeout_seconds",
    "xla_cpu_collective_call_terminate_timeout_seconds",
)
CPU_COLLECTIVE_TIMEOUT_S = 3600


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


def sizes(config, names: tuple[str, ...]) -> dict[str, int]:
    """The config's sizes by dotted name ("optimizer.batch_size"): what a device count must
    divide."""
    return {name: functools.reduce(getattr, name.split("."), config) for name in names}


def check_sizes(config, names: tuple[str, ...], mesh: Mesh) -> None:
    """ValueError naming the first of the config's sizes the mesh's device count does not
    divide."""
    for name, size in sizes(config, names).items():
        check_divisible(name, size, mesh)


def replicated(mesh: Mesh) -> NamedSharding:
    return NamedSharding(mesh, PartitionSpec())


def replicate(tree, mesh: Mesh):
    """`tree` copied to every device of the mesh. Unlike `device_put`, also for random keys on
    a mesh spanning several processes (each holds the same values)."""
    return jax.jit(lambda x: x, out_shardings=replicated(mesh))(tree)


def minibatch_sharding(mesh: Mesh) -> NamedSharding:
    return NamedSharding(mesh, PartitionSpec(AXIS))


def place(state, mesh, shardings):
    """Put a training state on the mesh's devices, laid out by `shardings(state, mesh)` (the
    algorithm's own, e.g. `iteration.state_shardings`)."""
    return jax.device_put(state, shardings(state, mesh))


def jitted_iteration(iteration, state, mesh=None, shardings=None):
    """`jax.jit` of `iteration`, with a mesh laid out as `place` lays out its state (`state`
    may be abstract, from `jax.eval_shape`: the plan compiles it ahead of time)."""
    if mesh is None:
        return jax.jit(iteration)
    layout = shardings(state, mesh)
    return jax.jit(iteration, in_shardings=(layout, replicated(mesh)), out_shardings=(layout, None))


def jit_iteration(iteration, state, mesh=None, shardings=None):
    """`iteration` jitted once; with a mesh, its state keeps the layout of `place`."""
    jitted = jitted_iteration(iteration, state, mesh, shardings)
    if mesh is None:
        return jitted
    # Keys made on one device (e.g. restored) are copied to all before the call.
    return lambda state, key: jitted(state, replicate(key, mesh))


# The settings of a process started by hand, and the variables JAX's own clusters also read.
DISTRIBUTED_ENV = {
    "coordinator": "JAX_COORDINATOR_ADDRESS",
    "num_processes": "JAX_NUM_PROCESSES",
    "process_id": "JAX_PROCESS_ID",
}


def initialize_distributed(
    coordinator: str | None = None,
    num_processes: int | None = None,
    process_id: int | None = None,
    environ=os.environ,
) -> None:
    """`jax.distributed.initialize` for a run on several processes.

    Each setting is the argument given, else its variable in DISTRIBUTED_ENV: jax itself reads
    only the address from the environment, and needs the count and the id from a cluster it
    detects (SLURM, Cloud TPU, Kubernetes, Open MPI). With none given, that detection does it
    all. A partial set is passed on for the cluster to complete; where none completes it,
    ValueError names what is missing.
    """
    if jax.distributed.is_initialized():  # a second run in this process (a notebook, a test)
        return
    given = {"coordinator": coordinator, "num_processes": num_processes, "process_id": process_id}
    for name, variable in DISTRIBUTED_ENV.items():
        if given[name] is None and environ.get(variable, "").strip():
            given[name] = environ[variable].strip()
    for name in ("num_processes", "process_id"):
        given[name] = _whole_number(name, given[name])
    count, index = given["num_processes"], given["process_id"]
    if count is not None and count < 1:
        raise ValueError(f"the process count must be at least 1, got {count}")
    if index is not None and index < 0:
        raise ValueError(f"the process id must be at least 0, got {index}")
    if count is not None and index is not None and index >= count:
        raise ValueError(f"the process id must be below the process count {count}, got {index}")
    try:
        jax.distributed.initialize(given["coordinator"], count, index)
    except ValueError as error:  # raised before connecting: a setting no cluster supplied
        missing = [f"{DISTRIBUTED_ENV[n]} (or --{n.replace('_', '-')})"
                   for n, value in given.items() if value is None]  # fmt: skip
        if not missing:
            raise
        raise ValueError(
            f"--distributed needs {' and '.join(missing)}: no cluster that JAX detects "
            f"supplied it ({error}). Set all three on every process, e.g. JAX_COORDINATOR_ADDRESS="
            "10.0.0.1:1234 JAX_NUM_PROCESSES=2 and JAX_PROCESS_ID=0 on the first, 1 on the second"
        ) from None


def _whole_number(name: str, value) -> int | None:
    if value is None or isinstance(value, int):
        return value
    try:
        return int(value)
    except ValueError:
        variable = DISTRIBUTED_ENV[name]
        raise ValueError(f"{variable} must be a whole number, got {value!r}") from None
