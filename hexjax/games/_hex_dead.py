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

CAPTURED cells (`inferior_cells`): two neighbouring empty cells a and b are captured by a colour
P when, whichever of them the other colour takes, P's stone on the other leaves it dead (the
patterns above, read round it with P's stone in its ring). P then need never play there first:
it answers inside the pair, and the result is as if both were P's, so the pair can be filled
with P's colour without changing who wins. Pairs are filled only where no cell is in two
candidate pairs (of either colour), so that no answer is owed twice; then dead cells and pairs
are read again, until nothing changes. The opponent's move into a pair P captured is worth no
more than a move elsewhere on the filled board (whose value is the board's): P answers inside,
so a search need not consider it. P's own moves there stay: they are worth no less either, and
the pair may be what joins P's chain (leaving it out, a won game would not end until the board
filled up).
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


def _rings(flat: jax.Array, table: jax.Array) -> jax.Array:
    """int8[n*n, 6]: each cell's ring, off-board neighbours reading their edge's colour."""
    return jnp.concatenate([flat, jnp.asarray(EDGE_COLOURS, flat.dtype)])[table]


def _reads_a_pattern(ring: jax.Array) -> jax.Array:
    """bool[...]: whether each ring (int8[..., 6]) reads one of the patterns."""
    needs_x, needs_o = (jnp.asarray(v) for v in _variants())
    found = jnp.zeros(ring.shape[:-1], bool)
    for x in (1, 2):
        is_x, is_o = ring[..., None, :] == x, ring[..., None, :] == 3 - x
        found |= (jnp.all(is_x | ~needs_x, -1) & jnp.all(is_o | ~needs_o, -1)).any(-1)
    return found


def pattern_dead(flat: jax.Array, table: jax.Array) -> jax.Array:
    """bool[n*n]: the empty cells of the flat board whose ring reads one of the patterns (one
    round, no filling); `table` is `neighbour_table(n)`."""
    return _reads_a_pattern(_rings(flat, table)) & (flat == 0)


def captured_pairs(flat: jax.Array, table: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(owners int8[n*n], partners int32[n*n]): for each empty cell of a captured pair (one
    round, no filling; see the module docstring) the colour that captures it and the pair's
    other cell, else 0 and n*n. Only pairs none of whose cells is in another candidate pair
    are given."""
    cells = flat.shape[0]
    rings = _rings(flat, table)
    empty = flat == 0
    index = jnp.arange(cells)
    found, owner = [], []
    for colour in (1, 2):
        # dead_with[c, k]: c is dead once `colour` stands on its k-th neighbour.
        dead_with = jnp.stack(
            [_reads_a_pattern(rings.at[:, k].set(colour)) for k in range(6)], axis=1
        )
        for k in range(3):  # each pair once: from a to its k-th neighbour b, b's (k+3)-th is a
            b = table[:, k]
            on_board = b < cells
            b = jnp.where(on_board, b, index)
            pair = empty & on_board & empty[b] & dead_with[:, k] & dead_with[b, k + 3]
            found.append((pair, b))
            owner.append(colour)
    count = jnp.zeros(cells, jnp.int32)
    for pair, b in found:
        count = count.at[index].add(pair).at[b].add(pair)
    owners = jnp.zeros(cells, jnp.int8)
    partners = jnp.full(cells, cells, jnp.int32)
    for (pair, b), colour in zip(found, owner, strict=True):
        alone = pair & (count == 1) & (count[b] == 1)
        a_at, b_at = jnp.where(alone, index, cells), jnp.where(alone, b, cells)
        owners = owners.at[a_at].set(colour, mode="drop").at[b_at].set(colour, mode="drop")
        partners = partners.at[a_at].set(b, mode="drop").at[b_at].set(index, mode="drop")
    return owners, partners


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


def inferior_cells(board: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(dead bool[n, n], captured int8[n, n]): the empty cells of `board` that are dead, and
    the colour that captures each captured one (0: none; module docstring), each round's found
    cells filled (dead ones with any colour, pairs with their captor's) before reading again.
    Traceable (one `while_loop`)."""
    n = board.shape[-1]
    table = jnp.asarray(_tables(n))

    def more(carry):
        return carry[3]

    def fill(carry):
        flat, dead, captured, _ = carry
        new_dead = pattern_dead(flat, table)
        flat = jnp.where(new_dead, jnp.int8(1), flat)
        owners, _ = captured_pairs(flat, table)
        flat = jnp.where(owners > 0, owners, flat)
        changed = new_dead.any() | (owners > 0).any()
        return flat, dead | new_dead, jnp.maximum(captured, owners), changed

    flat = board.reshape(-1).astype(jnp.int8)
    none = jnp.zeros(n * n, bool)
    start = (flat, none, jnp.zeros(n * n, jnp.int8), jnp.bool_(True))
    _, dead, captured, _ = jax.lax.while_loop(more, fill, start)
    return dead.reshape(n, n), captured.reshape(n, n)


def left_out(board: jax.Array, mover: jax.Array) -> jax.Array:
    """bool[n, n]: the empty cells a search of `mover` (0 Black, 1 White) to move need not
    consider: the dead cells and those the opponent has captured (`inferior_cells`). Where they
    would be every empty cell, only the dead cells found without pairs (`dead_cells`): were
    every empty cell dead, the loser's colour on all of them would leave the winner joined
    already, so a live position keeps a move. Traceable."""
    dead, captured = inferior_cells(board)
    left = dead | (captured == (2 - mover).astype(jnp.int8))
    return jnp.where((left | (board != 0)).all(), dead_cells(board), left)
