"""Board helpers: square-board symmetries and text (Gomoku, Othello), and the letter-number
cell coordinates every game uses (Hex included)."""

from __future__ import annotations

import re
import string

import jax.numpy as jnp
import numpy as np

from hexjax.games._base import Symmetry, shown

# The 8 symmetries of the square as (quarter turns counter-clockwise, transpose first).
_DIHEDRAL = {
    "identity": (0, False),
    "rotate90": (1, False),
    "rotate180": (2, False),
    "rotate270": (3, False),
    "transpose": (0, True),
    "flip_rows": (1, True),  # rot90(a.T) turns the board upside down
    "antitranspose": (2, True),
    "flip_cols": (3, True),  # mirror left-right
}


def _transform(xp, array, turns: int, transpose: bool):
    """Apply one square symmetry to the last two axes of `array` (xp: numpy or jax.numpy)."""
    array = xp.swapaxes(array, -2, -1) if transpose else array
    return xp.rot90(array, turns, axes=(-2, -1))


def dihedral_symmetries(n: int, extra_actions: int = 0) -> tuple[Symmetry, ...]:
    """The 8 symmetries of the n x n square. Extra actions (pass) map to themselves.

    The action map, board map and observation map are one transform applied three ways.
    """
    cells = np.arange(n * n).reshape(n, n)
    result = []
    for name, (turns, transpose) in _DIHEDRAL.items():
        image_of = np.empty(n * n, np.int32)
        image_of[_transform(np, cells, turns, transpose).ravel()] = np.arange(n * n)
        action_map = np.concatenate([image_of, n * n + np.arange(extra_actions)]).astype(np.int32)

        def observation_fn(obs, turns=turns, transpose=transpose):
            planes_first = jnp.moveaxis(obs, -1, 0)  # [C, ..., n, n]
            return jnp.moveaxis(_transform(jnp, planes_first, turns, transpose), 0, -1)

        def board_fn(board, turns=turns, transpose=transpose):
            return np.ascontiguousarray(_transform(np, np.asarray(board), turns, transpose))

        result.append(Symmetry(name, action_map, observation_fn, board_fn))
    return tuple(result)


def column_letters(n: int) -> str:
    return string.ascii_lowercase[:n]


def parse_cell(text: str, n: int, rows_from_bottom: bool) -> int:
    """'h8' -> action. Column letter a.., row number from 1 (top row or bottom row)."""
    token = text.strip().lower()
    last = column_letters(n)[-1]
    where = f"columns a-{last}, rows 1-{n}"
    # ASCII only: str.isdigit() also accepts "²" and other digits that int() refuses.
    if not re.fullmatch(r"[a-z][0-9]+", token):
        raise ValueError(f"{shown(text)} is not a cell like 'a1' ({where})")
    col = ord(token[0]) - ord("a")
    number = int(token[1:])
    if not (0 <= col < n and 1 <= number <= n):
        raise ValueError(f"{shown(text)} is off the {n}x{n} board ({where})")
    row = n - number if rows_from_bottom else number - 1
    return row * n + col


def format_cell(action: int, n: int, rows_from_bottom: bool) -> str:
    row, col = divmod(action, n)
    number = n - row if rows_from_bottom else row + 1
    return f"{column_letters(n)[col]}{number}"


def render_grid(board: np.ndarray, rows_from_bottom: bool, symbols: dict[int, str]) -> list[str]:
    """Rows of text with row numbers on the left and column letters above and below."""
    n = board.shape[0]
    width = len(str(n))
    header = " " * (width + 1) + " ".join(column_letters(n))
    lines = [header]
    for r in range(n):
        number = n - r if rows_from_bottom else r + 1
        cells = " ".join(symbols[int(v)] for v in board[r])
        lines.append(f"{str(number).rjust(width)} {cells} {number}")
    lines.append(header)
    return lines
