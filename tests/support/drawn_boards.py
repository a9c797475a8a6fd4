"""Full Gomoku boards without a line, and the games that fill them.

Columns go in pairs, so no row, column or diagonal holds three of a colour. 5x5 (five in a row):
13 Black and 12 White stones, Black fills the last cell; 6x6 (four in a row): 18 and 18, White
fills it.
"""

import numpy as np

import hexjax

DRAWN = {
    5: [[2, 2, 1, 1, 2], [1, 1, 2, 2, 1], [2, 2, 1, 1, 2], [1, 1, 2, 2, 1], [2, 1, 2, 1, 1]],
    6: [[1 + (col // 2 + row) % 2 for col in range(6)] for row in range(6)],
}
WIN_LENGTH = {5: 5, 6: 4}


def drawn_game(size):
    """(game, moves): Gomoku size x size, and moves that fill DRAWN[size] in reading order, each
    colour's stones in turn; the last move draws."""
    game = hexjax.make("gomoku", size=size, win_length=WIN_LENGTH[size])
    board = np.array(DRAWN[size]).ravel()
    blacks = [game.action_to_string(int(a)) for a in np.flatnonzero(board == 1)]
    whites = [game.action_to_string(int(a)) for a in np.flatnonzero(board == 2)]
    moves = [m for pair in zip(blacks, whites, strict=False) for m in pair]
    return game, moves + blacks[len(whites) :]
