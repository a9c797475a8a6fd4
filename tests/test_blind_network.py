"""A network whose heads no longer see the board (a dense head's ReLUs all dead, as a Gomoku 9x9
run with global pooling, seed 0, had by its 38th iteration): the loss's output_spread says so,
and the training loop's check warns on it."""

import jax
import jax.numpy as jnp

import hexjax
from hexjax.alphazero.iteration import loss_fn
from hexjax.alphazero.network import NetworkConfig, init_params, make_network
from hexjax.training.loop import blind_network


def _batch(game, rows=32):
    keys = jax.random.split(jax.random.key(1), 2)
    obs = jax.random.bernoulli(keys[0], 0.3, (rows, *game.observation_shape)).astype(jnp.float32)
    policy = jax.nn.softmax(jax.random.normal(keys[1], (rows, game.num_actions)))
    return obs, policy, jnp.where(jnp.arange(rows) % 2 == 0, 1.0, -1.0)


def test_dead_head_relus_make_the_outputs_blind_and_get_no_gradient():
    game = hexjax.make("gomoku", size=7)
    net = make_network(NetworkConfig(preset="tiny"), game.num_actions)
    params = init_params(net, jax.random.key(0), game.observation_shape)
    obs, policy, value = _batch(game)
    _, metrics = loss_fn(net, params, obs, policy, value)
    assert metrics["output_spread"] > 1e-3
    # The dense heads' 1x1 convolutions (policy: Conv_1, value: Conv_2) always negative.
    dead = dict(params)
    for name in ("Conv_1", "Conv_2"):
        dead[name] = {**params[name], "bias": params[name]["bias"] - 1e3}
    grads, metrics = jax.grad(lambda p: loss_fn(net, p, obs, policy, value), has_aux=True)(dead)
    assert float(metrics["output_spread"]) < 1e-6
    for name in ("Conv_1", "Conv_2"):
        assert not jnp.any(grads[name]["kernel"]) and not jnp.any(grads[name]["bias"])


def test_the_loop_calls_a_network_blind_only_once_it_trains():
    assert blind_network({"updates": 8, "output_spread": 0.0})
    assert not blind_network({"updates": 8, "output_spread": 0.02})
    assert not blind_network({"updates": 0, "output_spread": 0.0})  # replay still filling
    assert not blind_network({"updates": 8})  # the baselines do not measure it
