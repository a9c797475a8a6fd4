"""Boards and move lists as people write them: parsing text into arrays and tokens, and
quoting a bad value in an error message."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def board_array(board, n: int) -> np.ndarray:
    """int8[n, n] from a board as `Game.from_board` takes it; ValueError naming the problem."""
    rows_as_text = (
        isinstance(board, list | tuple)
        and all(isinstance(row, str) for row in board)
        and any(len(row.strip()) > 1 for row in board)  # rows, not single symbols
    )
    if rows_as_text:
        board = "\n".join(board)
    if isinstance(board, str):
        board = [
            row.split() if " " in row.strip() else list(row.strip())
            for row in board.strip().splitlines()
            if row.strip()
        ]
    try:
        array = np.asarray(board)
    except ValueError:
        raise ValueError(f"board must be {n}x{n}; its rows have different lengths") from None
    if array.dtype.kind in "US":
        symbols = {".": 0, "x": 1, "X": 1, "B": 1, "b": 1, "o": 2, "O": 2, "W": 2, "w": 2}
        unknown = sorted(set(array.ravel().tolist()) - set(symbols))
        if unknown:
            raise ValueError(f"unknown board symbol {unknown[0]!r}; use . x o (or B W)")
        array = np.vectorize(symbols.__getitem__, otypes=[np.int8])(array)
    if array.shape != (n, n):
        raise ValueError(f"board must be {n}x{n}, got shape {array.shape}")
    if not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"board cells must be integers 0, 1 or 2, got dtype {array.dtype}")
    bad = ~np.isin(array, (0, 1, 2))
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ValueError(f"board cell ({r}, {c}) is {array[r, c]}; cells must be 0, 1 or 2")
    return array.astype(np.int8)


def shown(value, limit: int = 20) -> str:
    """`value` for an error message, its text cut to `limit` characters: a pasted page of text
    should not come back whole."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) > limit:
        text = text[:limit] + "..."
    return repr(text) if isinstance(value, str) else text


def split_compact(chunk: str, words: Sequence[str] = ()) -> list[str]:
    """'a1b12swapc3' -> ['a1', 'b12', 'swap', 'c3']: cells are a letter then digits, `words`
    stand alone. Anything else is returned whole, for the parser to report."""
    tokens, i = [], 0
    lower = chunk.lower()
    while i < len(chunk):
        word = next((w for w in words if lower.startswith(w, i)), None)
        if word is not None:
            tokens.append(chunk[i : i + len(word)])
            i += len(word)
            continue
        j = i + 1
        while j < len(chunk) and chunk[j].isdigit():
            j += 1
        if j == i + 1 or not chunk[i].isalpha():
            return [chunk]
        tokens.append(chunk[i:j])
        i = j
    return tokens
