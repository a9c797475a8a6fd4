"""Shared test settings: the option sets each registered game is tested under, and one XLA
compilation cache for the session."""

import os
import shutil
import signal
import tempfile

# Most of the suite's time is XLA compiling small programs, mostly in LLVM and XLA's fusion
# emitters: LLVM's optimisation level 0 with the older emitters compiles them fastest, and runs
# them a little slower (docs/testing.md has the figures). Set before JAX starts its backend;
# subprocesses and notebook kernels inherit it; flags already in XLA_FLAGS stay.
# What the product runs with (users' XLA_FLAGS), for the tests that time a real engine's moves.
PRODUCT_XLA_FLAGS = os.environ.get("HEXJAX_PRODUCT_XLA_FLAGS", os.environ.get("XLA_FLAGS", ""))
os.environ["HEXJAX_PRODUCT_XLA_FLAGS"] = PRODUCT_XLA_FLAGS
_FAST_COMPILE = {
    "xla_backend_optimization_level": "0",
    "xla_cpu_use_fusion_emitters": "false",
}
_flags = os.environ.get("XLA_FLAGS", "")
for _name, _value in _FAST_COMPILE.items():
    if _name not in _flags:
        _flags += f" --{_name}={_value}"
os.environ["XLA_FLAGS"] = _flags.strip()

import jax  # noqa: E402

# Many tests compile the same small programs (a tiny run's iteration, the same arena), also in
# the subprocesses they start: one persistent compilation cache for the whole session, shared
# through the environment, compiles each once. It starts empty, so no test reads another run's.
# Under pytest-xdist the workers inherit the controller's, and only the controller removes it.
WORKER = "PYTEST_XDIST_WORKER" in os.environ
if not (WORKER and os.environ.get("JAX_COMPILATION_CACHE_DIR")):
    os.environ["JAX_COMPILATION_CACHE_DIR"] = tempfile.mkdtemp(prefix="hexjax-xla-cache-")
os.environ["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
jax.config.update("jax_compilation_cache_dir", os.environ["JAX_COMPILATION_CACHE_DIR"])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)


if WORKER:
    # xdist's workers ignore SIGINT, and a process started with it ignored keeps ignoring it:
    # the tests that press Ctrl-C on an engine or a search need the default in their children.
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_sessionfinish(session, exitstatus):
    if WORKER:
        return
    shutil.rmtree(os.environ["JAX_COMPILATION_CACHE_DIR"], ignore_errors=True)


jax.config.update("jax_enable_x64", False)
# One CPU device, started now, whatever the machine: the trainer's CLI, called in-process by
# tests, would otherwise split the CPU per core (multi-device tests run in a subprocess).
jax.config.update("jax_num_cpu_devices", 1)
jax.devices()

# Every registered game must appear here, so that none escapes the conformance suite.
CONFORMANCE_OPTIONS = {
    "hex": [
        {"size": 2},
        {"size": 5},
        {"size": 11},
        {"size": 4, "swap": True},
        {"size": 9, "swap": True},
    ],
    "gomoku": [
        {"size": 5, "win_length": 4},
        {"size": 9},
        {"size": 15},
        {"size": 9, "rule": "standard"},
        {"size": 7, "win_length": 3, "rule": "standard"},
        {"size": 9, "rule": "renju"},
        {"size": 15, "rule": "renju"},
        {"size": 9, "threats": True},
    ],
    "othello": [{"size": 4}, {"size": 6}, {"size": 8}, {"size": 16}],
}
