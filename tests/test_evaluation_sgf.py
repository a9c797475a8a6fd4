"""SGF records (hexjax/evaluation/sgf.py) against hand-written SGF: HexGui's form of Hex (GM[11],
cells named as HexGui names them, `swap-pieces`) and Gomoku's Go-style points (GM[4], rows
lettered from the top). What is written is read back, and hand-written files are read."""

import pytest

import hexjax
from hexjax.evaluation.sgf import read_sgf, write_sgf

# Hex 3x3 with swap: Black b1, White swaps (a2 is White's), then Black joins c1 b2 b3.
HEX_MOVES = "b1 swap b2 a3 c1 a1 b3"
HEX_SGF = (
    "(;FF[4]GM[11]SZ[3]AP[hexjax]PB[agent]PW[mcts:1000]RE[B+]"
    ";B[b1];W[swap-pieces];B[b2];W[a3];B[c1];W[a1];B[b3])\n"
)
# Gomoku 9x9 standard: Black's column e from e5 up to e9 (rows count from the bottom in
# hexjax, SGF letters them from the top: e5 is "ee", e9 is "ea", a1 is "ai").
GOMOKU_MOVES = "e5 a1 e6 a2 e7 a3 e8 a4 e9"
GOMOKU_SGF = (
    "(;FF[4]GM[4]SZ[9]RU[standard]AP[hexjax]RE[B+]"
    ";B[ee];W[ai];B[ed];W[ah];B[ec];W[ag];B[eb];W[af];B[ea])\n"
)


def test_hex_as_hexgui_writes_it():
    game = hexjax.make("hex", size=3, swap=True)
    actions = game.parse_moves(HEX_MOVES)
    assert write_sgf(game, actions, black="agent", white="mcts:1000") == HEX_SGF
    record = read_sgf(HEX_SGF)
    assert repr(record.game) == repr(game) and record.actions == actions
    assert (record.black, record.white) == ("agent", "mcts:1000")


def test_gomoku_points_count_rows_from_the_top():
    game = hexjax.make("gomoku", size=9, rule="standard")
    actions = game.parse_moves(GOMOKU_MOVES)
    assert write_sgf(game, actions) == GOMOKU_SGF
    record = read_sgf(GOMOKU_SGF)
    assert repr(record.game) == repr(game) and record.actions == actions
    big = hexjax.make("gomoku", size=15, rule="renju")
    assert write_sgf(big, ["h8", "a1"]) == "(;FF[4]GM[4]SZ[15]RU[renju]AP[hexjax];B[hh];W[ao])\n"


def test_unfinished_and_drawn_games_and_names_with_brackets():
    game = hexjax.make("hex", size=3)
    assert write_sgf(game, []) == "(;FF[4]GM[11]SZ[3]AP[hexjax])\n"
    written = write_sgf(game, ["b2"], black="a]b\\c")
    assert written == "(;FF[4]GM[11]SZ[3]AP[hexjax]PB[a\\]b\\\\c];B[b2])\n"
    assert read_sgf(written).black == "a]b\\c"
    drawn = hexjax.make("gomoku", size=5, rule="freestyle")
    # Fill 5x5 with no five: columns in pairs, each pair's colours swapped every row.
    board_moves = []
    black = [(r, c) for r in range(5) for c in range(5) if (c // 2 + r) % 2 == 0]
    white = [(r, c) for r in range(5) for c in range(5) if (c // 2 + r) % 2 == 1]
    for b, w in zip(black, white, strict=False):
        board_moves += [b[0] * 5 + b[1], w[0] * 5 + w[1]]
    board_moves += [r * 5 + c for r, c in black[len(white) :]]
    assert bool(drawn.from_moves(board_moves).terminated)
    assert "RE[0]" in write_sgf(drawn, board_moves)


def test_reads_a_hexgui_file_with_comments_variations_and_line_breaks():
    text = (
        "(;FF[4]AP[HexGui:0.9.GIT]GM[11]SZ[3]C[a note \\] with a bracket]\n"
        ";B[B1]\n;W[swap-pieces]C[swapped]\n"
        "(;B[b2];W[a3])\n(;B[c3]))\n"
    )
    record = read_sgf(text)
    assert record.game.swap and record.actions == [1, 9, 4, 6]  # b1 swap b2 a3
    # LittleGolem's two-letter points (column, row from the top) and a resignation.
    little_golem = "(;FF[4]GM[11]SZ[3];B[ba];W[swap];B[bb];W[resign])"
    assert read_sgf(little_golem).actions == [1, 9, 4]
    assert read_sgf("(;GM[11]SZ[4];B[a1];W[d4])").game.swap is False


@pytest.mark.parametrize(
    "text, words",
    [
        ("hello", "not an SGF record"),
        ("(;GM[1]SZ[19];B[dd])", "GM[1] is not a game hexjax reads"),
        ("(;GM[11];B[a1])", "SZ[n]"),
        ("(;GM[11]SZ[3];B[a1]", "not closed"),
        ("(;GM[11]SZ[3];B[a1];B[b2])", "move 2 (B[b2]): W is to move"),
        ("(;GM[11]SZ[3];W[a1])", "move 1 (W[a1]): B is to move"),
        ("(;GM[11]SZ[3];B[a1];W[a1])", "move 2 (a1): that cell is already occupied"),
        ("(;GM[11]SZ[3];B[d1])", ["move 1 (B[d1])", "off the 3x3 board"]),
        ("(;GM[11]SZ[3]AB[a1];W[b2])", "setup stones (AB)"),
        ("(;GM[4]SZ[9];B[ee];W[zz])", "move 2 (W[zz]): off the 9x9 board"),
        ("(;GM[4]SZ[9];B[e5])", "not a point like 'hh'"),
        ("(;GM[4]SZ[9]RU[pro];B[ee])", "rule must be one of"),
        ("(;GM[4]SZ[9];B[ee];W[])", "move 2"),
    ],
)
def test_bad_records_are_refused_with_the_reason(text, words):
    words = [words] if isinstance(words, str) else words
    with pytest.raises(ValueError) as error:
        read_sgf(text)
    for word in words:
        assert word in str(error.value)


def test_games_sgf_cannot_hold_are_refused():
    with pytest.raises(ValueError, match="hex and gomoku, not othello"):
        write_sgf(hexjax.make("othello", size=6), [])
    with pytest.raises(ValueError, match="five in a row; this game needs 4"):
        write_sgf(hexjax.make("gomoku", size=5, win_length=4), [])
    with pytest.raises(ValueError, match="move 2 .*occupied"):
        write_sgf(hexjax.make("hex", size=3), ["a1", "a1"])
