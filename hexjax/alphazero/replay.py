"""Device-resident replay buffer of training positions: a ring over `capacity` rows.

Observations are stored as uint8: every hexjax observation is made of 0/1 planes (the
conformance suite checks it), so this keeps the buffer 4x smaller than float32 at no loss.
Sampling applies a random board symmetry of the game to each sampled position.
"""

from __future__ import annotations

import chex
import jax
import jax.numpy as jnp
import numpy as np

from hexjax.games import Game


@chex.dataclass(frozen=True)
class ReplayBuffer:
    obs: chex.Array  # uint8[C, *observation_shape]
    policy: chex.Array  # float32[C, A] search policy target
    value: chex.Array  # float32[C] the target: the outcome from the mover's view (see selfplay)
    size: chex.Array  # int32 rows filled (<= C)
    cursor: chex.Array  # int32 next row to write
    added: chex.Array  # int32 rows ever added (wraps past 2**31 only after years)


def init_buffer(game: Game, capacity: int) -> ReplayBuffer:
    if capacity < 1:
        raise ValueError(f"replay capacity must be at least 1, got {capacity}")
    return ReplayBuffer(
        obs=jnp.zeros((capacity, *game.observation_shape), jnp.uint8),
        policy=jnp.zeros((capacity, game.num_actions), jnp.float32),
        value=jnp.zeros(capacity, jnp.float32),
        size=jnp.int32(0),
        cursor=jnp.int32(0),
        added=jnp.int32(0),
    )


def add(buffer: ReplayBuffer, obs, policy, value, valid) -> ReplayBuffer:
    """Append the rows where `valid` (bool[M]) holds, in order. obs: [M, ...], policy: [M, A],
    value: [M]. Rows are packed with one prefix sum, so M may be much larger than the number
    added; if more than the capacity are added at once, the last `capacity` rows win."""
    capacity = buffer.value.shape[0]
    count = valid.sum(dtype=jnp.int32)
    rank = jnp.cumsum(valid, dtype=jnp.int32) - 1  # position among the valid rows
    keep = valid & (rank >= count - capacity)
    index = jnp.where(keep, (buffer.cursor + rank) % capacity, capacity)  # capacity: dropped
    return buffer.replace(
        obs=buffer.obs.at[index].set(obs.astype(jnp.uint8), mode="drop"),
        policy=buffer.policy.at[index].set(policy, mode="drop"),
        value=buffer.value.at[index].set(value, mode="drop"),
        size=jnp.minimum(buffer.size + count, capacity),
        cursor=(buffer.cursor + count) % capacity,
        added=buffer.added + count,
    )


def sample(buffer: ReplayBuffer, key: jax.Array, batch: int, game: Game):
    """(obs float32[batch, ...], policy float32[batch, A], value float32[batch]) drawn uniformly
    from the filled rows, each under a random symmetry of the game. The buffer must hold at
    least one row (the trainer waits until it does)."""
    row_key, symmetry_key = jax.random.split(key)
    rows = jax.random.randint(row_key, (batch,), 0, jnp.maximum(buffer.size, 1))
    obs = buffer.obs[rows].astype(jnp.float32)
    policy, value = buffer.policy[rows], buffer.value[rows]
    symmetries = game.symmetries
    choice = jax.random.randint(symmetry_key, (batch,), 0, len(symmetries))
    # All images, then pick one per row: a few extra copies of a minibatch, no gathers per row.
    obs_images = jnp.stack([s.observation_fn(obs) for s in symmetries])
    inverse = np.stack([np.argsort(s.action_map) for s in symmetries])  # [S, A]
    policy_images = jnp.stack([policy[:, inv] for inv in inverse])
    pick = jnp.arange(batch)
    return obs_images[choice, pick], policy_images[choice, pick], value
