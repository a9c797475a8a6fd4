"""Tiny untrained models for the play front ends' tests: fast to load and compile."""

from __future__ import annotations

import dataclasses

import jax

from hexjax import network as network_lib
from hexjax.play import models
from hexjax.train import PRESETS, GameConfig


def make_tiny_model(directory, name: str, game: str, size: int, **options):
    """Write NAME.json / NAME.msgpack in `directory`: the tiny preset, random weights, for
    `game` at `size` (options: rule, swap). Returns the directory."""
    config = dataclasses.replace(PRESETS["tiny"], game=GameConfig(game, size, **options))
    built = config.game.make()
    net = network_lib.make_network(config.network, built.num_actions)
    params = network_lib.init_params(net, jax.random.key(size), built.observation_shape)
    models.export(config, params, name, {"trained": {"iterations": 0, "minutes": 0.0}}, directory)
    return directory
