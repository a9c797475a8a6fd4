"""Action sampling helpers that work on any legal-action mask, batched or not."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp


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
