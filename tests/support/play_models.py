"""Helpers for the play front ends' tests: tiny untrained models (fast to load and compile)
and engines run as `python -m` processes."""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import os
import pathlib
import subprocess
import sys
import threading
import time

import jax
import numpy as np

from hexjax.alphazero import network as network_lib
from hexjax.alphazero.config import PRESETS
from hexjax.games import GameConfig
from hexjax.play.agent import AgentMove
from hexjax.training import models


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
def engine_process(module: str, args: list[str], stderr_path, env: dict | None = None):
    """`python -m module args` with piped text stdin/stdout, killed after 10 minutes (an engine
    that does not flush its answers would otherwise hang the test) and at the end; `env`
    overrides variables of the environment."""
    argv = [sys.executable, "-m", module, *args]
    root = pathlib.Path(__file__).parents[1]
    with (
        open(stderr_path, "w") as stderr,
        subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            cwd=root,
            env=None if env is None else {**os.environ, **env},
        ) as process,  # fmt: skip
    ):
        watchdog = threading.Timer(600, process.kill)
        watchdog.start()
        try:
            yield process
        finally:
            watchdog.cancel()
            process.kill()


class SlowInput:
    """An input whose lines come one at a time, each `delay_s` after it is asked for."""

    def __init__(self, lines: list[str], delay_s: float):
        self.lines, self.delay_s = list(lines), delay_s

    def readline(self) -> str:
        time.sleep(self.delay_s)
        return self.lines.pop(0) if self.lines else ""


class FakeTimeAgent:
    """An agent on fake clocks, one per thread: a search costs 2 ms plus 1 ms a simulation, a
    compile 3 s. Plays the first legal action (the last with `last`); records the counts
    searched on the main thread. Compiles off the main thread wait for `release` (set: they
    go on; clear: they wait, as under a manager that suspends the engine between turns)."""

    def __init__(self, game, last: bool = False):
        self.game = game
        self.last = last
        self.release = threading.Event()
        self.release.set()
        self.default_simulations = 64
        self.times = collections.defaultdict(float)  # thread -> its fake seconds
        self.compiled: set[int] = set()
        self.searched: list[int] = []

    @property
    def time(self) -> float:
        return self.times[threading.main_thread().ident]

    def now(self) -> float:
        return self.times[threading.get_ident()]

    def prepare(self, simulations):
        if threading.current_thread() is not threading.main_thread():
            self.release.wait()
        if simulations not in self.compiled:
            self.times[threading.get_ident()] += 3.0
        self.compiled.add(simulations)

    def is_prepared(self, simulations) -> bool:
        return simulations in self.compiled

    def move(self, state, simulations):
        assert simulations in self.compiled, "a search runs compiled"
        self.times[threading.get_ident()] += 0.002 + 0.001 * simulations
        if threading.current_thread() is threading.main_thread():
            self.searched.append(simulations)
        legal = np.flatnonzero(np.asarray(state.legal_action_mask))
        action = int(legal[-1] if self.last else legal[0])
        return AgentMove(action, np.zeros(self.game.num_actions, np.float32), 0.0, simulations)


class OnlyAgent:
    """Agents that hand out one agent, whatever the game."""

    def __init__(self, agent):
        self.agent = agent

    def get(self, game, size, rule="freestyle", swap=False):
        return self.agent

    def available_rules(self, game, size):
        return [self.agent.game.rule] if hasattr(self.agent.game, "rule") else []
