"""Self-play throughput: hexjax's self-play against the same setup built from pgx + mctx.

    python experiments/bench.py --games selfplay      # (bench.py calls this module)

Both sides play Hex 11x11 (with pgx's swap move, so the rules match), `batch` games at once,
Gumbel MuZero with `simulations` simulations and the same policy-value ResNet (hexjax's, 32
channels x 2 blocks by default, same initial parameters). The peer is the straightforward loop
of pgx's AlphaZero example: observe, search, step, reset finished games with `jnp.where`. hexjax
runs `hexjax.selfplay.play`, which also records every position and policy target (the peer
records nothing, which favours it). Rates are positions (plies of one game) per second.

With `--cpu-devices N` (bench.py) the CPU is split into N XLA devices, as the trainer does by
default, and both sides also run with the games shared out among them: hexjax with the
trainer's sharding, pgx + mctx with `jax.pmap` over the devices as pgx's AlphaZero example
does. Each is compared with its like: one device with one, N with N.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import mctx

import hexjax
from hexjax import sharding
from hexjax.alphazero import network as network_lib
from hexjax.alphazero import selfplay
from hexjax.alphazero.search import SearchConfig, make_search


def hexjax_selfplay(game, net, config: SearchConfig, batch: int, plies: int, mesh=None):
    """hexjax's self-play; with a mesh, the games are split over its devices (the same
    sharding the trainer uses) and the parameters replicated."""
    search = make_search(game, net, config)

    def run(params, key, state):
        state, trajectory, _ = selfplay.play(game, search, params, key, state, plies)
        return trajectory.policy.sum() + state.plies.sum()  # keep the work alive

    state = selfplay.init_selfplay(game, jax.random.key(0), batch)
    jitted = jax.jit(run)
    if mesh is None:
        return lambda params, key: jitted(params, key, state)
    state = jax.device_put(state, selfplay.selfplay_shardings(state, mesh))
    replicated = sharding.replicated(mesh)
    return lambda params, key: jitted(
        jax.device_put(params, replicated), jax.device_put(key, replicated), state
    )


def pgx_selfplay(env, net, config: SearchConfig, batch: int, plies: int, devices=None):
    """The peer's loop; with `devices`, `jax.pmap` over them, batch / len(devices) games
    each, as pgx's AlphaZero example spreads its self-play."""
    if devices is not None:
        count = len(devices)
        one = _pgx_run(env, net, config, batch // count, plies)
        spread = jax.pmap(one, in_axes=(None, 0), devices=devices)
        return lambda params, key: spread(params, jax.random.split(key, count)).sum()
    return jax.jit(_pgx_run(env, net, config, batch, plies))


def _pgx_run(env, net, config: SearchConfig, batch: int, plies: int):
    def recurrent_fn(params, key, action, state):
        del key
        mover = state.current_player
        state = jax.vmap(env.step)(state, action)
        logits, value = network_lib.apply(net, params, state.observation.astype(jnp.float32))
        logits = jnp.where(state.legal_action_mask, logits, jnp.finfo(jnp.float32).min)
        reward = state.rewards[jnp.arange(state.rewards.shape[0]), mover]
        value = jnp.where(state.terminated, 0.0, value)
        discount = jnp.where(state.terminated, 0.0, -1.0)
        output = mctx.RecurrentFnOutput(
            reward=reward, discount=discount, prior_logits=logits, value=value
        )
        return output, state

    def run(params, key):
        init_key, play_key = jax.random.split(key)
        state = jax.vmap(env.init)(jax.random.split(init_key, batch))

        def ply(state, k):
            search_key, reset_key = jax.random.split(k)
            logits, value = network_lib.apply(net, params, state.observation.astype(jnp.float32))
            root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=state)
            out = mctx.gumbel_muzero_policy(
                params,
                search_key,
                root,
                recurrent_fn,
                num_simulations=config.num_simulations,
                invalid_actions=~state.legal_action_mask,
                max_num_considered_actions=config.max_considered_actions,
            )
            state = jax.vmap(env.step)(state, out.action)
            fresh = jax.vmap(env.init)(jax.random.split(reset_key, batch))
            done = state.terminated
            state = jax.tree.map(
                lambda f, s: jnp.where(done.reshape(done.shape + (1,) * (s.ndim - 1)), f, s),
                fresh,
                state,
            )
            return state, out.action_weights.sum()

        state, kept = jax.lax.scan(ply, state, jax.random.split(play_key, plies))
        return kept.sum() + state.current_player.sum()

    return run


PEER = "pgx+mctx"


def peers(names) -> dict[str, str]:
    """Each hexjax engine's like-for-like peer: the pgx + mctx engine on as many devices."""
    return {name: name.replace("hexjax", PEER) for name in names if name.startswith("hexjax")}


def engines(
    batch: int, simulations: int, plies: int, channels: int = 32, blocks: int = 2, spread=True
):
    """[(name, run, params)]: the self-play loops, compiled, with their parameters; with
    `spread` and several CPU devices, also both loops with the games shared out among them."""
    import pgx

    config = SearchConfig(num_simulations=simulations, max_considered_actions=16)
    game = hexjax.make("hex", size=11, swap=True)
    env = pgx.make("hex")
    assert env.num_actions == game.num_actions
    shape = network_lib.NetworkConfig(channels=channels, blocks=blocks)
    net = network_lib.make_network(shape, game.num_actions)
    ours = network_lib.init_params(net, jax.random.key(0), game.observation_shape)
    theirs = network_lib.init_params(net, jax.random.key(0), env.observation_shape)
    result = [
        ("hexjax", hexjax_selfplay(game, net, config, batch, plies), ours),
        (PEER, pgx_selfplay(env, net, config, batch, plies), theirs),
    ]
    cpus = jax.devices("cpu")
    if spread and len(cpus) > 1 and jax.default_backend() == "cpu":
        mesh = sharding.batch_mesh(cpus)
        ours_spread = hexjax_selfplay(game, net, config, batch, plies, mesh)
        theirs_spread = pgx_selfplay(env, net, config, batch, plies, cpus)
        result.append((f"hexjax, {len(cpus)} CPU devices", ours_spread, ours))
        result.append((f"{PEER}, {len(cpus)} CPU devices", theirs_spread, theirs))
    for _, run, params in result:
        jax.block_until_ready(run(params, jax.random.key(0)))  # compile and warm up
    return result
