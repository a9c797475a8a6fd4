"""One jitted AlphaZero iteration: self-play with search, value targets, replay, K SGD steps.

`make_iteration(config, game)` returns `(init, iteration)`: `init(key) -> TrainState` and a pure
`iteration(state, key) -> (state, metrics)` to be jitted once by the caller. Inside an
iteration everything stays on the device: `plies_per_iteration` plies of `selfplay_games`
games (lax.scan), finished games' positions into the replay buffer, then `steps_per_iteration`
optimizer steps (lax.scan) on minibatches drawn from it under random symmetries.
"""

from __future__ import annotations

import dataclasses

import chex
import jax
import jax.numpy as jnp
import numpy as np
import optax

from hexjax import sharding
from hexjax.alphazero import network as network_lib
from hexjax.alphazero import replay as replay_lib
from hexjax.alphazero import search as search_lib
from hexjax.alphazero import selfplay
from hexjax.alphazero.config import TrainConfig
from hexjax.alphazero.optimizer import scan_steps
from hexjax.games import Game, tree_where


@chex.dataclass(frozen=True)
class TrainState:
    params: chex.ArrayTree
    opt_state: chex.ArrayTree
    selfplay: selfplay.SelfPlayState
    replay: replay_lib.ReplayBuffer
    iteration: chex.Array  # int32 iterations done
    updates: chex.Array  # int32 optimizer steps taken


# The auxiliary losses' weights beside the policy's and value's 1 (KataGo's choices: the
# opponent's reply policy 0.15, the ownership 1.5 per cell on average); the draw's binary
# cross-entropy 0.5, as much pull as the value's squared error has at its usual size.
REPLY_WEIGHT = 0.15
OWNERSHIP_WEIGHT = 1.5
DRAW_WEIGHT = 0.5


def _targeted_cross_entropy(logits, target):
    """Mean cross-entropy over the rows that have a target (all-zero rows have none)."""
    cross_entropy = optax.softmax_cross_entropy(logits, target)
    return cross_entropy.sum() / jnp.maximum(target.sum(), 1.0)


def loss_fn(net, params, obs, policy_target, value_target, some_without_policy=False,
            reply_target=None, ownership_target=None, draw_target=None):  # fmt: skip
    """Cross-entropy to the search policy plus squared error to the outcome; with metrics.
    `some_without_policy`: rows whose policy target is all zeros (a cheap search's, under
    playout cap randomization) are left out of the policy loss's mean. With the auxiliary
    heads' targets (float32[M, A] reply policies, zeros where none; float32[M, n * n] owners;
    float32[M] drawn games), their weighted losses are added."""
    if reply_target is None and ownership_target is None and draw_target is None:
        logits, value = network_lib.apply(net, params, obs)
    else:
        logits, value, aux = network_lib.apply_aux(net, params, obs)
    if some_without_policy:
        policy_loss = _targeted_cross_entropy(logits, policy_target)
    else:
        policy_loss = optax.softmax_cross_entropy(logits, policy_target).mean()
    value_loss = jnp.mean((value - value_target) ** 2)
    total = policy_loss + value_loss
    aux_losses = {}
    if reply_target is not None:
        aux_losses["reply_loss"] = _targeted_cross_entropy(aux["reply"], reply_target)
        total += REPLY_WEIGHT * aux_losses["reply_loss"]
    if ownership_target is not None:
        aux_losses["ownership_loss"] = jnp.mean((aux["ownership"] - ownership_target) ** 2)
        total += OWNERSHIP_WEIGHT * aux_losses["ownership_loss"]
    if draw_target is not None:
        draw_loss = optax.sigmoid_binary_cross_entropy(aux["draw"], draw_target)
        aux_losses["draw_loss"] = draw_loss.mean()
        total += DRAW_WEIGHT * aux_losses["draw_loss"]
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
        # How much the outputs differ between positions: 0 when the heads no longer see the
        # board (every unit of a dense head's ReLU dead), a state a run does not leave.
        "output_spread": jnp.std(log_probs, axis=0).mean() + jnp.std(value),
        **aux_losses,
    }
    return total, metrics


def make_train_step(net, optimizer: optax.GradientTransformation, some_without_policy=False):
    """train_step(params, opt_state, obs, policy, value) -> (params, opt_state, metrics): one
    optimizer step on a minibatch (obs float32[M, ...], policy float32[M, A], value [M], and
    the auxiliary targets where the network has those heads); `some_without_policy` as in
    `loss_fn`."""

    def train_step(params, opt_state, obs, policy, value, reply=None, ownership=None, drawn=None):
        def loss(p):
            return loss_fn(net, p, obs, policy, value, some_without_policy, reply, ownership, drawn)

        grads, metrics = jax.grad(loss, has_aux=True)(params)
        changes, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, changes), opt_state, metrics

    return train_step


# The sizes split over devices, which a device count must divide.
SPLIT_SIZES = ("selfplay_games", "optimizer.batch_size", "replay_capacity")


def make_iteration(config: TrainConfig, game: Game | None = None, mesh=None):
    """(init(key) -> TrainState, iteration(state, key) -> (TrainState, metrics)).

    With a `mesh` (hexjax.sharding.batch_mesh()), minibatches are split over its devices; place
    the state with `sharding.place(state, mesh, state_shardings)` and jit with
    `sharding.jit_iteration`."""
    game = game or config.game.make()
    if mesh is not None:
        sharding.check_sizes(config, SPLIT_SIZES, mesh)
    net = network_lib.make_network(config.network, game.num_actions)
    optimizer = config.optimizer.make()
    plays = [_self_play(config, game, net, count) for _, count in config.simulation_stages]
    starts = jnp.asarray([start for start, _ in config.simulation_stages], jnp.int32)
    sgd_step = _make_sgd_step(config, game, make_train_step(net, optimizer, config.capped), mesh)
    init = _make_init(game, net, optimizer, config)

    def iteration(state: TrainState, key: jax.Array):
        play_key, train_key = jax.random.split(key)
        # SELF-PLAY, at the simulation stage the iteration count has reached
        if len(plays) == 1:
            games, trajectory, first_moves = plays[0](state.params, play_key, state.selfplay)
        else:
            stage = jnp.sum(state.iteration >= starts) - 1
            games, trajectory, first_moves = jax.lax.switch(
                stage, plays, state.params, play_key, state.selfplay
            )
        games, rows, value, ready = selfplay.settle(
            games, trajectory, config.search.discount, config.search.draw_value,
            config.root_value_share, replies=config.network.reply_head,
            draws=config.network.draw_head,
        )  # fmt: skip
        buffer = replay_lib.add(state.replay, rows.obs, rows.policy, value, ready, reply=rows.reply,
                                ownership=rows.ownership, drawn=rows.drawn,
                                surprise=rows.surprise)  # fmt: skip
        # TRAINING
        keys = jax.random.split(train_key, config.steps_per_iteration)
        # The buffer stays as it is over the steps: its draw weights once for all.
        draws = (buffer, replay_lib.draw_weights(buffer, config.surprise_share))
        carry = (state.params, state.opt_state, draws, state.updates)
        (params, opt_state, (buffer, _), updates), train_metrics = scan_steps(sgd_step, carry, keys)
        # METRICS: a finished game's positions are ready, one a ply
        metrics = {
            **jax.tree.map(jnp.mean, train_metrics),
            **selfplay.game_statistics(trajectory.done, trajectory.outcome[..., 0], ready.sum()),
            "opening_entropy": selfplay.opening_entropy(first_moves, game.num_actions),
            "positions": jnp.int32(config.selfplay_games * config.plies_per_iteration),
            "replay_size": buffer.size,
            "updates": updates,
            **_surprise_metrics(rows.surprise, ready),
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


def _make_sgd_step(config: TrainConfig, game: Game, train_step, mesh):
    """sgd_step(carry, key) -> (carry, metrics): one optimizer step on a minibatch of the
    replay, scanned over an iteration's keys; carry (params, opt_state, (buffer, its draw
    weights), updates)."""
    batch_size = config.optimizer.batch_size

    def sgd_step(carry, key):
        params, opt_state, (buffer, weights), updates = carry
        batch = replay_lib.sample(buffer, key, batch_size, game, config.surprise_share, weights)
        if mesh is not None:
            batch = jax.lax.with_sharding_constraint(batch, sharding.minibatch_sharding(mesh))
        new_params, new_opt_state, metrics = train_step(
            params, opt_state, batch.obs, batch.policy, batch.value, batch.reply,
            batch.ownership, batch.drawn,
        )  # fmt: skip
        # Until the buffer holds enough positions, the step is computed and discarded.
        ready = buffer.size >= config.min_replay
        carry = (
            tree_where(ready, new_params, params),
            tree_where(ready, new_opt_state, opt_state),
            (buffer, weights),
            updates + ready.astype(jnp.int32),
        )
        return carry, metrics

    return sgd_step


def _surprise_metrics(surprise, ready) -> dict:
    """The finished positions' mean policy surprise (how much search still adds to the
    network), where the trajectory keeps it; else nothing."""
    if surprise is None:
        return {}
    return {"policy_surprise": (surprise * ready).sum() / jnp.maximum(ready.sum(), 1)}


def _self_play(config: TrainConfig, game: Game, net, simulations: int):
    """play(params, key, selfplay state) -> selfplay.play's result, searching with
    `simulations` (the full search's, with playout caps)."""
    search_config = dataclasses.replace(config.search, num_simulations=simulations)
    if config.capped:
        search = search_lib.make_capped_search(
            game, net, search_config, config.full_search_share, config.cheap_simulations
        )
    else:
        search = search_lib.make_search(game, net, search_config)

    owners = game.winning_line if config.ownership_target == "winning_line" else None

    def play(params, key, state):
        return selfplay.play(
            game, search, params, key, state, config.plies_per_iteration, config.opening_plies,
            owners,
        )  # fmt: skip

    return play


def _make_init(game: Game, net, optimizer, config: TrainConfig):
    """init(key) -> TrainState: fresh network, optimizer state, games in flight, empty replay."""

    def init(key: jax.Array) -> TrainState:
        param_key, games_key = jax.random.split(key)
        params = network_lib.init_params(net, param_key, game.observation_shape)
        return TrainState(
            params=params,
            opt_state=optimizer.init(params),
            selfplay=selfplay.init_selfplay(
                game,
                games_key,
                config.selfplay_games,
                config.opening_plies,
                root_values=config.root_value_share > 0,
                final_boards=config.network.ownership_head,
                surprises=config.surprise_share > 0,
            ),  # fmt: skip
            replay=replay_lib.init_buffer(
                game,
                config.replay_capacity,
                reply=config.network.reply_head,
                ownership=config.network.ownership_head,
                drawn=config.network.draw_head,
                surprise=config.surprise_share > 0,
            ),
            iteration=jnp.int32(0),
            updates=jnp.int32(0),
        )

    return init


def state_shardings(state, mesh: sharding.Mesh):
    """A pytree of NamedShardings shaped like the TrainState `state`: games in flight, their
    pending positions and ply counters split along the game axis; the replay buffer along its
    rows (each device keeps capacity / devices rows); parameters, optimizer state and counters
    replicated."""
    replicated = sharding.NamedSharding(mesh, sharding.PartitionSpec())
    first = sharding.NamedSharding(mesh, sharding.PartitionSpec(sharding.AXIS))

    def like(tree, sharding):
        return jax.tree.map(lambda _: sharding, tree)

    scalars = lambda tree: jax.tree.map(  # noqa: E731
        lambda x: replicated if np.ndim(x) == 0 else first, tree
    )
    return state.replace(
        params=like(state.params, replicated),
        opt_state=like(state.opt_state, replicated),
        selfplay=selfplay.selfplay_shardings(state.selfplay, mesh),
        replay=scalars(state.replay),
        iteration=replicated,
        updates=replicated,
    )
