"""Action sampling helpers that work on any legal-action mask, batched or not."""

from __future__ import annotations

import jax
import jax.numpy as jnp


def random_legal_action(key: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """Uniformly random legal action. legal_action_mask: bool[..., A] -> int32[...].

    Draws one uniform number per game and takes the k-th legal action, found with a log-depth
    prefix count. Exact, and far cheaper on CPU than `jax.random.categorical` (Gumbel noise for
    every action) or `jnp.cumsum` (a quadratic reduce-window on XLA:CPU). With no legal action
    (a terminated state) it returns 0.
    """
    count = legal_action_mask.sum(axis=-1)
    k = jnp.floor(jax.random.uniform(key, count.shape) * count).astype(jnp.int32)
    rank = jax.lax.associative_scan(jnp.add, legal_action_mask.astype(jnp.int32), axis=-1)
    return jnp.argmax(rank > k[..., None], axis=-1).astype(jnp.int32)
