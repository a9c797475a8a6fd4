"""Which CPU cores an engine's search runs on.

A search of one position is a long chain of small programs (a chunk of simulations of a batch of
one), each handed from the Python thread to XLA's worker threads and back. With the threads free
to move between cores, every hand-over may wake a thread on another core, and that costs more
than XLA's intra-op parallelism gains on networks this small: pinned to one core, the engines'
search runs a few percent more simulations a second, and where an opponent's process keeps
a core busy beside it, more (docs/play.md has the figures and the script that measures them).
So the engines pin the search to one core before JAX starts its threads (which inherit the pin);
the other cores are left to the opponent's process and to the engine's exact solvers, which run
beside the search on a thread of their own (`spare`, `use_spare`).

Only for JAX's CPU backend: with an accelerator plugin installed nothing is pinned.
"""

from __future__ import annotations

import importlib.util
import os

SEARCH_CORES = ("one", "all")  # the --search-cores choices
# Plugins that give JAX a backend other than the CPU (pinning the host there is unmeasured).
_ACCELERATOR_PLUGINS = ("jax_cuda12_plugin", "jax_cuda13_plugin", "jax_rocm60_plugin", "libtpu")
_spare: frozenset[int] | None = None  # the cores pin_search left beside the search's one


def add_cores_flag(parser) -> None:
    parser.add_argument("--search-cores", choices=SEARCH_CORES, default="one",
                        help="the CPU cores the search runs on: one (pinned: faster for one "
                        "position at a time, the others left free) or all")  # fmt: skip


def accelerator_installed() -> bool:
    return any(importlib.util.find_spec(name) is not None for name in _ACCELERATOR_PLUGINS)


def pin_search(cores: str = "one") -> frozenset[int]:
    """Pin this thread, and every thread JAX starts from now on, to one of the cores this process
    may use, when `cores` is "one", the CPU backend is JAX's and more than one core is allowed.
    Returns the cores the search runs on: all of them when JAX's backend has already started
    (its worker threads were made then and keep the cores they were made with)."""
    if cores not in SEARCH_CORES:
        raise ValueError(f"search cores must be one of {', '.join(SEARCH_CORES)}, got {cores!r}")
    allowed = frozenset(os.sched_getaffinity(0))
    if cores == "all" or len(allowed) < 2 or accelerator_installed():
        return allowed
    from jax._src import xla_bridge  # here: whether JAX's threads exist yet

    if xla_bridge.backends_are_initialized():
        return allowed  # too late: pinning this thread alone makes the search slower
    # By process id, so that two engines on one machine (one against the other) seldom share.
    one = frozenset({sorted(allowed)[os.getpid() % len(allowed)]})
    os.sched_setaffinity(0, one)
    global _spare
    _spare = allowed - one
    return one


def spare() -> frozenset[int]:
    """The cores a thread working beside the search may use: those `pin_search` left free;
    without a pin every core this thread may use, when there are two or more; else none."""
    if _spare is not None:
        return _spare
    allowed = frozenset(os.sched_getaffinity(0))
    return allowed if len(allowed) > 1 else frozenset()


def use_spare() -> None:
    """Move the calling thread to the spare cores (none: it stays where it is)."""
    cores = spare()
    if cores:
        os.sched_setaffinity(0, cores)
