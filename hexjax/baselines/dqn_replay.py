"""DQN's replay: a time-major ring of plies per game slot ([L, B]), so that n-step sequences
are consecutive rows of one column, and the sequences sampled from it seen under a random board
symmetry each."""

from __future__ import annotations

import chex
import jax
import jax.numpy as jnp
import numpy as np

from hexjax.games import Game


@chex.dataclass(frozen=True)
class Transitions:
    """Replay ring, time-major: row t of column b is the t-th recorded ply of game slot b."""

    obs: chex.Array  # uint8[L, B, *observation_shape] position before the move, mover's view
    action: chex.Array  # int32[L, B]
    reward: chex.Array  # float32[L, B] for the player who moved (shaping included)
    done: chex.Array  # bool[L, B] the move ended the game
    mover: chex.Array  # int32[L, B]
    legal: chex.Array  # bool[L, B, A] legal moves at the position
    rows: chex.Array  # int32 rows filled (<= L)
    cursor: chex.Array  # int32 next row to write


def init_transitions(game: Game, capacity: int, games: int) -> Transitions:
    length = capacity // games
    return Transitions(
        obs=jnp.zeros((length, games, *game.observation_shape), jnp.uint8),
        action=jnp.zeros((length, games), jnp.int32),
        reward=jnp.zeros((length, games), jnp.float32),
        done=jnp.zeros((length, games), jnp.bool_),
        mover=jnp.zeros((length, games), jnp.int32),
        legal=jnp.zeros((length, games, game.num_actions), jnp.bool_),
        rows=jnp.int32(0),
        cursor=jnp.int32(0),
    )


def write(ring: Transitions, plies: Transitions) -> Transitions:
    """Append T rows (`plies`' arrays are [T, B, ...], T <= L) after the newest."""
    length = ring.action.shape[0]
    count = plies.action.shape[0]
    index = (ring.cursor + jnp.arange(count)) % length
    fields = ("obs", "action", "reward", "done", "mover", "legal")
    return ring.replace(
        **{name: getattr(ring, name).at[index].set(getattr(plies, name)) for name in fields},
        rows=jnp.minimum(ring.rows + count, length),
        cursor=(ring.cursor + count) % length,
    )


def sample_sequences(ring: Transitions, key, batch: int, steps: int):
    """`batch` random sequences of `steps` + 1 consecutive rows of one column each, wholly
    inside the filled part: a dict of arrays [M, steps + 1, ...] (the ring must hold more than
    `steps` rows)."""
    length, games = ring.action.shape
    row_key, column_key = jax.random.split(key)
    age = jax.random.randint(row_key, (batch,), 0, jnp.maximum(ring.rows - steps, 1))
    oldest = (ring.cursor - ring.rows) % length
    rows = (oldest + age[:, None] + jnp.arange(steps + 1)) % length  # [M, steps + 1]
    column = jax.random.randint(column_key, (batch, 1), 0, games)
    names = ("obs", "action", "reward", "done", "mover", "legal")
    return {name: getattr(ring, name)[rows, column] for name in names}


def augment(game: Game, key, sequences: dict, steps: int) -> dict:
    """The sampled sequences seen under one random board symmetry each: adds float32
    observations of their first and last positions (`first_obs`, `last_obs`) and maps the
    first action and the last position's legal moves."""
    obs = sequences["obs"][:, jnp.asarray([0, steps])].astype(jnp.float32)  # [M, 2, ...]
    legal = sequences["legal"][:, steps]
    action = sequences["action"][:, 0]
    symmetries = game.symmetries
    batch = action.shape[0]
    choice = jax.random.randint(key, (batch,), 0, len(symmetries))
    # All images, then one per row (as hexjax.replay.sample does).
    obs_images = jnp.stack([s.observation_fn(obs) for s in symmetries])
    legal_images = jnp.stack([legal[:, np.argsort(s.action_map)] for s in symmetries])
    action_images = jnp.stack([jnp.asarray(s.action_map)[action] for s in symmetries])
    pick = jnp.arange(batch)
    images = obs_images[choice, pick]
    return {
        **sequences,
        "first_obs": images[:, 0],
        "last_obs": images[:, 1],
        "legal": sequences["legal"].at[:, steps].set(legal_images[choice, pick]),
        "action": sequences["action"].at[:, 0].set(action_images[choice, pick]),
    }
