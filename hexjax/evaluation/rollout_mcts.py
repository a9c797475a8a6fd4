"""UCT with random playouts: the baseline that needs no training, batched over games.

One array tree per game, written for one game and vmapped at the edge:

    children  int32[N, A]  child node of each (node, action), -1 while unexpanded
    visits    int32[N]     simulations through the node
    value     float32[N]   sum of outcomes seen through the node, from the view of the player
                           who moved INTO it (so a parent reads its children's Q directly)

with N = num_simulations + 1 (node 0 is the root; simulation i creates node i + 1). Nodes
hold no game state: a simulation replays its path from the root with `game.step`, which
costs a few steps (UCT trees are shallow) and keeps memory at 4 (A + 2) bytes per node.

Why not mctx: on XLA:CPU its per-simulation cost grew with the tree, too slow for thousands
of simulations; `python experiments/bench.py --rollout-mcts` compares the two.

A simulation: descend by UCT (unvisited children first, in random order; then
Q + c sqrt(ln N / n), with Q and the exploration constant on the [-1, 1] outcome scale)
until an unexpanded action or a finished game; expand that action; value the new node by one
uniformly random playout (`game.playout_winner`); add the outcome along the path. The move
played is the most visited root child.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from hexjax.games import Game, tree_where

_UNVISITED_SCORE = 1e9  # above any Q + bonus, so unvisited children go first


@struct.dataclass
class Tree:
    children: jax.Array  # int32[N, A]
    visits: jax.Array  # int32[N]
    value: jax.Array  # float32[N]


def _outcome(winner: jax.Array, player: jax.Array) -> jax.Array:
    """+1 if `player` won, -1 if it lost, 0 for a draw (winner -1)."""
    return jnp.where(winner < 0, 0.0, jnp.where(winner == player, 1.0, -1.0))


def _push(path, movers, depth, condition, node, mover):
    """Where `condition`, append `node` (entered by `mover`) to the path; -> path, movers,
    depth."""
    depth = jnp.where(condition, depth + 1, depth)
    path = path.at[depth].set(jnp.where(condition, node, path[depth]))
    movers = movers.at[depth].set(jnp.where(condition, mover, movers[depth]))
    return path, movers, depth


def make_uct(game: Game, num_simulations: int, exploration: float = 1.4):
    """-> search(key, state) -> float32[A] root visit counts, for ONE game (vmap it)."""
    if num_simulations < 1:
        raise ValueError(f"num_simulations must be at least 1, got {num_simulations}")
    num_nodes = num_simulations + 1
    num_actions = game.num_actions
    max_depth = game.max_plies + 1  # path entries: the root plus one per ply

    def select_action(tree, node, state, key):
        """UCT choice among the legal actions of `state` at `node`."""
        child = tree.children[node]
        expanded = child >= 0
        safe = jnp.maximum(child, 0)
        visits = jnp.where(expanded, tree.visits[safe], 0).astype(jnp.float32)
        q = tree.value[safe] / jnp.maximum(visits, 1.0)
        total = jnp.maximum(tree.visits[node], 1).astype(jnp.float32)
        bonus = exploration * jnp.sqrt(jnp.log(total) / jnp.maximum(visits, 1.0))
        tie_break = jax.random.uniform(key, (num_actions,)) * 1e-6
        score = jnp.where(visits == 0, _UNVISITED_SCORE, q + bonus) + tie_break
        return jnp.argmax(jnp.where(state.legal_action_mask, score, -jnp.inf))

    def simulate(index, carry):
        tree, root, key = carry
        key, select_key, playout_key = jax.random.split(key, 3)
        path = jnp.full(max_depth, num_nodes, jnp.int32)  # num_nodes: "no node" (dropped)
        movers = jnp.zeros(max_depth, jnp.int32)  # who moved into path[d]
        path = path.at[0].set(0)

        # SELECT: walk down expanded children, replaying the moves.
        def descending(walk):
            return walk[-1]

        def descend(walk):
            node, state, depth, path, movers, _, _ = walk
            action = select_action(tree, node, state, jax.random.fold_in(select_key, depth))
            child = tree.children[node, action]
            go = (child >= 0) & ~state.terminated
            path, movers, depth = _push(path, movers, depth, go, child, state.current_player)
            state = tree_where(go, game.step(state, action), state)
            return jnp.where(go, child, node), state, depth, path, movers, action, go

        walk = (jnp.int32(0), root, jnp.int32(0), path, movers, jnp.int32(0), jnp.bool_(True))
        node, state, depth, path, movers, action, _ = jax.lax.while_loop(descending, descend, walk)
        # EXPAND the chosen action unless the walk ended in a finished game.
        expand = ~state.terminated
        new_node = index + 1
        children = tree.children.at[node, action].set(
            jnp.where(expand, new_node, tree.children[node, action])
        )
        path, movers, depth = _push(path, movers, depth, expand, new_node, state.current_player)
        final = tree_where(expand, game.step(state, action), state)
        # EVALUATE by one random playout (a finished game is its own result).
        winner = jnp.where(final.terminated, final.winner, game.playout_winner(playout_key, final))
        # BACKUP along the path; entries past `depth` point at no node and are dropped.
        on_path = jnp.arange(max_depth) <= depth
        nodes = jnp.where(on_path, path, num_nodes)
        tree = Tree(
            children=children,
            visits=tree.visits.at[nodes].add(1, mode="drop"),
            value=tree.value.at[nodes].add(_outcome(winner, movers), mode="drop"),
        )
        return tree, root, key

    def search(key, state):
        tree = Tree(
            children=jnp.full((num_nodes, num_actions), -1, jnp.int32),
            visits=jnp.zeros(num_nodes, jnp.int32),
            value=jnp.zeros(num_nodes, jnp.float32),
        )
        tree, _, _ = jax.lax.fori_loop(0, num_simulations, simulate, (tree, state, key))
        child = tree.children[0]
        return jnp.where(child >= 0, tree.visits[jnp.maximum(child, 0)], 0).astype(jnp.float32)

    return search
