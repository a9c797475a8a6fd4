"""Policy surprise weighting: each position's surprise (the KL from the network's prior to the
search's policy) against a plain reference, the prior the searches hand back, the replay's
weighted draws against their expected frequencies, and the iteration that keeps and uses them."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support.configs import iterate_compiled_once, tiny_config

import hexjax
from hexjax.alphazero import network as network_lib
from hexjax.alphazero import replay as replay_lib
from hexjax.alphazero import search as search_lib
from hexjax.alphazero import selfplay
from hexjax.alphazero.config import TrainConfig
from hexjax.alphazero.iteration import make_iteration
from hexjax.training import config_io


def _kl(policy, logits):
    """KL(policy || softmax(logits)) in plain numpy, 0 log 0 = 0."""
    logits = np.asarray(logits, np.float64)
    log_prior = logits - logits.max() - np.log(np.exp(logits - logits.max()).sum())
    return sum(p * (np.log(p) - q) for p, q in zip(policy, log_prior, strict=True) if p > 0)


def test_the_surprise_is_the_kl_from_the_prior_to_the_search_policy():
    masked = float(search_lib.MASKED)
    policy = np.array(
        [
            [0.5, 0.5, 0.0, 0.0],  # the search agrees with a prior split between two moves
            [0.0, 1.0, 0.0, 0.0],  # the search found the move the prior all but ignored
            [0.0, 0.0, 0.0, 0.0],  # a cheap search's row: no target, no surprise
            [0.2, 0.3, 0.5, 0.0],  # the last move illegal (masked)
        ],
        np.float32,
    )
    logits = np.array(
        [[1.0, 1.0, -30.0, -30.0], [4.0, -2.0, 0.0, 1.0], [0.3, 0.1, 2.0, 0.0],
         [0.0, 1.0, -1.0, masked]],
        np.float32,
    )  # fmt: skip
    surprise = np.asarray(selfplay.policy_surprise(jnp.asarray(policy), jnp.asarray(logits)))
    expected = [_kl(p, q) for p, q in zip(policy, logits, strict=True)]
    np.testing.assert_allclose(surprise, expected, rtol=1e-5, atol=1e-6)
    assert surprise[0] < 1e-6 and surprise[1] > 5 and surprise[2] == 0
    assert np.isfinite(surprise).all()


@pytest.mark.parametrize("capped", [False, True])
def test_a_self_play_search_hands_back_the_network_prior_it_improved_on(capped):
    """Every row's prior is the network's masked logits, the full and the cheap searches' rows
    alike under playout caps."""
    game = hexjax.make("hex", size=4)
    net = network_lib.make_network(network_lib.NetworkConfig("tiny"), game.num_actions)
    params = network_lib.init_params(net, jax.random.key(0), game.observation_shape)
    config = search_lib.SearchConfig(num_simulations=4, max_considered_actions=4)
    if capped:
        search = search_lib.make_capped_search(game, net, config, 0.5, 2)
    else:
        search = search_lib.make_search(game, net, config)
    states = selfplay.new_games(game, jax.random.key(1), 6, opening_plies=3)
    result = jax.jit(search)(params, jax.random.key(2), states)
    logits, _ = search_lib.evaluate(game, net, params, states, config)
    np.testing.assert_allclose(result.prior_logits, logits, rtol=1e-6)


def _buffer(surprise, size):
    game = hexjax.make("hex", size=3)
    buffer = replay_lib.init_buffer(game, len(surprise), surprise=True)
    return game, buffer.replace(
        surprise=jnp.asarray(surprise, jnp.float32),
        size=jnp.int32(size),
        value=jnp.arange(len(surprise), dtype=jnp.float32),
    )


def test_weighted_draws_follow_half_uniform_half_surprise_over_the_filled_rows():
    """Four rows filled of six (the two empty ones' stale surprise must not count): with share
    0.5, row i comes 0.5 / 4 + 0.5 x surprise_i / 4 of the time."""
    _, buffer = _buffer([0.0, 0.0, 3.0, 1.0, 100.0, 100.0], size=4)
    rows = np.asarray(replay_lib.surprising_rows(buffer, jax.random.key(3), 200_000, 0.5))
    frequency = np.bincount(rows, minlength=6) / rows.size
    np.testing.assert_allclose(frequency, [0.125, 0.125, 0.5, 0.25, 0.0, 0.0], atol=0.006)


def test_weighted_draws_are_uniform_while_nothing_has_surprised():
    _, buffer = _buffer([0.0] * 5, size=5)
    rows = np.asarray(replay_lib.surprising_rows(buffer, jax.random.key(4), 100_000, 0.5))
    np.testing.assert_allclose(np.bincount(rows, minlength=5) / rows.size, [0.2] * 5, atol=0.006)


def test_a_minibatch_under_surprise_weighting_takes_the_rows_it_drew():
    """`sample` with a share draws its rows by surprise: here one row of three is all but
    certain (share 0.9, the others unsurprising), and its value comes back that often."""
    game, buffer = _buffer([0.0, 50.0, 0.0], size=3)
    batch = replay_lib.sample(buffer, jax.random.key(5), 4000, game, surprise_share=0.9)
    share_of_row_1 = float(np.mean(np.asarray(batch.value) == 1.0))
    assert share_of_row_1 == pytest.approx(0.9 + 0.1 / 3, abs=0.02)


def test_weights_drawn_once_for_an_iteration_give_each_minibatch_the_same_rows():
    """The iteration computes the buffer's draw weights once for its optimizer steps; a
    minibatch drawn with them is the one drawn without (same key), and a share of 0 needs none."""
    game, buffer = _buffer([0.5, 2.0, 0.0, 7.0, 1.0], size=4)
    weights = replay_lib.draw_weights(buffer, 0.5)
    assert float(weights[-1]) == pytest.approx(1.0)
    for seed in range(3):
        key = jax.random.key(seed)
        alone = replay_lib.sample(buffer, key, 64, game, surprise_share=0.5)
        shared = replay_lib.sample(buffer, key, 64, game, 0.5, weights)
        np.testing.assert_array_equal(alone.value, shared.value)
        np.testing.assert_array_equal(alone.obs, shared.obs)
    assert replay_lib.draw_weights(buffer, 0.0) is None


def test_the_iteration_keeps_each_position_s_surprise_and_compiles_once():
    """Under playout caps, so that the cheap searches' rows (no policy target) show up: their
    surprise is exactly 0; the full searches' rows are surprised by an untrained network."""
    config = tiny_config(surprise_share=0.5, full_search_share=0.5, cheap_simulations=2)
    state, metrics = iterate_compiled_once(config, iterations=5)
    size = int(state.replay.size)
    surprise = np.asarray(state.replay.surprise)[:size]
    has_target = np.asarray(state.replay.policy)[:size].sum(axis=-1) > 0
    assert has_target.any() and not has_target.all()
    assert (surprise[~has_target] == 0).all()
    assert (surprise[has_target] > 0).all()
    assert 0 < metrics["policy_surprise"] < 10


def test_surprise_share_is_checked_and_a_stored_config_without_it_reads_as_off():
    for share in (-0.1, 1.0):
        with pytest.raises(ValueError, match="surprise_share"):
            tiny_config(surprise_share=share)
    stored = config_io.to_dict(tiny_config())
    del stored["surprise_share"]
    config = config_io.from_dict(TrainConfig, stored)
    assert config.surprise_share == 0
    init, iteration = make_iteration(dataclasses.replace(config, surprise_share=0.0))
    state = init(jax.random.key(0))
    _, metrics = jax.eval_shape(iteration, state, jax.random.key(1))  # traced, not run
    assert state.replay.surprise is None and state.selfplay.pending.surprise is None
    assert "policy_surprise" not in metrics
