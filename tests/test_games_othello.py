"""Othello: golden positions, passes, the end of the game, host helpers, symmetries."""

import numpy as np
import pytest

import hexjax


@pytest.fixture(scope="module")
def othello():
    return hexjax.make("othello")


@pytest.fixture(scope="module")
def small():
    return hexjax.make("othello", size=4)


def test_start_position(othello):
    state = othello.new_state()
    board = np.asarray(state.board)
    assert board[3, 3] == 2 and board[4, 4] == 2  # d4, e5 White
    assert board[3, 4] == 1 and board[4, 3] == 1  # e4, d5 Black
    assert [othello.action_to_string(a) for a in othello.legal_actions(state)] == [
        "d3",
        "c4",
        "f5",
        "e6",
    ]
    assert othello.num_actions == 65 and othello.observation_shape == (8, 8, 3)


def test_a_move_flips_the_line_it_closes(othello):
    state = othello.from_moves("d3")
    board = np.asarray(state.board)
    assert board[2, 3] == 1 and board[3, 3] == 1  # d3 placed, d4 flipped
    assert (board == 1).sum() == 4 and (board == 2).sum() == 1
    assert int(state.current_player) == 1


def test_flips_in_several_directions_at_once(small):
    board = """
        . O X .
        O O . .
        X . . .
        . . . .
    """
    state = small.from_board(board, to_play=0)
    after = small._jit_step(state, small.string_to_action("a1"))
    # a1 closes b1 (row, against c1) and a2 (column, against a3), not b2 (nothing behind it).
    expected = np.array([[1, 1, 1, 0], [1, 2, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]])
    np.testing.assert_array_equal(after.board, expected)


def test_forced_pass_then_a_wipeout_with_empty_squares(small):
    board = """
        X X X X
        X X X X
        X X O .
        X X X .
    """
    state = small.from_board(board, to_play=1)
    assert small.legal_actions(state) == [small.pass_action]  # White can place nowhere
    assert "must pass" in small.render(state)
    state = small._jit_step(state, small.pass_action)
    assert int(state.current_player) == 0 and int(state.step_count) == 11  # 14 discs - 4 + pass
    # Black closes c3 from d3 (against b3) or from d4 (diagonally, against b2).
    assert small.legal_actions(state) == [small.string_to_action(m) for m in ("d3", "d4")]
    state = small._jit_step(state, small.string_to_action("d3"))
    # White has no discs left: nobody can place, the game ends with d4 still empty.
    assert bool(state.terminated) and int(state.winner) == 0
    assert state.rewards.tolist() == [1.0, -1.0]
    assert np.asarray(state.board)[3, 3] == 0


def test_shortest_wipeout_game(othello):
    state = othello.from_moves("e6 f4 e3 f6 g5 d6 e7 f5 c5")
    assert bool(state.terminated) and int(state.winner) == 0
    board = np.asarray(state.board)
    assert (board == 1).sum() == 13 and (board == 2).sum() == 0
    assert othello.render(state).endswith("X wins, X 13 - O 0")


def test_equal_discs_on_a_full_board_is_a_draw(small):
    board = np.array([[1, 1, 1, 1], [2, 2, 2, 2], [1, 1, 1, 1], [2, 2, 2, 2]])
    state = small.from_board(board, to_play=0)
    assert bool(state.terminated) and int(state.winner) == -1
    assert state.rewards.tolist() == [0.0, 0.0]
    assert not np.asarray(state.legal_action_mask).any()


def test_a_draw_reached_by_play(small):
    board = """
        X O O O
        O X X O
        O O X O
        X X O .
    """
    state = small.from_board(board, to_play=0)
    assert small.legal_actions(state) == [small.string_to_action("d4")]
    # d4 flips c4 (closed by b4); the column d3-d1 and the diagonal c3 flip nothing.
    state = small._jit_step(state, small.string_to_action("d4"))
    np.testing.assert_array_equal(
        state.board, [[1, 2, 2, 2], [2, 1, 1, 2], [2, 2, 1, 2], [1, 1, 1, 1]]
    )
    assert bool(state.terminated) and int(state.winner) == -1
    assert state.rewards.tolist() == [0.0, 0.0]
    assert small.render(state).endswith("draw, X 8 - O 8")


def test_illegal_moves_are_explained(othello):
    with pytest.raises(ValueError, match=r"move 1 \(a1\): that move flips nothing"):
        othello.from_moves("a1")
    with pytest.raises(ValueError, match=r"move 2 \(d3\): that square is already taken"):
        othello.from_moves("d3 d3")
    with pytest.raises(ValueError, match="passing is only allowed when no placement is"):
        othello.from_moves("pass")
    with pytest.raises(ValueError, match="off the 8x8 board"):
        othello.from_moves("i1")


def test_coordinates_and_move_lists(othello):
    assert othello.string_to_action("a1") == 0
    assert othello.string_to_action("h8") == 63
    assert othello.string_to_action("PASS") == 64
    assert othello.parse_moves("d3c3passc4") == [19, 18, 64, 26]
    assert othello.format_moves([19, 64], compact=True) == "d3pass"


@pytest.mark.parametrize("options", [{"size": 3}, {"size": 5}, {"size": 18}, {"size": 8.0}])
def test_make_rejects_bad_sizes(options):
    with pytest.raises(ValueError, match="othello size"):
        hexjax.make("othello", **options)
