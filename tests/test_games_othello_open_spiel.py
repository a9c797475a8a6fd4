"""Differential test: hexjax Othello against OpenSpiel's `othello`, every ply of random games."""

from support.open_spiel_diff import assert_same_games, open_spiel_games

import hexjax

NUM_GAMES = 500


def test_matches_open_spiel_at_every_ply():
    game = hexjax.make("othello")
    records = open_spiel_games("othello", {}, NUM_GAMES, seed=8)
    passes = sum(a == game.pass_action for r in records for a in r[0])
    draws = sum(r[3][-1] == [0.0, 0.0] for r in records)
    assert passes > 0 and draws > 0  # the games exercise passes and draws
    assert_same_games(game, records)
