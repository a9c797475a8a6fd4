"""Hex's dead cells: empty cells whose colour cannot change who wins, however the rest of the
board is filled. Hex is monotone (a stone of one's own never hurts), so a stone on a dead cell
is worth a pass and no more: a search need not consider it while another move is left.

Found by local patterns of inferior-cell analysis (as in Hayward et al., "Solving 7x7 Hex",
and Henderson's thesis on inferior cells), read round each empty cell's ring of six
neighbours, an off-board neighbour standing for its edge's colour (`_hex_cells`). With X one
colour and O the other, a cell is dead when its ring, turned or reflected, reads

    1. X X X X . .     four neighbours in a row of one colour,
    2. X X X O O .     three of one colour, then two of the other,
    3. X X . O O .     two of one colour, a gap, then two of the other

(`.` anything). Ring neighbours next to each other are neighbours on the board, so in each
pattern any two of X's possible neighbours are joined round the ring through X's stones, and
the same for O: neither colour's chain needs the cell. A dead cell is then filled (its colour
changes nothing) and the patterns are read again, until no new cell is dead.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from hexjax.games._hex_cells import EDGE_COLOURS, neighbour_table

# One string per pattern, round the ring: X one colour, O the other, . anything.
PATTERNS = ("XXXX..", "XXXOO.", "XX.OO.")


@functools.cache
def _variants() -> tuple[np.ndarray, np.ndarray]:
    """(needs_x, needs_o), bool[V, 6]: each pattern turned six ways and reflected."""
    rings = set()
    for pattern in PATTERNS:
        for ring in (pattern, pattern[::-1]):
            for turn in range(6):
                rings.add(ring[turn:] + ring[:turn])
    rings = sorted(rings)
    needs_x = np.array([[c == "X" for c in ring] for ring in rings])
    needs_o = np.array([[c == "O" for c in ring] for ring in rings])
    return needs_x, needs_o


@functools.cache
def _tables(n: int) -> np.ndarray:
    return neighbour_table(n)


def pattern_dead(flat: jax.Array, table: jax.Array) -> jax.Array:
    """bool[n*n]: the empty cells of the flat board whose ring reads one of the patterns (one
    round, no filling); `table` is `neighbour_table(n)`."""
    needs_x, needs_o = (jnp.asarray(v) for v in _variants())
    ring = jnp.concatenate([flat, jnp.asarray(EDGE_COLOURS, flat.dtype)])[table]  # [n*n, 6]
    found = jnp.zeros(flat.shape, bool)
    for x in (1, 2):
        is_x, is_o = ring[:, None] == x, ring[:, None] == 3 - x
        found |= (jnp.all(is_x | ~needs_x, -1) & jnp.all(is_o | ~needs_o, -1)).any(-1)
    return found & (flat == 0)


def dead_cells(board: jax.Array) -> jax.Array:
    """bool[n, n]: the empty cells of `board` (int8[n, n]: 0 empty, 1 Black, 2 White) that the
    patterns show dead, read again after each round's dead cells are filled. Traceable (one
    `while_loop`); the stones' colours, not whose turn it is, decide."""
    n = board.shape[-1]
    table = jnp.asarray(_tables(n))

    def more(carry):
        return carry[2]

    def fill(carry):
        flat, dead, _ = carry
        new = pattern_dead(flat, table)
        return jnp.where(new, jnp.int8(1), flat), dead | new, new.any()

    flat = board.reshape(-1).astype(jnp.int8)
    _, dead, _ = jax.lax.while_loop(more, fill, (flat, jnp.zeros(n * n, bool), jnp.bool_(True)))
    return dead.reshape(n, n)
