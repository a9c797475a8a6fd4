"""Threat planes for k-in-a-row games: where each side wins or makes a four with one stone.

For a side and an empty cell x, look at every window of k cells in a line that contains x (4
directions, k windows each). A stone on x

- makes k in a row (a *win point*) if some such window holds k - 1 of the side's stones and
  nothing else but x: no opponent stone, no edge;
- makes a *four* (a window one stone short of k, the threat to win next move) if some window
  holds k - 2 of the side's stones, x and one more empty cell.

Windows count stones, not runs: an overline counts as a win point (exact in freestyle; in
standard and renju Black an overline does not win, so there the plane is a hint, as it is for
the network). Window sums are differences of prefix sums over shifted views of the padded
board (static slices, 4 directions x 2k - 1 views), so the planes cost a few dozen elementwise
passes over the board.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def threat_planes(mine: jax.Array, theirs: jax.Array, k: int) -> jax.Array:
    """bool[n, n, 4]: the win points and four points of `mine`, then those of `theirs`.

    mine, theirs: bool[n, n] the stones of the two sides (the side to move first)."""
    empty = ~(mine | theirs)
    return jnp.stack([*_side(mine, theirs, empty, k), *_side(theirs, mine, empty, k)], axis=-1)


def _side(stones: jax.Array, blockers: jax.Array, empty: jax.Array, k: int):
    """(win points, four points) of the side owning `stones`, each bool[n, n]."""
    n = stones.shape[0]
    pad = k - 1
    # Off the board blocks a window as an opponent stone does.
    own = jnp.pad(stones.astype(jnp.int32), pad)
    block = jnp.pad(blockers.astype(jnp.int32), pad, constant_values=1)
    win = jnp.zeros((n, n), jnp.bool_)
    four = jnp.zeros((n, n), jnp.bool_)
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):

        def view(plane, u, dr=dr, dc=dc):
            """plane at offset u * (dr, dc) from every board cell: [n, n]."""
            r, c = pad + u * dr, pad + u * dc
            return plane[r : r + n, c : c + n]

        # prefix[m]: sum of the views at offsets -pad..m-pad-1 (prefix[0] = 0).
        own_prefix = [jnp.zeros((n, n), jnp.int32)]
        block_prefix = [jnp.zeros((n, n), jnp.int32)]
        for u in range(-pad, pad + 1):
            own_prefix.append(own_prefix[-1] + view(own, u))
            block_prefix.append(block_prefix[-1] + view(block, u))
        for t in range(k):  # the cell is the t-th of the window: offsets -t .. k-1-t
            lo, hi = pad - t, pad - t + k
            mine_count = own_prefix[hi] - own_prefix[lo]
            open_window = (block_prefix[hi] - block_prefix[lo]) == 0
            win |= open_window & (mine_count == k - 1)
            four |= open_window & (mine_count == k - 2)
    return win & empty, four & empty
