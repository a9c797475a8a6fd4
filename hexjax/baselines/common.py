"""What the DQN and PPO baselines share: self-play steps with auto-reset, the zero-sum sign
between consecutive positions, and the per-iteration game statistics.

Rewards here are always from the view of the player who moved. In these two-player zero-sum
games the next position usually belongs to the opponent, so its value enters a target with a
minus sign: `mover_sign` reads the sign from who is to move at both positions instead of
assuming that every ply hands the move over.
"""

from __future__ import annotations

import chex
import jax
import jax.numpy as jnp

from hexjax import sharding
from hexjax.alphazero.selfplay import game_statistics, reset_finished
from hexjax.games import Game, State


@chex.dataclass(frozen=True)
class Ply:
    """What one ply of B games gives a learner (leading axis [B], [T, B] when stacked)."""

    reward: chex.Array  # float32[B] outcome for the player who moved (0 unless it ended)
    done: chex.Array  # bool[B] the game ended with this move
    first_reward: chex.Array  # float32[B] player 0's outcome where `done`
    length: chex.Array  # int32[B] plies of the game so far, this one included
    mobility: chex.Array  # int32[B] legal moves of the mover before, minus the next player's after


def mover_sign(mover: jax.Array, next_mover: jax.Array) -> jax.Array:
    """float32: +1 where the same player is to move at both positions, -1 where it changed."""
    return jnp.where(mover == next_mover, 1.0, -1.0)


def step_games(game: Game, key: jax.Array, games: State, plies: jax.Array, actions: jax.Array):
    """(games after the move with finished ones replaced, plies int32[B], Ply)."""
    after = jax.vmap(game.step)(games, actions)
    mover = games.current_player
    reward = jnp.take_along_axis(after.rewards, mover[:, None], axis=1)[:, 0]
    ply = Ply(
        reward=reward,
        done=after.terminated,
        first_reward=jnp.where(after.terminated, after.rewards[:, 0], 0.0),
        length=plies + 1,
        mobility=games.legal_action_mask.sum(-1) - after.legal_action_mask.sum(-1),
    )
    return reset_finished(game, key, after), jnp.where(after.terminated, 0, plies + 1), ply


def game_metrics(plies: Ply) -> dict:
    """Statistics of the games that ended in a stack of plies [T, B]."""
    lengths = jnp.where(plies.done, plies.length, 0).sum()
    return game_statistics(plies.done, plies.first_reward, lengths)


def linear_schedule(start: float, end: float, steps: int, step: jax.Array) -> jax.Array:
    """`start` at step 0, `end` from `steps` on, linear between."""
    fraction = jnp.clip(step / max(steps, 1), 0.0, 1.0)
    return start + fraction * (end - start)


# The sizes split over devices, which a device count must divide: the games in flight and the
# minibatch.
SPLIT_SIZES = ("selfplay_games", "optimizer.batch_size")


def batch_sizes(config) -> tuple[int, ...]:
    return tuple(sharding.sizes(config, SPLIT_SIZES).values())


def state_shardings(state, mesh, columns: tuple[str, ...] = ()):
    """Shardings for a baseline's state: the games in flight and their ply counters split along
    the game axis, the fields named in `columns` (time-major [T, B, ...] arrays) along their
    second axis (their scalars replicated), everything else (parameters, optimizer state,
    counters) replicated."""
    replicated = sharding.replicated(mesh)
    games = sharding.NamedSharding(mesh, sharding.PartitionSpec(sharding.AXIS))
    second = sharding.NamedSharding(mesh, sharding.PartitionSpec(None, sharding.AXIS))

    def layout(name, tree):
        if name in ("games", "plies"):
            return jax.tree.map(lambda _: games, tree)
        if name in columns:
            return jax.tree.map(lambda x: replicated if x.ndim == 0 else second, tree)
        return jax.tree.map(lambda _: replicated, tree)

    return state.replace(**{name: layout(name, tree) for name, tree in state.items()})
