"""The training algorithms the host loop runs: AlphaZero and the DQN and PPO baselines.

A `Trainer` tells the host loop (`hexjax.training.loop`: budget, logs, evaluation,
checkpoints) and `hexjax.training.restore` what they need of an algorithm: its typed config and
presets, its jittable iteration, where each part of its state lives on a device mesh, and how a
trained network plays in the arena. Checkpoints record the trainer's name, so a run is restored and
evaluated with the algorithm that trained it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from hexjax import sharding
from hexjax.alphazero import config as alphazero_config
from hexjax.alphazero import iteration
from hexjax.alphazero import network as network_lib
from hexjax.alphazero.search import SearchConfig
from hexjax.base import MakeIteration, PlayerFactory
from hexjax.baselines import common, dqn, ppo
from hexjax.evaluation import players
from hexjax.training import config_io


@dataclasses.dataclass(frozen=True)
class Trainer:
    name: str
    config_type: type
    presets: dict
    make_iteration: MakeIteration  # (config, game, mesh) -> (init(key), iteration(state, key))
    shardings: Callable  # (state, mesh) -> NamedShardings shaped like the state
    make_player: Callable[..., PlayerFactory]  # (config, game, search: SearchConfig | None)
    batch_sizes: Callable  # config -> the sizes a device count must divide
    progress: tuple[tuple[str, str], ...]  # (metric, label) pairs on the progress line
    searches: bool  # the agent plays with search (its strength depends on --simulations)
    q_values: bool = False  # the network's action outputs are Q-values, not policy logits
    game_defaults: dict = dataclasses.field(default_factory=dict)  # (preset, game) -> overrides

    def config(self, preset: str, overrides: dict):
        """The `preset` config with `overrides` (dotted names) applied, on top of what the
        preset changes for the game they name (`game_defaults`)."""
        base = self.presets[preset]
        game = overrides.get("game.name", base.game.name)
        return config_io.replace(base, {**self.game_defaults.get((preset, game), {}), **overrides})


def _alphazero_player(config: alphazero_config.TrainConfig, game, search: SearchConfig | None):
    """The network with `search` (None: the config's own, made deterministic)."""
    search = config.search.deterministic() if search is None else search
    net = network_lib.make_network(config.network, game.num_actions)
    return players.make_search_player(game, net, search)


def _policy_player(config, game, search: SearchConfig | None):
    """The network's best legal move (DQN: the highest Q-value; PPO: the likeliest action)."""
    del search  # the baselines play without search
    net = network_lib.make_network(config.network, game.num_actions)
    return players.make_network_player(game, net)


def _sizes(config) -> tuple[int, ...]:
    return tuple(sharding.sizes(config, iteration.SPLIT_SIZES).values())


ALPHAZERO = Trainer(
    name="alphazero",
    config_type=alphazero_config.TrainConfig,
    presets=alphazero_config.PRESETS,
    make_iteration=iteration.make_iteration,
    shardings=iteration.state_shardings,
    make_player=_alphazero_player,
    batch_sizes=_sizes,
    progress=(("policy_loss", "loss p"), ("value_loss", "v"), ("game_length", "len")),
    searches=True,
    game_defaults=alphazero_config.GAME_DEFAULTS,
)

DQN = Trainer(
    name="dqn",
    config_type=dqn.DQNConfig,
    presets=dqn.PRESETS,
    make_iteration=dqn.make_iteration,
    shardings=dqn.state_shardings,
    make_player=_policy_player,
    batch_sizes=common.batch_sizes,
    progress=(("td_loss", "td loss"), ("q_mean", "q"), ("epsilon", "eps"), ("game_length", "len")),
    searches=False,
    q_values=True,
)

PPO = Trainer(
    name="ppo",
    config_type=ppo.PPOConfig,
    presets=ppo.PRESETS,
    make_iteration=ppo.make_iteration,
    shardings=ppo.state_shardings,
    make_player=_policy_player,
    batch_sizes=common.batch_sizes,
    progress=(
        ("policy_loss", "loss p"),
        ("value_loss", "v"),
        ("policy_entropy", "ent"),
        ("game_length", "len"),
    ),
    searches=False,
)

TRAINERS = {trainer.name: trainer for trainer in (ALPHAZERO, DQN, PPO)}


def get(name: str) -> Trainer:
    if name not in TRAINERS:
        raise ValueError(f"unknown algorithm {name!r}: use one of {', '.join(TRAINERS)}")
    return TRAINERS[name]
