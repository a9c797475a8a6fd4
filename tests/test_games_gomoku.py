"""Gomoku: golden positions, the plain-Python referee, and host helpers."""

import jax
import numpy as np
import pytest
from support.drawn_boards import DRAWN, drawn_game
from support.gomoku_oracle import outcome
from support.playouts import random_playouts

import hexjax


def play(game, black, white, last=None):
    """Alternate Black's and White's lists of moves (Black first), then Black's `last`."""
    moves = [m for pair in zip(black, white, strict=True) for m in pair]
    return game.from_moves(moves + ([last] if last else []))


@pytest.fixture(scope="module")
def free15():
    return hexjax.make("gomoku")


@pytest.fixture(scope="module")
def standard15():
    return hexjax.make("gomoku", rule="standard")


def test_defaults_and_coordinates(free15):
    assert (free15.size, free15.win_length, free15.rule) == (15, 5, "freestyle")
    assert free15.num_actions == 225 and free15.observation_shape == (15, 15, 3)
    assert free15.string_to_action("h8") == 7 * 15 + 7  # the centre
    assert free15.string_to_action("a1") == 14 * 15  # bottom-left
    assert free15.string_to_action("a15") == 0  # top-left
    assert free15.action_to_string(14) == "o15"
    for bad in ("p1", "a16", "a0", "8h", ""):
        with pytest.raises(ValueError, match="cell like|off the"):
            free15.string_to_action(bad)


def test_five_in_a_row_wins_on_every_line(free15):
    lines = {
        "row": ["d8", "e8", "f8", "g8"],
        "column": ["h4", "h5", "h6", "h7"],
        "diagonal": ["d4", "e5", "f6", "g7"],
        "anti-diagonal": ["d12", "e11", "f10", "g9"],
    }
    last = {"row": "h8", "column": "h8", "diagonal": "h8", "anti-diagonal": "h8"}
    white = ["a1", "a3", "a5", "a7"]
    for name, black in lines.items():
        before = play(free15, black, white)
        assert not bool(before.terminated), name
        after = play(free15, black, white, last[name])
        assert bool(after.terminated) and int(after.winner) == 0, name
        assert after.rewards.tolist() == [1.0, -1.0]


def test_five_at_the_border_and_in_the_corner(free15):
    state = play(free15, ["a1", "a2", "a3", "a4"], ["c1", "c3", "c5", "c7"], "a5")
    assert int(state.winner) == 0
    # Corner to corner of the anti-diagonal's end: o15 n14 m13 l12 k11.
    state = play(free15, ["o15", "n14", "m13", "l12"], ["a1", "a3", "a5", "a7"], "k11")
    assert int(state.winner) == 0
    # Four at the border plus the edge is not five.
    state = play(free15, ["a1", "a2", "a3", "a4"], ["a5", "c3", "c5", "c7"], "e5")
    assert not bool(state.terminated)


def test_white_wins_too(free15):
    state = play(free15, ["a1", "a3", "a5", "a7", "a9"], ["h8", "h9", "h10", "h11", "h12"])
    assert int(state.winner) == 1 and state.rewards.tolist() == [-1.0, 1.0]


def test_filling_the_middle_of_a_split_four_makes_five(free15):
    state = play(free15, ["d8", "e8", "g8", "h8"], ["a1", "a3", "a5", "a7"], "f8")
    assert int(state.winner) == 0


def test_overline_wins_in_freestyle_but_not_in_standard(free15, standard15):
    black, white = ["c8", "d8", "e8", "g8", "h8"], ["a1", "a3", "a5", "a7", "a9"]
    assert int(play(free15, black, white, "f8").winner) == 0
    state = play(standard15, black, white, "f8")
    assert not bool(state.terminated) and int(state.winner) == -1
    # ... while exactly five still wins under standard, for White as well.
    assert int(play(standard15, ["c8", "d8", "e8", "f8"], white[:4], "g8").winner) == 0
    state = play(standard15, ["a2", "a4", "a6", "a8", "o1"], ["c8", "d8", "e8", "f8", "g8"])
    assert int(state.winner) == 1


def test_standard_exact_five_in_one_line_wins_despite_an_overline_in_another(standard15):
    # f8 completes six along row 8 and exactly five along column f.
    black = ["c8", "d8", "e8", "g8", "h8", "f4", "f5", "f6", "f7"]
    white = ["a1", "a3", "a5", "a7", "a9", "a11", "a13", "o1", "o3"]
    state = play(standard15, black, white, "f8")
    assert int(state.winner) == 0


def test_a_full_board_without_five_is_a_draw():
    # Columns alternate in pairs, so no row, column or diagonal holds five of one colour.
    game, moves = drawn_game(5)  # 13 Black stones, 12 White
    assert outcome(DRAWN[5], 5, "freestyle") == (True, -1)
    state = game.from_moves(moves)
    assert bool(state.terminated) and int(state.winner) == -1
    assert state.rewards.tolist() == [0.0, 0.0] and int(state.step_count) == 25


@pytest.mark.parametrize(
    "options",
    [
        {"size": 9},
        {"size": 15},
        {"size": 9, "rule": "standard"},
        {"size": 7, "win_length": 4},
        {"size": 6, "win_length": 3, "rule": "standard"},
    ],
)
def test_every_ply_matches_the_referee(options):
    game = hexjax.make("gomoku", **options)
    states, _ = random_playouts(game, jax.random.key(game.size), batch=32)
    boards = np.asarray(states.board)
    over = np.asarray(states.terminated)
    winners = np.asarray(states.winner)
    for b in range(boards.shape[1]):
        for t in range(boards.shape[0]):
            expected = outcome(boards[t, b].tolist(), game.win_length, game.rule)
            assert (bool(over[t, b]), int(winners[t, b])) == expected, (b, t)
            if expected[0]:
                break  # the rest is the absorbing state, checked by the conformance suite


def test_from_board_derives_the_outcome(free15, standard15):
    board = np.zeros((15, 15), int)
    board[7, 3:9] = 1  # six in a row
    assert int(free15.from_board(board, to_play=1).winner) == 0
    state = standard15.from_board(board, to_play=1)
    assert not bool(state.terminated) and int(state.step_count) == 6
    board[0, 0:5] = 2
    with pytest.raises(ValueError, match="both players have 5 in a row"):
        free15.from_board(board, to_play=0)


def test_render_and_moves(free15):
    game = hexjax.make("gomoku", size=5, win_length=4)
    state = game.from_moves("c3 a1")
    assert game.render(state) == "\n".join(
        [
            "  a b c d e",
            "5 . . . . . 5",
            "4 . . . . . 4",
            "3 . . X . . 3",
            "2 . . . . . 2",
            "1 O . . . . 1",
            "  a b c d e",
            "X to move",
        ]
    )
    assert game.parse_moves("c3a1") == [12, 20]
    with pytest.raises(ValueError, match=r"move 3 \(c3\): that point is already taken"):
        game.from_moves("c3 a1 c3")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"size": 4}, "between 5 and 19"),
        ({"size": 20}, "between 5 and 19"),
        ({"win_length": 2}, r"win_length \(size 15\) must be between 3 and 15"),
        ({"size": 7, "win_length": 8}, r"win_length \(size 7\) must be between 3 and 7"),
        ({"rule": "pro"}, "must be one of freestyle, standard"),
        ({"rule": "renju", "win_length": 6}, "renju is played with win_length 5"),
    ],
)
def test_make_rejects_bad_options(options, message):
    with pytest.raises(ValueError, match=message):
        hexjax.make("gomoku", **options)


def test_observation(free15):
    state = free15.from_moves("h8 h9")
    obs = np.asarray(free15.observe(state))
    assert obs.shape == (15, 15, 3)
    assert obs[7, 7, 0] == 1 and obs[6, 7, 1] == 1 and obs[:, :, 2].min() == 1
    obs = np.asarray(free15.observe(free15.from_moves("h8")))
    assert obs[7, 7, 1] == 1 and obs[:, :, 2].max() == 0  # White to move
