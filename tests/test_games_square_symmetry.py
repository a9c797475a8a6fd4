"""The 8 symmetries of the square boards (Gomoku, Othello): winners, observations, masks."""

import jax
import numpy as np
import pytest
from support.playouts import random_playouts

import hexjax

GAMES = [
    ("gomoku", {"size": 7, "win_length": 4, "threats": True}),
    ("gomoku", {"size": 9, "rule": "standard"}),
    ("othello", {"size": 6}),
    ("othello", {"size": 8}),
]


@pytest.mark.parametrize(("name", "options"), GAMES)
def test_winners_invariant_on_random_finished_games(name, options):
    game = hexjax.make(name, **options)
    names = [s.name for s in game.symmetries]
    assert len(names) == 8 and names[0] == "identity"
    states, _ = random_playouts(game, jax.random.key(3), batch=32)
    final = jax.device_get(jax.tree.map(lambda x: x[-1], states))
    for b in range(32):
        for sym in game.symmetries:
            image = game.from_board(sym.board_fn(final.board[b]), to_play=0)
            assert bool(image.terminated), sym.name
            assert int(image.winner) == int(final.winner[b]), sym.name


@pytest.mark.parametrize(("name", "options"), GAMES[::2])
def test_observations_and_masks_follow_the_board(name, options):
    game = hexjax.make(name, **options)
    states, _ = random_playouts(game, jax.random.key(4), batch=8)
    observe = jax.jit(game.observe)  # op by op, the threat planes took a minute
    for t in (3, 10, 17):
        for b in range(8):
            state = jax.tree.map(lambda x, t=t, b=b: x[t, b], states)
            if bool(state.terminated):
                continue
            for sym in game.symmetries:
                board = sym.board_fn(np.asarray(state.board))
                image = game.from_board(board, int(state.current_player))
                np.testing.assert_array_equal(
                    observe(image), sym.observation_fn(observe(state)), sym.name
                )
                moved = np.zeros(game.num_actions, bool)
                moved[sym.action_map] = np.asarray(state.legal_action_mask)
                np.testing.assert_array_equal(image.legal_action_mask, moved, sym.name)


def test_rotation_moves_cells_where_expected():
    game = hexjax.make("gomoku", size=5, win_length=4)
    rotate = {s.name: s for s in game.symmetries}["rotate90"]
    board = np.zeros((5, 5), np.int8)
    board[0, 4] = 1  # top-right corner; a quarter turn counter-clockwise takes it top-left
    assert rotate.board_fn(board)[0, 0] == 1
    assert rotate.action_map[4] == 0
