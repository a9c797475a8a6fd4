"""Hex on an n x n rhombus, with the optional swap rule.

Board (n = 4), each row shifted right; action = r * n + c; HexGui coordinates a1 = top-left:

      a b c d
    1  . . . .          player 0 (X, Black) joins row 0 to row n-1
     2  . . . .         player 1 (O, White) joins column 0 to column n-1
      3  . . . .
       4  . . . .

Neighbours of (r, c): (r-1, c) (r-1, c+1) (r, c-1) (r, c+1) (r+1, c-1) (r+1, c).

Win detection keeps a group label per cell (`group`): every stone carries the label of its
connected group, which is the smallest of its members' own labels (cell + 4) and of the edges
it touches (0 top, 1 bottom, 2 left, 3 right). Placing a stone reads the labels of its six
neighbours (off-board neighbours read the edge label), relabels the groups it joins in one
vectorised compare-and-select over the board, and wins when the joined labels contain both of
the mover's edges. Constant work per step, no data-dependent loop.

Swap (`swap=True`): on the second ply only, action n*n takes over the first stone reflected
across the long diagonal, (r, c) -> (c, r), so each colour keeps its edges (HexGui, LittleGolem
and OpenSpiel's convention). Player 0 then moves again.

Observation float32[n, n, C], side to move's view: own stones, opponent stones, the cells of the
two edges the mover must join, the opponent's edge cells, and (swap games) a plane of ones
while the swap is available.
"""

from __future__ import annotations

import functools
import re

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from hexjax.games import _descriptions, _square
from hexjax.games._base import (
    ExtraAction,
    Game,
    State,
    Symmetry,
    checked_int,
    outcome_rewards,
)
from hexjax.games._hex_cells import EDGE_COLOURS as _EDGE_COLOURS
from hexjax.games._hex_cells import NUM_EDGES as _NUM_EDGES
from hexjax.games._hex_cells import neighbour_table as _neighbour_table
from hexjax.games._hex_cells import rhombus_symmetries, winning_group
from hexjax.games._hex_dead import left_out
from hexjax.games.sampling import random_legal_action

_SYMBOLS = {0: ".", 1: "X", 2: "O"}
MIN_SIZE, MAX_SIZE = 2, 19


@struct.dataclass
class HexState(State):
    group: jax.Array  # int8[n * n] (n <= 11) or int16[n * n]: group label of each stone;
    # an empty cell c holds c + 4. The narrow type doubles the SIMD width of the merge.


class Hex(Game):
    """Hex, any size from 2 to 19, optional swap rule. See the module docstring."""

    name = "hex"
    _move_words = ("swap-pieces", "swap")

    def __init__(self, size: int = 11, swap: bool = False):
        size = checked_int("hex size", size, MIN_SIZE, MAX_SIZE)
        if not isinstance(swap, bool | np.bool_):
            raise ValueError(f"hex swap must be True or False, got {swap!r}")
        self.size = n = int(size)
        self.swap = bool(swap)
        self.num_cells = n * n
        self.num_actions = n * n + (1 if self.swap else 0)
        self.max_plies = self.num_actions  # every cell filled, plus the swap
        # Per cell and neighbour: the on-board index, or which edge (as a colour and a label).
        neighbours = _neighbour_table(n)
        self._neighbour_on_board = neighbours < n * n
        self._neighbour_inside = np.minimum(neighbours, n * n - 1)
        edge = np.maximum(neighbours - n * n, 0)
        self._neighbour_edge_colour = np.array(_EDGE_COLOURS, np.int8)[edge]
        self._label_dtype = np.int8 if n * n + _NUM_EDGES < 127 else np.int16
        # Stands for "not one of the mover's groups"; never a real label.
        self._no_group = np.iinfo(self._label_dtype).max
        self._neighbour_edge_label = edge.astype(self._label_dtype)
        cells = np.arange(n * n)
        self._transpose = (cells % n) * n + cells // n
        self._initial_group = (cells + _NUM_EDGES).astype(self._label_dtype)
        rows, cols = np.divmod(cells, n)
        edges0 = ((rows == 0) | (rows == n - 1)).reshape(n, n)
        edges1 = ((cols == 0) | (cols == n - 1)).reshape(n, n)
        self._goal_edges = np.stack([edges0, edges1]).astype(np.float32)  # [2, n, n]

    def __repr__(self) -> str:
        return f"Hex(size={self.size}, swap={self.swap})"

    # --- rules ---------------------------------------------------------------------------

    def init(self, key: jax.Array) -> HexState:
        del key  # Hex starts from the empty board.
        n = self.size
        mask = jnp.zeros(self.num_actions, jnp.bool_).at[: self.num_cells].set(True)
        return HexState(
            board=jnp.zeros((n, n), jnp.int8),
            current_player=jnp.int32(0),
            legal_action_mask=mask,
            terminated=jnp.bool_(False),
            rewards=jnp.zeros(2, jnp.float32),
            winner=jnp.int32(-1),
            step_count=jnp.int32(0),
            group=jnp.asarray(self._initial_group),
        )

    def _place(self, board, group, cell, colour):
        """Put a `colour` stone on `cell` of the flat board; merge groups; detect the win.

        board: int8[n*n], group: int8/int16[n*n], cell: int32, colour: int8 (1 or 2).
        Returns (board, group, connected: bool).
        """
        cells = jnp.arange(self.num_cells)
        inside = jnp.asarray(self._neighbour_inside)[cell]  # int32[6], clamped onto the board
        on_board = jnp.asarray(self._neighbour_on_board)[cell]  # bool[6]
        neighbour_colour = jnp.where(
            on_board, board[inside], jnp.asarray(self._neighbour_edge_colour)[cell]
        )
        neighbour_label = jnp.where(
            on_board, group[inside], jnp.asarray(self._neighbour_edge_label)[cell]
        )
        dtype = self._label_dtype
        # Labels of the mover's groups around `cell` (others: a value no cell holds).
        joined = jnp.where(neighbour_colour == colour, neighbour_label, dtype(self._no_group))
        # Ring neighbours pair up into one group each, so three labels cover every group
        # joined (halving the compares below). A stone on an edge carries that edge's label.
        joined = jnp.minimum(joined[0::2], joined[1::2])  # [3]
        label = jnp.minimum(joined.min(), (cell + _NUM_EDGES).astype(dtype))
        first_edge = (2 * (colour - 1)).astype(dtype)
        connected = (joined == first_edge).any() & (joined == first_edge + 1).any()
        here = cells == cell
        relabel = here | (group[:, None] == joined[None, :]).any(axis=1)
        group = jnp.where(relabel, label, group)
        board = jnp.where(here, colour, board)
        return board, group, connected

    def _play(self, state: HexState, action: jax.Array) -> HexState:
        n = self.size
        mover = state.current_player
        colour = (mover + 1).astype(jnp.int8)
        board = state.board.reshape(-1)
        group = state.group
        cell = action
        if self.swap:
            # The only stone on the board moves to its mirror image and changes colour.
            is_swap = action == self.num_cells
            first_stone = jnp.argmax(board != 0)
            cell = jnp.where(is_swap, jnp.asarray(self._transpose)[first_stone], action)
            board = jnp.where(is_swap, jnp.int8(0), board)
            group = jnp.where(is_swap, jnp.asarray(self._initial_group), group)
        board, group, connected = self._place(board, group, cell, colour)
        step_count = state.step_count + 1
        return state.replace(
            board=board.reshape(n, n),
            group=group,
            current_player=1 - mover,
            legal_action_mask=self._legal_mask(board, step_count, connected),
            terminated=connected,
            winner=jnp.where(connected, mover, -1).astype(jnp.int32),
            step_count=step_count,
        )

    def _legal_mask(self, board, step_count, terminated):
        mask = (board == 0) & ~terminated
        if self.swap:
            swap_legal = (step_count == 1) & ~terminated
            mask = jnp.concatenate([mask, swap_legal[None]])
        return mask

    def moves_to_search(self, state: HexState) -> jax.Array:
        """The legal moves less the dead cells and those the opponent has captured
        (`_hex_dead.left_out`: a stone there is worth no more than a move elsewhere; a live
        position keeps a move); the swap stays."""
        left = left_out(state.board, state.current_player).reshape(-1)
        if self.swap:
            left = jnp.concatenate([left, jnp.zeros(1, bool)])
        return state.legal_action_mask & ~left

    def final_owners(self, state: HexState) -> jax.Array:
        """The filled board: every empty cell the winner's. Any filling of the empty cells keeps
        the winner's connection (stones never leave), so this is a full board with the game's
        winner; with no winner yet, the board as it stands."""
        winner_colour = (state.winner + 1).astype(jnp.int8)
        fill = (state.board == 0) & (state.winner >= 0)
        return jnp.where(fill, winner_colour, state.board)

    def playout_winner(self, key: jax.Array, state: HexState) -> jax.Array:
        """A uniformly random playout visits the empty cells in a uniformly random order, the
        side to move taking every other one; whoever connects first is the one connected on
        the full board (Hex has no draws and stones never leave). So: deal the empty cells
        out in random order and look at the full board once: the same distribution, with no
        loop over plies."""
        swap_key, order_key = jax.random.split(key)
        if self.swap:
            # The swap is a move of its own: one ordinary random ply first.
            state = self.step(state, random_legal_action(swap_key, state.legal_action_mask))
        n = self.size
        flat = state.board.reshape(-1)
        empty = flat == 0
        # Random order keys, unique: 23 random bits above the cell index (a tie in the random
        # bits, about 1e-4 per playout at 7x7, is broken by the index).
        cells = jnp.arange(n * n, dtype=jnp.uint32)
        priority = jax.random.bits(order_key, (n * n,), jnp.uint32) >> 9 << 9 | cells
        before = priority[None, :] < priority[:, None]
        rank = (before & empty[None, :]).sum(axis=1)  # place in the dealing order
        mover_colour = (state.current_player + 1).astype(jnp.int8)
        dealt = jnp.where(rank % 2 == 0, mover_colour, 3 - mover_colour).astype(jnp.int8)
        full = jnp.where(empty, dealt, flat).reshape(n, n)
        winner = jnp.where(self.top_bottom_connected(full == 1), 0, 1).astype(jnp.int32)
        return jnp.where(state.terminated, state.winner, winner)

    def top_bottom_connected(self, stones: jax.Array) -> jax.Array:
        """bool: do the `stones` (bool[n, n]) join row 0 to row n-1? Flood fill on rows as
        bit masks (bit c = column c) until nothing more is reached.

        Cell (r, c) touches (r-1, c) (r-1, c+1) (r, c-1) (r, c+1) (r+1, c-1) (r+1, c), so
        a row is reached from the row above through `above | above >> 1`, from the row
        below through `below | below << 1`, and along itself through `<< 1` and `>> 1`.
        """
        n = self.size
        rows = (stones.astype(jnp.int32) << jnp.arange(n, dtype=jnp.int32)).sum(axis=1)
        zero = jnp.zeros(1, jnp.int32)

        def spread(reach):
            above = jnp.concatenate([zero, reach[:-1]])
            below = jnp.concatenate([reach[1:], zero])
            near = reach | reach << 1 | reach >> 1 | above | above >> 1 | below | below << 1
            return rows & near

        def growing(carry):
            return carry[1]

        def grow(carry):
            reach, _ = carry
            wider = spread(spread(reach))
            return wider, (wider != reach).any()

        start = jnp.where(jnp.arange(n) == 0, rows, 0)
        reach, _ = jax.lax.while_loop(growing, grow, (start, jnp.bool_(True)))
        return reach[n - 1] != 0

    # --- observation and symmetries --------------------------------------------------------

    @property
    def observation_shape(self) -> tuple[int, int, int]:
        return (self.size, self.size, 5 if self.swap else 4)

    def observe(self, state: HexState) -> jax.Array:
        mover = state.current_player
        own = state.board == (mover + 1).astype(jnp.int8)
        opponent = state.board == (2 - mover).astype(jnp.int8)
        goals = jnp.asarray(self._goal_edges)
        planes = [own, opponent, goals[mover], goals[1 - mover]]
        if self.swap:
            planes.append(jnp.broadcast_to(state.legal_action_mask[-1], own.shape))
        return jnp.stack(planes, axis=-1).astype(jnp.float32)

    @functools.cached_property
    def symmetries(self) -> tuple[Symmetry, ...]:
        """Identity and 180-degree rotation keep each colour's edges. Reflecting across either
        diagonal exchanges the colours; from the mover's view it is again a symmetry, listed
        only without the swap rule (the swap move is defined for player 0's first stone)."""
        return rhombus_symmetries(self.size, self.swap)

    # --- host helpers ----------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        action = self._to_action(int(action))
        if action == self.num_cells:
            return "swap"
        return _square.format_cell(action, self.size, rows_from_bottom=False)

    def string_to_action(self, text: str) -> int:
        """HexGui coordinates: column letter, row number from 1 ("a1" top-left); "swap"."""
        if text.strip().lower() in ("swap", "swap-pieces"):
            if not self.swap:
                raise ValueError("swap is not enabled in this game (use swap=True)")
            return self.num_cells
        return _square.parse_cell(text, self.size, rows_from_bottom=False)

    def illegal_reason(self, state: HexState, action: int) -> str:
        if action == self.num_cells:
            return "swap is only allowed as the second move"
        return "that cell is already occupied"

    def winning_cells(self, state: HexState) -> list[int]:
        """The cells of the winner's group that joins its two edges (empty before a win)."""
        winner = int(state.winner)
        if winner < 0:
            return []
        return np.flatnonzero(winning_group(np.asarray(state.board), winner + 1)).tolist()

    # --- what front ends show ----------------------------------------------------------

    hexagonal = True
    board_colour = "#d9c7a0"
    stone_colours = ("red", "blue")  # red joins top and bottom, blue left and right (HexGui)
    side_names = ("X (red, top-bottom)", "O (blue, left-right)")
    sgf_number = 11

    @property
    def extra_actions(self) -> tuple[ExtraAction, ...]:
        if not self.swap:
            return ()
        return (ExtraAction(self.num_cells, "swap", "swap-pieces", "as the second move"),)

    @property
    def label(self) -> str:
        return super().label + (" with swap" if self.swap else "")

    def plane_meanings(self) -> list[tuple[str, str]]:
        return [*_descriptions.HEX_PLANES, *([_descriptions.HEX_SWAP_PLANE] * self.swap)]

    def end_rule(self) -> str:
        return _descriptions.HEX_END

    def sgf_point(self, action: int) -> str:
        return self.protocol_move(action)  # HexGui writes cells as a1, the swap swap-pieces

    def sgf_action(self, value: str) -> int:
        if value in self._move_words:
            return self.num_cells
        if re.fullmatch(r"[a-z]{2}", value):  # LittleGolem's column, row letters
            value = f"{value[0]}{ord(value[1]) - ord('a') + 1}"
        return self.string_to_action(value)

    @classmethod
    def from_sgf(cls, size: int, rule: str | None, moves: list[str]) -> Hex:
        return cls(size=size, swap=any(value in cls._move_words for value in moves))

    def render(self, state: HexState) -> str:
        n = self.size
        board = np.asarray(state.board)
        width = len(str(n))
        lines = [" " * (width + 2) + " ".join(_square.column_letters(n))]
        for r in range(n):
            cells = " ".join(_SYMBOLS[int(v)] for v in board[r])
            lines.append(" " * r + str(r + 1).rjust(width) + "  " + cells)
        if bool(state.terminated):
            lines.append(f"{'XO'[int(state.winner)]} wins" if int(state.winner) >= 0 else "over")
        else:
            side = "X (top-bottom)" if int(state.current_player) == 0 else "O (left-right)"
            lines.append(f"{side} to move")
        return "\n".join(lines)

    def _from_board(self, board: np.ndarray, to_play: int) -> HexState:
        return self._jit_from_board(jnp.asarray(board), jnp.int32(to_play))

    @functools.cached_property
    def _jit_from_board(self):
        return jax.jit(self.state_from_board)

    def state_from_board(self, board: jax.Array, to_play: jax.Array) -> HexState:
        """Pure form of `from_board` (no validation): stones placed one by one, in cell order,
        through the same group merging as `step`; the winner is whoever got connected."""
        flat = board.reshape(-1).astype(jnp.int8)

        def place(carry, cell):
            labels_board, group, connected = carry
            colour = flat[cell]
            new_board, new_group, joined = self._place(labels_board, group, cell, colour)
            occupied = colour != 0
            return (
                jnp.where(occupied, new_board, labels_board),
                jnp.where(occupied, new_group, group),
                connected.at[jnp.maximum(colour - 1, 0)].max(joined & occupied),
            ), None

        start = (jnp.zeros_like(flat), jnp.asarray(self._initial_group), jnp.zeros(2, jnp.bool_))
        (_, group, connected), _ = jax.lax.scan(place, start, jnp.arange(self.num_cells))
        terminated = connected.any()
        winner = jnp.where(connected[0], 0, jnp.where(connected[1], 1, -1)).astype(jnp.int32)
        stones = (flat != 0).sum().astype(jnp.int32)
        mask = (flat == 0) & ~terminated
        if self.swap:
            swap_legal = (stones == 1) & (flat == 1).any() & (to_play == 1) & ~terminated
            mask = jnp.concatenate([mask, swap_legal[None]])
        return HexState(
            board=flat.reshape(board.shape),
            current_player=jnp.asarray(to_play, jnp.int32),
            legal_action_mask=mask,
            terminated=terminated,
            rewards=outcome_rewards(winner, terminated),
            winner=winner,
            step_count=stones,
            group=group,
        )
