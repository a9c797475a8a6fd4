"""`Game.winning_line` (the ownership head's `winning_line` target), traced: on every finished
random game of Gomoku's three rules, the cells a plain-Python scan of the board's runs marks
(`_runs.winning_lines`, the web page's highlight); on hand-made positions, exactly five where
the rule says so; only k-in-a-row games have one."""

import jax
import numpy as np
import pytest
from support.playouts import random_playouts

import hexjax
from hexjax.games._runs import winning_lines


@pytest.mark.parametrize("rule", ["freestyle", "standard", "renju"])
def test_every_finished_random_game_s_line_is_the_plain_scan_s(rule):
    game = hexjax.make("gomoku", size=7, rule=rule)
    states, _ = random_playouts(game, jax.random.key(3), batch=48)
    lines = np.asarray(jax.jit(jax.vmap(jax.vmap(game.winning_line)))(states))
    boards, winners = np.asarray(states.board), np.asarray(states.winner)
    won = 0
    for t, b in np.ndindex(winners.shape):
        winner = int(winners[t, b])
        if winner < 0:
            assert not lines[t, b].any()
            continue
        won += 1
        exact = rule == "standard" or (rule == "renju" and winner == 0)
        marked = winning_lines(boards[t, b], winner + 1, 5, exact)
        np.testing.assert_array_equal(lines[t, b], np.where(marked, winner + 1, 0))
        assert marked.sum() >= 5
    assert won > 48  # finished games hold their last state for the rest of the playout


def test_an_overline_is_a_line_only_where_it_wins():
    """Black's a5 makes six in column a and five in row 5: freestyle marks both lines (ten
    stones), standard and renju (a five wins for Black even where it makes an overline too)
    only the row's five."""
    moves = "a1 i1 a2 i3 a3 i5 a4 i7 a6 i9 b5 g2 c5 g4 d5 g6 e5 g8 a5"
    column = {f"a{r}" for r in range(1, 7)}
    row = {"a5", "b5", "c5", "d5", "e5"}
    for rule, want in (("freestyle", column | row), ("standard", row), ("renju", row)):
        game = hexjax.make("gomoku", size=9, rule=rule)
        state = game.from_moves(moves)
        assert int(state.winner) == 0, rule
        line = np.asarray(game.winning_line(state)).reshape(-1)
        assert sorted(np.flatnonzero(line)) == sorted(game.string_to_action(c) for c in want)
        assert set(line[line != 0]) == {1}


def test_white_s_overline_wins_in_renju_and_is_its_line():
    game = hexjax.make("gomoku", size=9, rule="renju")
    state = game.from_moves("i9 a1 i7 a2 i5 a3 h9 a4 h7 a6 h5 a5")
    assert int(state.winner) == 1
    line = np.asarray(game.winning_line(state)).reshape(-1)
    six = sorted(game.string_to_action(f"a{r}") for r in range(1, 7))
    assert sorted(np.flatnonzero(line)) == six
    assert set(line[line != 0]) == {2}


@pytest.mark.parametrize("name", ["hex", "othello"])
def test_games_without_lines_say_so(name):
    game = hexjax.make(name, size=8 if name == "othello" else 5)
    with pytest.raises(NotImplementedError, match="no winning line"):
        game.winning_line(game.new_state())
