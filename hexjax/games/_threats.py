"""Threat planes for k-in-a-row games: where each side wins or makes a four with one stone, and
the results one-move tactics settle.

For a side and an empty cell x, look at every window of k cells in a line that contains x (4
directions, k windows each). A stone on x

- makes k in a row (a *win point*) if some such window holds k - 1 of the side's stones and
  nothing else but x: no opponent stone, no edge;
- makes a *four* (a window one stone short of k, the threat to win next move) if some window
  holds k - 2 of the side's stones, x and one more empty cell.

Windows count stones, not runs: in `threat_planes` an overline counts as a win point (exact in
freestyle; in standard and renju Black an overline does not win, so there the plane is a hint,
as it is for the network). `forced_result` reads exactly (`exact`: the window's neighbours on
the line must not be the side's stones). Window sums are differences of prefix sums over
shifted views of the padded board (static slices), so a plane costs a few dozen elementwise
passes over the board.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def threat_planes(mine: jax.Array, theirs: jax.Array, k: int) -> jax.Array:
    """bool[n, n, 4]: the win points and four points of `mine`, then those of `theirs`.

    mine, theirs: bool[n, n] the stones of the two sides (the side to move first)."""
    empty = ~(mine | theirs)
    return jnp.stack([*_side(mine, theirs, empty, k), *_side(theirs, mine, empty, k)], axis=-1)


def _lines(stones: jax.Array, blockers: jax.Array, pad: int):
    """For each direction, `view(plane, u)`: the [n, n] plane at u steps along it from every
    cell, and the two planes to view: the side's stones and what blocks its windows (the
    other side's stones, and off the board, which blocks as they do), both int32."""
    n = stones.shape[0]
    own = jnp.pad(stones.astype(jnp.int32), pad)
    block = jnp.pad(blockers.astype(jnp.int32), pad, constant_values=1)
    for dr, dc in _DIRECTIONS:

        def view(plane, u, dr=dr, dc=dc):
            r, c = pad + u * dr, pad + u * dc
            return plane[r : r + n, c : c + n]

        yield view, own, block


def _windows(view, plane, k: int, pad: int):
    """{start s: the sum of `plane` over the window of offsets s .. s + k - 1}, for the windows
    holding the cell (s from -(k - 1) to 0): differences of prefix sums."""
    prefix = [jnp.zeros_like(view(plane, 0))]
    for u in range(-pad, pad + 1):
        prefix.append(prefix[-1] + view(plane, u))
    return {s: prefix[s + k + pad] - prefix[s + pad] for s in range(-(k - 1), 1)}


def _side(stones: jax.Array, blockers: jax.Array, empty: jax.Array, k: int, exact=None):
    """(win points, four points) of the side owning `stones`, each bool[n, n]: windows of
    stones alone, or with `exact` (a traced bool) win points exactly k in a row, the run not
    going on past the window."""
    n = stones.shape[0]
    win = jnp.zeros((n, n), jnp.bool_)
    four = jnp.zeros((n, n), jnp.bool_)
    for view, own, block in _lines(stones, blockers, k):
        mine, blocked = _windows(view, own, k, k), _windows(view, block, k, k)
        for s in mine:
            open_window = blocked[s] == 0
            if exact is None:
                ends = True
            else:
                ends = (view(own, s - 1) == 0) & (view(own, s + k) == 0) | ~exact
            win |= open_window & (mine[s] == k - 1) & ends
            four |= open_window & (mine[s] == k - 2)
    return win & empty, four & empty


def win_points(stones, blockers, k: int, exact) -> jax.Array:
    """bool[n, n]: the empty cells where a stone of the side owning `stones` makes k in a row
    (exactly k where `exact`, a traced bool: the run may not go on past the window)."""
    empty = ~(stones | blockers)
    return _side(stones, blockers, empty, k, jnp.asarray(exact, jnp.bool_))[0]


def line_cells(stones: jax.Array, k: int, exact) -> jax.Array:
    """bool[n, n]: the stones of `stones` (bool[n, n]) in a run of k or more in a line (with
    `exact`, a traced bool: of exactly k, the run not going on past its window), the cells
    of a winning line."""
    n = stones.shape[0]
    exact = jnp.asarray(exact, jnp.bool_)
    cells = jnp.zeros((n, n), jnp.bool_)
    for view, own, _ in _lines(stones, jnp.zeros_like(stones), k):
        for s, count in _windows(view, own, k, k).items():
            ends = (view(own, s - 1) == 0) & (view(own, s + k) == 0) | ~exact
            cells |= (count == k) & ends
    return cells & stones


def double_four_points(stones, blockers, k: int, exact) -> jax.Array:
    """bool[n, n]: the empty cells x where a stone leaves the side owning `stones` two or more
    win points made with x (an open four, or two fours): the other side can block only one.

    Each such win point y lies on a line through x, at most k - 1 cells away; y counts once,
    whichever windows holding x and y make it (k - 2 stones in the window, x, y, nothing else,
    and with `exact` no stone of the side just past it)."""
    n = stones.shape[0]
    empty, exact = ~(stones | blockers), jnp.asarray(exact, jnp.bool_)
    count = jnp.zeros((n, n), jnp.int32)
    for view, own, block in _lines(stones, blockers, k):
        mine, blocked = _windows(view, own, k, k), _windows(view, block, k, k)
        fours = {
            s: (mine[s] == k - 2)
            & (blocked[s] == 0)
            & (((view(own, s - 1) == 0) & (view(own, s + k) == 0)) | ~exact)
            for s in mine
        }
        for d in range(-(k - 1), k):
            if d == 0:
                continue
            at_d = (view(own, d) == 0) & (view(block, d) == 0)  # y empty and on the board
            made = jnp.zeros((n, n), jnp.bool_)
            for s, four in fours.items():
                if s <= d <= s + k - 1:
                    made |= four
            count += made & at_d
    return (count >= 2) & empty


def forced_result(mine, theirs, legal, k: int, exact_mine, exact_theirs):
    """(int32 result, int32 plies) for the side to move (stones `mine`, legal moves `legal`,
    all bool[n, n]) from one-move tactics: 1 it wins in 1 ply (it has a legal win point) or in 3
    (a legal move that leaves it two win points while the other side has none, or takes the
    other side's only one); -1 it loses in 2 (no win point of its own, and the other side has
    two, or one it may not play: renju's Black); 0 and 0 plies otherwise."""
    wins = win_points(mine, theirs, k, exact_mine) & legal
    threats = win_points(theirs, mine, k, exact_theirs)
    count = jnp.sum(threats)
    unstoppable = (count >= 2) | ((count == 1) & ~jnp.any(threats & legal))
    safe = (count == 0) | ((count == 1) & threats)  # after the move, no win point left them
    doubles = double_four_points(mine, theirs, k, exact_mine) & legal & safe
    win_now, lose = jnp.any(wins), unstoppable
    result = jnp.where(win_now, 1, jnp.where(lose, -1, jnp.where(jnp.any(doubles), 1, 0)))
    plies = jnp.where(win_now, 1, jnp.where(lose, 2, jnp.where(jnp.any(doubles), 3, 0)))
    return result.astype(jnp.int32), plies.astype(jnp.int32)
