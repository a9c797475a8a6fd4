"""Optimizer steps inside one jit on XLA:CPU: a rolled `lax.scan`, an unrolled one, and a
jitted step called from Python (the reference), on the default Hex 7x7 network and batch.

    python experiments/bench.py --sgd-loop      # (bench.py calls this module)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from hexjax.alphazero import network as network_lib
from hexjax.alphazero.config import PRESETS
from hexjax.alphazero.iteration import make_train_step


def engines(steps: int = 8):
    """[(name, run)]: each run(params, opt_state) does `steps` optimizer steps."""
    config = PRESETS["cpu"]
    game = config.game.make()
    net = network_lib.make_network(config.network, game.num_actions)
    optimizer = config.optimizer.make()
    train_step = make_train_step(net, optimizer)
    batch = config.optimizer.batch_size
    keys = jax.random.split(jax.random.key(1), 3)
    obs = jax.random.bernoulli(keys[0], 0.3, (batch, *game.observation_shape)).astype(jnp.float32)
    policy = jax.nn.softmax(jax.random.normal(keys[1], (batch, game.num_actions)))
    value = jnp.sign(jax.random.normal(keys[2], (batch,)))

    def scanned(unroll):
        def run(params, opt_state):
            def body(carry, _):
                params, opt_state, _ = train_step(*carry, obs, policy, value)
                return (params, opt_state), None

            return jax.lax.scan(body, (params, opt_state), None, length=steps, unroll=unroll)[0]

        return jax.jit(run)

    one = jax.jit(lambda p, o: train_step(p, o, obs, policy, value)[:2])

    def python_loop(params, opt_state):
        for _ in range(steps):
            params, opt_state = one(params, opt_state)
        return params, opt_state

    params = network_lib.init_params(net, jax.random.key(0), game.observation_shape)
    state = (params, optimizer.init(params))
    runs = [
        ("jitted step from Python", python_loop),
        ("lax.scan unrolled", scanned(True)),
        ("lax.scan", scanned(False)),
    ]
    for _, run in runs:
        jax.block_until_ready(run(*state))  # compile and warm up
    return runs, state
