"""Shared test settings: the option sets each registered game is tested under."""

import jax

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
    ],
    "othello": [{"size": 4}, {"size": 6}, {"size": 8}, {"size": 16}],
}
