"""The draw head (the chance that the game ends drawn) and contempt: the draw targets of games
built by hand, the iteration that trains the head, the values and drawn leaves a search with
contempt sees (the evaluation's searches and the engines' lasting one, pondering included), and
every place contempt is refused."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support.configs import iterate_compiled_once, tiny_config
from support.play_models import plain_search

import hexjax
from hexjax.alphazero import network as network_lib
from hexjax.alphazero import search as search_lib
from hexjax.alphazero import selfplay
from hexjax.alphazero.config import TrainConfig
from hexjax.commands import evaluate_flags
from hexjax.games import GameConfig
from hexjax.play.agent import Agent
from hexjax.play.lasting import LastingSearch
from hexjax.training import algorithms, config_io, restore

DRAWS = network_lib.NetworkConfig("tiny", draw_head=True)
# Gomoku 5x5: a full board without five in a row (found by a seeded random playout).
DRAWN_GAME = "b4 a1 b2 a5 a3 c1 d3 b5 e2 c2 b1 e5 d5 d1 c5 c3 a4 e4 e3 b3 a2 c4 d4 d2 e1"


def test_draw_targets_follow_each_game_back_from_its_end():
    """Two game slots over five plies: slot 0's first game ends drawn at ply 1 and its next
    one won at ply 3, then a third goes on past the sequence; slot 1's game goes on."""
    done = np.zeros((5, 2), bool)
    done[1, 0] = done[3, 0] = True
    outcome = np.zeros((5, 2, 2), np.float32)
    outcome[3, 0] = [1.0, -1.0]  # the won game; the drawn one's rewards stay 0
    sequence = selfplay.Trajectory(
        obs=jnp.zeros((5, 2, 1)),
        policy=jnp.zeros((5, 2, 1)),
        mover=jnp.zeros((5, 2), jnp.int32),
        valid=jnp.ones((5, 2), bool),
        done=jnp.asarray(done),
        outcome=jnp.asarray(outcome),
    )
    drawn = np.asarray(selfplay.draw_targets(sequence))
    assert drawn[:, 0].tolist() == [True, True, False, False, False]
    assert not drawn[:, 1].any()


def test_the_iteration_trains_the_draw_head_on_the_games_that_were_drawn():
    """Gomoku 5x5 (a five is a whole line, so many games fill the board): with a draw worth 0
    and no discount, a position's value target is 0 exactly where its game was drawn."""
    config = tiny_config(game=GameConfig("gomoku", 5), network=DRAWS, plies_per_iteration=8)
    state, metrics = iterate_compiled_once(config, iterations=6)
    assert 0 < metrics["draw_loss"] < 2
    size = int(state.replay.size)
    drawn, value = np.asarray(state.replay.drawn)[:size], np.asarray(state.replay.value)[:size]
    assert drawn.any() and not drawn.all()
    np.testing.assert_array_equal(drawn, value == 0)


def test_the_draw_head_reads_the_trunk_without_training_it():
    """Its loss moves its own layers only: a constant early target (no draws yet) must not
    drive the trunk's features to zero, which killed a run's policy and value."""
    game = hexjax.make("gomoku", size=5)
    net = network_lib.make_network(DRAWS, game.num_actions)
    params = network_lib.init_params(net, jax.random.key(0), game.observation_shape)
    obs = jax.random.bernoulli(jax.random.key(1), 0.3, (4, *game.observation_shape))

    def draw_logits(p):
        return network_lib.apply_aux(net, p, obs.astype(jnp.float32))[2]["draw"].sum()

    grads = jax.grad(draw_logits)(params)
    for name, layer in grads.items():
        moved = any(np.abs(np.asarray(g)).max() > 0 for g in jax.tree.leaves(layer))
        assert moved == name.startswith("draw_"), name


def _draws_certain(game):
    """A tiny network with the draw head, its last bias set so that it says "drawn" (p ~ 1)."""
    net = network_lib.make_network(DRAWS, game.num_actions)
    params = network_lib.init_params(net, jax.random.key(0), game.observation_shape)
    params["draw_out"]["bias"] = jnp.full_like(params["draw_out"]["bias"], 30.0)
    return net, params


def test_contempt_takes_the_chance_of_a_draw_off_our_values_and_adds_it_to_theirs():
    game = hexjax.make("gomoku", size=5)
    net, params = _draws_certain(game)
    states = jax.vmap(game.init)(jax.random.split(jax.random.key(1), 2))
    plain = search_lib.SearchConfig()
    contempt = dataclasses.replace(plain, contempt=0.25)
    _, value = search_lib.evaluate(game, net, params, states, plain)
    _, ours = search_lib.evaluate(game, net, params, states, contempt)  # the movers are us
    them = 1 - states.current_player
    _, theirs = search_lib.evaluate(game, net, params, states, contempt, us=them)
    np.testing.assert_allclose(ours, np.clip(value - 0.25, -1, 1), atol=1e-6)
    np.testing.assert_allclose(theirs, np.clip(value + 0.25, -1, 1), atol=1e-6)


def test_a_drawn_leaf_costs_us_contempt_and_pays_them_as_much():
    """The last move of DRAWN_GAME fills the board: its reward is -contempt when the player
    who makes it is the side the search moves for, +contempt when it is the other."""
    game = hexjax.make("gomoku", size=5)
    moves = game.parse_moves(DRAWN_GAME)
    state = game.new_state()
    for move in moves[:-1]:
        state = game.step(state, jnp.int32(move))
    states = jax.tree.map(lambda x: jnp.stack([x, x]), state)
    net, params = _draws_certain(game)
    config = search_lib.SearchConfig(contempt=0.3)
    mover = int(state.current_player)
    us = jnp.asarray([mover, 1 - mover], jnp.int32)
    action = jnp.full(2, moves[-1], jnp.int32)
    output, children = search_lib.recurrent_step(
        game, net, config, (params, us), None, action, states
    )
    assert np.asarray(children.terminated).all() and (np.asarray(children.winner) < 0).all()
    np.testing.assert_allclose(output.reward, [-0.3, 0.3], atol=1e-6)
    plain = search_lib.recurrent_step(
        game, net, search_lib.SearchConfig(), params, None, action, states
    )[0]
    np.testing.assert_allclose(plain.reward, [0.0, 0.0])


@pytest.mark.parametrize("policy", ["gumbel", "puct"])
def test_a_search_with_contempt_values_the_root_for_the_side_to_move(policy):
    """Where the network is sure of a draw everywhere, contempt moves every node's value by the
    same amount for the side the search moves for (the root's mover): its root value drops
    by the contempt and its moves stay those of the plain search."""
    game = hexjax.make("gomoku", size=5)
    net, params = _draws_certain(game)
    states = jax.vmap(game.init)(jax.random.split(jax.random.key(2), 3))
    states = jax.vmap(game.step)(states, jnp.asarray([0, 7, 12]))  # White to move in all
    plain = search_lib.SearchConfig(policy=policy, num_simulations=8).deterministic()
    results = [
        jax.jit(search_lib.make_search(game, net, config))(params, jax.random.key(3), states)
        for config in (plain, dataclasses.replace(plain, contempt=0.25))
    ]
    np.testing.assert_allclose(results[1].value, results[0].value - 0.25, atol=1e-5)
    np.testing.assert_array_equal(results[1].action, results[0].action)


def _trained(network, contempt):
    config = tiny_config(game=GameConfig("gomoku", 5), network=network)
    game = config.game.make()
    net = network_lib.make_network(network, game.num_actions)
    params = network_lib.init_params(net, jax.random.key(0), game.observation_shape)
    meta = {"iteration": 0}
    return restore.Trained(
        algorithms.ALPHAZERO, config, params, meta, "runs/tiny", 8, contempt=contempt
    )


def test_an_agent_with_contempt_plays_and_says_so():
    agent = _trained(DRAWS, 0.5)
    assert agent.search.contempt == 0.5 and agent.label.endswith(", contempt 0.5")
    states = jax.vmap(agent.game.init)(jax.random.split(jax.random.key(4), 2))
    actions = agent.make_player(agent.params)(jax.random.key(5), states)
    assert np.asarray(states.legal_action_mask)[np.arange(2), np.asarray(actions)].all()


@pytest.fixture(scope="module")
def contemptuous():
    """An agent on Gomoku 5x5 whose tiny network is sure of a draw everywhere, contempt 0.5."""
    game = hexjax.make("gomoku", size=5)
    net, params = _draws_certain(game)
    config = tiny_config(game=GameConfig("gomoku", 5), network=DRAWS)
    return Agent.of_network(config, params, "draws everywhere", contempt=0.5)


def test_a_lasting_search_with_contempt_is_the_plain_search(contemptuous):
    """The engines' grown tree values its nodes for the side to move as mctx's search does."""
    state = contemptuous.game.from_moves([12, 6])
    search = LastingSearch(contemptuous, 64, keep=False, solve=False, timed=False)
    grown = search.move(state, None, simulations=32)
    plain = plain_search(contemptuous, state, 32)
    assert grown.action == plain.action
    np.testing.assert_allclose(grown.value, plain.value, atol=1e-5)
    calm = plain_search(
        Agent.of_network(contemptuous.config, contemptuous.params, "calm"), state, 32
    )
    np.testing.assert_allclose(grown.value, calm.value - 0.5, atol=1e-5)


def test_pondering_values_the_tree_for_us_and_a_side_change_starts_afresh(contemptuous):
    """On the opponent's time the tree is grown for the side that moves next after it; the
    reply keeps it. Asked to move for the other side at a kept position, the search starts a
    new tree: the kept values are the other side's."""
    game = contemptuous.game
    search = LastingSearch(contemptuous, 256, solve=False, timed=False)
    state = game.new_state()
    ours = search.move(state, None, simulations=16)
    after = game.step(state, ours.action)
    checks = iter(range(2))
    assert search.ponder(after, stop=lambda: next(checks, None) is None) > 0
    tree = jax.tree.map(np.asarray, search._local.tree)
    assert tree.extra_data.us.tolist() == [0]  # Black: the agent that moved first
    reply = int(tree.children_visits[0, 0].argmax())
    search.move(game.step(after, reply), None, simulations=8)
    assert search.kept > 1
    search.move(state, None, simulations=16)  # again, and this time White's move is asked
    search.ponder(after, stop=lambda: True)  # re-rooted at `after` for Black, nothing grown
    search.move(after, None, simulations=8)  # the root of Black's tree
    assert search.kept == 0


def test_contempt_is_refused_where_it_cannot_play():
    with pytest.raises(ValueError, match="runs/tiny has no draw head"):
        _trained(network_lib.NetworkConfig("tiny"), 0.5)
    with pytest.raises(ValueError, match="self-play keeps a draw worth the same"):
        tiny_config(search=search_lib.SearchConfig(contempt=0.2))
    with pytest.raises(ValueError, match=r"contempt must be in \[0, 1\)"):
        search_lib.SearchConfig(contempt=1.0)
    base = ["--checkpoint", "runs/x", "--opponent", "greedy"]
    with pytest.raises(ValueError, match=r"--contempt must be in \[0, 1\), got 1.5"):
        evaluate_flags.parse([*base, "--contempt", "1.5"])
    assert evaluate_flags.parse([*base, "--contempt", "0.5"]).agent.contempt == 0.5


def test_a_config_stored_before_the_draw_head_reads_as_without_it_and_plays_as_before():
    """A run or model stored before `draw_head` and `contempt` existed resumes and plays as it
    did: no head, no contempt."""
    stored = config_io.to_dict(tiny_config(game=GameConfig("gomoku", 5)))
    del stored["network"]["draw_head"], stored["search"]["contempt"]
    config = config_io.from_dict(TrainConfig, stored)
    assert not config.network.draw_head and config.search.contempt == 0
