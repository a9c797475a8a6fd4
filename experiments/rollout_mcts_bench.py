"""Rollout-MCTS baseline speed: hexjax's array UCT (hexjax/rollout_mcts.py) against the same
UCT built on mctx's tree (`mctx.search` with a UCT selection function and the same random
playouts), one move for a batch of Hex 7x7 games from the empty board.

    python experiments/bench.py --rollout-mcts      # (bench.py calls this module)
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import mctx

import hexjax
from hexjax.evaluation import players


def _mctx_uct_selection(rng_key, tree, node_index, depth, *, exploration):
    del depth
    visits = tree.children_visits[node_index].astype(jnp.float32)
    total = jnp.maximum(tree.node_visits[node_index].astype(jnp.float32), 1.0)
    bonus = exploration * jnp.sqrt(jnp.log(total) / jnp.maximum(visits, 1.0))
    noise = jax.random.uniform(rng_key, visits.shape) * 1e-6
    score = jnp.where(visits == 0, 1e9 + noise, tree.qvalues(node_index) + bonus + noise)
    legal = tree.embeddings.legal_action_mask[node_index]
    return jnp.argmax(jnp.where(legal, score, -jnp.inf)).astype(jnp.int32)


def mctx_rollout_player(game, num_simulations: int, exploration: float = 1.4):
    """UCT on mctx's tree with one random playout per leaf (the peer)."""
    playout = jax.vmap(game.playout_winner)

    def playout_value(key, states):
        winner = playout(jax.random.split(key, states.current_player.shape[0]), states)
        value = jnp.where(winner == states.current_player, 1.0, -1.0)
        return jnp.where((winner < 0) | states.terminated, 0.0, value)

    def recurrent_fn(params, key, action, states):
        del params
        mover = states.current_player
        children = jax.vmap(game.step)(states, action)
        reward = jnp.take_along_axis(children.rewards, mover[:, None], axis=1)[:, 0]
        output = mctx.RecurrentFnOutput(
            reward=jnp.where(states.terminated, 0.0, reward),
            discount=jnp.where(children.terminated, 0.0, -1.0),
            prior_logits=jnp.zeros(children.legal_action_mask.shape),
            value=playout_value(key, children),
        )
        return output, children

    selection = functools.partial(_mctx_uct_selection, exploration=exploration)

    def play(key, states):
        value_key, search_key = jax.random.split(key)
        root = mctx.RootFnOutput(
            prior_logits=jnp.zeros(states.legal_action_mask.shape),
            value=playout_value(value_key, states),
            embedding=states,
        )
        tree = mctx.search(
            params=(),
            rng_key=search_key,
            root=root,
            recurrent_fn=recurrent_fn,
            root_action_selection_fn=functools.partial(selection, depth=0),
            interior_action_selection_fn=selection,
            num_simulations=num_simulations,
            invalid_actions=~states.legal_action_mask,
        )
        visits = tree.summary().visit_counts
        return jnp.argmax(jnp.where(states.legal_action_mask, visits, -1), axis=-1)

    return play


def engines(batch: int, num_simulations: int):
    """[(name, run)]: run(key) plays one move in `batch` Hex 7x7 games; compiled and warm."""
    game = hexjax.make("hex", size=7)
    states = jax.vmap(game.init)(jax.random.split(jax.random.key(0), batch))
    runs = [
        ("hexjax", players.rollout_mcts_player(game, num_simulations)),
        ("mctx tree", mctx_rollout_player(game, num_simulations)),
    ]
    compiled = []
    for name, player in runs:
        run = jax.jit(functools.partial(lambda p, key: p(key, states), player))
        jax.block_until_ready(run(jax.random.key(0)))
        compiled.append((name, run))
    return compiled
