"""Helpers for the play front ends' tests: tiny untrained models (fast to load and compile)
and engines run as `python -m` processes."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pathlib
import subprocess
import sys
import threading
import time

import jax
import jax.numpy as jnp
import numpy as np

from hexjax.alphazero import network as network_lib
from hexjax.alphazero import search as search_lib
from hexjax.alphazero.config import PRESETS
from hexjax.games import GameConfig
from hexjax.play.agent_move import AgentMove
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


def plain_search(agent, state, simulations: int) -> AgentMove:
    """mctx's own search of `state` as `agent` would search it (its search config and pruned
    root), a fresh tree of `simulations`: the reference the agent's grown search must equal."""
    config = agent.search_config(simulations)
    batched = agent.searched_root(jax.tree.map(lambda x: jnp.asarray(x)[None], state))
    search = jax.jit(search_lib.make_search(agent.game, agent.network, config))
    result = search(agent.params, jax.random.key(0), batched, batched.step_count)
    policy = jnp.where(batched.legal_action_mask, result.policy, 0.0)
    action, policy, value = jax.device_get((result.action[0], policy[0], result.value[0]))
    return AgentMove(int(action), np.asarray(policy, np.float32), float(value), simulations)


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
    """An agent on a fake clock: a search costs 2 ms plus 1 ms a simulation, its compile 3 s
    (once). Plays the first legal action (the last with `last`); records the counts searched."""

    def __init__(self, game, last: bool = False):
        self.game = game
        self.last = last
        self.default_simulations = 64
        self.time = 0.0  # fake seconds
        self.compiled = False
        self.searched: list[int] = []

    def now(self) -> float:
        return self.time

    def prepare(self):
        if not self.compiled:
            self.time += 3.0
        self.compiled = True

    def move(self, state, simulations):
        assert self.compiled, "a search runs compiled"
        self.time += 0.002 + 0.001 * simulations
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
