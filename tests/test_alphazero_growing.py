"""The growing search against mctx's own: the same search when grown in chunks, and a re-rooted
tree holding exactly the subtree it was cut from (read by a plain-Python walk)."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from mctx._src import seq_halving

import hexjax
from hexjax.alphazero import growing
from hexjax.alphazero import network as network_lib
from hexjax.alphazero.search import SearchConfig, make_search
from hexjax.games import random_legal_action

STATS = ("node_visits", "node_values", "raw_values", "children_visits", "children_values",
         "children_prior_logits", "children_rewards", "children_discounts")  # fmt: skip


@functools.cache
def _rules(name: str, options: tuple):
    """One game a configuration, its batched start and step compiled (op by op, Othello's
    setup alone took 10 s)."""
    game = hexjax.make(name, **dict(options))
    return game, jax.jit(jax.vmap(game.init)), jax.jit(jax.vmap(game.step))


def setup(name="hex", batch=3, plies=3, **options):
    game, init, step = _rules(name, tuple(sorted(options.items())))
    net = network_lib.make_network(network_lib.NetworkConfig(preset="tiny"), game.num_actions)
    params = network_lib.init_params(net, jax.random.key(3), game.observation_shape)
    states = init(jax.random.split(jax.random.key(0), batch))
    for key in jax.random.split(jax.random.key(1), plies):
        states = step(states, random_legal_action(key, states.legal_action_mask))
    return game, net, params, states


def grown(game, net, params, states, config, simulations, chunks, capacity=None):
    grow = jax.jit(growing.make_grow(game, net, config))
    batch = states.current_player.shape[0]
    tree = growing.start(game, net, params, states, capacity or 2 * simulations + 1)
    tree = growing.plan(tree, jnp.full(batch, simulations), config.max_considered_actions)
    key, done = jax.random.key(7), 0
    for chunk in chunks:
        key, sub = jax.random.split(key)
        tree = grow(params, sub, tree, min(chunk, simulations - done))
        done += min(chunk, simulations - done)
    return tree


@pytest.mark.parametrize("considered", [0, 1, 2, 3, 7, 8, 16, 49, 256])
def test_halving_schedule_is_mctx_table(considered):
    for simulations in [1, 2, 3, 7, 16, 31, 64, 100, 257, 1024, 4096]:
        expected = seq_halving.get_sequence_of_considered_visits(considered, simulations)
        got = growing.halving_schedule(considered, simulations, simulations)
        assert tuple(np.asarray(got).tolist()) == expected, (considered, simulations)


@pytest.mark.parametrize(
    ("policy", "name", "options"),
    [
        ("gumbel", "hex", {"size": 5}),
        ("puct", "hex", {"size": 5}),
        ("puct", "othello", {"size": 6}),
        # Othello under Gumbel adds passes to what the three above cover: a minute; slow tier.
        pytest.param("gumbel", "othello", {"size": 6}, marks=pytest.mark.slow),
    ],
)
def test_grown_in_chunks_is_mctx_search(policy, name, options):
    game, net, params, states = setup(name, **options)
    for simulations in (1, 100):
        config = SearchConfig(policy=policy).deterministic(simulations)
        reference = jax.jit(make_search(game, net, config))(params, jax.random.key(5), states)
        tree = grown(game, net, params, states, config, simulations, [3, 1, 50, 1000])
        action, policy_out, value = growing.choose(tree, policy)
        visits = np.asarray(tree.children_visits[:, 0])
        np.testing.assert_array_equal(visits, np.asarray(reference.tree.summary().visit_counts))
        np.testing.assert_array_equal(np.asarray(action), np.asarray(reference.action))
        np.testing.assert_allclose(np.asarray(policy_out), np.asarray(reference.policy), atol=1e-6)
        np.testing.assert_allclose(np.asarray(value), np.asarray(reference.value), atol=1e-6)
        assert np.asarray(tree.extra_data.fresh).sum(axis=1).tolist() == [simulations] * 3


def test_growth_stops_when_the_tree_is_full():
    game, net, params, states = setup()
    config = SearchConfig().deterministic(64)
    tree = grown(game, net, params, states, config, 64, [64], capacity=20)
    assert np.asarray(tree.extra_data.size).tolist() == [20] * 3
    assert np.asarray(tree.node_visits[:, 0]).tolist() == [20] * 3  # root: 1 + 19 simulations


def _walk(tree, game_index, node, path=()):
    """{path of actions from `node`: node index}, by a plain-Python walk of the children."""
    found = {path: node}
    for action, child in enumerate(tree.children_index[game_index, node]):
        if child != -1:
            found.update(_walk(tree, game_index, int(child), (*path, action)))
    return found


def test_reroot_keeps_exactly_the_subtree_and_starts_afresh_elsewhere():
    game, net, params, states = setup(batch=3)
    config = SearchConfig().deterministic(200)
    tree = grown(game, net, params, states, config, 200, [200], capacity=401)
    action, _, _ = growing.choose(tree, "gumbel")
    old = jax.tree.map(np.asarray, tree)
    after = jax.vmap(game.step)(states, action)
    replies = []
    for b in range(3):
        node = old.children_index[b, 0, int(action[b])]
        if b < 2:  # the reply the search read most
            replies.append(int(old.children_visits[b, node].argmax()))
        else:  # a legal reply the search never read
            legal = np.flatnonzero(np.asarray(after.legal_action_mask[b]))
            replies.append(int(next(a for a in legal if old.children_index[b, node, a] == -1)))
    now = jax.vmap(game.step)(after, jnp.asarray(replies))
    moved, kept = jax.jit(lambda t, s: growing.reroot(game, net, params, t, s))(tree, now)
    new = jax.tree.map(np.asarray, moved)
    for b in range(2):
        top = old.children_index[b, old.children_index[b, 0, int(action[b])], replies[b]]
        before, after_walk = _walk(old, b, int(top)), _walk(new, b, 0)
        assert before.keys() == after_walk.keys() and len(before) == kept[b] > 1
        assert new.extra_data.size[b] == len(before)
        for path, index in before.items():
            here = after_walk[path]
            for field in STATS:
                np.testing.assert_array_equal(getattr(old, field)[b, index],
                                              getattr(new, field)[b, here])  # fmt: skip
            leaves = jax.tree.leaves(old.embeddings), jax.tree.leaves(new.embeddings)
            pairs = zip(*leaves, strict=True)
            for was, is_now in pairs:
                np.testing.assert_array_equal(was[b, index], is_now[b, here])
            parent = -1 if not path else after_walk[path[:-1]]
            assert new.parents[b, here] == parent
            assert new.action_from_parent[b, here] == (path[-1] if path else -1)
        # Parents before children: the growing search numbers new nodes from `size` on.
        used = new.extra_data.size[b]
        assert all(new.parents[b, i] < i for i in range(1, used))
    # The unread reply: a fresh tree of that position.
    fresh = jax.tree.map(np.asarray, growing.start(game, net, params, now, 401))
    assert kept[2] == 0
    for field in STATS:
        np.testing.assert_array_equal(getattr(new, field)[2], getattr(fresh, field)[2])
    np.testing.assert_array_equal(new.root_invalid_actions, ~np.asarray(now.legal_action_mask))
    # The kept tree grows on: this move's visits counted apart, halving over them.
    grow = jax.jit(growing.make_grow(game, net, config))
    moved = growing.plan(moved, jnp.full(3, 100), config.max_considered_actions)
    moved = grow(params, jax.random.key(1), moved, 100)
    assert np.asarray(moved.extra_data.fresh).sum(axis=1).tolist() == [100] * 3
    roots = np.asarray(moved.node_visits[:, 0])
    assert roots.tolist() == [new.node_visits[b, 0] + 100 for b in range(3)]
    chosen, _, _ = growing.choose(moved, "gumbel")
    assert np.asarray(now.legal_action_mask)[np.arange(3), np.asarray(chosen)].all()


@pytest.mark.parametrize("policy", ["gumbel", "puct"])
def test_the_root_searches_only_the_moves_it_is_given(policy):
    """A root given fewer moves than are legal (`root_invalid_actions`: a player pruning Hex's
    dead cells) never visits the others, here each game's favourite move of a free search."""
    game, net, params, states = setup("hex", size=5)
    config = SearchConfig(policy=policy).deterministic(64)
    free = grown(game, net, params, states, config, 64, [64])
    favourite = np.asarray(free.children_visits[:, 0]).argmax(axis=1)
    tree = growing.start(game, net, params, states, 129)
    left_out = jax.nn.one_hot(favourite, game.num_actions, dtype=bool)
    tree = tree.replace(root_invalid_actions=tree.root_invalid_actions | left_out)
    tree = growing.plan(tree, jnp.full(3, 64), config.max_considered_actions)
    tree = jax.jit(growing.make_grow(game, net, config))(params, jax.random.key(7), tree, 64)
    visits = np.asarray(tree.children_visits[:, 0])
    assert (visits[np.arange(3), favourite] == 0).all() and (visits.sum(axis=1) == 64).all()
