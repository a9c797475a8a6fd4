"""Othello (Reversi) on an even n x n board, 4 to 16 (default 8).

Standard start: White on d4 and e5, Black on e4 and d5 (for n = 8; the centre four in general).
Black (player 0) moves first. A move must flip at least one line of opponent discs. Action n*n
is the pass, legal only when no placement is; a pass counts as a ply. The game ends as soon as
neither side can place (a full board included); more discs wins, equal counts draw.
Coordinates: column letter, row number from the TOP ("d3"), as in OpenSpiel and tournaments.

Discs are kept as bitboards (`bits: uint32[2, words]`, two words for 8x8; see _bitboard.py), so
moving the whole board one step in a direction is a shift across the words, and both the flips
of a move and the legal moves of a side are a fixed number of such steps, all 8 directions at
once (the classic bitboard fill), with no per-cell logic and no data-dependent loop.

Observation float32[n, n, 3], side to move's view: own discs, opponent discs, legal placements.
"""

from __future__ import annotations

import functools

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
from hexjax.games._bitboard import Bitboards

MIN_SIZE, MAX_SIZE = 4, 16
_DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
_SYMBOLS = {0: ".", 1: "X", 2: "O"}


@struct.dataclass
class OthelloState(State):
    bits: jax.Array  # uint32[2, words]: Black's, White's discs; bit r * n + c is cell (r, c)


class Othello(Game):
    """Othello with passes. See the module docstring."""

    name = "othello"
    _move_words = ("pass",)

    def __init__(self, size: int = 8):
        size = checked_int("othello size", size, MIN_SIZE, MAX_SIZE, even=True)
        self.size = n = int(size)
        self.num_cells = n * n
        self.num_actions = n * n + 1
        self.pass_action = n * n
        # Placements fill the n*n - 4 empty cells; passes never come twice in a row.
        self.max_plies = 2 * (n * n - 4) + 1
        self._bitboards = Bitboards(n)

    def __repr__(self) -> str:
        return f"Othello(size={self.size})"

    # --- bitboard kernels (see _bitboard.py) ------------------------------------------------

    def _placements(self, own, opponent):
        """Empty cells where `own` may place, i.e. it would flip something (word tuples)."""
        bb = self._bitboards
        empty = tuple(
            ~(a | b) & bb.on_board[w] for w, (a, b) in enumerate(zip(own, opponent, strict=True))
        )
        ends = bb.step(bb.runs(own, opponent))
        ends = tuple(word & e[..., None, None] for word, e in zip(ends, empty, strict=True))
        return bb.union_of_lanes(ends)

    def _flips(self, move, own, opponent):
        """Discs flipped by placing `move` (one bit, or none for a pass)."""
        bb = self._bitboards
        run = bb.runs(move, opponent)
        closes = bb.step(run)
        closed = jnp.zeros(run[0].shape, jnp.bool_)
        for word, o in zip(closes, own, strict=True):
            closed = closed | ((word & o[..., None, None]) != 0)
        return bb.union_of_lanes(tuple(jnp.where(closed, word, jnp.uint32(0)) for word in run))

    def _settle(self, bits: jax.Array, mover: jax.Array) -> dict:
        """Fields that follow from the discs with `mover` to play: mask, end, winner, board.

        bits: uint32[2, words] (Black, White). The mover places if it can, passes if only the
        other side can, and the game is over when neither can.
        """
        bb = self._bitboards
        own = bb.split(jnp.where(mover == 0, bits[0], bits[1]))
        opponent = bb.split(jnp.where(mover == 0, bits[1], bits[0]))
        # Both sides' placements in one pass (a leading axis of 2): the mover's, and the other
        # side's, which decide between a forced pass and the end when the mover has none.
        both = self._placements(_pair(own, opponent), _pair(opponent, own))
        placements = bb.stack(both)  # [2, words]
        can_place = placements[0].any()
        can_reply = placements[1].any()
        terminated = ~can_place & ~can_reply
        mask = jnp.concatenate([bb.unpack(placements[0]), (~can_place & can_reply)[None]])
        counts = jax.lax.population_count(bits).astype(jnp.int32).sum(axis=1)
        leader = jnp.where(counts[0] > counts[1], 0, jnp.where(counts[1] > counts[0], 1, -1))
        discs = bb.unpack(bits).astype(jnp.int8)  # [2, n*n]
        return dict(
            board=(discs[0] + 2 * discs[1]).reshape(self.size, self.size),
            current_player=mover,
            legal_action_mask=mask,
            terminated=terminated,
            winner=jnp.where(terminated, leader, -1).astype(jnp.int32),
            bits=bits,
        )

    # --- rules ---------------------------------------------------------------------------

    def _start_bits(self) -> np.ndarray:
        n, h = self.size, self.size // 2
        black = np.zeros((n, n), bool)
        white = np.zeros((n, n), bool)
        black[h - 1, h] = black[h, h - 1] = True  # e4, d5
        white[h - 1, h - 1] = white[h, h] = True  # d4, e5
        return np.stack([self._bitboards.pack_np(black), self._bitboards.pack_np(white)])

    def init(self, key: jax.Array) -> OthelloState:
        del key  # Othello always starts from the same four discs.
        fields = self._settle(jnp.asarray(self._start_bits()), jnp.int32(0))
        return OthelloState(rewards=jnp.zeros(2, jnp.float32), step_count=jnp.int32(0), **fields)

    def _play(self, state: OthelloState, action: jax.Array) -> OthelloState:
        mover = state.current_player
        bb = self._bitboards
        word, bit = action // 32, (action % 32).astype(jnp.uint32)
        place = (jnp.arange(bb.words) == word) & (action < self.num_cells)  # pass: nothing
        move = bb.split(jnp.where(place, jnp.uint32(1) << bit, jnp.uint32(0)))
        own = bb.split(jnp.where(mover == 0, state.bits[0], state.bits[1]))
        opponent = bb.split(jnp.where(mover == 0, state.bits[1], state.bits[0]))
        flips = self._flips(move, own, opponent)
        own = bb.stack([o | m | f for o, m, f in zip(own, move, flips, strict=True)])
        opponent = bb.stack([o & ~f for o, f in zip(opponent, flips, strict=True)])
        bits = jnp.where(mover == 0, jnp.stack([own, opponent]), jnp.stack([opponent, own]))
        fields = self._settle(bits, 1 - mover)
        return state.replace(step_count=state.step_count + 1, **fields)

    # --- observation and symmetries --------------------------------------------------------

    @property
    def observation_shape(self) -> tuple[int, int, int]:
        return (self.size, self.size, 3)

    def observe(self, state: OthelloState) -> jax.Array:
        mover = state.current_player
        own = state.board == (mover + 1).astype(jnp.int8)
        opponent = state.board == (2 - mover).astype(jnp.int8)
        legal = state.legal_action_mask[: self.num_cells].reshape(self.size, self.size)
        return jnp.stack([own, opponent, legal], axis=-1).astype(jnp.float32)

    @functools.cached_property
    def symmetries(self) -> tuple[Symmetry, ...]:
        """All 8 square symmetries: the rules do not depend on orientation (the start position
        is not invariant under all of them, but every transformed position plays alike)."""
        return _square.dihedral_symmetries(self.size, extra_actions=1)

    # --- host helpers ----------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        action = self._to_action(int(action))
        if action == self.pass_action:
            return "pass"
        return _square.format_cell(action, self.size, rows_from_bottom=False)

    def string_to_action(self, text: str) -> int:
        """Column letter, row number from the top ("d3"), or "pass"."""
        if text.strip().lower() == "pass":
            return self.pass_action
        return _square.parse_cell(text, self.size, rows_from_bottom=False)

    def illegal_reason(self, state: OthelloState, action: int) -> str:
        if action == self.pass_action:
            return "passing is only allowed when no placement is"
        if int(np.asarray(state.board).reshape(-1)[action]) != 0:
            return "that square is already taken"
        if bool(state.legal_action_mask[self.pass_action]):
            return "no placement is possible; the only move is pass"
        return "that move flips nothing"

    # --- what front ends show ----------------------------------------------------------

    board_colour = "#2e8b57"  # the green baize

    @property
    def extra_actions(self) -> tuple[ExtraAction, ...]:
        return (ExtraAction(self.pass_action, "pass", "pass", "when it is the only move"),)

    def hint_marks(self, state: OthelloState) -> dict[int, str]:
        """The side to move's placements."""
        return {a: "*" for a in self.legal_actions(state) if a < self.num_cells}

    def tally(self, board: np.ndarray) -> str:
        return f"discs: X {int((board == 1).sum())}, O {int((board == 2).sum())}"

    def plane_meanings(self) -> list[tuple[str, str]]:
        return _descriptions.OTHELLO_PLANES

    def end_rule(self) -> str:
        return _descriptions.OTHELLO_END

    def render(self, state: OthelloState) -> str:
        board = np.asarray(state.board)
        lines = _square.render_grid(board, rows_from_bottom=False, symbols=_SYMBOLS)
        counts = f"X {int((board == 1).sum())} - O {int((board == 2).sum())}"
        if bool(state.terminated):
            winner = int(state.winner)
            lines.append(f"{'XO'[winner]} wins, {counts}" if winner >= 0 else f"draw, {counts}")
        else:
            side = "XO"[int(state.current_player)]
            only_pass = bool(state.legal_action_mask[self.pass_action])
            lines.append(f"{side} to move{' (must pass)' if only_pass else ''}, {counts}")
        return "\n".join(lines)

    @functools.cached_property
    def _jit_from_board(self):
        return jax.jit(self.state_from_board)

    def state_from_board(self, board: jax.Array, to_play: jax.Array) -> OthelloState:
        """Pure form of `from_board` (no validation)."""
        flat = board.reshape(-1)
        bb = self._bitboards
        bits = jnp.stack([bb.pack(flat == 1), bb.pack(flat == 2)])
        fields = self._settle(bits, jnp.asarray(to_play, jnp.int32))
        stones = (board != 0).sum().astype(jnp.int32)
        return OthelloState(
            rewards=outcome_rewards(fields["winner"], fields["terminated"]),
            step_count=jnp.maximum(stones - 4, 0),
            **fields,
        )

    def _from_board(self, board: np.ndarray, to_play: int) -> OthelloState:
        return self._jit_from_board(jnp.asarray(board), jnp.int32(to_play))


def _pair(first, second):
    """Two word tuples -> one word tuple with a leading axis of 2."""
    return tuple(jnp.stack([a, b]) for a, b in zip(first, second, strict=True))
