"""Device-resident replay buffer of training positions: a ring over `capacity` rows.

Observations are stored as uint8: every hexjax observation is made of 0/1 planes (the
conformance suite checks it), so this keeps the buffer 4x smaller than float32 at no loss.
Sampling applies a random board symmetry of the game to each sampled position, and may favour
the positions whose search surprised the network (`surprise_share`).
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
    # The auxiliary targets, where the network has those heads (selfplay.Trajectory's): the
    # opponent's reply policy float32[C, A], the cells' final owners int8[C, n * n], whether
    # the game ended drawn bool[C].
    reply: chex.Array | None = None
    ownership: chex.Array | None = None
    drawn: chex.Array | None = None
    # float32[C] each position's policy surprise (selfplay.policy_surprise), where sampling
    # reads it
    surprise: chex.Array | None = None


@chex.dataclass(frozen=True)
class Minibatch:
    obs: chex.Array  # float32[M, *observation_shape]
    policy: chex.Array  # float32[M, A]
    value: chex.Array  # float32[M]
    reply: chex.Array | None = None  # float32[M, A]
    ownership: chex.Array | None = None  # float32[M, n * n]
    drawn: chex.Array | None = None  # float32[M]: 1 where the game ended drawn


def init_buffer(game: Game, capacity: int, reply: bool = False, ownership: bool = False,
                drawn: bool = False, surprise: bool = False) -> ReplayBuffer:  # fmt: skip
    if capacity < 1:
        raise ValueError(f"replay capacity must be at least 1, got {capacity}")
    cells = game.size * game.size
    return ReplayBuffer(
        obs=jnp.zeros((capacity, *game.observation_shape), jnp.uint8),
        policy=jnp.zeros((capacity, game.num_actions), jnp.float32),
        value=jnp.zeros(capacity, jnp.float32),
        size=jnp.int32(0),
        cursor=jnp.int32(0),
        added=jnp.int32(0),
        reply=jnp.zeros((capacity, game.num_actions), jnp.float32) if reply else None,
        ownership=jnp.zeros((capacity, cells), jnp.int8) if ownership else None,
        drawn=jnp.zeros(capacity, jnp.bool_) if drawn else None,
        surprise=jnp.zeros(capacity, jnp.float32) if surprise else None,
    )


def add(buffer: ReplayBuffer, obs, policy, value, valid, reply=None, ownership=None, drawn=None,
        surprise=None):  # fmt: skip
    """Append the rows where `valid` (bool[M]) holds, in order. obs: [M, ...], policy: [M, A],
    value: [M]; `reply` [M, A], `ownership` [M, n * n], `drawn` [M] and `surprise` [M] where the
    buffer keeps them. Rows are packed with one prefix sum, so M may be much larger than the
    number added; if more than the capacity are added at once, the last `capacity` rows win."""
    capacity = buffer.value.shape[0]
    count = valid.sum(dtype=jnp.int32)
    rank = jnp.cumsum(valid, dtype=jnp.int32) - 1  # position among the valid rows
    keep = valid & (rank >= count - capacity)
    index = jnp.where(keep, (buffer.cursor + rank) % capacity, capacity)  # capacity: dropped

    def put(column, rows):
        return None if column is None else column.at[index].set(rows, mode="drop")

    return buffer.replace(
        obs=put(buffer.obs, obs.astype(jnp.uint8)),
        policy=put(buffer.policy, policy),
        value=put(buffer.value, value),
        size=jnp.minimum(buffer.size + count, capacity),
        cursor=(buffer.cursor + count) % capacity,
        added=buffer.added + count,
        reply=put(buffer.reply, reply),
        ownership=put(buffer.ownership, ownership),
        drawn=put(buffer.drawn, drawn),
        surprise=put(buffer.surprise, surprise),
    )


def sample(
    buffer: ReplayBuffer,
    key: jax.Array,
    batch: int,
    game: Game,
    surprise_share: float = 0.0,
    cumulative: jax.Array | None = None,
) -> Minibatch:
    """`batch` rows drawn from the filled ones, each under a random symmetry of the game:
    uniformly, or with `surprise_share` > 0 (a buffer keeping surprises) that share of the
    draws in proportion to each row's policy surprise (`cumulative`: the buffer's
    `draw_weights`, where the caller draws several minibatches from one buffer). The buffer
    must hold at least one row (the trainer waits until it does)."""
    row_key, symmetry_key = jax.random.split(key)
    if surprise_share > 0:
        rows = surprising_rows(buffer, row_key, batch, surprise_share, cumulative)
    else:
        rows = jax.random.randint(row_key, (batch,), 0, jnp.maximum(buffer.size, 1))
    symmetries = game.symmetries
    choice = jax.random.randint(symmetry_key, (batch,), 0, len(symmetries))
    pick = jnp.arange(batch)
    # All images, then pick one per row: a few extra copies of a minibatch, no gathers per row.
    obs = buffer.obs[rows].astype(jnp.float32)
    obs_images = jnp.stack([s.observation_fn(obs) for s in symmetries])
    inverse = np.stack([np.argsort(s.action_map) for s in symmetries])  # [S, A]

    def moved(column, order):  # a per-action (or per-cell) column under each row's symmetry
        if column is None:
            return None
        values = column[rows].astype(jnp.float32)
        return jnp.stack([values[:, inv] for inv in order])[choice, pick]

    # A symmetry maps cells to cells, so the first n * n entries of its action map are the
    # cells' own map.
    cells = game.size * game.size
    return Minibatch(
        obs=obs_images[choice, pick],
        policy=moved(buffer.policy, inverse),
        value=buffer.value[rows],
        reply=moved(buffer.reply, inverse),
        ownership=moved(buffer.ownership, inverse[:, :cells]),
        drawn=None if buffer.drawn is None else buffer.drawn[rows].astype(jnp.float32),
    )


def surprising_rows(
    buffer: ReplayBuffer,
    key: jax.Array,
    batch: int,
    share: float,
    cumulative: jax.Array | None = None,
) -> jax.Array:
    """int32[batch] rows of the filled ones, row i drawn with probability (1 - share) / size +
    share x surprise_i / (the filled rows' total surprise): KataGo's policy surprise weighting
    (share 0.5), over the buffer rather than each game. Uniform while no row has surprised.
    `cumulative`: `draw_weights(buffer, share)`, computed here when not given."""
    if cumulative is None:
        cumulative = draw_weights(buffer, share)
    # Inverse transform: one uniform draw a row, its place in the cumulative weights.
    points = jax.random.uniform(key, (batch,)) * cumulative[-1]
    rows = jnp.searchsorted(cumulative, points, side="right")
    return jnp.minimum(rows, jnp.maximum(buffer.size, 1) - 1).astype(jnp.int32)


def draw_weights(buffer: ReplayBuffer, share: float) -> jax.Array | None:
    """float32[capacity]: the cumulative draw weights of `surprising_rows` (flat past the filled
    rows), one pass over the buffer that every minibatch of an iteration can share; None for
    share 0 (uniform draws need none)."""
    if share <= 0:
        return None
    filled = jnp.arange(buffer.value.shape[0]) < buffer.size
    size = jnp.maximum(buffer.size, 1).astype(jnp.float32)
    surprise = jnp.where(filled, jnp.maximum(buffer.surprise, 0.0), 0.0)
    total = surprise.sum()
    weight = jnp.where(
        total > 0, (1 - share) / size + share * surprise / jnp.maximum(total, 1e-30), 1.0 / size
    )
    return jnp.cumsum(jnp.where(filled, weight, 0.0))
