"""Differential test: hexjax Hex against OpenSpiel's `hex`, every ply of random games."""

import pytest
from support.open_spiel_diff import assert_same_games, open_spiel_games

import hexjax

NUM_GAMES = 500


@pytest.mark.parametrize(
    ("size", "swap"), [(3, False), (5, False), (7, False), (11, False), (5, True), (7, True)]
)
def test_matches_open_spiel_at_every_ply(size, swap):
    game = hexjax.make("hex", size=size, swap=swap)
    records = open_spiel_games("hex", {"board_size": size, "swap": swap}, NUM_GAMES, seed=size)
    assert_same_games(game, records)
