"""Hand-checked Hex positions, coordinates, rendering and host-helper errors."""

import numpy as np
import pytest

import hexjax


@pytest.fixture(scope="module")
def hex3():
    return hexjax.make("hex", size=3)


@pytest.fixture(scope="module")
def hex2():
    return hexjax.make("hex", size=2)


def test_black_wins_down_the_first_column(hex3):
    state = hex3.from_moves("a1 b1 a2 b2 a3")
    assert bool(state.terminated) and int(state.winner) == 0
    assert state.rewards.tolist() == [1.0, -1.0]
    assert int(state.step_count) == 5


def test_white_wins_across_a_row(hex3):
    state = hex3.from_moves("a1 a2 b1 b2 a3 c2")
    assert bool(state.terminated) and int(state.winner) == 1
    assert state.rewards.tolist() == [-1.0, 1.0]


def test_not_over_one_move_before_the_win(hex3):
    state = hex3.from_moves("a1 b1 a2 b2")
    assert not bool(state.terminated) and int(state.winner) == -1
    assert state.rewards.tolist() == [0.0, 0.0]


def test_neighbours_run_up_right_not_down_right(hex2):
    # b1 = (0, 1) touches a2 = (1, 0): a chain from the top corner to the bottom corner.
    assert int(hex2.from_moves("b1 a1 a2").winner) == 0
    # a1 = (0, 0) and b2 = (1, 1) are not neighbours on the rhombus.
    state = hex2.from_moves("a1 b1 b2")
    assert not bool(state.terminated)


def test_corner_cells_touch_both_edges():
    game = hexjax.make("hex", size=4)
    # d1, the top-right corner, joins the right edge: White d1 c2 b3 a4? No: White runs
    # left-right along the anti-diagonal a4 b3 c2 d1, which touches column 0 and column 3.
    state = game.from_moves("a1 a4 a2 b3 b1 c2 c1 d1")
    assert bool(state.terminated) and int(state.winner) == 1
    # Black along the same anti-diagonal joins row 0 (d1) to row 3 (a4).
    state = game.from_moves("d1 a1 c2 a2 b3 b1 a4")
    assert bool(state.terminated) and int(state.winner) == 0


def test_winding_chain_wins_only_when_closed():
    game = hexjax.make("hex", size=5)
    black = ["c1", "c2", "b3", "b4", "c4", "d4", "d5"]
    white = ["a1", "a2", "a3", "a4", "a5", "b1"]
    moves = [m for pair in zip(black, white + ["e1"], strict=True) for m in pair][:-1]
    state = game.from_moves(moves[:-1])
    assert not bool(state.terminated)
    state = game.from_moves(moves)
    assert bool(state.terminated) and int(state.winner) == 0


def test_swap_reflects_the_first_stone_and_hands_it_over():
    game = hexjax.make("hex", size=3, swap=True)
    assert game.num_actions == 10
    first = game.from_moves("b1")
    assert bool(first.legal_action_mask[9])
    state = game.from_moves("b1 swap")
    expected = np.zeros((3, 3), np.int8)
    expected[1, 0] = 2  # b1 = (0, 1) becomes White's a2 = (1, 0)
    np.testing.assert_array_equal(state.board, expected)
    assert int(state.current_player) == 0 and int(state.step_count) == 2
    mask = np.asarray(state.legal_action_mask)
    assert not mask[3] and not mask[9] and mask.sum() == 8
    # White keeps playing with the swapped stone: a2 b2 c2 joins left to right.
    state = game.from_moves("b1 swap a1 b2 a3 c2")
    assert int(state.winner) == 1


def test_swap_of_a_diagonal_stone_keeps_its_cell():
    game = hexjax.make("hex", size=5, swap=True)
    state = game.from_moves("c3 swap")
    assert int(state.board[2, 2]) == 2 and int((np.asarray(state.board) != 0).sum()) == 1


def test_swap_only_on_the_second_ply():
    game = hexjax.make("hex", size=3, swap=True)
    with pytest.raises(ValueError, match="move 3 .*swap is only allowed as the second move"):
        game.from_moves("a1 b2 swap")
    with pytest.raises(ValueError, match="swap is only allowed"):
        game.from_moves("swap")
    with pytest.raises(ValueError, match="swap is not enabled"):
        hexjax.make("hex", size=3).from_moves("a1 swap")


def test_coordinates_follow_hexgui():
    game = hexjax.make("hex", size=11)
    assert game.string_to_action("a1") == 0
    assert game.string_to_action("k1") == 10
    assert game.string_to_action("a2") == 11
    assert game.string_to_action("K11") == 120
    assert game.action_to_string(12) == "b2"
    big = hexjax.make("hex", size=19)
    assert big.action_to_string(360) == "s19"
    assert big.string_to_action("i9") == 8 * 19 + 8


@pytest.mark.parametrize("text", ["", "a", "1a", "l1", "a0", "a12", "z9", "a1x", "??"])
def test_bad_coordinates_are_explained(text):
    game = hexjax.make("hex", size=11)
    with pytest.raises(ValueError, match="a1|off the|board"):
        game.string_to_action(text)


def test_move_lists_round_trip(hex3):
    actions = [0, 4, 8, 1]
    assert hex3.format_moves(actions) == "a1 b2 c3 b1"
    assert hex3.parse_moves("a1 b2 c3 b1") == actions
    assert hex3.parse_moves("a1b2c3b1") == actions
    assert hex3.format_moves(actions, compact=True) == "a1b2c3b1"
    big = hexjax.make("hex", size=19)
    assert big.parse_moves(big.format_moves([360, 0, 18, 342], compact=True)) == [360, 0, 18, 342]
    assert hex3.parse_moves("a1, b2,c3;b1") == actions
    assert hex3.parse_moves(["a1", 4, "c3", 1]) == actions
    swap = hexjax.make("hex", size=3, swap=True)
    assert swap.parse_moves("b1swapa1") == [1, 9, 0]
    assert swap.format_moves([1, 9, 0]) == "b1 swap a1"


def test_from_moves_names_the_bad_move(hex3):
    with pytest.raises(ValueError, match=r"move 3 \(a1\): that cell is already occupied"):
        hex3.from_moves("a1 b1 a1")
    with pytest.raises(ValueError, match=r"move 6 \(c3\): the game is already over"):
        hex3.from_moves("a1 b1 a2 b2 a3 c3")
    with pytest.raises(ValueError, match="move 2"):
        hex3.from_moves("a1 q7")
    with pytest.raises(ValueError, match="outside 0..8"):
        hex3.from_moves([0, 9])


def test_render_draws_a_shifted_rhombus(hex3):
    state = hex3.from_moves("a1 b2")
    assert hex3.render(state) == "\n".join(
        [
            "   a b c",
            "1  X . .",
            " 2  . O .",
            "  3  . . .",
            "X (top-bottom) to move",
        ]
    )
    assert hex3.render(hex3.from_moves("a1 b1 a2 b2 a3")).endswith("X wins")


def test_from_board_derives_the_outcome(hex3):
    state = hex3.from_board([list("xo."), list("xo."), list("x..")], to_play=1)
    assert bool(state.terminated) and int(state.winner) == 0
    assert not np.asarray(state.legal_action_mask).any()
    text = """
        . x .
         o o o
          x . .
    """
    state = hex3.from_board(text, to_play=0)
    assert int(state.winner) == 1 and int(state.step_count) == 5
    live = hex3.from_board(np.zeros((3, 3), int), to_play=1)
    assert not bool(live.terminated) and int(live.current_player) == 1
    # A composed position keeps playing with the same rules as play from the start.
    after = hex3._jit_step(hex3.from_board("x o .\n x o .\n . . .", to_play=0), 6)
    assert int(after.winner) == 0


def test_from_board_offers_swap_only_after_one_black_stone():
    game = hexjax.make("hex", size=3, swap=True)
    one_black = np.zeros((3, 3), int)
    one_black[0, 1] = 1
    assert bool(game.from_board(one_black, to_play=1).legal_action_mask[9])
    assert not bool(game.from_board(one_black, to_play=0).legal_action_mask[9])
    one_white = np.where(one_black == 1, 2, 0)
    assert not bool(game.from_board(one_white, to_play=1).legal_action_mask[9])


@pytest.mark.parametrize(
    ("board", "to_play", "message"),
    [
        (np.zeros((3, 4), int), 0, "must be 3x3"),
        (np.full((3, 3), 3), 0, "cells must be 0, 1 or 2"),
        (np.zeros((3, 3)) + 0.5, 0, "integers"),
        (np.zeros((3, 3), int), 2, "to_play must be 0 or 1"),
        ("x . .\n. q .\n. . .", 0, "unknown board symbol 'q'"),
    ],
)
def test_from_board_rejects_bad_input(hex3, board, to_play, message):
    with pytest.raises(ValueError, match=message):
        hex3.from_board(board, to_play)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"size": 1}, "between 2 and 19"),
        ({"size": 20}, "between 2 and 19"),
        ({"size": "7"}, "must be an integer"),
        ({"swap": "yes"}, "True or False"),
        ({"colour": 1}, "bad options"),
    ],
)
def test_make_rejects_bad_options(options, message):
    with pytest.raises(ValueError, match=message):
        hexjax.make("hex", **options)


def test_make_rejects_unknown_games():
    with pytest.raises(ValueError, match="unknown game 'chess'; available: .*hex"):
        hexjax.make("chess")
    assert "hex" in hexjax.available_games()


def test_observation_planes_follow_the_mover(hex3):
    state = hex3.from_moves("a1 b2")
    obs = np.asarray(hex3.observe(state))
    assert obs.shape == (3, 3, 4)
    assert obs[0, 0, 0] == 1 and obs[1, 1, 1] == 1  # Black to move: own a1, opponent b2
    np.testing.assert_array_equal(obs[:, :, 2], [[1, 1, 1], [0, 0, 0], [1, 1, 1]])
    np.testing.assert_array_equal(obs[:, :, 3], [[1, 0, 1], [1, 0, 1], [1, 0, 1]])
    obs = np.asarray(hex3.observe(hex3.from_moves("a1")))
    assert obs[0, 0, 1] == 1 and obs[:, :, 0].sum() == 0  # White to move: a1 is the opponent's
    np.testing.assert_array_equal(obs[:, :, 2], [[1, 0, 1], [1, 0, 1], [1, 0, 1]])
