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


def test_rates_per_board_group_the_goals_the_targets_are_set_in():
    """Win in one + forced block, and the continuous-four wins, per board and rule."""
    hits = {p.id: p.goal != "vcf5" for p in SUITE if p.size == 15}  # misses every vcf5
    boards = puzzles.board_rates(SUITE, hits)
    assert list(boards) == ["15x15 freestyle", "15x15 renju", "15x15 standard"]
    for board, rates in boards.items():
        mine = [p for p in SUITE if f"{p.size}x{p.size} {p.rule}" == board]
        assert rates["all"]["puzzles"] == len(mine)
        block = [p for p in mine if p.goal in ("win_in_one", "forced_block")]
        assert rates["win_or_block"] == {
            "puzzles": len(block),
            "solved": len(block),
            "accuracy": 1.0,
        }
        fours = [p for p in mine if p.goal in ("vcf3", "four_three", "vcf5")]
        missed = sum(p.goal == "vcf5" for p in fours)
        assert rates["vcf"]["puzzles"] == len(fours)
        assert rates["vcf"]["solved"] == len(fours) - missed
    by_category = puzzles.solve_rates(SUITE, None, hits)
    assert by_category["vcf5"]["solved"] == 0 and by_category["four_three"]["accuracy"] == 1.0
