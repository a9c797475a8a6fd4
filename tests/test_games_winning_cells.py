"""`game.winning_cells(state)`: the cells to highlight at a win, on hand-made positions whose
answer is read off the diagram (Hex: the whole group joining the winner's edges; Gomoku: the
five, or the longer line where the rule lets it win)."""

import hexjax


def cells(game, *names: str) -> list[int]:
    return sorted(game.parse_moves(list(names)))


def test_hex_black_group_with_its_branch_but_not_a_loose_stone():
    game = hexjax.make("hex", size=4)
    # Rows from the top, each shifted right: b1 b2 a3 a4 join top and bottom; c2 hangs on b2;
    # d3 touches none of them.
    state = game.from_board(
        """
        . x . o
        . x x .
        x . o x
        x . . o
        """,
        to_play=1,
    )
    assert int(state.winner) == 0
    assert game.winning_cells(state) == cells(game, "b1", "b2", "c2", "a3", "a4")


def test_hex_white_joins_left_and_right():
    game = hexjax.make("hex", size=3)
    state = game.from_board(["x x .", "o o o", "x . ."], to_play=0)
    assert int(state.winner) == 1
    assert game.winning_cells(state) == cells(game, "a2", "b2", "c2")


def test_hex_played_win_and_no_win_yet():
    game = hexjax.make("hex", size=3)
    assert game.winning_cells(game.from_moves("b1 a1 b2 a2")) == []
    won = game.from_moves("b1 a1 b2 a2 b3")
    assert game.winning_cells(won) == cells(game, "b1", "b2", "b3")


def test_gomoku_freestyle_marks_the_whole_overline_not_a_four():
    game = hexjax.make("gomoku", size=9, rule="freestyle")
    # Row numbers count from the bottom: the top row here is row 9.
    state = game.from_board(
        """
        . . . . . . . . .
        x x x x x x . . .
        . . . . . . . . .
        . . . . . . . . .
        x x x x . . . . .
        . . . . . . . . .
        o o o o . o o o o
        . . . . . . . . .
        . . . . . . . . .
        """,
        to_play=1,
    )
    assert int(state.winner) == 0
    assert game.winning_cells(state) == cells(game, "a8", "b8", "c8", "d8", "e8", "f8")


def test_gomoku_standard_marks_the_exact_five_only():
    game = hexjax.make("gomoku", size=9, rule="standard")
    # Black's six on row 8 does not win in standard Gomoku; its five on the diagonal does.
    state = game.from_board(
        """
        . . . . . . . . .
        x x x x x x . . .
        . . . . . . . . .
        . . . . x . . . .
        . . . . . x . . .
        . . . . . . x . .
        . . . . . . . x .
        . . . . . . . . x
        o o o o . o o o o
        """,
        to_play=1,
    )
    assert int(state.winner) == 0
    assert game.winning_cells(state) == cells(game, "e6", "f5", "g4", "h3", "i2")


def test_renju_white_wins_with_an_overline_and_a_cross_marks_both_lines():
    game = hexjax.make("gomoku", size=9, rule="renju")
    state = game.from_board(
        """
        . . . . . . . . .
        o o o o o o . . .
        . . . . . . . . .
        x . x . x . x . x
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . x . x . . . . .
        """,
        to_play=0,
    )
    assert int(state.winner) == 1
    assert game.winning_cells(state) == cells(game, "a8", "b8", "c8", "d8", "e8", "f8")

    free = hexjax.make("gomoku", size=9)
    cross = free.from_board(
        """
        . . . . x . . . .
        . . . . x . . . .
        . . . . x . . . .
        . . . . x . . . .
        x x x x x . . . .
        . . . . . . . . .
        o o o o . o o . .
        . . . . . o o . .
        . . . . . . . . .
        """,
        to_play=1,
    )
    column = ["e9", "e8", "e7", "e6", "e5"]
    assert free.winning_cells(cross) == cells(free, *column, "a5", "b5", "c5", "d5")


def test_othello_and_unfinished_games_have_no_chain():
    othello = hexjax.make("othello", size=6)
    assert othello.winning_cells(othello.new_state()) == []
    gomoku = hexjax.make("gomoku", size=9)
    assert gomoku.winning_cells(gomoku.from_moves("e5 a1 e6 a2 e7 a3 e8")) == []
