"""experiments/fours_in_games.py on games written for it: where a win by fours was allowed."""

import pytest
from support.scripts import load_experiment

from hexjax.evaluation.sgf import write_sgf
from hexjax.games import make

# 9x9 freestyle, "model" Black. White builds three in column c (rows 2-4 from the top) while
# Black plays along the bottom row; Black's fourth move does not block, White makes an open four.
GAME = make("gomoku", size=9, rule="freestyle")
CELLS = [(8, 8), (2, 2), (8, 6), (3, 2), (8, 4), (4, 2), (0, 8), (5, 2), (1, 2), (6, 2)]
ACTIONS = [r * 9 + c for r, c in CELLS]


def test_the_first_move_that_allows_fours_and_the_moves_that_would_not(tmp_path, capsys):
    script = load_experiment("fours_in_games")
    (tmp_path / "lost.sgf").write_text(write_sgf(GAME, ACTIONS, "model (64)", "other"))
    quiet = ACTIONS[:4]  # White's two stones: nothing allowed yet
    (tmp_path / "short.sgf").write_text(write_sgf(GAME, quiet, "other", "the model"))
    assert script.main([str(tmp_path), "--player", "model"]) == 0
    out = capsys.readouterr().out
    assert "lost.sgf: 10 plies, allowed one at ply 7;" in out
    assert "short.sgf: 4 plies, never allowed a win by fours" in out
    assert "2 games: a win by fours allowed in 1, avoidable in 1" in out
    # Blocking either end of the three (b3's neighbours in the column) leaves White no fours.
    solver = script.VcfSolver(GAME)
    ply, safe = script.first_allowed_win(solver, ACTIONS, 0)
    assert ply == 6 and safe >= 2


def test_bad_input_gets_a_message(tmp_path, capsys):
    script = load_experiment("fours_in_games")
    assert script.main([str(tmp_path)]) == 2
    (tmp_path / "a.sgf").write_text(write_sgf(GAME, ACTIONS, "model", "model too"))
    assert script.main([str(tmp_path)]) == 2
    (tmp_path / "a.sgf").write_text("(;GM[4]SZ[9];B[zz])")
    assert script.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no .sgf files" in err and "names 2 players" in err and "a.sgf" in err


# The model (White) lets Black's two crossing twos (row 4: c and d; column f: rows 2-3) meet at
# f4, two open threes: a win by threats, not by fours.
CROSSING = [(4, 2), (0, 0), (4, 3), (0, 8), (2, 5), (8, 0), (3, 5), (8, 8), (4, 5)]


def test_with_threats_a_double_three_counts(tmp_path, capsys):
    script = load_experiment("fours_in_games")
    actions = [r * 9 + c for r, c in CROSSING]
    (tmp_path / "cross.sgf").write_text(write_sgf(GAME, actions, "other", "model"))
    assert script.main([str(tmp_path)]) == 0
    assert "cross.sgf: 9 plies, never allowed a win by fours" in capsys.readouterr().out
    assert script.main([str(tmp_path), "--threats", "30"]) == 0
    out = capsys.readouterr().out
    assert "cross.sgf: 9 plies, allowed one at ply 8;" in out
    assert "1 games: a win by fours or threats allowed in 1, avoidable in 1" in out
    with pytest.raises(SystemExit) as exit_:
        script.main([str(tmp_path), "--threats", "0"])
    assert exit_.value.code == 2 and "--threats must be a positive" in capsys.readouterr().err
    # Renju: the same White move allows nothing, Black's double three being forbidden.
    renju = make("gomoku", size=9, rule="renju")
    (tmp_path / "cross.sgf").write_text(write_sgf(renju, actions[:8], "other", "model"))
    assert script.main([str(tmp_path), "--threats", "1"]) == 0
    assert "cross.sgf: 8 plies, never allowed a win by fours or threats" in capsys.readouterr().out
