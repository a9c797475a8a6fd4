"""One-ply greedy players, one heuristic per game, batched and jittable.

`greedy_player(game)(key, states) -> int32[B]` actions. Every greedy first takes a move that
wins at once; then, per game:

- Hex: the move that most improves its own shortest connection distance against the
  opponent's. A distance is a shortest path between the player's two edges where its own stones
  cost 0, empty cells 1 and the opponent's stones cannot be crossed; the move maximises
  (opponent's distance - own distance) on the board after it. The swap move is never chosen.
- Gomoku (every rule): block the opponent's immediate win, else the best local pattern score:
  every line segment of k cells through a point that holds no opponent stone adds a weight
  growing with the stones of the mover in it (attack), and every one holding no stone of the
  mover adds a smaller weight for the opponent's (defence). Renju's forbidden points are not
  legal, so Black never picks one.
- Othello: a corner if one is legal, else an edge, else an inner cell, and last the cells next
  to an empty corner (X- and C-squares, which hand the corner over); within a class, the move
  leaving the opponent the fewest legal moves.
- any other game: block the opponent's immediate win, else random.

Ties between the best moves are broken uniformly at random, so two greedy players do not
replay one game.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from hexjax.games import Game, random_legal_action
from hexjax.games.gomoku import Gomoku
from hexjax.games.hex import Hex
from hexjax.games.othello import Othello

_UNREACHABLE = 10_000  # larger than any path; sums of two stay far from int32 overflow


def greedy_player(game: Game):
    if isinstance(game, Hex):
        preference = _hex_preference(game)
    elif isinstance(game, Gomoku):
        preference = _gomoku_preference(game)
    elif isinstance(game, Othello):
        preference = _othello_preference(game)
    else:
        preference = _blocking_preference(game)

    def play(key, states):
        children = _children(game, states)
        wins = (
            states.legal_action_mask
            & children.terminated
            & (children.winner == states.current_player[:, None])
        )
        score = jnp.where(wins, jnp.inf, preference(states, children))
        score = jnp.where(states.legal_action_mask, score, -jnp.inf)
        best = score >= score.max(axis=-1, keepdims=True)
        return random_legal_action(key, best & states.legal_action_mask)

    return play


def _children(game: Game, states):
    """The state after each action, batched: leaves [B, A, ...]."""
    actions = jnp.arange(game.num_actions)
    return jax.vmap(jax.vmap(game.step, in_axes=(None, 0)), in_axes=(0, None))(states, actions)


def _opponent_wins(game: Game, states) -> jax.Array:
    """bool[B, A]: where the opponent would win at once if it were to move now."""
    flipped = states.replace(current_player=1 - states.current_player)
    children = _children(game, flipped)
    return (
        states.legal_action_mask
        & children.terminated
        & (children.winner == flipped.current_player[:, None])
    )


def _blocking_preference(game: Game):
    def preference(states, children):
        del children
        return _opponent_wins(game, states).astype(jnp.float32)

    return preference


# --- Hex -------------------------------------------------------------------------------------


def _hex_preference(game: Hex):
    n = game.size
    neighbour = jnp.asarray(game._neighbour_inside)  # [n*n, 6]
    on_board = jnp.asarray(game._neighbour_on_board)  # [n*n, 6]
    transpose = jnp.asarray(game._transpose)
    first_row = jnp.arange(n * n) < n
    last_row = jnp.arange(n * n) >= n * (n - 1)

    def top_bottom_distance(own, other):
        """int32[...]: the shortest path from row 0 to row n-1 (own and other: bool[..., n*n]),
        by Bellman-Ford relaxation until nothing changes (at most n*n rounds)."""
        cost = jnp.where(own, 0, jnp.where(other, _UNREACHABLE, 1))
        start = jnp.where(first_row, cost, _UNREACHABLE)

        def relax(carry):
            distance, _ = carry
            around = jnp.where(on_board, distance[..., neighbour], _UNREACHABLE).min(axis=-1)
            better = jnp.minimum(distance, jnp.minimum(cost + around, _UNREACHABLE))
            return better, (better != distance).any()

        distance, _ = jax.lax.while_loop(lambda c: c[1], relax, (start, jnp.bool_(True)))
        return jnp.where(last_row, distance, _UNREACHABLE).min(axis=-1)

    def distance(own, other, player):
        """Player 1 joins the columns: the same problem on the transposed board (the
        transpose keeps hex adjacency)."""
        own_t, other_t = own[..., transpose], other[..., transpose]
        return jnp.where(
            player == 0,
            top_bottom_distance(own, other),
            top_bottom_distance(own_t, other_t),
        )

    def preference(states, children):
        del children
        board = states.board.reshape(-1, n * n)
        mover = states.current_player[:, None]
        own = board == (mover + 1).astype(board.dtype)
        other = board == (2 - mover).astype(board.dtype)
        placed = own[:, None, :] | jnp.eye(n * n, dtype=bool)  # [B, cells, cells]
        other = jnp.broadcast_to(other[:, None, :], placed.shape)
        mine = distance(placed, other, mover)
        theirs = distance(other, placed, 1 - mover)
        score = (theirs - mine).astype(jnp.float32)
        pad = game.num_actions - n * n  # the swap move, never preferred
        return jnp.pad(score, ((0, 0), (0, pad)), constant_values=-_UNREACHABLE)

    return preference


# --- Gomoku ----------------------------------------------------------------------------------

# By stones already in a k-cell segment (0 .. k-1); a segment of k-1 is a win or a block,
# handled before these weights matter.
_ATTACK = (1.0, 4.0, 32.0, 256.0)
_DEFENCE = (0.0, 2.0, 16.0, 128.0)


def _segments(n: int, k: int) -> np.ndarray:
    """int32[S, k]: the cells of every line segment of k cells in the 4 directions."""
    found = []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(n):
            for c in range(n):
                end_r, end_c = r + dr * (k - 1), c + dc * (k - 1)
                if 0 <= end_r < n and 0 <= end_c < n:
                    found.append([(r + dr * i) * n + c + dc * i for i in range(k)])
    return np.asarray(found, np.int32).reshape(-1, k)


def _weights(values, k: int) -> np.ndarray:
    """Weights by stone count 0 .. k (geometric beyond the table, for long k)."""
    table = list(values)
    while len(table) < k + 1:
        table.append(table[-1] * 8.0)
    return np.asarray(table[: k + 1], np.float32)


def _gomoku_preference(game: Gomoku):
    n, k = game.size, game.win_length
    segments = _segments(n, k)
    incidence = np.zeros((len(segments), n * n), np.float32)  # [S, cells]
    incidence[np.arange(len(segments))[:, None], segments] = 1.0
    incidence = jnp.asarray(incidence)
    attack, defence = jnp.asarray(_weights(_ATTACK, k)), jnp.asarray(_weights(_DEFENCE, k))
    segments = jnp.asarray(segments)

    def preference(states, children):
        del children
        board = states.board.reshape(-1, n * n)
        mover = states.current_player[:, None]
        own = (board == (mover + 1).astype(board.dtype))[:, segments].sum(-1)  # [B, S]
        other = (board == (2 - mover).astype(board.dtype))[:, segments].sum(-1)
        value = jnp.where(other == 0, attack[own], 0.0) + jnp.where(own == 0, defence[other], 0.0)
        pattern = value @ incidence  # [B, cells]
        # A block outranks every pattern score.
        return jnp.where(_opponent_wins(game, states), 1e9, pattern)

    return preference


# --- Othello ---------------------------------------------------------------------------------


def _othello_preference(game: Othello):
    n = game.size
    rows, cols = np.divmod(np.arange(n * n), n)
    edge = (rows == 0) | (rows == n - 1) | (cols == 0) | (cols == n - 1)
    corner_cells = np.array([0, n - 1, n * (n - 1), n * n - 1])
    corner = np.isin(np.arange(n * n), corner_cells)
    # The corner a cell touches (its X- and C-squares), or -1: such a cell hands the corner to
    # the opponent while the corner is empty.
    near = np.full(n * n, -1)
    for k in corner_cells:
        r, c = divmod(int(k), n)
        touching = (np.abs(rows - r) <= 1) & (np.abs(cols - c) <= 1) & ~corner
        near[touching] = k
    pad = game.num_actions - n * n  # the pass move: only ever legal alone
    rank = jnp.asarray(np.pad(corner * 8.0 + edge * 2.0, (0, pad)) * n * n, jnp.float32)
    near_corner = jnp.asarray(np.pad(np.maximum(near, 0), (0, pad)))
    touches_corner = jnp.asarray(np.pad(near >= 0, (0, pad)))

    def preference(states, children):
        board = states.board.reshape(-1, n * n)
        opens_corner = touches_corner & (board[:, near_corner] == 0)
        replies = children.legal_action_mask[..., : n * n].sum(-1)  # the opponent's moves
        return rank - opens_corner * 4.0 * n * n - replies.astype(jnp.float32)

    return preference
