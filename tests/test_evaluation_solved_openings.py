"""The solved 7x7 Hex openings: the table against a second source, and the score of values."""

import numpy as np
import pytest

import hexjax
from hexjax.evaluation import solved_openings

TABLE = solved_openings.FIRST_PLAYER_WINS


def _cell(name: str) -> tuple[int, int]:
    action = hexjax.make("hex", size=7).string_to_action(name)
    return divmod(action, 7)


def test_the_table_agrees_with_hayward_et_al():
    # webdocs.cs.ualberta.ca/~hayward/hex7trees: openings with a winning countermove lose
    # (a1 c4, a2 e3, a3 d4, a5 b6, b1 c4, b2 e3), "--" win (a4, a6, a7, b3).
    for name in ("a1", "a2", "a3", "a5", "b1", "b2"):
        assert not TABLE[_cell(name)], name
    for name in ("a4", "a6", "a7", "b3"):
        assert TABLE[_cell(name)], name


def test_the_table_has_the_half_turn_symmetry_and_a_winning_centre():
    assert (TABLE[::-1, ::-1] == TABLE).all()
    assert TABLE[_cell("d4")]  # the centre wins, as on every board solved so far
    assert not TABLE[_cell("a1")] and not TABLE[_cell("g7")]  # the acute corners lose


def test_a_value_is_right_where_its_sign_names_the_winner():
    first_wins = TABLE.reshape(-1)
    perfect = np.where(first_wins, -0.9, 0.9)  # the second player's view after the move
    assert solved_openings.score(perfect)["correct"] == 49
    pessimist = np.full(49, -0.5)  # "the second player always loses"
    result = solved_openings.score(pessimist)
    assert result["correct"] == result["winning"] == int(first_wins.sum())
    assert len(result["wrong"]) == 49 - result["winning"]
    with pytest.raises(ValueError, match="expected 49"):
        solved_openings.score(np.zeros(25))


def test_only_plain_hex_7x7_has_a_table():
    assert solved_openings.applies(hexjax.make("hex", size=7))
    assert not solved_openings.applies(hexjax.make("hex", size=7, swap=True))
    assert not solved_openings.applies(hexjax.make("hex", size=5))
    assert not solved_openings.applies(hexjax.make("gomoku", size=9))
