"""Playout cap randomization: the capped search against two plain searches, the loss that skips
cheap rows' policies, and the iteration that trains on it."""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from support.configs import iterate_compiled_once, tiny_config
from test_alphazero_search import positions

import hexjax
from hexjax.alphazero import network as network_lib
from hexjax.alphazero.iteration import loss_fn, make_iteration
from hexjax.alphazero.search import SearchConfig, make_capped_search, make_search


def tiny_network(game, seed=0):
    net = network_lib.make_network(network_lib.NetworkConfig(preset="tiny"), game.num_actions)
    return net, network_lib.init_params(net, jax.random.key(seed), game.observation_shape)


@pytest.mark.parametrize("policy", ["gumbel", "puct"])
def test_each_game_gets_exactly_the_full_or_the_cheap_search(policy):
    """Deterministic searches (no Gumbel or root noise) do not depend on the key, so each row of
    the capped search must equal the full search's row or the cheap search's, run apart on the
    whole batch: a quarter of the rows the full one's, with its policy as the target, the rest
    the cheap one's move and value with no policy target."""
    game = hexjax.make("gomoku", size=5, win_length=4)
    net, params = tiny_network(game)
    states = positions(game, 16, plies=3)
    config = SearchConfig(policy=policy, num_simulations=24).deterministic(24)
    capped = jax.jit(make_capped_search(game, net, config, 0.25, cheap_simulations=4))
    full = jax.jit(make_search(game, net, config))
    cheap = jax.jit(make_search(game, net, config.deterministic(4, considered_actions=8)))
    ply = jnp.full(16, 5, jnp.int32)
    got = capped(params, jax.random.key(3), states, ply)
    want_full = full(params, jax.random.key(4), states, ply)
    want_cheap = cheap(params, jax.random.key(5), states, ply)
    has_policy = np.asarray(got.policy).sum(axis=1) > 0.5
    assert has_policy.sum() == 4
    np.testing.assert_allclose(np.asarray(got.policy)[~has_policy], 0.0)
    for rows, want in ((has_policy, want_full), (~has_policy, want_cheap)):
        np.testing.assert_array_equal(np.asarray(got.action)[rows], np.asarray(want.action)[rows])
        np.testing.assert_allclose(
            np.asarray(got.value)[rows], np.asarray(want.value)[rows], atol=1e-5
        )
    np.testing.assert_allclose(
        np.asarray(got.policy)[has_policy], np.asarray(want_full.policy)[has_policy], atol=1e-5
    )
    # A new key draws other games for the full search.
    again = capped(params, jax.random.key(6), states, ply)
    assert not np.array_equal(np.asarray(again.policy).sum(axis=1) > 0.5, has_policy)


def test_rows_without_a_policy_target_leave_the_policy_loss():
    game = hexjax.make("hex", size=4)
    net, params = tiny_network(game)
    keys = jax.random.split(jax.random.key(1), 3)
    obs = jax.random.bernoulli(keys[0], 0.3, (8, *game.observation_shape)).astype(jnp.float32)
    policy = jax.nn.softmax(jax.random.normal(keys[1], (8, game.num_actions)))
    policy = policy.at[::2].set(0.0)  # the cheap rows
    value = jnp.sign(jax.random.normal(keys[2], (8,)))
    _, metrics = loss_fn(net, params, obs, policy, value, some_without_policy=True)
    logits, net_value = network_lib.apply(net, params, obs)
    kept = [optax.softmax_cross_entropy(logits[i], policy[i]) for i in range(1, 8, 2)]
    np.testing.assert_allclose(metrics["policy_loss"], np.mean(kept), rtol=1e-5)
    np.testing.assert_allclose(metrics["value_loss"], np.mean((net_value - value) ** 2), rtol=1e-5)


def test_capped_self_play_trains_and_compiles_once():
    state, metrics = iterate_compiled_once(tiny_config(full_search_share=0.25, cheap_simulations=2))
    assert int(state.updates) > 0
    assert np.isfinite(float(metrics["policy_loss"])) and float(metrics["policy_loss"]) > 0
    size = int(state.replay.size)
    with_policy = np.asarray(state.replay.policy)[:size].sum(axis=1) > 0.5
    # A quarter of each ply's 8 games searched in full: 2 of every 8 rows have a target.
    assert size > 16 and 0.1 < with_policy.mean() < 0.45


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"full_search_share": 0.0}, "full_search_share must be in"),
        ({"full_search_share": 0.01}, "leaves no game with a full search"),
        ({"full_search_share": 0.99}, "leaves no game with a full search"),
        ({"full_search_share": 0.5, "cheap_simulations": 0}, "cheap_simulations"),
    ],
)
def test_playout_caps_that_cannot_run_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        tiny_config(**options)


def test_a_simulation_schedule_runs_each_stage_s_own_search():
    """With "0:2,3:4" the iteration from iteration 0 is the 2-simulation config's, and from
    iteration 3 on the 4-simulation config's, on the same state and key (one compiled program
    switching between them)."""
    scheduled = tiny_config(simulation_schedule="0:2,3:4")
    init, iteration = make_iteration(scheduled)
    chex.clear_trace_counter()
    iteration = jax.jit(chex.assert_max_traces(iteration, n=1))
    state = init(jax.random.key(0))
    fixed = {  # each count's own iteration, compiled once
        count: jax.jit(
            make_iteration(
                tiny_config(search=SearchConfig(num_simulations=count, max_considered_actions=4))
            )[1]
        )
        for count in (2, 4)
    }
    for count, at in ((2, 0), (4, 3)):
        start = state.replace(iteration=jnp.int32(at))
        got, _ = iteration(start, jax.random.key(7))
        want, _ = fixed[count](start, jax.random.key(7))
        chex.assert_trees_all_close(got, want)
        # The other count's iteration differs: the comparison can tell the stages apart.
        unlike, _ = fixed[6 - count](start, jax.random.key(7))
        same = jax.tree.map(lambda a, b: np.array_equal(np.asarray(a), np.asarray(b)), got, unlike)
        assert not all(jax.tree.leaves(same))


@pytest.mark.parametrize("schedule", ["8", "0:8,", "4:8", "0:8,0:16", "0:8,10:0", "0:8,x:16"])
def test_malformed_schedules_are_refused(schedule):
    with pytest.raises(ValueError, match="simulation_schedule"):
        tiny_config(simulation_schedule=schedule)


def test_simulations_per_position_mixes_the_full_and_cheap_searches():
    config = tiny_config(
        search=SearchConfig(num_simulations=32),
        full_search_share=0.25,
        cheap_simulations=8,
        simulation_schedule="0:16,100:32",
    )
    assert config.simulation_stages == ((0, 16), (100, 32))
    assert config.simulations_per_position == 0.25 * 32 + 0.75 * 8
