"""Long differential runs against OpenSpiel (`make test-slow`): 5,000 games per game."""

import pytest
from support.open_spiel_diff import assert_same_games, open_spiel_games

import hexjax

CASES = [
    ("hex", {"size": 11}, "hex", {"board_size": 11}),
    ("hex", {"size": 9, "swap": True}, "hex", {"board_size": 9, "swap": True}),
    ("gomoku", {"size": 15}, "gomoku", {"size": 15}),
    ("othello", {}, "othello", {}),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "options", "spiel_name", "spiel_params"), CASES)
def test_five_thousand_games(name, options, spiel_name, spiel_params):
    game = hexjax.make(name, **options)
    for chunk in range(5):  # chunks keep the replayed history small
        records = open_spiel_games(spiel_name, spiel_params, 1000, seed=1000 + chunk)
        assert_same_games(game, records)
