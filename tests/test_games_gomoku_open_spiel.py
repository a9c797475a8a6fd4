"""Differential test: hexjax Gomoku against OpenSpiel's `gomoku`, every ply of random games.

OpenSpiel's gomoku lets an overline win (six or more in a row end the game for the player who
made them; see test_open_spiel_overline_wins), which is hexjax's `freestyle` rule.
"""

import pyspiel
import pytest
from support.open_spiel_diff import assert_same_games, open_spiel_games

import hexjax

NUM_GAMES = 500


def test_open_spiel_overline_wins():
    game = pyspiel.load_game("gomoku", {"size": 9})
    state = game.new_initial_state()
    # Black: 0 1 2 3 5 then 4 (six in row 0); White stays off that row.
    for action in [0, 20, 1, 21, 2, 22, 3, 60, 5, 24, 4]:
        state.apply_action(action)
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


@pytest.mark.parametrize("size", [9, 15])
def test_freestyle_matches_open_spiel_at_every_ply(size):
    game = hexjax.make("gomoku", size=size, rule="freestyle")
    records = open_spiel_games("gomoku", {"size": size}, NUM_GAMES, seed=size)
    assert_same_games(game, records)
