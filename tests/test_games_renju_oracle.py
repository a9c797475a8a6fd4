"""Hand-checked positions for the plain-Python renju oracle (tests/support/renju_oracle.py).

Every position lives on an otherwise empty 15x15 board. Each test's comment shows the relevant
window of the board: row index on the left, the LAST DIGIT of the column index on top (so "0"
over a column means column 10), "." empty, "B" Black, "W" White, and "*" the empty point whose
Black move is being judged. Everything outside the window is empty.
"""

from __future__ import annotations

import copy

import pytest
from support.renju_oracle import (
    count_fours,
    count_open_threes,
    forbidden_kind,
    forbidden_points,
    is_five,
    is_forbidden,
)


def board_with(black=(), white=(), n=15):
    board = [[0] * n for _ in range(n)]
    for r, c in black:
        board[r][c] = 1
    for r, c in white:
        assert board[r][c] == 0
        board[r][c] = 2
    return board


def test_exactly_five_wins_for_black():
    #    1 2 3 4 5 6 7 8 9 0
    #  5 . . . . . . . . . .
    #  6 . . . . . . . . . .
    #  7 . . B B B B * . . .
    #  8 . . . . . . . . . .
    #  9 . . . . . . . . . .
    b = board_with(black=[(7, 3), (7, 4), (7, 5), (7, 6)])
    assert is_five(b, 7, 7, 1)
    assert is_five(b, 7, 2, 1)  # the other end makes five too
    assert forbidden_kind(b, 7, 7) is None
    assert not is_forbidden(b, 7, 7)
    assert count_fours(b, 7, 7) == 0  # a five is not a four


def test_black_six_is_overline_and_not_a_win():
    #    1 2 3 4 5 6 7 8 9 0
    #  5 . . . . . . . . . .
    #  6 . . . . . . . . . .
    #  7 . . B B B * B B . .
    #  8 . . . . . . . . . .
    #  9 . . . . . . . . . .
    b = board_with(black=[(7, 3), (7, 4), (7, 5), (7, 7), (7, 8)])
    assert not is_five(b, 7, 6, 1)
    assert forbidden_kind(b, 7, 6) == "overline"
    assert is_forbidden(b, 7, 6)
    assert (7, 6) in forbidden_points(b)


def test_white_six_is_a_win():
    #    1 2 3 4 5 6 7 8 9 0
    #  6 . . . . . . . . . .
    #  7 . . W W W * W W . .
    #  8 . . . . . . . . . .
    b = board_with(white=[(7, 3), (7, 4), (7, 5), (7, 7), (7, 8)])
    assert is_five(b, 7, 6, 2)
    # Five exactly is of course a White win as well.
    assert is_five(board_with(white=[(7, 3), (7, 4), (7, 5), (7, 6)]), 7, 7, 2)
    # White stones never count for Black.
    assert not is_five(b, 7, 6, 1)
    assert forbidden_kind(b, 7, 6) is None


def test_simple_double_three_is_forbidden():
    # Row 7: ..BB*.. and column 7: ..BB* with open space above and below: two open threes.
    #    3 4 5 6 7 8 9 0
    #  3 . . . . . . . .
    #  4 . . . . . . . .
    #  5 . . . . B . . .
    #  6 . . . . B . . .
    #  7 . . B B * . . .
    #  8 . . . . . . . .
    #  9 . . . . . . . .
    # 10 . . . . . . . .
    b = board_with(black=[(7, 5), (7, 6), (5, 7), (6, 7)])
    assert count_open_threes(b, 7, 7) == 2
    assert count_fours(b, 7, 7) == 0
    assert forbidden_kind(b, 7, 7) == "double-three"
    assert (7, 7) in forbidden_points(b)


def test_crossing_double_four_is_forbidden():
    # Row 7: WBBB*. and column 7: WBBB* (closed fours): each needs only (7,8) / (8,7) for five.
    #    2 3 4 5 6 7 8 9 0
    #  2 . . . . . . . . .
    #  3 . . . . . W . . .
    #  4 . . . . . B . . .
    #  5 . . . . . B . . .
    #  6 . . . . . B . . .
    #  7 . W B B B * . . .
    #  8 . . . . . . . . .
    #  9 . . . . . . . . .
    # 10 . . . . . . . . .
    b = board_with(black=[(7, 4), (7, 5), (7, 6), (4, 7), (5, 7), (6, 7)], white=[(7, 3), (3, 7)])
    assert count_fours(b, 7, 7) == 2
    assert forbidden_kind(b, 7, 7) == "double-four"


def test_double_four_in_one_line_is_forbidden():
    # B.B*B.B: after the move (7,4) makes B B B B B at columns 3..7 and (7,8) makes columns 5..9.
    #    1 2 3 4 5 6 7 8 9 0 1
    #  6 . . . . . . . . . . .
    #  7 . . B . B * B . B . .
    #  8 . . . . . . . . . . .
    b = board_with(black=[(7, 3), (7, 5), (7, 7), (7, 9)])
    assert count_fours(b, 7, 6) == 2
    assert forbidden_kind(b, 7, 6) == "double-four"


def test_double_four_in_one_line_bbb_gap_move_gap_bbb():
    # BBB.*.BBB: (7,5) completes columns 2..6 and (7,7) completes columns 6..10.
    #    0 1 2 3 4 5 6 7 8 9 0 1 2
    #  6 . . . . . . . . . . . . .
    #  7 . . B B B . * . B B B . .
    #  8 . . . . . . . . . . . . .
    b = board_with(black=[(7, 2), (7, 3), (7, 4), (7, 8), (7, 9), (7, 10)])
    assert count_fours(b, 7, 6) == 2
    assert forbidden_kind(b, 7, 6) == "double-four"


def test_straight_four_is_one_four():
    # Row 7 after the move: .BBBB. (columns 4..7); either end makes five, but it is ONE four.
    #    2 3 4 5 6 7 8 9 0
    #  6 . . . . . . . . .
    #  7 . . B B B * . . .
    #  8 . . . . . . . . .
    b = board_with(black=[(7, 4), (7, 5), (7, 6)])
    assert count_fours(b, 7, 7) == 1
    assert count_open_threes(b, 7, 7) == 0  # a four is not also a three
    assert forbidden_kind(b, 7, 7) is None


def test_four_three_is_legal():
    # Row 7: straight four .BBBB. (columns 4..7); column 7: open three (rows 5..7).
    #    2 3 4 5 6 7 8 9 0
    #  3 . . . . . . . . .
    #  4 . . . . . . . . .
    #  5 . . . . . B . . .
    #  6 . . . . . B . . .
    #  7 . . B B B * . . .
    #  8 . . . . . . . . .
    #  9 . . . . . . . . .
    # 10 . . . . . . . . .
    b = board_with(black=[(7, 4), (7, 5), (7, 6), (5, 7), (6, 7)])
    assert count_fours(b, 7, 7) == 1
    assert count_open_threes(b, 7, 7) == 1
    assert forbidden_kind(b, 7, 7) is None


def test_three_blocked_by_white_does_not_count():
    # Row 7: WBB*.. -- the only four it can become is WBBBB. (not straight), so no three.
    # Column 7 is a genuine open three, so the move is a single three: legal.
    #    2 3 4 5 6 7 8 9 0
    #  3 . . . . . . . . .
    #  4 . . . . . . . . .
    #  5 . . . . . B . . .
    #  6 . . . . . B . . .
    #  7 . . W B B * . . .
    #  8 . . . . . . . . .
    #  9 . . . . . . . . .
    # 10 . . . . . . . . .
    b = board_with(black=[(7, 5), (7, 6), (5, 7), (6, 7)], white=[(7, 4)])
    assert count_open_threes(b, 7, 7) == 1
    assert forbidden_kind(b, 7, 7) is None


def test_three_with_white_one_point_away_still_counts():
    # Row 7: W.BB*.. -- playing (7,8) gives .BBBB. on columns 5..8 with both ends making exactly
    # five ((7,4) -> columns 4..8, (7,9) -> columns 5..9), so this IS an open three: 3-3.
    #    2 3 4 5 6 7 8 9 0
    #  3 . . . . . . . . .
    #  4 . . . . . . . . .
    #  5 . . . . . B . . .
    #  6 . . . . . B . . .
    #  7 . W . B B * . . .
    #  8 . . . . . . . . .
    #  9 . . . . . . . . .
    # 10 . . . . . . . . .
    b = board_with(black=[(7, 5), (7, 6), (5, 7), (6, 7)], white=[(7, 3)])
    assert count_open_threes(b, 7, 7) == 2
    assert forbidden_kind(b, 7, 7) == "double-three"


def test_three_against_board_edge_does_not_count():
    # Row 7: |BB*.. against the left edge: BBBB. would have no room on the left, so no three.
    # Column 2 is a genuine open three: one three only, legal.
    #    0 1 2 3 4 5 6
    #  3 . . . . . . .
    #  4 . . . . . . .
    #  5 . . B . . . .
    #  6 . . B . . . .
    #  7 B B * . . . .
    #  8 . . . . . . .
    #  9 . . . . . . .
    # 10 . . . . . . .
    b = board_with(black=[(7, 0), (7, 1), (5, 2), (6, 2)])
    assert count_open_threes(b, 7, 2) == 1
    assert forbidden_kind(b, 7, 2) is None


def test_three_one_point_from_board_edge_counts():
    # Row 7: |.BB*.. -- (7,4) gives .BBBB. on columns 1..4; (7,0) makes columns 0..4 = five.
    #    0 1 2 3 4 5 6 7
    #  3 . . . . . . . .
    #  4 . . . . . . . .
    #  5 . . . B . . . .
    #  6 . . . B . . . .
    #  7 . B B * . . . .
    #  8 . . . . . . . .
    #  9 . . . . . . . .
    # 10 . . . . . . . .
    b = board_with(black=[(7, 1), (7, 2), (5, 3), (6, 3)])
    assert count_open_threes(b, 7, 3) == 2
    assert forbidden_kind(b, 7, 3) == "double-three"


def test_split_three_bb_gap_b_counts():
    # Row 7: .BB.*. -- filling the gap (7,6) gives .BBBB. on columns 4..7.
    #    2 3 4 5 6 7 8 9 0
    #  3 . . . . . . . . .
    #  4 . . . . . . . . .
    #  5 . . . . . B . . .
    #  6 . . . . . B . . .
    #  7 . . B B . * . . .
    #  8 . . . . . . . . .
    #  9 . . . . . . . . .
    # 10 . . . . . . . . .
    b = board_with(black=[(7, 4), (7, 5), (5, 7), (6, 7)])
    assert count_open_threes(b, 7, 7) == 2
    assert forbidden_kind(b, 7, 7) == "double-three"
    # The row alone is one open three.
    assert count_open_threes(board_with(black=[(7, 4), (7, 5)]), 7, 7) == 1


def test_split_three_b_gap_bb_counts():
    # Row 7: .B.B*. -- filling the gap (7,5) gives .BBBB. on columns 4..7.
    #    2 3 4 5 6 7 8 9 0
    #  3 . . . . . . . . .
    #  4 . . . . . . . . .
    #  5 . . . . . B . . .
    #  6 . . . . . B . . .
    #  7 . . B . B * . . .
    #  8 . . . . . . . . .
    #  9 . . . . . . . . .
    # 10 . . . . . . . . .
    b = board_with(black=[(7, 4), (7, 6), (5, 7), (6, 7)])
    assert count_open_threes(b, 7, 7) == 2
    assert forbidden_kind(b, 7, 7) == "double-three"
    assert count_open_threes(board_with(black=[(7, 4), (7, 6)]), 7, 7) == 1


def test_three_spoiled_by_overline_on_both_sides_does_not_count():
    # Row 7: B..BB*..B -- (7,4) gives BBBB on 4..7 but its end (7,3) makes six (2..7);
    # (7,8) gives BBBB on 5..8 but its end (7,9) makes six (5..10). No straight four: no three.
    # Column 7 is a genuine open three: one three, legal.
    #    0 1 2 3 4 5 6 7 8 9 0 1 2
    #  3 . . . . . . . . . . . . .
    #  4 . . . . . . . . . . . . .
    #  5 . . . . . . . B . . . . .
    #  6 . . . . . . . B . . . . .
    #  7 . . B . . B B * . . B . .
    #  8 . . . . . . . . . . . . .
    #  9 . . . . . . . . . . . . .
    # 10 . . . . . . . . . . . . .
    b = board_with(black=[(7, 2), (7, 5), (7, 6), (7, 10), (5, 7), (6, 7)])
    assert count_open_threes(b, 7, 7) == 1
    assert forbidden_kind(b, 7, 7) is None


def test_five_that_also_makes_double_four_is_a_win():
    # Row 7 becomes BBBBB (columns 3..7). Column 7 (WBBB*) and diagonal (3,3)W..(7,7) are also
    # closed fours, but exactly five wins: not forbidden.
    #    2 3 4 5 6 7 8 9
    #  2 . . . . . . . .
    #  3 . W . . . W . .
    #  4 . . B . . B . .
    #  5 . . . B . B . .
    #  6 . . . . B B . .
    #  7 . B B B B * . .
    #  8 . . . . . . . .
    #  9 . . . . . . . .
    b = board_with(
        black=[(7, 3), (7, 4), (7, 5), (7, 6), (4, 7), (5, 7), (6, 7), (4, 4), (5, 5), (6, 6)],
        white=[(3, 7), (3, 3)],
    )
    assert is_five(b, 7, 7, 1)
    assert count_fours(b, 7, 7) == 2
    assert forbidden_kind(b, 7, 7) is None


def test_five_that_also_makes_overline_is_a_win():
    # Row 7: BBBB* = five; column 7: BBBBB* = six. The five wins.
    b = board_with(black=[(7, 3), (7, 4), (7, 5), (7, 6), (2, 7), (3, 7), (4, 7), (5, 7), (6, 7)])
    assert is_five(b, 7, 7, 1)
    assert forbidden_kind(b, 7, 7) is None


def test_fake_double_three_via_double_four_point_is_legal():
    # Row 7: .BB.*. is a split three whose ONLY extension point is the gap (7,6). After the move,
    # Black at (7,6) would make the straight four .BBBB. in row 7 AND the four (7,6)..(10,6) in
    # column 6 (closed by W at (11,6), completed at (6,6)): a double-four, so forbidden. The row
    # three is fake; column 7 is a real open three. One three only: legal.
    #    2 3 4 5 6 7 8 9 0
    #  3 . . . . . . . . .
    #  4 . . . . . . . . .
    #  5 . . . . . B . . .
    #  6 . . . . . B . . .
    #  7 . . B B . * . . .
    #  8 . . . . B . . . .
    #  9 . . . . B . . . .
    # 10 . . . . B . . . .
    # 11 . . . . W . . . .
    # 12 . . . . . . . . .
    b = board_with(black=[(7, 4), (7, 5), (5, 7), (6, 7), (8, 6), (9, 6), (10, 6)], white=[(11, 6)])
    after = board_with(black=[(7, 4), (7, 5), (5, 7), (6, 7), (8, 6), (9, 6), (10, 6), (7, 7)])
    after[11][6] = 2
    assert forbidden_kind(after, 7, 6) == "double-four"
    assert count_open_threes(b, 7, 7) == 1
    assert forbidden_kind(b, 7, 7) is None
    # Control: without the column-6 stones the same shape is a real 3-3.
    #    2 3 4 5 6 7 8 9 0
    #  3 . . . . . . . . .
    #  4 . . . . . . . . .
    #  5 . . . . . B . . .
    #  6 . . . . . B . . .
    #  7 . . B B . * . . .
    #  8 . . . . . . . . .
    #  9 . . . . . . . . .
    # 10 . . . . . . . . .
    # 11 . . . . . . . . .
    # 12 . . . . . . . . .
    control = board_with(black=[(7, 4), (7, 5), (5, 7), (6, 7)])
    assert forbidden_kind(control, 7, 7) == "double-three"


def test_fake_double_three_via_double_three_point_is_legal():
    # As above, the row three .BB.*. can only extend at (7,6). There Black would make the straight
    # four in row 7 plus two open threes: column 6 (rows 7..9, extendable at (10,6)) and the
    # diagonal (5,4)-(6,5)-(7,6) (extendable at (4,3)); 4-3-3 contains a 3-3, so (7,6) is
    # forbidden (found by the recursion), the row three is fake and the move is legal.
    #    2 3 4 5 6 7 8 9 0
    #  3 . . . . . . . . .
    #  4 . . . . . . . . .
    #  5 . . B . . B . . .
    #  6 . . . B . B . . .
    #  7 . . B B . * . . .
    #  8 . . . . B . . . .
    #  9 . . . . B . . . .
    # 10 . . . . . . . . .
    # 11 . . . . . . . . .
    black = [(7, 4), (7, 5), (5, 7), (6, 7), (8, 6), (9, 6), (5, 4), (6, 5)]
    b = board_with(black=black)
    after = board_with(black=black + [(7, 7)])
    assert count_fours(after, 7, 6) == 1
    assert count_open_threes(after, 7, 6) == 2
    assert forbidden_kind(after, 7, 6) == "double-three"
    assert count_open_threes(b, 7, 7) == 1
    assert forbidden_kind(b, 7, 7) is None


def test_forbidden_priority_overline_before_double_four():
    # Row 7: BBB*BB makes six; column 7 and the diagonal are closed fours as well.
    b = board_with(
        black=[
            (7, 4),
            (7, 5),
            (7, 6),
            (7, 8),
            (7, 9),
            (4, 7),
            (5, 7),
            (6, 7),
            (4, 4),
            (5, 5),
            (6, 6),
        ],
        white=[(3, 7), (3, 3)],
    )
    assert count_fours(b, 7, 7) == 2
    assert forbidden_kind(b, 7, 7) == "overline"


def test_occupied_points_and_no_mutation():
    b = board_with(black=[(7, 5), (7, 6), (5, 7), (6, 7)], white=[(0, 0)])
    before = copy.deepcopy(b)
    assert not is_forbidden(b, 7, 5)  # occupied by Black
    assert not is_forbidden(b, 0, 0)  # occupied by White
    assert forbidden_points(b) == {(7, 7)}
    for fn in (forbidden_kind, count_fours, count_open_threes):
        fn(b, 7, 7)
        with pytest.raises(ValueError):
            fn(b, 7, 5)
    is_five(b, 7, 7, 1)
    assert b == before


def test_empty_board_has_no_forbidden_points():
    for n in (5, 15, 19):
        assert forbidden_points(board_with(n=n)) == set()
