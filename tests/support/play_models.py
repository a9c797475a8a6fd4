"""Helpers for the play front ends' tests: tiny untrained models (fast to load and compile)
and engines run as `python -m` processes."""

from __future__ import annotations

import contextlib
import dataclasses
import pathlib
import subprocess
import sys
import threading

import jax

from hexjax.alphazero import network as network_lib
from hexjax.alphazero.iteration import PRESETS
from hexjax.games import GameConfig
from hexjax.play import models


def make_tiny_model(directory, name: str, game: str, size: int, **options):
    """Write NAME.json / NAME.msgpack in `directory`: the tiny preset, random weights, for
    `game` at `size` (options: rule, swap). Returns the directory."""
    config = dataclasses.replace(PRESETS["tiny"], game=GameConfig(game, size, **options))
    built = config.game.make()
    net = network_lib.make_network(config.network, built.num_actions)
    params = network_lib.init_params(net, jax.random.key(size), built.observation_shape)
    models.export(config, params, name, {"trained": {"iterations": 0, "minutes": 0.0}}, directory)
    return directory


@contextlib.contextmanager
def engine_process(module: str, args: list[str], stderr_path):
    """`python -m module args` with piped text stdin/stdout, killed after 10 minutes (an engine
    that does not flush its answers would otherwise hang the test) and at the end."""
    argv = [sys.executable, "-m", module, *args]
    root = pathlib.Path(__file__).parents[1]
    with (
        open(stderr_path, "w") as stderr,
        subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, text=True, cwd=root
        ) as process,  # fmt: skip
    ):
        watchdog = threading.Timer(600, process.kill)
        watchdog.start()
        try:
            yield process
        finally:
            watchdog.cancel()
            process.kill()
