"""Batched players: each is a `Player` (hexjax.base), `player(key, states) -> actions` over a
batch of game states (int32[B] actions, legal wherever the game is live).

- `random_player`: uniform over legal moves;
- `greedy_player`: a one-ply heuristic per game (`hexjax.evaluation.greedy`: Hex connection
  distance, Gomoku win / block / pattern score, Othello corners, edges, mobility);
- `rollout_mcts_player(game, num_simulations)`: UCT whose leaves are valued by one uniformly
  random playout to the end of the game (the standard baseline that needs no training), on
  the array tree of `hexjax.evaluation.rollout_mcts`, one per game;
- `make_network_player(game, net, sample=False)`: a `PlayerFactory` (params -> player), the
  network's policy alone, its best legal move (or a move sampled from it);
- `make_search_player(game, net, config)`: a `PlayerFactory`, the network with mctx search
  (deterministic with `config.deterministic()`).

`hexjax.evaluation.arena` plays them against each other.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from hexjax.alphazero import network as network_lib
from hexjax.alphazero import search as search_lib
from hexjax.base import Player, PlayerFactory
from hexjax.evaluation import rollout_mcts
from hexjax.evaluation.greedy import greedy_player
from hexjax.games import Game, random_legal_action

__all__ = [
    "greedy_player",
    "make_network_player",
    "make_search_player",
    "random_player",
    "rollout_mcts_player",
]


def random_player(game: Game) -> Player:
    del game

    def play(key, states):
        return random_legal_action(key, states.legal_action_mask)

    return play


def rollout_mcts_player(game: Game, num_simulations: int, exploration: float = 1.4) -> Player:
    """UCT with random-playout leaf values, `num_simulations` per move, batched over games;
    plays the most visited move (see `hexjax.evaluation.rollout_mcts`)."""
    search = jax.vmap(rollout_mcts.make_uct(game, num_simulations, exploration))

    def play(key, states):
        search_key, tie_key = jax.random.split(key)
        visits = search(jax.random.split(search_key, states.current_player.shape[0]), states)
        tie_break = jax.random.uniform(tie_key, visits.shape) * 1e-3
        return jnp.argmax(jnp.where(states.legal_action_mask, visits + tie_break, -1), axis=-1)

    return play


def make_network_player(game: Game, net, sample: bool = False) -> PlayerFactory:
    """params -> player: the policy head's best legal move, or one sampled from its legal part."""

    def with_params(params):
        def play(key, states):
            logits, _ = network_lib.apply(net, params, jax.vmap(game.observe)(states))
            logits = search_lib.masked_logits(logits, states.legal_action_mask)
            if sample:
                return jax.random.categorical(key, logits).astype(jnp.int32)
            return jnp.argmax(logits, axis=-1).astype(jnp.int32)

        return play

    return with_params


def make_search_player(game: Game, net, config: search_lib.SearchConfig) -> PlayerFactory:
    """params -> player; the search runs on every call with `config`."""
    search = search_lib.make_search(game, net, config)

    def with_params(params):
        def play(key, states):
            return search(params, key, states, states.step_count).action

        return play

    return with_params
