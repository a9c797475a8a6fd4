"""Action sampling helpers that work on any legal-action mask, batched or not, and positions
from random legal games (a host loop, for checks and measurements: not for the hot path)."""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np


def random_legal_action(key: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """Uniformly random legal action. legal_action_mask: bool[..., A] -> int32[...].

    Draws one uniform number per game and takes the k-th legal action. The k-th is found in two
    levels (which chunk of ~sqrt(A) actions, then where inside it), each a short prefix count:
    exact, and several times cheaper on CPU than `jax.random.categorical` (Gumbel noise for every
    action), `jnp.cumsum` over all A (a quadratic reduce-window on XLA:CPU) or a log-depth
    associative scan. With no legal action (a terminated state) it returns 0.
    """
    num_actions = legal_action_mask.shape[-1]
    width = math.isqrt(num_actions - 1) + 1  # chunks of `width`, `width` of them
    padding = [(0, 0)] * (legal_action_mask.ndim - 1) + [(0, width * width - num_actions)]
    chunks = jnp.pad(legal_action_mask, padding).astype(jnp.int32)
    chunks = chunks.reshape(legal_action_mask.shape[:-1] + (width, width))
    per_chunk = chunks.sum(axis=-1)  # [..., width]
    count = per_chunk.sum(axis=-1)
    k = jnp.floor(jax.random.uniform(key, count.shape) * count).astype(jnp.int32)
    through_chunk = jnp.cumsum(per_chunk, axis=-1)
    chunk = jnp.argmax(through_chunk > k[..., None], axis=-1)
    before = jnp.take_along_axis(through_chunk - per_chunk, chunk[..., None], axis=-1)[..., 0]
    row = jnp.take_along_axis(chunks, chunk[..., None, None], axis=-2)[..., 0, :]
    inside = jnp.argmax(jnp.cumsum(row, axis=-1) > (k - before)[..., None], axis=-1)
    return (chunk * width + inside).astype(jnp.int32)


class Positions(NamedTuple):
    observations: np.ndarray  # float32[P, ...]
    masks: np.ndarray  # bool[P, A], legal actions
    boards: np.ndarray  # int8[P, n, n]
    players: np.ndarray  # int32[P], the side to move


def random_positions(game, count: int, seed: int = 0, games: int = 16) -> Positions:
    """`count` live positions of random legal games, `games` at a time, every position of each
    game kept in order: openings, middle games and near-full boards."""
    init = jax.jit(jax.vmap(game.init))  # eager, renju's start would run op by op (seconds)
    step = jax.jit(jax.vmap(game.step))
    observe = jax.jit(jax.vmap(game.observe))
    key = jax.random.key(seed)
    found = {name: [] for name in Positions._fields}
    while sum(len(o) for o in found["observations"]) < count:
        key, init_key = jax.random.split(key)
        state = init(jax.random.split(init_key, games))
        while not bool(state.terminated.all()):
            live = ~np.asarray(state.terminated)
            found["observations"].append(np.asarray(observe(state))[live])
            found["masks"].append(np.asarray(state.legal_action_mask)[live])
            found["boards"].append(np.asarray(state.board)[live])
            found["players"].append(np.asarray(state.current_player)[live])
            key, move_key = jax.random.split(key)
            state = step(state, random_legal_action(move_key, state.legal_action_mask))
    return Positions(*(np.concatenate(found[name])[:count] for name in Positions._fields))
