"""The auxiliary heads (the opponent's reply policy, the cells' final owners, the draw): their
targets from a scripted game, checked against the moves by hand; the heads' shapes; the
iteration that trains them; play and export that leave them out."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support.configs import iterate_compiled_once, tiny_config
from test_alphazero_selfplay import SCRIPT, scripted_search

import hexjax
from hexjax.alphazero import network as network_lib
from hexjax.alphazero import selfplay
from hexjax.games import GameConfig
from hexjax.play import export

AUX = network_lib.NetworkConfig("tiny", reply_head=True, ownership_head=True, draw_head=True)


def test_targets_of_a_scripted_game_across_two_iterations():
    """Hex 3x3, Black a1 a2 a3 against White b1 b2, over two iterations: each position's reply
    target is the next move's policy (none after the last move), and its ownership target the
    final board filled by the winner (Hex's `final_owners`) from its mover's view."""
    game = hexjax.make("hex", size=3)
    search = scripted_search(game, SCRIPT)
    state = selfplay.init_selfplay(game, jax.random.key(0), batch=2, final_boards=True)
    for key in (1, 2):
        state, trajectory, _ = selfplay.play(game, search, None, jax.random.key(key), state, 3)
        state, rows, _, ready = selfplay.settle(state, trajectory, replies=True)
    ready = np.asarray(ready)
    assert ready.sum() == 2 * 5
    moves = game.parse_moves(SCRIPT)
    replies = np.asarray(rows.reply)[ready].reshape(5, 2, -1)[:, 0]
    for ply in range(4):
        np.testing.assert_array_equal(replies[ply], np.eye(game.num_actions)[moves[ply + 1]])
    np.testing.assert_array_equal(replies[4], 0)
    final = np.ones(9, np.int8)  # 1 Black, 2 White: Black won, so the empty cells are its
    for ply, move in enumerate(moves):
        final[move] = 1 + ply % 2
    owners = np.asarray(rows.ownership)[ready].reshape(5, 2, -1)[:, 0]
    for ply in range(5):
        mover = ply % 2
        want = np.where(final == mover + 1, 1, np.where(final == 2 - mover, -1, 0))
        np.testing.assert_array_equal(owners[ply], want)


def test_winning_line_targets_of_a_scripted_gomoku_game():
    """Gomoku 7x7, Black a1-a5 against White b1-b4, with `winning_line` for the final boards:
    each position's ownership target is Black's five alone, 1 where Black is to move and -1
    where White is; every other cell 0 (White's four stones and the empty cells alike)."""
    game = hexjax.make("gomoku", size=7)
    script = "a1 b1 a2 b2 a3 b3 a4 b4 a5"
    state = selfplay.init_selfplay(game, jax.random.key(0), batch=2, final_boards=True)
    search = scripted_search(game, script)
    state, trajectory, _ = selfplay.play(
        game, search, None, jax.random.key(1), state, 9, final_owners=game.winning_line
    )
    _, rows, _, ready = selfplay.settle(state, trajectory)
    ready = np.asarray(ready)
    assert ready.sum() == 2 * 9
    five = np.zeros(49, np.int8)
    five[[game.string_to_action(f"a{r}") for r in range(1, 6)]] = 1
    owners = np.asarray(rows.ownership)[ready].reshape(9, 2, -1)[:, 0]
    for ply in range(9):
        np.testing.assert_array_equal(owners[ply], five if ply % 2 == 0 else -five)


def test_winning_line_targets_only_for_gomoku_with_the_head():
    line = {"ownership_target": "winning_line"}
    with pytest.raises(ValueError, match="--game gomoku and --network.ownership_head true"):
        tiny_config(network=AUX, **line)  # Hex
    with pytest.raises(ValueError, match="--network.ownership_head true"):
        tiny_config(game=GameConfig("gomoku", 7), **line)
    with pytest.raises(ValueError, match="ownership_target must be one of owners, winning_line"):
        tiny_config(ownership_target="lines")


def test_without_the_heads_no_target_is_kept():
    game = hexjax.make("hex", size=3)
    state = selfplay.init_selfplay(game, jax.random.key(0), batch=2)
    state, trajectory, _ = selfplay.play(
        game, scripted_search(game, SCRIPT), None, jax.random.key(1), state, 5
    )
    _, rows, _, _ = selfplay.settle(state, trajectory)
    assert rows.reply is None and rows.ownership is None and rows.final_board is None


@pytest.mark.parametrize("head", ["dense", "pooled"])
def test_the_heads_score_every_action_and_every_cell(head):
    game = hexjax.make("hex", size=5, swap=True)
    net = network_lib.make_network(
        dataclasses.replace(AUX, head=head),
        game.num_actions,
    )
    params = network_lib.init_params(net, jax.random.key(0), game.observation_shape)
    obs = jnp.zeros((3, *game.observation_shape))
    logits, value, aux = network_lib.apply_aux(net, params, obs)
    assert aux["reply"].shape == logits.shape == (3, 26)
    assert aux["ownership"].shape == (3, 25) and (np.abs(np.asarray(aux["ownership"])) <= 1).all()
    assert aux["draw"].shape == (3,)  # a logit
    # Play uses the policy and value alone, the same with or without the heads' layers.
    plain_logits, plain_value = network_lib.apply(net, network_lib.without_aux(params), obs)
    np.testing.assert_array_equal(plain_logits, logits)
    np.testing.assert_array_equal(plain_value, value)


def test_the_iteration_trains_the_heads_and_compiles_once():
    state, metrics = iterate_compiled_once(tiny_config(network=AUX, full_search_share=0.5))
    assert metrics["reply_loss"] > 0 and 0 < metrics["ownership_loss"] < 4
    assert metrics["draw_loss"] > 0 and not np.asarray(state.replay.drawn).any()  # Hex: none
    size = int(state.replay.size)
    assert size > 16 and int(state.updates) > 0
    owners = np.asarray(state.replay.ownership)[:size]
    assert set(np.unique(owners)) <= {-1, 0, 1} and (owners != 0).any(axis=1).all()
    replies = np.asarray(state.replay.reply)[:size].sum(axis=1)
    assert np.allclose(replies[replies > 0.5], 1.0) and (replies < 0.5).any()


def test_export_leaves_the_heads_out():
    game_config = GameConfig("gomoku", 7)
    game = game_config.make()
    config = tiny_config(game=game_config, network=AUX)
    net = network_lib.make_network(AUX, game.num_actions)
    params = network_lib.init_params(net, jax.random.key(0), game.observation_shape)
    onnxruntime = pytest.importorskip("onnxruntime")
    session = onnxruntime.InferenceSession(export.to_onnx(config, params))
    obs = np.random.default_rng(0).integers(0, 2, (4, *game.observation_shape)).astype(np.float32)
    logits, values = session.run(None, {"observations": obs})
    want_logits, want_values = network_lib.apply(net, params, obs)
    np.testing.assert_allclose(logits, want_logits, atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(values, want_values, atol=1e-5, rtol=1e-5)


def test_the_iteration_trains_a_winning_line_head_and_compiles_once():
    config = tiny_config(
        game=GameConfig("gomoku", 7),
        network=network_lib.NetworkConfig("tiny", ownership_head=True),
        ownership_target="winning_line",
        plies_per_iteration=8,
    )
    state, metrics = iterate_compiled_once(config)
    assert metrics["ownership_loss"] > 0
    owners = np.asarray(state.replay.ownership)[: int(state.replay.size)]
    lines = owners[(owners != 0).any(axis=1)]
    assert len(lines) > 0
    # A row's target is one side's line: five or more cells, one sign.
    assert ((lines != 0).sum(axis=1) >= 5).all()
    assert (np.abs(lines.sum(axis=1)) == (lines != 0).sum(axis=1)).all()
