"""One jitted AlphaZero iteration: self-play with search, value targets, replay, K SGD steps.

`make_iteration(config, game)` returns `(init, iteration)`: `init(key) -> TrainState` and a pure
`iteration(state, key) -> (state, metrics)` to be jitted once by the caller. Inside an
iteration everything stays on the device: `plies_per_iteration` plies of `selfplay_games`
games (lax.scan), finished games' positions into the replay buffer, then `steps_per_iteration`
optimizer steps (lax.scan) on minibatches drawn from it under random symmetries.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

import chex
import jax
import jax.numpy as jnp
import optax

from hexjax import network as network_lib
from hexjax import replay as replay_lib
from hexjax import search as search_lib
from hexjax import selfplay, sharding
from hexjax.games import Game, make


@dataclasses.dataclass(frozen=True)
class GameConfig:
    name: str = "hex"
    size: int = 7
    rule: str = "freestyle"  # gomoku only: freestyle | standard | renju
    swap: bool = False  # hex only

    def make(self) -> Game:
        options = {"size": self.size}
        if self.name == "gomoku":
            options["rule"] = self.rule
        if self.name == "hex":
            options["swap"] = self.swap
        return make(self.name, **options)


@dataclasses.dataclass(frozen=True)
class OptimizerConfig:
    name: Literal["adamw", "sgd"] = "adamw"
    learning_rate: float = 2e-3
    warmup_steps: int = 100
    # Cosine decay to 10% over this many steps: about a 20-minute Hex 7x7 run on 2 CPU cores
    # (8 steps an iteration), whose end it improves; longer runs want more.
    decay_steps: int = 12_000
    weight_decay: float = 1e-4
    momentum: float = 0.9  # sgd only
    clip_norm: float = 1.0
    batch_size: int = 256
    steps_per_iteration: int = 8

    def __post_init__(self):
        if self.name not in ("adamw", "sgd"):
            raise ValueError(f"optimizer must be adamw or sgd, got {self.name!r}")
        if self.learning_rate <= 0 or self.batch_size < 1 or self.steps_per_iteration < 0:
            raise ValueError("learning_rate and batch_size must be positive")

    def make(self) -> optax.GradientTransformation:
        schedule = optax.warmup_cosine_decay_schedule(
            init_value=0.0,
            peak_value=self.learning_rate,
            warmup_steps=self.warmup_steps,
            decay_steps=max(self.decay_steps, self.warmup_steps + 1),
            end_value=self.learning_rate * 0.1,
        )
        if self.name == "adamw":
            core = optax.adamw(schedule, weight_decay=self.weight_decay)
        else:
            core = optax.chain(
                optax.add_decayed_weights(self.weight_decay),
                optax.sgd(schedule, momentum=self.momentum, nesterov=True),
            )
        return optax.chain(optax.clip_by_global_norm(self.clip_norm), core)


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    game: GameConfig = GameConfig()
    network: network_lib.NetworkConfig = network_lib.NetworkConfig()
    search: search_lib.SearchConfig = search_lib.SearchConfig()
    optimizer: OptimizerConfig = OptimizerConfig()
    selfplay_games: int = 256
    plies_per_iteration: int = 4
    replay_capacity: int = 20_000
    min_replay: int = 512  # no training until the buffer holds this many positions
    seed: int = 0

    def __post_init__(self):
        if self.selfplay_games < 1 or self.plies_per_iteration < 1:
            raise ValueError("selfplay_games and plies_per_iteration must be at least 1")


PRESETS = {
    # Tests and smoke runs: compiles in seconds, learns little.
    "tiny": TrainConfig(
        network=network_lib.NetworkConfig(preset="tiny"),
        search=search_lib.SearchConfig(num_simulations=4, max_considered_actions=4),
        optimizer=OptimizerConfig(batch_size=32, steps_per_iteration=2, warmup_steps=1),
        selfplay_games=16,
        plies_per_iteration=4,
        replay_capacity=2_000,
        min_replay=32,
    ),
    # A laptop CPU (the default).
    "cpu": TrainConfig(),
    # A GPU or TPU: many more games in flight, a bigger network in bfloat16.
    "accelerator": TrainConfig(
        network=network_lib.NetworkConfig(preset="large", compute_dtype="bfloat16"),
        search=search_lib.SearchConfig(num_simulations=64, max_considered_actions=16),
        optimizer=OptimizerConfig(batch_size=1024, steps_per_iteration=16),
        selfplay_games=2048,
        plies_per_iteration=16,
        replay_capacity=1_000_000,
        min_replay=20_000,
    ),
}


@chex.dataclass(frozen=True)
class TrainState:
    params: chex.ArrayTree
    opt_state: chex.ArrayTree
    selfplay: selfplay.SelfPlayState
    replay: replay_lib.ReplayBuffer
    iteration: chex.Array  # int32 iterations done
    updates: chex.Array  # int32 optimizer steps taken


def loss_fn(net, params, obs, policy_target, value_target):
    """Cross-entropy to the search policy plus squared error to the outcome; with metrics."""
    logits, value = network_lib.apply(net, params, obs)
    policy_loss = optax.softmax_cross_entropy(logits, policy_target).mean()
    value_loss = jnp.mean((value - value_target) ** 2)
    log_probs = jax.nn.log_softmax(logits)
    entropy = -jnp.sum(jnp.exp(log_probs) * log_probs, axis=-1).mean()
    decisive = value_target != 0
    right = (jnp.sign(value) == jnp.sign(value_target)) & decisive
    accuracy = right.sum() / jnp.maximum(decisive.sum(), 1)
    metrics = {
        "policy_loss": policy_loss,
        "value_loss": value_loss,
        "policy_entropy": entropy,
        "value_accuracy": accuracy,
    }
    return policy_loss + value_loss, metrics


def make_train_step(net, optimizer: optax.GradientTransformation):
    """train_step(params, opt_state, obs, policy, value) -> (params, opt_state, metrics): one
    optimizer step on a minibatch (obs float32[M, ...], policy float32[M, A], value [M])."""

    def train_step(params, opt_state, obs, policy, value):
        grads, metrics = jax.grad(lambda p: loss_fn(net, p, obs, policy, value), has_aux=True)(
            params
        )
        changes, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, changes), opt_state, metrics

    return train_step


def scan_steps(step, carry, xs):
    """`jax.lax.scan(step, carry, xs)` for a sequence of optimizer steps, fast on every backend.

    XLA:CPU compiles the backward convolutions of a while-loop body to a slow generic loop
    (0.05x the same step jitted alone, `bench.py --sgd-loop`); unrolled, the steps use the fast
    kernels. So on CPU the steps are unrolled when traced; `lax.scan(unroll=True)` would not do
    for one step, which it still compiles as a loop (PPO with one epoch ran many times slower).
    Accelerators keep the loop (shorter compile, same speed)."""
    length = jax.tree.leaves(xs)[0].shape[0]
    if jax.default_backend() != "cpu" or length == 0:
        return jax.lax.scan(step, carry, xs)
    outputs = []
    for index in range(length):  # unrolled while tracing: one compiled program, no host loop
        carry, output = step(carry, jax.tree.map(lambda x, i=index: x[i], xs))
        outputs.append(output)
    return carry, jax.tree.map(lambda *rows: jnp.stack(rows), *outputs)


def make_iteration(config: TrainConfig, game: Game | None = None, mesh=None):
    """(init(key) -> TrainState, iteration(state, key) -> (TrainState, metrics)).

    With a `mesh` (hexjax.sharding.batch_mesh()), minibatches are split over its devices; place
    the state with `place(state, mesh)` and jit with `jit_iteration`."""
    game = game or config.game.make()
    if mesh is not None:
        sharding.check_divisible("selfplay_games", config.selfplay_games, mesh)
        sharding.check_divisible("optimizer.batch_size", config.optimizer.batch_size, mesh)
        sharding.check_divisible("replay_capacity", config.replay_capacity, mesh)
    net = network_lib.make_network(config.network, game.num_actions)
    optimizer = config.optimizer.make()
    search = search_lib.make_search(game, net, config.search)
    batch_size = config.optimizer.batch_size
    train_step = make_train_step(net, optimizer)

    def init(key: jax.Array) -> TrainState:
        param_key, games_key = jax.random.split(key)
        params = network_lib.init_params(net, param_key, game.observation_shape)
        return TrainState(
            params=params,
            opt_state=optimizer.init(params),
            selfplay=selfplay.init_selfplay(game, games_key, config.selfplay_games),
            replay=replay_lib.init_buffer(game, config.replay_capacity),
            iteration=jnp.int32(0),
            updates=jnp.int32(0),
        )

    def sgd_step(carry, key):
        params, opt_state, buffer, updates = carry
        obs, policy, value = replay_lib.sample(buffer, key, batch_size, game)
        if mesh is not None:
            split = sharding.minibatch_sharding(mesh)
            obs, policy, value = jax.lax.with_sharding_constraint((obs, policy, value), split)
        new_params, new_opt_state, metrics = train_step(params, opt_state, obs, policy, value)
        # Until the buffer holds enough positions, the step is computed and discarded.
        ready = buffer.size >= config.min_replay
        keep = lambda new, old: jax.tree.map(lambda a, b: jnp.where(ready, a, b), new, old)  # noqa: E731
        carry = (
            keep(new_params, params),
            keep(new_opt_state, opt_state),
            buffer,
            updates + ready.astype(jnp.int32),
        )
        return carry, metrics

    def iteration(state: TrainState, key: jax.Array):
        play_key, train_key = jax.random.split(key)
        # SELF-PLAY
        games, trajectory = selfplay.play(
            game, search, state.params, play_key, state.selfplay, config.plies_per_iteration
        )
        games, rows, value, ready = selfplay.settle(games, trajectory, config.search.discount)
        buffer = replay_lib.add(state.replay, rows.obs, rows.policy, value, ready)
        # TRAINING
        keys = jax.random.split(train_key, config.optimizer.steps_per_iteration)
        carry = (state.params, state.opt_state, buffer, state.updates)
        (params, opt_state, buffer, updates), train_metrics = scan_steps(sgd_step, carry, keys)
        # METRICS
        finished_games = trajectory.done.sum()
        first_wins = (trajectory.done & (trajectory.outcome[..., 0] > 0)).sum()
        draws = (trajectory.done & (trajectory.outcome[..., 0] == 0)).sum()
        per_game = jnp.maximum(finished_games, 1)
        metrics = {
            **jax.tree.map(jnp.mean, train_metrics),
            "games_finished": finished_games,
            "game_length": ready.sum() / per_game,
            "first_player_win_rate": first_wins / per_game,
            "draw_rate": draws / per_game,
            "positions": jnp.int32(config.selfplay_games * config.plies_per_iteration),
            "replay_size": buffer.size,
            "updates": updates,
        }
        new_state = state.replace(
            params=params,
            opt_state=opt_state,
            selfplay=games,
            replay=buffer,
            iteration=state.iteration + 1,
            updates=updates,
        )
        return new_state, metrics

    return init, iteration


def place(state, mesh, shardings=sharding.state_shardings):
    """Put a training state on the mesh's devices, laid out by `shardings(state, mesh)`
    (default: a TrainState's games and replay split, the rest replicated)."""
    return jax.device_put(state, shardings(state, mesh))


def jit_iteration(iteration, state, mesh=None, shardings=sharding.state_shardings):
    """`iteration` jitted once; with a mesh, its state keeps the layout of `place`."""
    if mesh is None:
        return jax.jit(iteration)
    layout = shardings(state, mesh)
    replicated = sharding.replicated(mesh)
    jitted = jax.jit(iteration, in_shardings=(layout, replicated), out_shardings=(layout, None))
    # Keys made on one device (e.g. restored) are copied to all before the call.
    return lambda state, key: jitted(state, jax.device_put(key, replicated))
