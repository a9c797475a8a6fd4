"""Baseline players and the arena (the evaluation issue extends these)."""

import jax
import numpy as np
import pytest

import hexjax
from hexjax import players


def match(game, first, second, games=64, seed=0, opening_plies=2):
    play = jax.jit(lambda key: players.arena(game, first, second, key, games, opening_plies))
    return np.asarray(play(jax.random.key(seed)))


def test_random_against_itself_is_even_and_the_interval_covers_half():
    game = hexjax.make("hex", size=5)
    scores = match(game, players.random_player(game), players.random_player(game), games=400)
    summary = players.summarize(scores)
    assert summary["games"] == 400 and summary["wins"] + summary["losses"] == 400  # no draws
    assert summary["low"] < 0.5 < summary["high"]


def test_colours_alternate_first_half_moves_first():
    """A player that always loses at once (an illegal move) loses every game, with either colour;
    its opponent therefore wins as Black in the first half and as White in the second."""
    game = hexjax.make("hex", size=4)

    def suicidal(key, states):
        del key
        return jax.numpy.full(states.current_player.shape, -1)  # out of range: loses

    scores = match(game, players.random_player(game), suicidal, games=8, opening_plies=0)
    assert (scores == 1).all()
    scores = match(game, suicidal, players.random_player(game), games=8, opening_plies=0)
    assert (scores == 0).all()


@pytest.mark.parametrize(
    ("name", "options", "least"),
    [("hex", {"size": 5}, 0.5), ("gomoku", {"size": 7, "win_length": 4}, 0.85)],
)
def test_greedy_beats_random(name, options, least):
    """The generic greedy (win now, else block, else random) matters most where games are
    decided by immediate threats; Othello's own greedy comes with the evaluation issue."""
    game = hexjax.make(name, **options)
    summary = players.summarize(
        match(game, players.greedy_player(game), players.random_player(game), games=128)
    )
    assert summary["score"] >= least


def test_rollout_mcts_beats_random():
    game = hexjax.make("hex", size=4)
    mcts = players.rollout_mcts_player(game, 64)
    summary = players.summarize(match(game, mcts, players.random_player(game), games=32))
    assert summary["score"] >= 0.9


def test_rollout_mcts_takes_an_immediate_win():
    game = hexjax.make("gomoku", size=5, win_length=4)
    state = game.from_moves("a1 e5 b1 e4 c1 e3")  # Black to move: d1 wins
    states = jax.tree.map(lambda x: jax.numpy.stack([x] * 4), state)
    action = jax.jit(players.rollout_mcts_player(game, 200))(jax.random.key(0), states)
    assert (np.asarray(action) == game.string_to_action("d1")).all()


def test_summary_interval():
    summary = players.summarize([1, 1, 0, 0.5])
    assert summary == {
        "games": 4,
        "wins": 2,
        "draws": 1,
        "losses": 1,
        "score": 0.625,
        "low": pytest.approx(max(0.0, 0.625 - 1.96 * np.std([1, 1, 0, 0.5], ddof=1) / 2)),
        "high": 1.0,
        "as_black": 1.0,  # the first half of an arena's games
        "as_white": 0.25,
    }
