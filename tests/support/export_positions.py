"""Positions from real games for the export parity tests: random legal games played with the
game API, every live position kept (openings, middle games, near-full boards)."""

import jax
import numpy as np

from hexjax.games import random_legal_action


def positions(game, count: int, seed: int = 0, games: int = 16):
    """(observations float32[count, ...], legal masks bool[count, A]) of live positions."""
    observations, masks, _, _ = positions_with_boards(game, count, seed, games)
    return observations, masks


def positions_with_boards(game, count: int, seed: int = 0, games: int = 16):
    """`positions`, with each position's board int8[count, n, n] and side to move
    int32[count]."""
    step = jax.jit(jax.vmap(game.step))
    observe = jax.jit(jax.vmap(game.observe))
    key = jax.random.key(seed)
    found = {"observations": [], "masks": [], "boards": [], "players": []}
    while sum(len(o) for o in found["observations"]) < count:
        key, init_key = jax.random.split(key)
        state = jax.vmap(game.init)(jax.random.split(init_key, games))
        while not bool(state.terminated.all()):
            live = ~np.asarray(state.terminated)
            found["observations"].append(np.asarray(observe(state))[live])
            found["masks"].append(np.asarray(state.legal_action_mask)[live])
            found["boards"].append(np.asarray(state.board)[live])
            found["players"].append(np.asarray(state.current_player)[live])
            key, move_key = jax.random.split(key)
            state = step(state, random_legal_action(move_key, state.legal_action_mask))
    return tuple(np.concatenate(found[k])[:count] for k in found)
