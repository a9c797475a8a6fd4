"""Batched random playouts with every intermediate state kept, for tests."""

import functools

import jax
import jax.numpy as jnp

from hexjax.games import random_legal_action


def max_plies(game) -> int:
    """An upper bound on a game's length, plus two plies to exercise the terminal state."""
    return game.max_plies + 2


@functools.cache
def _playout_fn(game, batch: int, plies: int):
    init = jax.vmap(game.init)
    step = jax.vmap(game.step)

    def run(key):
        init_key, play_key = jax.random.split(key)
        start = init(jax.random.split(init_key, batch))

        def ply(state, ply_key):
            action = random_legal_action(ply_key, state.legal_action_mask)
            nxt = step(state, action)
            return nxt, (nxt, action)

        _, (states, actions) = jax.lax.scan(ply, start, jax.random.split(play_key, plies))
        history = jax.tree.map(lambda s, h: jnp.concatenate([s[None], h]), start, states)
        return history, actions

    return jax.jit(run)


def random_playouts(game, key, batch: int = 64):
    """(states, actions): states stacked [T + 1, B, ...] from the start, actions int32[T, B]."""
    return _playout_fn(game, batch, max_plies(game))(key)


def state_at(states, t: int, b: int):
    """One unbatched state out of a stacked history."""
    return jax.tree.map(lambda x: x[t, b], states)
