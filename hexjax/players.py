"""Batched players and an arena.

A player is a pure function `player(key, states) -> actions` over a batch of game states
(int32[B] actions, legal wherever the game is live). Players here:

- `random_player`: uniform over legal moves;
- `greedy_player`: a one-ply heuristic per game (`hexjax.greedy`: Hex connection distance,
  Gomoku win / block / pattern score, Othello corners, edges, mobility);
- `rollout_mcts_player(game, num_simulations)`: UCT whose leaves are valued by one uniformly
  random playout to the end of the game (the standard baseline that needs no training), on
  the array tree of `hexjax.rollout_mcts`, one per game;
- `make_network_player(game, net, sample=False)(params)`: the network's policy alone, its
  best legal move (or a move sampled from it);
- `make_search_player(game, net, config)(params)`: the network with mctx search
  (deterministic when `config.gumbel_scale == 0`).

`arena(game, first, second, key, num_games, opening_plies, mesh)` plays games in parallel
with colours alternated, after `opening_plies` uniformly random plies so that deterministic
players do not replay one game, and returns per-game scores from `first`'s view; with a mesh
each device plays its share.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from hexjax import network as network_lib
from hexjax import rollout_mcts, sharding
from hexjax import search as search_lib
from hexjax.games import Game
from hexjax.greedy import greedy_player
from hexjax.sampling import random_legal_action

__all__ = [
    "arena",
    "evaluation_config",
    "greedy_player",
    "make_network_player",
    "make_search_player",
    "random_player",
    "rollout_mcts_player",
    "summarize",
]


def random_player(game: Game):
    del game

    def play(key, states):
        return random_legal_action(key, states.legal_action_mask)

    return play


def rollout_mcts_player(game: Game, num_simulations: int, exploration: float = 1.4):
    """UCT with random-playout leaf values, `num_simulations` per move, batched over games;
    plays the most visited move (see `hexjax.rollout_mcts`)."""
    search = jax.vmap(rollout_mcts.make_uct(game, num_simulations, exploration))

    def play(key, states):
        search_key, tie_key = jax.random.split(key)
        visits = search(jax.random.split(search_key, states.current_player.shape[0]), states)
        tie_break = jax.random.uniform(tie_key, visits.shape) * 1e-3
        return jnp.argmax(jnp.where(states.legal_action_mask, visits + tie_break, -1), axis=-1)

    return play


def make_network_player(game: Game, net, sample: bool = False):
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


def make_search_player(game: Game, net, config: search_lib.SearchConfig):
    """params -> player; the search runs on every call with `config`."""
    search = search_lib.make_search(game, net, config)

    def with_params(params):
        def play(key, states):
            return search(params, key, states, states.step_count).action

        return play

    return with_params


def evaluation_config(config: search_lib.SearchConfig) -> search_lib.SearchConfig:
    """The same search, deterministic: no Gumbel noise, no root noise, best move."""
    return dataclasses.replace(
        config, gumbel_scale=0.0, dirichlet_fraction=0.0, temperature_plies=0
    )


def arena(game: Game, first, second, key, num_games: int, opening_plies: int = 2, mesh=None):
    """float32[num_games] scores for `first` (1 win, 0.5 draw, 0 loss). `first` moves first
    in the first half of the games and second in the other half; every game opens with
    `opening_plies` uniformly random plies (the same number everywhere).

    With a `mesh` (`hexjax.sharding.batch_mesh`) of d devices, each device plays an arena of
    num_games / d games of its own, all at once; the scores keep the one-device layout (the
    first half of the array is where `first` was Black).
    """
    if num_games % 2:
        raise ValueError(f"the arena needs an even number of games, got {num_games}")
    if mesh is not None and mesh.devices.size > 1:
        count = mesh.devices.size
        sharding.check_divisible("half the arena's games", num_games // 2, mesh)
        per_device = functools.partial(
            arena, game, first, second, num_games=num_games // count, opening_plies=opening_plies
        )
        # check_vma=False: the games' initial states are the same on every device until the
        # per-device keys make them differ, which the type check cannot follow.
        by_colour = jax.shard_map(
            lambda keys: per_device(key=keys[0]).reshape(2, -1),  # [first Black / White, games]
            mesh=mesh,
            in_specs=sharding.PartitionSpec(sharding.AXIS),
            out_specs=sharding.PartitionSpec(None, sharding.AXIS),
            check_vma=False,
        )(jax.random.split(key, count))
        return by_colour.reshape(-1)
    init_key, opening_key, play_key = jax.random.split(key, 3)
    states = jax.vmap(game.init)(jax.random.split(init_key, num_games))

    def opening(states, k):
        return jax.vmap(game.step)(states, random_legal_action(k, states.legal_action_mask)), None

    states, _ = jax.lax.scan(opening, states, jax.random.split(opening_key, opening_plies))
    half = num_games // 2

    def split(tree):
        return jax.tree.map(lambda x: x[:half], tree), jax.tree.map(lambda x: x[half:], tree)

    # Every ply hands the move over in every game, so at ply t the same player moves in all
    # games of a half: each player runs once per ply, on the half where it is to move.
    def ply(carry):
        t, k, leading, trailing = carry  # first moves first in `leading`
        k, key_a, key_b = jax.random.split(k, 3)
        first_to_move_in_leading = (t + opening_plies) % 2 == 0
        lead_action, trail_action = jax.lax.cond(
            first_to_move_in_leading,
            lambda: (first(key_a, leading), second(key_b, trailing)),
            lambda: (second(key_a, leading), first(key_b, trailing)),
        )
        step = jax.vmap(game.step)
        return t + 1, k, step(leading, lead_action), step(trailing, trail_action)

    def live(carry):
        _, _, leading, trailing = carry
        return ~(leading.terminated.all() & trailing.terminated.all())

    _, _, leading, trailing = jax.lax.while_loop(
        live, ply, (jnp.int32(0), play_key, *split(states))
    )
    winner = jnp.concatenate([leading.winner, trailing.winner])
    first_colour = (jnp.arange(num_games) >= half).astype(jnp.int32)
    return jnp.where(winner == first_colour, 1.0, jnp.where(winner < 0, 0.5, 0.0))


def summarize(scores) -> dict:
    """Wins, draws, losses, the mean score and its 95% confidence interval (normal
    approximation with the sample variance, clipped to [0, 1]). For arena scores (an even
    count, `first` Black in the first half) also the score with each colour."""
    scores = np.asarray(scores, np.float64)
    count = len(scores)
    mean = float(scores.mean()) if count else 0.0
    spread = 1.96 * float(scores.std(ddof=1)) / math.sqrt(count) if count > 1 else 1.0
    summary = {
        "games": count,
        "wins": int((scores == 1).sum()),
        "draws": int((scores == 0.5).sum()),
        "losses": int((scores == 0).sum()),
        "score": mean,
        "low": max(0.0, mean - spread),
        "high": min(1.0, mean + spread),
    }
    if count and count % 2 == 0:
        summary["as_black"] = float(scores[: count // 2].mean())
        summary["as_white"] = float(scores[count // 2 :].mean())
    return summary
