"""Square-board bitboards in 32-bit words, moved in all 8 directions at once.

A board is a tuple of `words` uint32 arrays; bit b of word w is cell (r, c) with
r * n + c = 32 * w + b. Keeping the words as separate arrays (not one stacked axis) makes every
operation purely elementwise: a shift across words reads the neighbouring word's array instead of
slicing and concatenating, which XLA:CPU vectorises far better.

Directions are lanes: a "laned" board has a trailing [3, 3] axis pair on every word, lane (i, j)
stepping by (dr, dc) = (i - 1, j - 1). The centre lane (0, 0) does not move; callers make sure it
contributes nothing (a run over opponent discs can never end on itself).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

Board = tuple[jax.Array, ...]  # `words` arrays of uint32, same shape


class Bitboards:
    """Static tables and kernels for n x n bitboards."""

    def __init__(self, n: int):
        self.n = n
        self.words = -(-n * n // 32)
        cells = np.arange(n * n)
        self.on_board = self.pack_np(np.ones(n * n, bool))
        shift = np.array([[dr * n + dc for dc in (-1, 0, 1)] for dr in (-1, 0, 1)])
        self._left = np.maximum(shift, 0).astype(np.uint32)  # [3, 3] bits towards higher index
        self._right = np.maximum(-shift, 0).astype(np.uint32)
        # Before a step with dc = +1 (-1) the last (first) column must go, or it would wrap
        # into the next (previous) row.
        keep = np.empty((3, 3, self.words), np.uint32)
        for j, dc in enumerate((-1, 0, 1)):
            column_ok = cells % n != (n - 1 if dc == 1 else 0) if dc else np.ones(n * n, bool)
            keep[:, j] = self.pack_np(column_ok)
        self._keep = keep

    # --- conversions -----------------------------------------------------------------------

    def pack_np(self, cells: np.ndarray) -> np.ndarray:
        """bool[n*n] -> uint32[words] (host)."""
        padded = np.zeros(32 * self.words, np.uint64)
        padded[: self.n * self.n] = np.asarray(cells).reshape(-1)
        weights = np.left_shift(np.uint64(1), np.arange(32, dtype=np.uint64))
        return (padded.reshape(self.words, 32) * weights).sum(axis=1).astype(np.uint32)

    def pack(self, cells: jax.Array) -> jax.Array:
        """bool[..., n*n] -> uint32[..., words]."""
        padding = [(0, 0)] * (cells.ndim - 1) + [(0, 32 * self.words - self.n * self.n)]
        bits = jnp.pad(cells, padding).astype(jnp.uint32)
        bits = bits.reshape(cells.shape[:-1] + (self.words, 32))
        weights = jnp.left_shift(jnp.uint32(1), jnp.arange(32, dtype=jnp.uint32))
        return (bits * weights).sum(axis=-1).astype(jnp.uint32)

    def unpack(self, stacked: jax.Array) -> jax.Array:
        """uint32[..., words] -> bool[..., n*n]."""
        bits = (stacked[..., :, None] >> jnp.arange(32, dtype=jnp.uint32)) & 1
        flat = bits.reshape(stacked.shape[:-1] + (32 * self.words,))
        return flat[..., : self.n * self.n].astype(jnp.bool_)

    def split(self, stacked: jax.Array) -> Board:
        """uint32[..., words] -> tuple of words."""
        return tuple(stacked[..., w] for w in range(self.words))

    def stack(self, board: Board) -> jax.Array:
        return jnp.stack(board, axis=-1)

    # --- kernels ---------------------------------------------------------------------------

    def to_lanes(self, board: Board) -> Board:
        """Copy a board into all 9 direction lanes: [...] -> [..., 3, 3]."""
        return tuple(jnp.broadcast_to(word[..., None, None], word.shape + (3, 3)) for word in board)

    def step(self, lanes: Board) -> Board:
        """Move the discs of lane (i, j) one step by (i - 1, j - 1); off-board ones drop."""
        left, right = jnp.asarray(self._left), jnp.asarray(self._right)
        kept = [word & jnp.asarray(self._keep[:, :, w]) for w, word in enumerate(lanes)]
        zero = jnp.zeros_like(kept[0])
        moved = []
        for w, word in enumerate(kept):
            below = kept[w - 1] if w > 0 else zero  # the word of lower cell indices
            above = kept[w + 1] if w + 1 < len(kept) else zero
            # Shifts by 32 or more give 0 in XLA, so the idle direction's carries vanish.
            value = (word << left) >> right
            value = value | (below >> (32 - left)) | (above << (32 - right))
            moved.append(value & self.on_board[w])
        return tuple(moved)

    def runs(self, start: Board, through: Board) -> Board:
        """Per lane: the cells of `through` reachable from `start` stepping over `through`
        cells only (the classic fill, n - 2 steps: a run holds at most n - 2 cells)."""
        through = tuple(word[..., None, None] for word in through)
        run = _and(self.step(self.to_lanes(start)), through)

        def extend(_, run):
            return _or(run, _and(self.step(run), through))

        # A loop, not unrolled Python: each step reads `run` several times, and XLA's compile
        # time on the unrolled chain grows exponentially with n (0.6 s at 8x8, 28 s at 12x12).
        return jax.lax.fori_loop(0, self.n - 3, extend, run, unroll=self.n <= 8)

    def union_of_lanes(self, lanes: Board) -> Board:
        return tuple(
            jax.lax.reduce(word, np.uint32(0), jax.lax.bitwise_or, (word.ndim - 2, word.ndim - 1))
            for word in lanes
        )


def _and(a: Board, b: Board) -> Board:
    return tuple(x & y for x, y in zip(a, b, strict=True))


def _or(a: Board, b: Board) -> Board:
    return tuple(x | y for x, y in zip(a, b, strict=True))
