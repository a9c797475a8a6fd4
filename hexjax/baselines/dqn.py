"""DQN and Double DQN by self-play, for every hexjax game, in one jitted iteration.

`make_iteration(config, game)` returns `(init, iteration)` like the AlphaZero trainer. An
iteration plays `plies_per_iteration` plies of `selfplay_games` games (both sides the learner,
or the learner against a past self from a pool), writes every ply into a replay ring, and takes
`steps_per_iteration` optimizer steps on sampled minibatches.

- Q-network: the AlphaZero network (`hexjax.network`, same torso); Q(s, a) = tanh of its policy
  logits, so every Q-value lies in the range of the outcomes, [-1, 1]. The value head is unused.
  Trained networks play through the same arena and players as AlphaZero's (best legal Q).
- Actions: epsilon-greedy, the legal-action mask applied in both branches (a random legal move,
  or the best legal Q), epsilon decayed linearly over `epsilon_iterations`.
- Targets (zero-sum, negamax): rewards are the outcome for the player who moved, and the next
  position's value is from its own mover's view, so it enters with the sign `mover_sign` gives
  (-1 when the move passed to the opponent). With n-step returns,
      y_t = sum_{k<n} s_k d^k r_{t+k} + s_n d^n V(s_{t+n}),   s_k = +1 if the mover at t+k is
  the mover at t else -1, d the discount, the sum cut at the end of the game (then no bootstrap).
  V(s) = max over legal a of Q_target(s, a); Double DQN: Q_target(s, argmax over legal a of
  Q_online(s, a)). The target network is copied from the online one every `target_every` steps.
- Replay: a time-major ring [L, B] (one column per game slot, L = capacity / B) of single plies,
  observations as uint8. The n plies after a sampled one are read from the same column, so
  n-step returns cost no extra storage and a game boundary is just the `done` flag. Written here
  rather than taken from flashbax: the same layout splits along the game axis over devices like
  the games themselves, checkpoints as a plain pytree, and needs no further dependency.
- Shaping (off by default): `shaping` x (the mover's legal-move count before its move minus the
  opponent's after it) is added to the reward of moves that do not end the game (Othello's
  mobility difference; it works for every game).
"""

from __future__ import annotations

import dataclasses
from typing import Literal

import chex
import jax
import jax.numpy as jnp
import optax

from hexjax import sharding
from hexjax.alphazero import network as network_lib
from hexjax.alphazero.network import NetworkConfig
from hexjax.alphazero.optimizer import OptimizerConfig, lift_steps, scan_steps
from hexjax.alphazero.search import masked_logits
from hexjax.baselines import common
from hexjax.baselines.dqn_replay import (
    Transitions,
    augment,
    init_transitions,
    sample_sequences,
    write,
)
from hexjax.games import Game, GameConfig, State, random_legal_action, tree_where


@dataclasses.dataclass(frozen=True)
class DQNConfig:
    game: GameConfig = GameConfig()
    network: NetworkConfig = NetworkConfig()
    optimizer: OptimizerConfig = OptimizerConfig(learning_rate=1e-3, warmup_steps=100)
    selfplay_games: int = 256
    plies_per_iteration: int = 4
    steps_per_iteration: int = 8  # optimizer steps on sampled minibatches per iteration
    replay_capacity: int = 131_072  # plies; a multiple of selfplay_games
    min_replay: int = 4_096  # no training until the ring holds this many plies
    discount: float = 1.0  # per ply; zero-sum board games need none
    n_step: int = 1
    double_dqn: bool = True
    target_every: int = 200  # optimizer steps between copies to the target network
    epsilon_start: float = 1.0
    epsilon_end: float = 0.05
    epsilon_iterations: int = 300
    opponent: Literal["self", "pool"] = "self"  # pool: half the moves by a past self
    pool_size: int = 8  # past selves kept
    pool_every: int = 50  # iterations between snapshots into the pool
    shaping: float = 0.0  # mobility-difference reward coefficient (0: off)
    huber_delta: float = 1.0
    seed: int = 0

    def __post_init__(self):
        if self.selfplay_games < 1 or self.plies_per_iteration < 1:
            raise ValueError("selfplay_games and plies_per_iteration must be at least 1")
        if self.replay_capacity % self.selfplay_games:
            raise ValueError(
                f"replay_capacity ({self.replay_capacity}) must be a multiple of "
                f"selfplay_games ({self.selfplay_games}): the ring keeps one column per game"
            )
        if self.replay_capacity // self.selfplay_games <= self.n_step:
            raise ValueError("replay_capacity must hold more than n_step plies of every game")
        if self.n_step < 1 or self.target_every < 1 or self.pool_size < 1 or self.pool_every < 1:
            raise ValueError("n_step, target_every, pool_size and pool_every must be positive")
        if not 0 < self.discount <= 1:
            raise ValueError(f"discount must be in (0, 1], got {self.discount}")
        if not (0 <= self.epsilon_end <= 1 and 0 <= self.epsilon_start <= 1):
            raise ValueError("epsilon_start and epsilon_end must be in [0, 1]")
        if self.opponent not in ("self", "pool"):
            raise ValueError(f"opponent must be self or pool, got {self.opponent!r}")

    from_stored = staticmethod(lift_steps)


PRESETS = {
    "tiny": DQNConfig(
        network=NetworkConfig(preset="tiny"),
        optimizer=OptimizerConfig(batch_size=32, warmup_steps=1),
        steps_per_iteration=2,
        selfplay_games=16,
        replay_capacity=1_024,
        min_replay=64,
        target_every=10,
        epsilon_iterations=20,
        pool_every=2,
        pool_size=2,
    ),
    "cpu": DQNConfig(),
    "accelerator": DQNConfig(
        network=NetworkConfig(preset="accelerator", compute_dtype="bfloat16"),
        optimizer=OptimizerConfig(learning_rate=1e-3, batch_size=1024),
        steps_per_iteration=16,
        selfplay_games=2048,
        plies_per_iteration=8,
        replay_capacity=2048 * 512,
        min_replay=65_536,
    ),
}


@chex.dataclass(frozen=True)
class DQNState:
    params: chex.ArrayTree
    target_params: chex.ArrayTree
    opt_state: chex.ArrayTree
    pool: chex.ArrayTree  # past parameters stacked [pool_size, ...]
    pool_count: chex.Array  # int32 snapshots taken (the first is the initial network)
    games: State  # [B] games in flight
    plies: chex.Array  # int32[B] plies played in each game
    replay: Transitions
    iteration: chex.Array  # int32
    updates: chex.Array  # int32 optimizer steps taken


def q_values(net, params, obs: jax.Array) -> jax.Array:
    """float32[B, A] Q-values in [-1, 1] for observations [B, ...] (legal or not)."""
    logits, _ = network_lib.apply(net, params, obs)
    return jnp.tanh(logits)


def epsilon_greedy(key, q: jax.Array, legal: jax.Array, epsilon) -> jax.Array:
    """int32[B]: with probability epsilon a uniformly random legal move, else the best legal Q."""
    explore_key, random_key = jax.random.split(key)
    greedy = jnp.argmax(masked_logits(q, legal), axis=-1).astype(jnp.int32)
    explore = jax.random.uniform(explore_key, greedy.shape) < epsilon
    return jnp.where(explore, random_legal_action(random_key, legal), greedy)


def td_targets(
    reward: jax.Array,
    done: jax.Array,
    mover: jax.Array,
    next_q_online: jax.Array,
    next_q_target: jax.Array,
    next_legal: jax.Array,
    discount: float,
    double_dqn: bool,
) -> jax.Array:
    """float32[M] n-step targets for the first ply of each sequence (see the module docstring).

    reward, done: [M, n] for plies t..t+n-1; mover: int32[M, n + 1] at positions t..t+n;
    next_q_online, next_q_target: float32[M, A] at position t+n; next_legal: bool[M, A] there.
    """
    steps = reward.shape[1]
    returns = jnp.zeros(reward.shape[0], jnp.float32)
    alive = jnp.ones(reward.shape[0], jnp.bool_)
    for k in range(steps):  # n is a small static count (not a loop over games)
        sign = common.mover_sign(mover[:, 0], mover[:, k])
        returns += jnp.where(alive, sign * discount**k * reward[:, k], 0.0)
        alive &= ~done[:, k]
    chooser = next_q_online if double_dqn else next_q_target
    best = jnp.argmax(masked_logits(chooser, next_legal), axis=-1)
    value = jnp.take_along_axis(next_q_target, best[:, None], axis=1)[:, 0]
    sign = common.mover_sign(mover[:, 0], mover[:, steps])
    return returns + jnp.where(alive, sign * discount**steps * value, 0.0)


def make_iteration(config: DQNConfig, game: Game | None = None, mesh=None):
    """(init(key) -> DQNState, iteration(state, key) -> (DQNState, metrics))."""
    game = game or config.game.make()
    if mesh is not None:
        sharding.check_sizes(config, common.SPLIT_SIZES, mesh)
    net = network_lib.make_network(config.network, game.num_actions)
    optimizer = config.optimizer.make()
    play = _make_selfplay(game, net, config)
    loss_fn = _make_loss(net, config)

    init = _make_init(game, net, optimizer, config)

    def sgd_step(carry, key):
        params, target_params, opt_state, ring, updates = carry
        sample_key, symmetry_key = jax.random.split(key)
        sequences = sample_sequences(ring, sample_key, config.optimizer.batch_size, config.n_step)
        sequences = augment(game, symmetry_key, sequences, config.n_step)
        grads, metrics = jax.grad(loss_fn, has_aux=True)(params, target_params, sequences)
        changes, new_opt_state = optimizer.update(grads, opt_state, params)
        new_params = optax.apply_updates(params, changes)
        # Until the ring holds enough plies, the step is computed and discarded.
        ready = (ring.rows * config.selfplay_games >= config.min_replay) & (
            ring.rows > config.n_step
        )
        params = tree_where(ready, new_params, params)
        opt_state = tree_where(ready, new_opt_state, opt_state)
        updates = updates + ready.astype(jnp.int32)
        copy = ready & (updates % config.target_every == 0)
        target_params = tree_where(copy, params, target_params)
        return (params, target_params, opt_state, ring, updates), metrics

    def iteration(state: DQNState, key: jax.Array):
        play_key, pool_key, train_key = jax.random.split(key, 3)
        epsilon = common.linear_schedule(
            config.epsilon_start, config.epsilon_end, config.epsilon_iterations, state.iteration
        )
        filled = jnp.minimum(state.pool_count, config.pool_size)
        past = jax.random.randint(pool_key, (), 0, filled)
        opponent_params = jax.tree.map(lambda p: p[past], state.pool)
        # SELF-PLAY
        games, plies, rows, outcomes = play(
            state.params, opponent_params, state.games, state.plies, play_key, epsilon
        )
        ring = write(state.replay, rows)
        # TRAINING
        keys = jax.random.split(train_key, config.steps_per_iteration)
        carry = (state.params, state.target_params, state.opt_state, ring, state.updates)
        (params, target_params, opt_state, ring, updates), train_metrics = scan_steps(
            sgd_step, carry, keys
        )
        done = state.iteration + 1
        pool, pool_count = _keep_in_pool(state, params, done, config)
        metrics = {
            **jax.tree.map(jnp.mean, train_metrics),
            **common.game_metrics(outcomes),
            "epsilon": epsilon,
            "positions": jnp.int32(config.selfplay_games * config.plies_per_iteration),
            "replay_size": ring.rows * config.selfplay_games,
            "updates": updates,
        }
        new_state = state.replace(
            params=params,
            target_params=target_params,
            opt_state=opt_state,
            pool=pool,
            pool_count=pool_count,
            games=games,
            plies=plies,
            replay=ring,
            iteration=done,
            updates=updates,
        )
        return new_state, metrics

    return init, iteration


def _make_loss(net, config: DQNConfig):
    """loss_fn(params, target_params, sequences) -> (Huber TD loss, metrics)."""

    def loss_fn(params, target_params, sequences):
        n = config.n_step
        obs, next_obs = sequences["first_obs"], sequences["last_obs"]
        next_q_target = q_values(net, target_params, next_obs)
        next_q_online = q_values(net, params, next_obs) if config.double_dqn else next_q_target
        target = td_targets(
            sequences["reward"][:, :n],
            sequences["done"][:, :n],
            sequences["mover"],
            jax.lax.stop_gradient(next_q_online),
            next_q_target,
            sequences["legal"][:, n],
            config.discount,
            config.double_dqn,
        )
        q = q_values(net, params, obs)
        taken = jnp.take_along_axis(q, sequences["action"][:, :1], axis=1)[:, 0]
        loss = optax.huber_loss(
            taken - jax.lax.stop_gradient(target), delta=config.huber_delta
        ).mean()
        return loss, {"td_loss": loss, "q_mean": taken.mean()}

    return loss_fn


def _make_selfplay(game: Game, net, config: DQNConfig):
    """play(params, opponent_params, games, plies, key, epsilon) -> (games, plies, Transitions
    [T, B], Ply [T, B]): `plies_per_iteration` epsilon-greedy plies of every game; in pool games
    the learner plays one colour and a past network the other."""
    observe = jax.vmap(game.observe)
    learner_colour = jnp.arange(config.selfplay_games) % 2  # pool games: who the learner is

    def play(params, opponent_params, games, plies, key, epsilon):
        def ply(carry, ply_key):
            games, plies = carry
            act_key, opponent_key, reset_key = jax.random.split(ply_key, 3)
            obs = observe(games)
            legal = games.legal_action_mask
            action = epsilon_greedy(act_key, q_values(net, params, obs), legal, epsilon)
            if config.opponent == "pool":
                past_q = q_values(net, opponent_params, obs)
                past_action = epsilon_greedy(opponent_key, past_q, legal, config.epsilon_end)
                action = jnp.where(games.current_player == learner_colour, action, past_action)
            mover = games.current_player
            games, plies, outcome = common.step_games(game, reset_key, games, plies, action)
            shaping = jnp.where(outcome.done, 0.0, config.shaping * outcome.mobility)
            row = Transitions(
                obs=obs.astype(jnp.uint8),
                action=action,
                reward=outcome.reward + shaping,
                done=outcome.done,
                mover=mover,
                legal=legal,
                rows=jnp.int32(0),
                cursor=jnp.int32(0),
            )
            return (games, plies), (row, outcome)

        keys = jax.random.split(key, config.plies_per_iteration)
        (games, plies), (rows, outcomes) = jax.lax.scan(ply, (games, plies), keys)
        return games, plies, rows, outcomes

    return play


def _keep_in_pool(state: DQNState, params, done: jax.Array, config: DQNConfig):
    """(pool, pool_count): every `pool_every` iterations the network joins the pool of past
    opponents, replacing its oldest."""
    snapshot = done % config.pool_every == 0
    slot = state.pool_count % config.pool_size
    pool = jax.tree.map(
        lambda stack, p: jnp.where(snapshot, stack.at[slot].set(p), stack), state.pool, params
    )
    return pool, state.pool_count + snapshot.astype(jnp.int32)


def _make_init(game: Game, net, optimizer, config: DQNConfig):
    """init(key) -> DQNState: fresh network (its own target and first pool entry), games in
    flight, an empty ring."""

    def init(key: jax.Array) -> DQNState:
        param_key, games_key = jax.random.split(key)
        params = network_lib.init_params(net, param_key, game.observation_shape)
        pool = jax.tree.map(lambda p: jnp.stack([p] * config.pool_size), params)
        return DQNState(
            params=params,
            target_params=params,
            opt_state=optimizer.init(params),
            pool=pool,
            pool_count=jnp.int32(1),
            games=jax.vmap(game.init)(jax.random.split(games_key, config.selfplay_games)),
            plies=jnp.zeros(config.selfplay_games, jnp.int32),
            replay=init_transitions(game, config.replay_capacity, config.selfplay_games),
            iteration=jnp.int32(0),
            updates=jnp.int32(0),
        )

    return init


def state_shardings(state: DQNState, mesh):
    """Games split along the game axis, the ring along its columns, the rest replicated."""
    return common.state_shardings(state, mesh, columns=("replay",))
