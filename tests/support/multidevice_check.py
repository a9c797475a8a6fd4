"""Run by tests/test_sharding.py in a fresh process with 4 host CPU devices (XLA_FLAGS must be
set before JAX starts). Prints one JSON line of findings."""

import json
import os
import sys

os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4"
)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/
import hexjax  # noqa: E402
from hexjax import sharding  # noqa: E402
from hexjax.alphazero import network as network_lib  # noqa: E402
from hexjax.alphazero.iteration import (  # noqa: E402
    make_iteration,
    make_train_step,
    state_shardings,
)
from hexjax.evaluation import arena, players  # noqa: E402
from hexjax.sharding import jit_iteration, place  # noqa: E402
from hexjax.training import (
    algorithms,  # noqa: E402
    config_io,  # noqa: E402
)
from support.configs import tiny_config  # noqa: E402


def main():
    config = tiny_config()
    mesh = sharding.batch_mesh()
    findings = {"devices": len(jax.devices())}

    # A 4-device run of the whole iteration.
    init, iteration = make_iteration(config, mesh=mesh)
    state = place(init(jax.random.key(0)), mesh, state_shardings)
    step = jit_iteration(iteration, state, mesh, state_shardings)
    for i in range(5):
        state, metrics = step(state, jax.random.key(i + 1))
    findings["updates"] = int(state.updates)
    findings["finite"] = bool(all(np.isfinite(v) for v in jax.device_get(metrics).values()))
    findings["games_split"] = len(state.selfplay.games.board.sharding.device_set)
    findings["params_replicated"] = state.params["Conv_0"]["kernel"].sharding.is_fully_replicated

    # Optimizer steps on the same minibatch, 1 device against 4 (two: the warmup schedule
    # starts from a learning rate of 0).
    game = config.game.make()
    net = network_lib.make_network(config.network, game.num_actions)
    optimizer = config.optimizer.make()
    params = network_lib.init_params(net, jax.random.key(3), game.observation_shape)
    keys = jax.random.split(jax.random.key(4), 3)
    obs = jax.random.bernoulli(keys[0], 0.3, (32, *game.observation_shape)).astype(jnp.float32)
    policy = jax.nn.softmax(jax.random.normal(keys[1], (32, game.num_actions)))
    value = jnp.sign(jax.random.normal(keys[2], (32,)))
    train_step = jax.jit(make_train_step(net, optimizer))
    single = jax.device_put((params, optimizer.init(params), obs, policy, value), jax.devices()[0])
    one, opt, _ = train_step(*single)
    one, _, _ = train_step(one, opt, *single[2:])
    split = sharding.minibatch_sharding(mesh)
    replicated = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())
    params4 = jax.device_put(params, replicated)
    opt4 = jax.device_put(optimizer.init(params), replicated)
    batch4 = jax.device_put((obs, policy, value), split)
    four, opt4, _ = train_step(params4, opt4, *batch4)
    four, _, _ = train_step(four, opt4, *batch4)
    one, four, params = jax.device_get((one, four, params))
    difference = jax.tree.map(lambda a, b: float(np.max(np.abs(a - b))), one, four)
    findings["max_param_difference"] = max(jax.tree.leaves(difference))
    moved = jax.tree.map(lambda a, b: float(np.max(np.abs(a - b))), one, params)
    findings["max_param_change"] = max(jax.tree.leaves(moved))
    findings["batch_split"] = len(batch4[0].sharding.device_set)

    # The arena split over 4 devices: 16 games, 4 per device. Black forfeits at once, so
    # `first` scores 0 where it is Black (the first half on each device) and 1 elsewhere.
    def suicidal(key, states):
        del key
        return jnp.full(states.current_player.shape, -1)  # out of range: loses at once

    def black_forfeits(key, states):
        moves = players.random_player(None)(key, states)
        return jnp.where(states.current_player == 0, -1, moves)

    hex4 = hexjax.make("hex", size=4)
    scores = jax.jit(
        lambda key: arena.arena(hex4, black_forfeits, black_forfeits, key, 16, 0, mesh=mesh)
    )(jax.random.key(5))
    findings["arena_scores"] = np.asarray(scores).tolist()
    findings["arena_split"] = len(scores.sharding.device_set)
    try:
        arena.arena(hex4, suicidal, suicidal, jax.random.key(0), 12, 0, mesh=mesh)
        findings["arena_indivisible_error"] = None
    except ValueError as error:
        findings["arena_indivisible_error"] = str(error)

    # The arena in chunks of 3 plies plays the same games as in one call, on 4 devices too.
    random, greedy = players.random_player(hex4), players.greedy_player(hex4)
    whole = jax.jit(lambda key: arena.arena_games(hex4, random, greedy, key, 16, 1, mesh=mesh))
    chunked = arena.arena_in_chunks(
        hex4, lambda _: random, lambda _: greedy, 16, 1, mesh=mesh, plies_per_call=3
    )
    reports = []
    games = [
        whole(jax.random.key(7)),
        chunked(None, None, jax.random.key(7), lambda *r: reports.append(r)),
    ]
    findings["arena_chunks_equal"] = all(
        np.array_equal(a, b) for a, b in zip(*(jax.tree.leaves(g) for g in games), strict=True)
    )
    findings["arena_chunk_reports"] = len(reports)

    # The baselines on 4 devices: games (and DQN's replay columns) split, parameters replicated.
    for name in ("dqn", "ppo"):
        trainer = algorithms.get(name)
        baseline = config_io.replace(trainer.presets["tiny"], {"game.size": 4})
        init, iteration = trainer.make_iteration(baseline, None, mesh)
        state = place(init(jax.random.key(0)), mesh, trainer.shardings)
        step = jit_iteration(iteration, state, mesh, trainer.shardings)
        for i in range(6):
            state, metrics = step(state, jax.random.key(i + 1))
        findings[name] = {
            "updates": int(state.updates),
            "finite": bool(all(np.isfinite(v) for v in jax.device_get(metrics).values())),
            "games_split": len(state.games.board.sharding.device_set),
            "params_replicated": state.params["Conv_0"]["kernel"].sharding.is_fully_replicated,
        }
        if name == "dqn":
            findings[name]["replay_split"] = len(state.replay.obs.sharding.device_set)

    # Batches that do not split evenly are refused up front.
    try:
        make_iteration(tiny_config(selfplay_games=6), mesh=mesh)
        findings["indivisible_error"] = None
    except ValueError as error:
        findings["indivisible_error"] = str(error)
    print(json.dumps(findings))


if __name__ == "__main__":
    main()
