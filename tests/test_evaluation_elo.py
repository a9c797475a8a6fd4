"""The Bradley–Terry Elo fit recovers known ratings from synthetic results."""

import itertools

import numpy as np
import pytest

from hexjax.evaluation import elo

TRUE = {"random": 0.0, "greedy": 300.0, "mcts": 550.0, "agent": 900.0}


def synthetic(ratings, games, rng=None):
    """Round robin: expected scores (rng None) or sampled wins."""
    matches = []
    for a, b in itertools.combinations(ratings, 2):
        p = 1 / (1 + 10 ** ((ratings[b] - ratings[a]) / 400))  # written out, not elo's helper
        score = games * p if rng is None else float(rng.binomial(games, p))
        matches.append(elo.Match(a, b, score, games))
    return matches


def test_expected_results_give_back_the_ratings():
    ratings = elo.fit(synthetic(TRUE, 100_000), anchor="random", prior_games=0.0)
    for name, value in TRUE.items():
        assert ratings.elo[name] == pytest.approx(value, abs=0.01)
    assert ratings.stderr["random"] == 0.0


def test_sampled_results_land_within_their_standard_errors():
    rng = np.random.default_rng(0)
    ratings = elo.fit(synthetic(TRUE, 400, rng), anchor="random")
    for name, value in TRUE.items():
        assert abs(ratings.elo[name] - value) <= 3 * ratings.stderr[name] + 1e-9
    # With 400 games a pair, a 300-point gap is measured to within a few tens of points.
    assert 5 < ratings.stderr["greedy"] < 60


def test_a_perfect_record_gives_a_finite_rating_and_the_order_holds():
    matches = [
        elo.Match("random", "greedy", 10, 100),
        elo.Match("greedy", "agent", 0, 100),
        elo.Match("random", "agent", 0, 100),
    ]
    ratings = elo.fit(matches, anchor="random")
    assert 0 < ratings.elo["greedy"] < ratings.elo["agent"] < 2000
    # A 10% score is ~382 points below (400 log10(9)).
    assert ratings.elo["greedy"] == pytest.approx(400 * np.log10(9), abs=40)


def test_draws_count_half():
    ratings = elo.fit([elo.Match("random", "other", 50, 100)], anchor="random")
    assert ratings.elo["other"] == pytest.approx(0.0, abs=1e-6)


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="anchor 'random' played no game"):
        elo.fit([elo.Match("a", "b", 1, 2)], anchor="random")
    with pytest.raises(ValueError, match="no chain of games"):
        elo.fit([elo.Match("random", "a", 1, 2), elo.Match("b", "c", 1, 2)], anchor="random")
    with pytest.raises(ValueError, match="bad result"):
        elo.fit([elo.Match("random", "a", 3, 2)], anchor="random")
