"""mctx glue: illegal actions are never chosen nor expanded, even when the network wants them."""

import flax.linen as nn
import jax
import jax.numpy as jnp
import mctx
import numpy as np
import pytest
from support.drawn_boards import drawn_game

import hexjax
from hexjax.alphazero import network as network_lib
from hexjax.alphazero import search as search_lib
from hexjax.alphazero.search import SearchConfig, considered_actions, make_search


class IllegalLover(nn.Module):
    """A 'network' that puts all its policy mass on occupied cells (always illegal)."""

    num_actions: int

    @nn.compact
    def __call__(self, obs):
        stones = obs[..., 0] + obs[..., 1]  # own and opponent stones, every game
        logits = 50.0 * stones.reshape(obs.shape[0], -1)
        extra_actions = self.num_actions - logits.shape[1]  # pass or swap: neutral
        logits = jnp.pad(logits, ((0, 0), (0, extra_actions)))
        bias = self.param("bias", nn.initializers.zeros, (1,))  # a pytree to pass around
        return logits, jnp.zeros(obs.shape[0]) + bias[0]


def positions(game, count, plies, seed=0):
    """`count` states after `plies` random legal moves (some may be over)."""
    from hexjax.games import random_legal_action

    # Jitted: renju's init and step op by op take most of a minute.
    states = jax.jit(jax.vmap(game.init))(jax.random.split(jax.random.key(seed), count))
    ply = jax.jit(
        lambda s, key: jax.vmap(game.step)(s, random_legal_action(key, s.legal_action_mask))
    )
    for key in jax.random.split(jax.random.key(seed + 1), plies):
        states = ply(states, key)
    return states


@pytest.mark.parametrize(
    ("policy", "name", "options"),
    [
        (policy, name, options)
        for policy in ("gumbel", "puct")
        for name, options in [
            ("hex", {"size": 4}),
            ("gomoku", {"size": 5, "win_length": 3}),
            ("othello", {"size": 6}),
        ]
    ]
    + [
        ("puct", "gomoku", {"size": 9, "rule": "renju"}),  # renju's batched reading inside mctx
        pytest.param("gumbel", "gomoku", {"size": 9, "rule": "renju"}, marks=pytest.mark.slow),
    ],
)
def test_search_never_picks_or_expands_illegal_actions(policy, name, options):
    game = hexjax.make(name, **options)
    net = IllegalLover(game.num_actions)
    params = net.init(jax.random.key(0), jnp.zeros((1, *game.observation_shape)))["params"]
    config = SearchConfig(policy=policy, num_simulations=48, max_considered_actions=16)
    search = jax.jit(make_search(game, net, config))
    states = positions(game, 32, plies=4)
    live = ~np.asarray(states.terminated)
    result = search(params, jax.random.key(1), states, jnp.zeros(32, jnp.int32))
    legal = np.asarray(states.legal_action_mask)
    action = np.asarray(result.action)
    assert legal[np.arange(32), action][live].all()
    # Deeper: no node of any tree has visited a child its own position forbids. (Below a
    # finished game, every action is "illegal" and worth nothing: mctx may still go there.)
    tree = result.tree
    node_legal = np.asarray(tree.embeddings.legal_action_mask)  # [B, N, A]
    visited = np.asarray(tree.children_visits) > 0  # [B, N, A]
    in_play = node_legal.any(axis=-1, keepdims=True)
    assert not (visited & ~node_legal & in_play)[live].any()
    assert (visited & in_play)[live].sum() > 32 * 48 // 2  # the trees did grow
    assert np.asarray(tree.node_visits)[:, 0].min() == 48 + 1  # the root took every simulation
    policy_mass = np.asarray(result.policy)
    assert np.allclose(policy_mass.sum(axis=1)[live], 1.0, atol=1e-5)
    assert (policy_mass[~legal & live[:, None]] < 1e-6).all()


def test_search_values_are_from_the_movers_view():
    """Hex 2x2: Black (to move) wins by playing either cell of the top row next to its stone.
    With a neutral network, the searched root value must be clearly positive for Black."""
    game = hexjax.make("hex", size=2)
    # Black a1, White b1... Black to move with a winning reply available.
    state = game.from_moves("a1 b1")
    states = jax.tree.map(lambda x: jnp.stack([x] * 4), state)
    net = network_lib.make_network(network_lib.NetworkConfig(preset="tiny"), game.num_actions)
    params = jax.tree.map(
        jnp.zeros_like, network_lib.init_params(net, jax.random.key(0), (2, 2, 4))
    )
    search = jax.jit(make_search(game, net, SearchConfig(num_simulations=16, gumbel_scale=0.0)))
    result = search(params, jax.random.key(0), states, jnp.zeros(4, jnp.int32))
    win, lose = game.string_to_action("a2"), game.string_to_action("b2")
    assert (np.asarray(result.action) == win).all()
    assert (np.asarray(result.policy)[:, win] > 0.9).all()
    q = np.asarray(result.tree.summary().qvalues)  # the reward and value for Black
    assert np.allclose(q[:, win], 1.0) and (q[:, lose] < -0.5).all()


def _depth_below_finished_games(tree) -> int:
    """How many levels any tree of the batch grew below a finished game."""
    parents = np.asarray(tree.parents)  # [B, N], -1 at the root and unused nodes
    over = np.asarray(tree.embeddings.terminated)  # [B, N]
    below = np.zeros(parents.shape, int)
    games = np.arange(len(parents))
    for node in range(1, parents.shape[1]):  # a node's parent was expanded before it
        parent = np.maximum(parents[:, node], 0)
        under = (parents[:, node] >= 0) & over[games, parent]
        below[:, node] = np.where(under, below[games, parent] + 1, 0)
    return int(below.max())


def test_puct_spreads_its_visits_below_a_finished_game(monkeypatch):
    """Black wins at once at a5. Each simulation down that move ends in a finished game, and
    mctx still expands a node below it: PUCT's rule used to take the same action there each
    time, growing one chain a node deeper a visit (walked twice a simulation: hundreds of steps
    at high counts). It spreads those visits now, and the root's visits and values are those of
    the chain, as everything below a finished game is worth 0."""
    game = hexjax.make("hex", size=5)
    state = game.from_moves("a1 e1 a2 e2 a3 e3 a4 e4")
    states = jax.tree.map(lambda x: jnp.stack([x] * 4), state)
    net = network_lib.make_network(network_lib.NetworkConfig(preset="tiny"), game.num_actions)
    params = network_lib.init_params(net, jax.random.key(0), game.observation_shape)
    config = SearchConfig(policy="puct", num_simulations=200).deterministic()
    result = make_search(game, net, config)(params, jax.random.key(1), states)
    win = game.string_to_action("a5")
    assert (np.asarray(result.tree.summary().qvalues)[:, win] == 1.0).all()
    assert _depth_below_finished_games(result.tree) <= 2  # 25 children a level

    # The chain, as before: in a finished game always action 0, and no depth bound.
    spread = search_lib.puct_selection

    def chain(rng_key, tree, node_index, depth, **rates):
        finished = ~tree.embeddings.legal_action_mask[node_index].any()
        return jnp.where(finished, 0, spread(rng_key, tree, node_index, depth, **rates))

    unbounded = mctx.search
    monkeypatch.setattr(search_lib, "puct_selection", chain)
    monkeypatch.setattr(mctx, "search", lambda *a, max_depth, **k: unbounded(*a, **k))
    before = make_search(game, net, config)(params, jax.random.key(1), states)
    assert _depth_below_finished_games(before.tree) > 20
    now, then = result.tree.summary(), before.tree.summary()
    np.testing.assert_array_equal(now.visit_counts, then.visit_counts)
    np.testing.assert_allclose(now.qvalues, then.qvalues, atol=1e-6)
    np.testing.assert_allclose(now.value, then.value, atol=1e-6)


@pytest.mark.parametrize("discount", [1.0, 0.9])
def test_the_tree_discounts_each_ply_by_the_configured_rate(discount):
    """Every edge to a game in progress hands the value over as -discount; an edge that ends
    the game pays its reward and nothing after it (discount 0)."""
    game = hexjax.make("hex", size=3)
    states = positions(game, count=8, plies=3)
    net = network_lib.make_network(network_lib.NetworkConfig(preset="tiny"), game.num_actions)
    params = network_lib.init_params(net, jax.random.key(0), game.observation_shape)
    config = SearchConfig(num_simulations=32, max_considered_actions=9, discount=discount)
    result = jax.jit(make_search(game, net, config))(params, jax.random.key(1), states)
    tree = result.tree
    expanded = np.asarray(tree.children_index) >= 0
    child = np.maximum(np.asarray(tree.children_index), 0)
    rows = np.arange(child.shape[0])[:, None, None]
    over = np.asarray(tree.embeddings.terminated)[rows, child]  # [B, node, action]
    discounts = np.asarray(tree.children_discounts)
    assert expanded.sum() > 8 and (expanded & over).any() and (expanded & ~over).any()
    assert np.allclose(discounts[expanded & ~over], -discount)
    assert np.allclose(discounts[expanded & over], 0.0)


def test_discount_outside_zero_to_one_is_refused():
    for bad in (0.0, -0.5, 1.5):
        with pytest.raises(ValueError, match="discount"):
            SearchConfig(discount=bad)
    for bad in (-1.0, 1.0, 2.0):
        with pytest.raises(ValueError, match="draw_value"):
            SearchConfig(draw_value=bad)


def one_move_from_a_draw(size):
    """A Gomoku game whose one empty cell draws it, and that cell."""
    game, moves = drawn_game(size)
    return game, game.from_moves(moves[:-1]), game.string_to_action(moves[-1])


@pytest.mark.parametrize("size, mover", [(5, 0), (6, 1)])
def test_a_draw_pays_the_first_player_the_draw_value_and_the_second_its_negative(size, mover):
    game, state, last = one_move_from_a_draw(size)
    assert int(state.current_player) == mover
    assert np.flatnonzero(np.asarray(state.legal_action_mask)).tolist() == [last]
    after = game.step(state, jnp.int32(last))
    assert bool(after.terminated) and int(after.winner) == -1
    net = network_lib.make_network(network_lib.NetworkConfig(preset="tiny"), game.num_actions)
    params = network_lib.init_params(net, jax.random.key(0), game.observation_shape)
    states = jax.tree.map(lambda x: x[None], state)
    for draw_value in (0.0, -0.3):
        config = SearchConfig(num_simulations=4, draw_value=draw_value, gumbel_scale=0.0)
        tree = make_search(game, net, config)(params, jax.random.key(1), states).tree
        reward = float(tree.children_rewards[0, 0, last])
        assert reward == pytest.approx(draw_value if mover == 0 else -draw_value)


def test_considered_actions_grow_with_the_simulations():
    # Danihelka et al. 2022 consider 16 actions with 200 simulations in Go; 64 keeps the
    # training's 8, so play at the default count is unchanged.
    assert considered_actions(200) == 16
    assert considered_actions(64) == 8
    for simulations in (16, 64, 256, 1024, 4096):
        m = considered_actions(simulations)
        rounds = m.bit_length() - 1  # log2(m) rounds of sequential halving
        assert m & (m - 1) == 0  # a power of two
        # each action gets at least 2 visits in the first round, and twice as many would not
        assert simulations / (m * rounds) >= 2
        assert simulations / (2 * m * (rounds + 1)) < 2


def test_the_play_search_scales_unless_told_and_switches_to_puct():
    trained = SearchConfig(num_simulations=16, max_considered_actions=8)
    assert trained.deterministic().max_considered_actions == 8  # never below the training's
    assert trained.deterministic(1024).max_considered_actions == 64
    assert trained.deterministic(1024, considered_actions=4).max_considered_actions == 4
    puct = trained.deterministic(256, policy="puct")
    assert (puct.policy, puct.num_simulations, puct.gumbel_scale) == ("puct", 256, 0.0)
    assert (puct.dirichlet_fraction, puct.temperature_plies) == (0.0, 0)  # the best move
