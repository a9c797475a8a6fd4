"""Hex's board as cells and edges, for the rules' tables and host helpers: each cell's six
neighbours, off-board neighbours standing for the edge they cross."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from hexjax.games._base import Symmetry

TOP, BOTTOM, LEFT, RIGHT = 0, 1, 2, 3
NUM_EDGES = 4
EDGE_COLOURS = (1, 1, 2, 2)  # by edge: Black's top and bottom, White's left and right


def neighbour_table(n: int) -> np.ndarray:
    """int32[n*n, 6]: neighbour cell indices; off-board neighbours -> n*n + edge id.

    Neighbours go round the hexagon, so each pair (0, 1), (2, 3), (4, 5) are neighbours of each
    other: two of the mover's stones in one pair are in one group.
    """
    offsets = ((-1, 0), (-1, 1), (0, 1), (1, 0), (1, -1), (0, -1))
    table = np.zeros((n * n, 6), np.int32)
    for r in range(n):
        for c in range(n):
            for k, (dr, dc) in enumerate(offsets):
                rr, cc = r + dr, c + dc
                if rr < 0:
                    table[r * n + c, k] = n * n + TOP
                elif rr >= n:
                    table[r * n + c, k] = n * n + BOTTOM
                elif cc < 0:
                    table[r * n + c, k] = n * n + LEFT
                elif cc >= n:
                    table[r * n + c, k] = n * n + RIGHT
                else:
                    table[r * n + c, k] = rr * n + cc
    return table


def winning_group(board: np.ndarray, colour: int) -> np.ndarray:
    """Host helper: bool[n, n], the stones of `colour` (1 Black, 2 White) in groups that touch
    both of its edges (Black top and bottom, White left and right); all False if none does.
    The whole group is marked, side branches included: that is what joins the edges."""
    n = board.shape[0]
    stones = board.reshape(-1) == colour
    neighbours = neighbour_table(n)
    goal = (TOP, BOTTOM) if colour == 1 else (LEFT, RIGHT)
    marked = np.zeros(n * n, bool)
    seen = np.zeros(n * n, bool)
    for start in np.flatnonzero(stones):
        if seen[start]:
            continue
        group, edges, frontier = [], set(), [start]
        seen[start] = True
        while frontier:  # flood fill one group, noting the edges it touches
            cell = frontier.pop()
            group.append(cell)
            for other in neighbours[cell]:
                if other >= n * n:
                    edges.add(other - n * n)
                elif stones[other] and not seen[other]:
                    seen[other] = True
                    frontier.append(other)
        if edges.issuperset(goal):
            marked[group] = True
    return marked.reshape(n, n)


def rhombus_symmetries(n: int, swap: bool) -> tuple[Symmetry, ...]:
    """Hex's board symmetries (see `Hex.symmetries`): the identity and the half turn, and
    without the swap rule the two diagonal reflections, which exchange the colours."""
    cells = np.arange(n * n)
    rows, cols = np.divmod(cells, n)

    def action_map(cell_map):
        extra = [n * n] if swap else []
        return np.concatenate([cell_map, extra]).astype(np.int32)

    def colour_swap(board):
        return np.where(board == 0, 0, 3 - board).astype(np.int8)

    result = [
        Symmetry("identity", action_map(cells), lambda obs: obs, lambda b: np.array(b)),
        Symmetry(
            "rotate180",
            action_map((n - 1 - rows) * n + (n - 1 - cols)),
            lambda obs: jnp.flip(obs, axis=(-3, -2)),
            lambda b: np.array(b)[::-1, ::-1],
        ),
    ]
    if not swap:
        result += [
            Symmetry(
                "transpose",
                action_map(cols * n + rows),
                lambda obs: jnp.swapaxes(obs, -3, -2),
                lambda b: colour_swap(np.array(b).T),
                swaps_colours=True,
            ),
            Symmetry(
                "antitranspose",
                action_map((n - 1 - cols) * n + (n - 1 - rows)),
                lambda obs: jnp.flip(jnp.swapaxes(obs, -3, -2), axis=(-3, -2)),
                lambda b: colour_swap(np.array(b).T[::-1, ::-1]),
                swaps_colours=True,
            ),
        ]
    return tuple(result)
