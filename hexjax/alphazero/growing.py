"""A search tree that lasts: grown a few simulations at a time, moved to the position after the
moves played, so that a timed engine spends the time it has and keeps what it has read.

mctx's policies build a fresh tree for a fixed count on every call. Here a tree holds `capacity`
nodes in mctx's own `Tree` arrays (`size` of them used), and these pure, batched steps work on it:

- `start(params, states)`: a tree of one node per game, the root evaluated by the network;
- `plan(tree, simulations)`: this move's budget: the root counts this move's visits apart
  (`fresh`) and Gumbel's sequential halving follows the schedule of `simulations` (mctx's
  table, computed here in JAX so that any count is one compiled program);
- `grow(params, key, tree, count)`: `count` more simulations (select down to an action not yet
  expanded, expand it with the network, back its value up: mctx's steps, written again because
  mctx keeps them private and numbers each node by its simulation, which a kept tree cannot);
- `choose(tree)`: the move, the improved policy and the root value, as mctx's Gumbel policy
  reads them (the best of the most visited by `gumbel + logits + completed Q`) or, for PUCT,
  the most visited;
- `reroot(params, tree, states)`: the subtree under the node whose game state equals `states`
  (any node: a transposition serves too), renumbered into a tree of its own; a fresh tree where
  no node matches (a new game, an undo, a reply the search never read).

Halving restarts at every move over that move's visits, while the values below keep everything
the tree has read. Without a reroot, `plan(n)` then `grow(n)` is mctx's search of n simulations
(the tests compare them move for move).
"""

from __future__ import annotations

import functools

import chex
import jax
import jax.numpy as jnp
import mctx

from hexjax.alphazero import search as search_lib
from hexjax.games import Game, State

_ROOT = mctx.Tree.ROOT_INDEX
_UNVISITED = mctx.Tree.UNVISITED
_NO_PARENT = mctx.Tree.NO_PARENT
_HALVING_ROUNDS = 64  # more than sequential halving ever needs (tested against mctx's table)


@chex.dataclass(frozen=True)
class RootData:
    """The tree's `extra_data`: what the root and the node count need beyond mctx's arrays."""

    size: chex.Array  # int32[B]: nodes in use; the next expanded node takes this index
    fresh: chex.Array  # int32[B, A]: this move's visits of each root action
    schedule: chex.Array  # int32[B, capacity]: halving's target visits before each simulation
    gumbel: chex.Array  # float32[B, A]: the root's Gumbel noise (0 when playing to win)
    us: chex.Array  # int32[B]: the side the search plays for (what contempt reads)


def halving_schedule(considered: jax.Array, simulations: jax.Array, length: int) -> jax.Array:
    """mctx's sequence of considered visits (`seq_halving.get_sequence_of_considered_visits`)
    for `considered` actions and a budget of `simulations`, as int32[length] (the last round
    goes on past the budget). Traced counts, so that one compiled program plans any budget."""
    considered = jnp.asarray(considered, jnp.int32)
    simulations = jnp.asarray(simulations, jnp.int32)
    rounds = jnp.arange(_HALVING_ROUNDS)
    log2max = jnp.ceil(jnp.log2(jnp.maximum(considered, 2).astype(jnp.float32))).astype(jnp.int32)
    width = jnp.where(rounds == 0, considered, jnp.maximum(2, considered >> rounds))
    extra = jnp.maximum(1, simulations // (log2max * width))
    starts = jnp.cumsum(width * extra) - width * extra  # the first simulation of each round
    bases = jnp.cumsum(extra) - extra  # the considered actions' visits as each round starts
    index = jnp.arange(length)
    round_of = jnp.searchsorted(starts, index, side="right") - 1
    halving = bases[round_of] + (index - starts[round_of]) // width[round_of]
    return jnp.where(considered <= 1, index, halving).astype(jnp.int32)


def empty(states: State, num_actions: int, capacity: int, gumbel=None) -> mctx.Tree:
    """A tree of `capacity` nodes per game with none in use (size 0): the shapes of every tree
    of these games, built without the network."""
    batch = jnp.shape(states.current_player)[0]
    nodes, children = (batch, capacity), (batch, capacity, num_actions)
    zeros = jnp.zeros
    return mctx.Tree(
        node_visits=zeros(nodes, jnp.int32),
        raw_values=zeros(nodes, jnp.float32),
        node_values=zeros(nodes, jnp.float32),
        parents=jnp.full(nodes, _NO_PARENT, jnp.int32),
        action_from_parent=jnp.full(nodes, _NO_PARENT, jnp.int32),
        children_index=jnp.full(children, _UNVISITED, jnp.int32),
        children_prior_logits=zeros(children, jnp.float32),
        children_values=zeros(children, jnp.float32),
        children_visits=zeros(children, jnp.int32),
        children_rewards=zeros(children, jnp.float32),
        children_discounts=zeros(children, jnp.float32),
        embeddings=jax.tree.map(
            lambda x: zeros((*nodes, *jnp.shape(x)[1:]), jnp.result_type(x)), states
        ),
        root_invalid_actions=~jnp.asarray(states.legal_action_mask),
        extra_data=RootData(
            size=zeros(batch, jnp.int32),
            fresh=zeros((batch, num_actions), jnp.int32),
            schedule=zeros(nodes, jnp.int32),
            gumbel=zeros((batch, num_actions), jnp.float32) if gumbel is None else gumbel,
            us=zeros(batch, jnp.int32),
        ),
    )


def start(
    game: Game, net, params, states: State, capacity: int, gumbel=None, config=None, us=None
) -> mctx.Tree:
    """A tree of `capacity` nodes per game holding only the root, evaluated (as `config`'s
    search evaluates, if given: its tactics, its contempt for `us`, int32[B], by default the
    root's movers)."""
    us = states.current_player if us is None else jnp.asarray(us, jnp.int32)
    logits, value = search_lib.evaluate(game, net, params, states, config, us)
    tree = empty(states, logits.shape[-1], capacity, gumbel)

    def root(x, value):
        return x.at[:, _ROOT].set(value)

    return tree.replace(
        node_visits=root(tree.node_visits, 1),
        raw_values=root(tree.raw_values, value),
        node_values=root(tree.node_values, value),
        children_prior_logits=root(tree.children_prior_logits, logits),
        embeddings=jax.tree.map(root, tree.embeddings, states),
        extra_data=tree.extra_data.replace(size=jnp.ones_like(tree.extra_data.size), us=us),
    )


def plan(tree: mctx.Tree, simulations: jax.Array, max_considered: int) -> mctx.Tree:
    """This move's budget: fresh visit counts, and halving's schedule for `simulations`
    (int32[B]) over min(`max_considered`, legal root actions) actions."""
    legal = jnp.sum(~tree.root_invalid_actions, axis=-1).astype(jnp.int32)
    considered = jnp.minimum(max_considered, legal)
    length = tree.node_visits.shape[1]
    schedule = jax.vmap(halving_schedule, in_axes=(0, 0, None))(considered, simulations, length)
    data = tree.extra_data.replace(fresh=jnp.zeros_like(tree.extra_data.fresh), schedule=schedule)
    return tree.replace(extra_data=data)


def _gumbel_root(tree: mctx.Tree) -> jax.Array:
    """Sequential halving over this move's visits (mctx's root rule, on `fresh`); unbatched."""
    data = tree.extra_data
    simulation = jnp.minimum(jnp.sum(data.fresh), data.schedule.shape[0] - 1)
    completed = mctx.qtransform_completed_by_mix_value(tree, _ROOT)
    score = _score_considered(
        data.schedule[simulation], data.gumbel, tree.children_prior_logits[_ROOT], completed,
        data.fresh,
    )  # fmt: skip
    return jnp.argmax(jnp.where(tree.root_invalid_actions, -jnp.inf, score)).astype(jnp.int32)


def _score_considered(considered_visit, gumbel, logits, completed_q, visits):
    """mctx's `seq_halving.score_considered`: only actions at the considered visit count."""
    logits = logits - jnp.max(logits, axis=-1, keepdims=True)
    penalty = jnp.where(visits == considered_visit, 0.0, -jnp.inf)
    return jnp.maximum(-1e9, gumbel + logits + completed_q) + penalty


def _selection(policy: str, pb_c_init: float, pb_c_base: float):
    """(key, tree, node, depth) -> action, unbatched: the root rule at depth 0."""

    def select(key, tree, node, depth):
        if policy == "puct":
            return search_lib.puct_selection(
                key, tree, node, depth, pb_c_init=pb_c_init, pb_c_base=pb_c_base
            )
        interior = mctx.gumbel_muzero_interior_action_selection(key, tree, node, depth)
        return jnp.where(depth == 0, _gumbel_root(tree), interior)

    return select


def _simulate(key, tree: mctx.Tree, select, max_depth: int):
    """Walk down from the root to an action not expanded yet (or to `max_depth`): the node,
    the action, and the root action the walk took; unbatched (mctx's `simulate`)."""

    def body(carry):
        key, _, _, node, depth, first, _ = carry
        key, select_key = jax.random.split(key)
        action = select(select_key, tree, node, depth)
        child = tree.children_index[node, action]
        first = jnp.where(depth == 0, action, first)
        going = (child != _UNVISITED) & (depth + 1 < max_depth)
        return key, node, action, child, depth + 1, first, going

    none = jnp.int32(_NO_PARENT)
    start = (key, none, none, jnp.int32(_ROOT), jnp.int32(0), jnp.int32(0), jnp.bool_(True))
    _, node, action, _, _, first, _ = jax.lax.while_loop(lambda c: c[-1], body, start)
    return node, action, first


def _set(x, value, *index):
    return x.at[index].set(value)


_batch_set = jax.vmap(_set)


def _expand(recurrent_fn, params, key, tree: mctx.Tree, parent, action, node) -> mctx.Tree:
    """Evaluate `action` from `parent` into `node` (batched; mctx's `expand`)."""
    batch = jnp.arange(parent.shape[0])
    embedding = jax.tree.map(lambda x: x[batch, parent], tree.embeddings)
    step, embedding = recurrent_fn(params, key, action, embedding)
    return tree.replace(
        node_visits=_batch_set(tree.node_visits, tree.node_visits[batch, node] + 1, node),
        raw_values=_batch_set(tree.raw_values, step.value, node),
        node_values=_batch_set(tree.node_values, step.value, node),
        children_prior_logits=_batch_set(tree.children_prior_logits, step.prior_logits, node),
        embeddings=jax.tree.map(lambda t, s: _batch_set(t, s, node), tree.embeddings, embedding),
        children_index=_batch_set(tree.children_index, node, parent, action),
        children_rewards=_batch_set(tree.children_rewards, step.reward, parent, action),
        children_discounts=_batch_set(tree.children_discounts, step.discount, parent, action),
        parents=_batch_set(tree.parents, parent, node),
        action_from_parent=_batch_set(tree.action_from_parent, action, node),
    )


@jax.vmap
def _backward(tree: mctx.Tree, leaf) -> mctx.Tree:
    """Back the leaf's value up to the root (mctx's `backward`), unbatched under the vmap."""

    def body(carry):
        tree, value, index = carry
        parent = tree.parents[index]
        count = tree.node_visits[parent]
        action = tree.action_from_parent[index]
        discount = tree.children_discounts[parent, action]
        value = tree.children_rewards[parent, action] + discount * value
        mean = (tree.node_values[parent] * count + value) / (count + 1.0)
        tree = tree.replace(
            node_values=tree.node_values.at[parent].set(mean),
            node_visits=tree.node_visits.at[parent].set(count + 1),
            children_values=tree.children_values.at[parent, action].set(tree.node_values[index]),
            children_visits=tree.children_visits.at[parent, action].add(1),
        )
        return tree, value, parent

    carry = (tree, tree.node_values[leaf], leaf)
    tree, _, _ = jax.lax.while_loop(lambda c: c[2] != _ROOT, body, carry)
    return tree


def make_grow(game: Game, net, config: search_lib.SearchConfig):
    """grow(params, key, tree, count) -> tree with `count` (traced) more simulations; fewer
    where the tree would run out of nodes (every game in the batch stops with the fullest).
    With contempt, the tree's nodes are valued for the side it plays for (`RootData.us`)."""
    recurrent_fn = functools.partial(search_lib.recurrent_step, game, net, config)
    select = _selection(config.policy, config.pb_c_init, config.pb_c_base)
    simulate = jax.vmap(_simulate, in_axes=(0, 0, None, None))

    def grow(params, key, tree: mctx.Tree, count) -> mctx.Tree:
        batch = jnp.arange(tree.node_values.shape[0])
        capacity = tree.node_values.shape[1]
        steps = jnp.minimum(count, capacity - jnp.max(tree.extra_data.size))

        net_params = (params, tree.extra_data.us) if config.contempt else params

        def body(_, carry):
            key, tree = carry
            key, walk_key, expand_key = jax.random.split(key, 3)
            walk_keys = jax.random.split(walk_key, batch.shape[0])
            parent, action, first = simulate(walk_keys, tree, select, game.max_plies)
            known = tree.children_index[batch, parent, action]
            size = tree.extra_data.size
            node = jnp.where(known == _UNVISITED, size, known)
            tree = _expand(recurrent_fn, net_params, expand_key, tree, parent, action, node)
            tree = _backward(tree, node)
            data = tree.extra_data
            data = data.replace(
                size=size + (known == _UNVISITED),
                fresh=data.fresh.at[batch, first].add(1),
            )
            return key, tree.replace(extra_data=data)

        _, tree = jax.lax.fori_loop(0, steps, body, (key, tree))
        return tree

    return grow


def choose(tree: mctx.Tree, policy: str):
    """(action int32[B], policy float32[B, A], root value float32[B]) of the tree as it is."""
    invalid = tree.root_invalid_actions
    value = tree.node_values[:, _ROOT]
    if policy == "puct":
        visits = tree.children_visits[:, _ROOT].astype(jnp.float32)
        weights = visits / jnp.maximum(visits.sum(axis=-1, keepdims=True), 1.0)
        action = jnp.argmax(jnp.where(invalid, -1.0, visits), axis=-1)
        return action.astype(jnp.int32), weights, value
    data = tree.extra_data
    completed = jax.vmap(mctx.qtransform_completed_by_mix_value, in_axes=(0, None))(tree, _ROOT)
    logits = tree.children_prior_logits[:, _ROOT]
    considered = jnp.max(data.fresh, axis=-1, keepdims=True)
    score = _score_considered(considered, data.gumbel, logits, completed, data.fresh)
    action = jnp.argmax(jnp.where(invalid, -jnp.inf, score), axis=-1).astype(jnp.int32)
    search_logits = jnp.where(invalid, search_lib.MASKED, logits + completed)
    return action, jax.nn.softmax(search_logits), value


def reroot(game: Game, net, params, tree: mctx.Tree, states: State, config=None, us=None):
    """(tree, kept int32[B]): for each game, the subtree under the first node whose state
    equals `states` (its nodes renumbered from 0 in the same order, so a parent still comes
    before its children), else a fresh tree of `states` (`start`'s, with `config` and `us`);
    `kept` counts the nodes kept. With contempt, a subtree is kept only where it was valued for
    the same side `us` (default the movers of `states`)."""
    capacity = tree.node_values.shape[1]
    fresh = start(game, net, params, states, capacity, tree.extra_data.gumbel, config, us)
    moved, found = jax.vmap(_subtree)(tree, states)
    if config is not None and config.contempt:
        found &= tree.extra_data.us == fresh.extra_data.us
    chosen = jax.tree.map(
        lambda a, b: jnp.where(found.reshape(found.shape + (1,) * (a.ndim - 1)), a, b),
        moved,
        fresh,
    )
    return chosen, jnp.where(found, chosen.extra_data.size, 0)


def _subtree(tree: mctx.Tree, state: State):
    """Unbatched: the subtree under the first node whose embedding equals `state`."""
    capacity = tree.node_values.shape[0]
    index = jnp.arange(capacity)
    equal = index < tree.extra_data.size
    for nodes, value in zip(jax.tree.leaves(tree.embeddings), jax.tree.leaves(state), strict=True):
        equal &= jnp.all((nodes == value).reshape(capacity, -1), axis=1)
    found = equal.any()
    top = jnp.argmax(equal)
    # Descendants of `top` by pointer doubling: after k rounds `keep` has looked 2^k ancestors
    # up (`up` jumps 2^k at once), so log2(capacity) rounds reach the root from any node.
    up = jnp.where(tree.parents == _NO_PARENT, index, tree.parents)
    keep = (index == top) | (up == top)
    for _ in range(max(1, (capacity - 1).bit_length())):
        keep = keep | keep[up]
        up = up[up]
    keep &= index < tree.extra_data.size
    renumber = jnp.cumsum(keep) - 1
    slot = jnp.where(keep, renumber, capacity)  # dropped nodes scatter out of range: ignored

    def compact(x, fill):
        return jnp.full_like(x, fill).at[slot].set(x, mode="drop")

    def moved(x):
        return jnp.where(x == _UNVISITED, _UNVISITED, renumber[jnp.maximum(x, 0)])

    data = tree.extra_data
    root_state = jax.tree.map(lambda x: x[top], tree.embeddings)
    subtree = tree.replace(
        node_visits=compact(tree.node_visits, 0),
        raw_values=compact(tree.raw_values, 0.0),
        node_values=compact(tree.node_values, 0.0),
        parents=compact(jnp.where(index == top, _NO_PARENT, moved(tree.parents)), _NO_PARENT),
        action_from_parent=compact(
            jnp.where(index == top, _NO_PARENT, tree.action_from_parent), _NO_PARENT
        ),
        children_index=compact(moved(tree.children_index), _UNVISITED),
        children_prior_logits=compact(tree.children_prior_logits, 0.0),
        children_values=compact(tree.children_values, 0.0),
        children_visits=compact(tree.children_visits, 0),
        children_rewards=compact(tree.children_rewards, 0.0),
        children_discounts=compact(tree.children_discounts, 0.0),
        embeddings=jax.tree.map(lambda x: compact(x, 0), tree.embeddings),
        root_invalid_actions=~root_state.legal_action_mask,
        extra_data=data.replace(
            size=jnp.sum(keep).astype(jnp.int32), fresh=jnp.zeros_like(data.fresh)
        ),
    )
    return subtree, found
