"""The jitted iteration end to end on a tiny config; compile once; learning on a fixed batch."""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from support.configs import tiny_config

import hexjax
from hexjax.alphazero import replay
from hexjax.alphazero.iteration import loss_fn, make_iteration
from hexjax.alphazero.network import NetworkConfig, init_params, make_network
from hexjax.alphazero.optimizer import OptimizerConfig
from hexjax.alphazero.search import SearchConfig


@pytest.mark.parametrize("policy", ["gumbel", "puct"])
def test_iterations_end_to_end_and_compile_once(policy):
    config = tiny_config(search=SearchConfig(policy=policy, num_simulations=4), opening_plies=2)
    init, iteration = make_iteration(config)
    chex.clear_trace_counter()  # counts are per function, across parametrised cases
    iteration = jax.jit(chex.assert_max_traces(iteration, n=1))
    state = init(jax.random.key(0))
    first_params = state.params
    for i in range(5):
        state, metrics = iteration(state, jax.random.key(i + 1))
    metrics = jax.device_get(metrics)
    assert set(metrics) >= {
        "policy_loss", "value_loss", "policy_entropy", "value_accuracy", "game_length",
        "first_player_win_rate", "positions", "replay_size", "games_finished", "opening_entropy",
        "output_spread",
    }  # fmt: skip
    assert all(np.isfinite(v) for v in metrics.values())
    assert int(state.iteration) == 5 and int(metrics["positions"]) == 8 * 4
    assert int(state.replay.size) > 16 and int(state.updates) > 0
    changed = jax.tree.map(lambda a, b: bool((a != b).any()), first_params, state.params)
    assert all(jax.tree.leaves(changed))
    assert 4 <= metrics["game_length"] <= 16 or metrics["games_finished"] == 0


def test_root_value_targets_run_and_land_between_outcome_and_search():
    """With root_value_share 1/2 the replay's value targets are no longer only outcomes
    (+-1, or 0 for a draw): each mixes the search's root value in; the iteration still compiles
    once."""
    config = tiny_config(root_value_share=0.5)
    init, iteration = make_iteration(config)
    iteration = jax.jit(iteration)
    state = init(jax.random.key(0))
    for i in range(4):
        state, _ = iteration(state, jax.random.key(i + 1))
    assert state.selfplay.pending.root_value is not None
    size = int(state.replay.size)
    values = np.asarray(state.replay.value)[:size]
    assert size > 0 and np.all(np.abs(values) <= 1.0)
    assert np.mean(np.isin(values, [-1.0, 0.0, 1.0])) < 0.5
    with pytest.raises(ValueError, match="root_value_share"):
        tiny_config(root_value_share=1.5)


def test_no_training_before_the_buffer_is_ready():
    config = tiny_config(min_replay=10_000, replay_capacity=20_000)
    init, iteration = make_iteration(config)
    state = init(jax.random.key(0))
    new, _ = jax.jit(iteration)(state, jax.random.key(1))
    assert int(new.updates) == 0
    same = jax.tree.map(lambda a, b: bool((a == b).all()), state.params, new.params)
    assert all(jax.tree.leaves(same))


def test_loss_falls_on_a_fixed_batch():
    game = hexjax.make("hex", size=4)
    net = make_network(NetworkConfig(preset="tiny"), game.num_actions)
    params = init_params(net, jax.random.key(0), game.observation_shape)
    keys = jax.random.split(jax.random.key(1), 3)
    obs = jax.random.bernoulli(keys[0], 0.3, (64, *game.observation_shape)).astype(jnp.float32)
    policy = jax.nn.softmax(3 * jax.random.normal(keys[1], (64, game.num_actions)))
    value = jnp.sign(jax.random.normal(keys[2], (64,)))
    optimizer = OptimizerConfig(learning_rate=3e-3, warmup_steps=1).make()
    opt_state = optimizer.init(params)

    @jax.jit
    def step(params, opt_state):
        (loss, _), grads = jax.value_and_grad(
            lambda p: loss_fn(net, p, obs, policy, value), has_aux=True
        )(params)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    losses = []
    for _ in range(300):
        params, opt_state, loss = step(params, opt_state)
        losses.append(float(loss))
    best_possible = float(optax.softmax_cross_entropy(jnp.log(policy), policy).mean())
    assert losses[-1] < losses[0] - 0.5
    assert losses[-1] < best_possible + 0.6 * (losses[0] - best_possible)


@pytest.mark.parametrize(("name", "options"), [("hex", {"size": 4}), ("othello", {"size": 6})])
def test_replay_symmetries_move_the_policy_with_the_board(name, options):
    """One stored position: a single stone on cell a, the policy, the reply target and the
    ownership target all on a. Under every sampled symmetry each is still where the stone is."""
    game = hexjax.make(name, **options)
    buffer = replay.init_buffer(game, capacity=4, reply=True, ownership=True)
    obs = np.zeros((1, *game.observation_shape), np.float32)
    cell = 1  # row 0, column 1: each symmetry puts it somewhere else
    obs[0, 0, 1, 0] = 1
    policy = np.zeros((1, game.num_actions), np.float32)
    policy[0, cell] = 1
    owner = np.zeros((1, game.size * game.size), np.int8)
    owner[0, cell] = 1
    buffer = replay.add(
        buffer, jnp.asarray(obs), jnp.asarray(policy), jnp.ones(1), jnp.ones(1, bool),
        reply=jnp.asarray(policy), ownership=jnp.asarray(owner),
    )  # fmt: skip
    batch = jax.jit(replay.sample, static_argnums=(2, 3))(buffer, jax.random.key(0), 64, game)
    stones = np.asarray(batch.obs)[..., :2].sum(axis=-1).reshape(64, -1)
    assert (stones.sum(axis=1) == 1).all()
    for column in (batch.policy, batch.reply, batch.ownership):
        assert (stones.argmax(axis=1) == np.asarray(column).argmax(axis=1)).all()
    assert len(set(stones.argmax(axis=1).tolist())) == len(game.symmetries)  # all were used
    assert (np.asarray(batch.value) == 1).all()
