"""Othello perft from the start position, counted with the batched JAX `step`.

A forced pass counts as one ply; finished games have no children. Reference counts:
4, 12, 56, 244, 1396, 8200, 55092, 390216.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np

import hexjax

PERFT = [4, 12, 56, 244, 1396, 8200, 55092, 390216]
CHUNK = 8192  # fixed batch so each level reuses one compiled step


@functools.cache
def _step_chunk(game):
    return jax.jit(jax.vmap(game.step))


def expand(game, states):
    """All children of a batch of live states, stepping CHUNK (state, action) pairs at once."""
    masks = np.asarray(states.legal_action_mask)
    parent, action = np.nonzero(masks)
    children = []
    for start in range(0, len(parent), CHUNK):
        index = parent[start : start + CHUNK]
        moves = action[start : start + CHUNK]
        pad = CHUNK - len(index)
        index = np.pad(index, (0, pad))
        moves = np.pad(moves, (0, pad))
        batch = jax.tree.map(lambda x, i=index: x[i], states)
        stepped = _step_chunk(game)(batch, jnp.asarray(moves, jnp.int32))
        children.append(jax.tree.map(lambda x, keep=CHUNK - pad: np.asarray(x[:keep]), stepped))
    return jax.tree.map(lambda *xs: np.concatenate(xs), *children)


def test_perft_to_depth_8():
    check_perft(8)


def check_perft(depth):
    game = hexjax.make("othello")
    states = jax.tree.map(lambda x: np.asarray(x)[None], game.init(jax.random.key(0)))
    counts = []
    for _ in range(depth - 1):
        states = expand(game, states)
        counts.append(len(states.board))
        live = ~states.terminated
        states = jax.tree.map(lambda x, live=live: x[live], states)
    # The last level only needs counting: every legal action of a live state is one leaf.
    counts.append(int(np.asarray(states.legal_action_mask).sum()))
    assert counts == PERFT[:depth]
