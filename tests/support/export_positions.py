"""Positions from real games for the export parity tests: random legal games played with the
game API, every live position kept (openings, middle games, near-full boards)."""

import jax
import numpy as np

from hexjax.games import random_legal_action


def positions(game, count: int, seed: int = 0, games: int = 16):
    """(observations float32[count, ...], legal masks bool[count, A]) of live positions."""
    step = jax.jit(jax.vmap(game.step))
    observe = jax.jit(jax.vmap(game.observe))
    key = jax.random.key(seed)
    observations, masks = [], []
    while sum(len(o) for o in observations) < count:
        key, init_key = jax.random.split(key)
        state = jax.vmap(game.init)(jax.random.split(init_key, games))
        while not bool(state.terminated.all()):
            live = ~np.asarray(state.terminated)
            observations.append(np.asarray(observe(state))[live])
            masks.append(np.asarray(state.legal_action_mask)[live])
            key, move_key = jax.random.split(key)
            state = step(state, random_legal_action(move_key, state.legal_action_mask))
    return np.concatenate(observations)[:count], np.concatenate(masks)[:count]
