"""PPO actor-critic by self-play, for every hexjax game; collection and update in one jit.

`make_iteration(config, game)` returns `(init, iteration)` like the AlphaZero trainer, in the
shape of purejaxrl's PPO: an iteration rolls out `plies_per_iteration` plies of
`selfplay_games` games with the current policy (both sides), computes advantages with GAE, and
runs `epochs` passes of clipped-objective minibatch updates over the rollout (nested scans).

- Network: the AlphaZero network (policy logits and a tanh value, same torso). The policy is a
  categorical over the legal actions only (illegal logits masked to float32 min before the
  softmax, in acting, in the ratio and in the entropy).
- Zero-sum GAE: rewards are the outcome for the player who moved and every value is from its
  own position's mover's view, so the next position's value and advantage enter with the sign
  `mover_sign` gives (-1 when the move passed to the opponent):
      delta_t = r_t + s_t g V(s_{t+1}) (1 - done_t) - V(s_t)
      A_t     = delta_t + s_t g l (1 - done_t) A_{t+1},    s_t = +1 if the same player moves at
  t and t+1, else -1; g the discount, l GAE's lambda. Games continue across iterations; the
  last rollout position's value bootstraps the open games.
- Value targets are A_t + V(s_t); advantages are normalised per minibatch.
"""

from __future__ import annotations

import dataclasses

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
from hexjax.games import Game, GameConfig, State


@dataclasses.dataclass(frozen=True)
class PPOConfig:
    game: GameConfig = GameConfig()
    network: NetworkConfig = NetworkConfig()
    # batch_size is the minibatch; the steps follow from it and `epochs`.
    optimizer: OptimizerConfig = OptimizerConfig(
        learning_rate=1e-3, warmup_steps=50, batch_size=512
    )
    selfplay_games: int = 256
    plies_per_iteration: int = 8
    epochs: int = 4  # passes over each rollout
    discount: float = 1.0
    gae_lambda: float = 0.95
    clip_ratio: float = 0.2
    value_coef: float = 0.5
    entropy_coef: float = 0.01
    seed: int = 0

    def __post_init__(self):
        if self.selfplay_games < 1 or self.plies_per_iteration < 1 or self.epochs < 1:
            raise ValueError("selfplay_games, plies_per_iteration and epochs must be positive")
        rollout = self.selfplay_games * self.plies_per_iteration
        if rollout % self.optimizer.batch_size:
            raise ValueError(
                f"the rollout (selfplay_games x plies_per_iteration = {rollout}) must be a "
                f"multiple of optimizer.batch_size ({self.optimizer.batch_size})"
            )
        if not 0 < self.discount <= 1 or not 0 <= self.gae_lambda <= 1:
            raise ValueError("discount must be in (0, 1] and gae_lambda in [0, 1]")
        if self.clip_ratio <= 0:
            raise ValueError(f"clip_ratio must be positive, got {self.clip_ratio}")

    @staticmethod
    def from_stored(stored: dict) -> dict:
        """Configs stored when the optimizer kept `steps_per_iteration` (always 0 for PPO)."""
        stored = lift_steps(stored)
        return {name: value for name, value in stored.items() if name != "steps_per_iteration"}


PRESETS = {
    "tiny": PPOConfig(
        network=NetworkConfig(preset="tiny"),
        optimizer=OptimizerConfig(batch_size=32, warmup_steps=1),
        selfplay_games=16,
        plies_per_iteration=4,
        epochs=2,
    ),
    "cpu": PPOConfig(),
    "accelerator": PPOConfig(
        network=NetworkConfig(preset="accelerator", compute_dtype="bfloat16"),
        optimizer=OptimizerConfig(learning_rate=3e-4, batch_size=4096),
        selfplay_games=4096,
        plies_per_iteration=16,
    ),
}


@chex.dataclass(frozen=True)
class PPOState:
    params: chex.ArrayTree
    opt_state: chex.ArrayTree
    games: State  # [B] games in flight
    plies: chex.Array  # int32[B] plies played in each game
    iteration: chex.Array  # int32
    updates: chex.Array  # int32 optimizer steps taken


@chex.dataclass(frozen=True)
class Rollout:
    """Plies in time-major order [T, B] (flattened to [T * B] for the updates)."""

    obs: chex.Array  # uint8[T, B, *observation_shape]
    legal: chex.Array  # bool[T, B, A]
    action: chex.Array  # int32[T, B]
    log_prob: chex.Array  # float32[T, B] of the action under the acting policy
    value: chex.Array  # float32[T, B] V(s_t), mover's view
    reward: chex.Array  # float32[T, B] for the player who moved
    done: chex.Array  # bool[T, B]
    mover: chex.Array  # int32[T, B]


def gae(
    reward: jax.Array,
    value: jax.Array,
    done: jax.Array,
    mover: jax.Array,
    last_value: jax.Array,
    last_mover: jax.Array,
    discount: float,
    gae_lambda: float,
) -> jax.Array:
    """float32[T, B] advantages (see the module docstring). reward, value, done, mover: [T, B];
    last_value, last_mover: [B], the position after the rollout's last ply."""
    next_value = jnp.concatenate([value[1:], last_value[None]])
    next_mover = jnp.concatenate([mover[1:], last_mover[None]])
    sign = common.mover_sign(mover, next_mover)
    live = 1.0 - done.astype(jnp.float32)
    delta = reward + sign * discount * next_value * live - value

    def back(advantage, row):
        delta, sign, live = row
        advantage = delta + sign * discount * gae_lambda * live * advantage
        return advantage, advantage

    start = jnp.zeros_like(last_value)
    _, advantages = jax.lax.scan(back, start, (delta, sign, live), reverse=True)
    return advantages


def masked_log_probs(logits: jax.Array, legal: jax.Array) -> jax.Array:
    """float32[B, A] log-probabilities of the policy over the legal actions (illegal: -inf-like,
    probability exactly 0)."""
    return jax.nn.log_softmax(masked_logits(logits, legal))


def make_iteration(config: PPOConfig, game: Game | None = None, mesh=None):
    """(init(key) -> PPOState, iteration(state, key) -> (PPOState, metrics))."""
    game = game or config.game.make()
    if mesh is not None:
        sharding.check_sizes(config, common.SPLIT_SIZES, mesh)
    net = network_lib.make_network(config.network, game.num_actions)
    optimizer = config.optimizer.make()
    observe = jax.vmap(game.observe)
    loss_fn = _make_loss(net, config)
    collect = _make_collect(game, net, config)
    rollout_size = config.selfplay_games * config.plies_per_iteration
    minibatches = rollout_size // config.optimizer.batch_size

    init = _make_init(game, net, optimizer, config)

    def update_minibatch(carry, batch):
        params, opt_state = carry
        grads, metrics = jax.grad(loss_fn, has_aux=True)(params, batch)
        changes, opt_state = optimizer.update(grads, opt_state, params)
        return (optax.apply_updates(params, changes), opt_state), metrics

    def update_epoch(carry, key):
        params, opt_state, data = carry
        order = jax.random.permutation(key, rollout_size)
        shuffled = jax.tree.map(lambda x: x[order].reshape(minibatches, -1, *x.shape[1:]), data)
        (params, opt_state), metrics = scan_steps(update_minibatch, (params, opt_state), shuffled)
        return (params, opt_state, data), metrics

    def iteration(state: PPOState, key: jax.Array):
        play_key, train_key = jax.random.split(key)

        # COLLECT TRAJECTORIES
        games, plies, rollout, outcomes = collect(state.params, state.games, state.plies, play_key)

        # ADVANTAGES
        _, last_value = network_lib.apply(net, state.params, observe(games))
        advantage = gae(
            rollout.reward,
            rollout.value,
            rollout.done,
            rollout.mover,
            last_value,
            games.current_player,
            config.discount,
            config.gae_lambda,
        )
        flat = lambda x: x.reshape(rollout_size, *x.shape[2:])  # noqa: E731
        data = {
            "obs": flat(rollout.obs),
            "legal": flat(rollout.legal),
            "action": flat(rollout.action),
            "log_prob": flat(rollout.log_prob),
            "advantage": flat(advantage),
            "target": flat(advantage + rollout.value),
        }

        # UPDATE
        keys = jax.random.split(train_key, config.epochs)
        (params, opt_state, _), train_metrics = scan_steps(
            update_epoch, (state.params, state.opt_state, data), keys
        )
        metrics = {
            **jax.tree.map(jnp.mean, train_metrics),
            **common.game_metrics(outcomes),
            "positions": jnp.int32(rollout_size),
            "updates": state.updates + config.epochs * minibatches,
        }
        new_state = state.replace(
            params=params,
            opt_state=opt_state,
            games=games,
            plies=plies,
            iteration=state.iteration + 1,
            updates=state.updates + config.epochs * minibatches,
        )
        return new_state, metrics

    return init, iteration


def _make_loss(net, config: PPOConfig):
    """loss_fn(params, batch) -> (clipped surrogate + value - entropy bonus, metrics)."""

    def loss_fn(params, batch):
        logits, value = network_lib.apply(net, params, batch["obs"].astype(jnp.float32))
        log_probs = masked_log_probs(logits, batch["legal"])
        log_prob = jnp.take_along_axis(log_probs, batch["action"][:, None], axis=1)[:, 0]
        advantage = batch["advantage"]
        advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
        ratio = jnp.exp(log_prob - batch["log_prob"])
        clipped = jnp.clip(ratio, 1 - config.clip_ratio, 1 + config.clip_ratio)
        policy_loss = -jnp.minimum(ratio * advantage, clipped * advantage).mean()
        value_loss = jnp.mean((value - batch["target"]) ** 2)
        probs = jnp.exp(log_probs)
        entropy = -jnp.sum(jnp.where(batch["legal"], probs * log_probs, 0.0), axis=-1).mean()
        loss = policy_loss + config.value_coef * value_loss - config.entropy_coef * entropy
        metrics = {
            "policy_loss": policy_loss,
            "value_loss": value_loss,
            "policy_entropy": entropy,
            "approx_kl": jnp.mean(batch["log_prob"] - log_prob),
            "clip_fraction": jnp.mean(jnp.abs(ratio - 1) > config.clip_ratio),
        }
        return loss, metrics

    return loss_fn


def _make_collect(game: Game, net, config: PPOConfig):
    """collect(params, games, plies, key) -> (games, plies, Rollout [T, B], Ply [T, B]): every
    game's next `plies_per_iteration` plies, each move drawn from the policy."""
    observe = jax.vmap(game.observe)

    def collect(params, games, plies, key):
        def ply(carry, ply_key):
            games, plies = carry
            act_key, reset_key = jax.random.split(ply_key)
            obs = observe(games)
            legal = games.legal_action_mask
            logits, value = network_lib.apply(net, params, obs)
            log_probs = masked_log_probs(logits, legal)
            action = jax.random.categorical(act_key, log_probs).astype(jnp.int32)
            mover = games.current_player
            games, plies, outcome = common.step_games(game, reset_key, games, plies, action)
            row = Rollout(
                obs=obs.astype(jnp.uint8),
                legal=legal,
                action=action,
                log_prob=jnp.take_along_axis(log_probs, action[:, None], axis=1)[:, 0],
                value=value,
                reward=outcome.reward,
                done=outcome.done,
                mover=mover,
            )
            return (games, plies), (row, outcome)

        keys = jax.random.split(key, config.plies_per_iteration)
        (games, plies), (rollout, outcomes) = jax.lax.scan(ply, (games, plies), keys)
        return games, plies, rollout, outcomes

    return collect


def _make_init(game: Game, net, optimizer, config: PPOConfig):
    """init(key) -> PPOState: fresh network and optimizer state, games in flight."""

    def init(key: jax.Array) -> PPOState:
        param_key, games_key = jax.random.split(key)
        params = network_lib.init_params(net, param_key, game.observation_shape)
        return PPOState(
            params=params,
            opt_state=optimizer.init(params),
            games=jax.vmap(game.init)(jax.random.split(games_key, config.selfplay_games)),
            plies=jnp.zeros(config.selfplay_games, jnp.int32),
            iteration=jnp.int32(0),
            updates=jnp.int32(0),
        )

    return init


def state_shardings(state: PPOState, mesh):
    """Games split along the game axis, the rest replicated."""
    return common.state_shardings(state, mesh)
