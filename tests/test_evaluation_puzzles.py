"""The puzzle runner scores players per category on the stored suite."""

import jax.numpy as jnp
import numpy as np

from hexjax.evaluation import players, puzzles

SUITE = puzzles.load_puzzles()


def knowing_player(game):
    """Looks each position up among the suite's (jittable): plays its smallest answer."""
    mine = [p for p in SUITE if (p.size, p.rule) == (game.size, game.rule)]
    boards = jnp.asarray(np.stack([p.board for p in mine]))  # [P, n, n]
    movers = jnp.asarray([p.to_play for p in mine])
    moves = jnp.asarray([min(p.answers) for p in mine])

    def play(key, states):
        del key
        same = (states.board[:, None] == boards[None]).all(axis=(2, 3))
        same &= states.current_player[:, None] == movers[None]
        return moves[jnp.argmax(same, axis=1)]

    return play


def test_the_answers_score_everything_and_no_player_scores_nothing():
    rates = puzzles.solve_rates(SUITE, knowing_player)
    assert all(r["accuracy"] == 1.0 for r in rates.values())
    assert sum(r["puzzles"] for r in rates.values()) == len(SUITE)
    assert puzzles.solve_rates(SUITE, lambda game: None) == {}


def test_greedy_wins_in_one_and_blocks_every_single_threat():
    rates = puzzles.solve_rates(SUITE, players.greedy_player)
    assert rates["win_in_one"]["accuracy"] == 1.0
    assert rates["forced_block"]["accuracy"] == 1.0
    assert sum(r["puzzles"] for r in rates.values()) == len(SUITE)


def test_only_the_games_a_player_can_play_are_counted():
    rates = puzzles.solve_rates(
        SUITE, lambda game: players.random_player(game) if game.size == 9 else None
    )
    assert sum(r["puzzles"] for r in rates.values()) == sum(p.size == 9 for p in SUITE)
