"""Gomoku on an n x n board, k in a row: freestyle (k or more wins), standard (exactly k), or
renju (Black: exactly five and no overline, double-four or double-three; White: five or more).

Black (player 0) moves first; a full board with no winner is a draw. Coordinates are those of
renju boards: column letter from the left, row number from the BOTTOM ("h8" is the centre of
15x15); action = r * n + c with row r = 0 at the top, as on every hexjax board.

The win check after a move reads only the four lines through it: a precomputed table gives, for
each cell and direction, the k cells on either side, so one gather and a run count settle it in
constant work per step. Runs are measured up to 2k + 1 stones, enough to tell exactly k from an
overline.

Rule variants hook in through `_variant_forbidden` (cells removed from the mover's legal mask)
and `_variant_planes` (extra observation planes); freestyle and standard add nothing, renju
removes Black's forbidden points (every empty cell judged after each move, from counts kept in
the state and a reading only of the boards that need it, see _renju.py) and adds a plane
marking them. Should Black have only forbidden points left, the game is a draw.

Observation float32[n, n, 3] from the mover's view: own stones, opponent stones, and a plane of
ones when the mover is Black; renju adds a fourth plane, Black's forbidden points (Black to move).
With `threats=True` four more follow (_threats.py): the mover's win points and four points, then
the opponent's: the one-move tactics a small network otherwise has to learn to see.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from hexjax.games import _descriptions, _square, host_compile
from hexjax.games._base import (
    Game,
    State,
    Symmetry,
    checked_int,
    outcome_rewards,
)
from hexjax.games._renju import Forbidden
from hexjax.games._runs import DIRECTIONS as _DIRECTIONS
from hexjax.games._runs import longest_runs, winning_lines
from hexjax.games._threats import forced_result, line_cells, threat_planes

RULES = ("freestyle", "standard", "renju")
MIN_SIZE, MAX_SIZE = 5, 19
_SYMBOLS = {0: ".", 1: "X", 2: "O"}


@struct.dataclass
class RenjuState(State):
    """Renju keeps each cell's counts over its four lines up to date move by move
    (hexjax/games/_renju.py)."""

    counts: jax.Array  # uint16[n*n]: Black's fives, overlines, fours and threes there, packed


def _line_table(n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """int32[n*n, 4, 2k+1] cell indices at offsets -k..k along each direction (clamped onto
    the board) and bool[n*n, 4, 2k+1] saying which are on the board."""
    offsets = np.arange(-k, k + 1)
    rows, cols = np.divmod(np.arange(n * n), n)
    index = np.zeros((n * n, 4, 2 * k + 1), np.int32)
    valid = np.zeros((n * n, 4, 2 * k + 1), bool)
    for d, (dr, dc) in enumerate(_DIRECTIONS):
        rr = rows[:, None] + dr * offsets[None, :]
        cc = cols[:, None] + dc * offsets[None, :]
        inside = (rr >= 0) & (rr < n) & (cc >= 0) & (cc < n)
        index[:, d] = np.where(inside, rr * n + cc, 0)
        valid[:, d] = inside
    return index, valid


class Gomoku(Game):
    """Gomoku, freestyle or standard. See the module docstring."""

    name = "gomoku"

    def __init__(
        self, size: int = 15, win_length: int = 5, rule: str = "freestyle", threats: bool = False
    ):
        size = checked_int("gomoku size", size, MIN_SIZE, MAX_SIZE)
        win_length = checked_int(f"gomoku win_length (size {size})", win_length, 3, size)
        if rule not in RULES:
            raise ValueError(f"gomoku rule must be one of {', '.join(RULES)}, got {rule!r}")
        if rule == "renju" and win_length != 5:
            raise ValueError(f"renju is played with win_length 5, got {win_length}")
        self.size = n = int(size)
        self.win_length = int(win_length)
        self.rule = rule
        self.num_cells = n * n
        self.num_actions = n * n
        self.max_plies = n * n
        self._line_index, self._line_valid = _line_table(n, self.win_length)
        self._forbidden = Forbidden(n) if rule == "renju" else None
        self._num_variant_planes = 1 if rule == "renju" else 0
        self.threats = bool(threats)

    def __repr__(self) -> str:
        threats = ", threats=True" if self.threats else ""
        return f"{self.as_played[:-1]}{threats})"  # the rules, then what the network sees

    @property
    def as_played(self) -> str:
        """The threat planes are only seen, not played."""
        return f"Gomoku(size={self.size}, win_length={self.win_length}, rule={self.rule!r})"

    # --- rules ---------------------------------------------------------------------------

    def init(self, key: jax.Array) -> State:
        del key  # Gomoku starts from the empty board.
        n = self.size
        board = jnp.zeros((n, n), jnp.int8)
        state = State(
            board=board,
            current_player=jnp.int32(0),
            # No stone, no forbidden point: the start position needs no renju reading (which
            # would make the engines' start-position program as large as a step's).
            legal_action_mask=jnp.ones(n * n, jnp.bool_),
            terminated=jnp.bool_(False),
            rewards=jnp.zeros(2, jnp.float32),
            winner=jnp.int32(-1),
            step_count=jnp.int32(0),
        )
        return self._with_codes(state)

    def _with_codes(self, state: State) -> State:
        """Renju: the state with the counts of its board (the other rules: as is)."""
        if self._forbidden is None:
            return state
        counts = self._jit_initial(state.board)
        fields = {f.name: getattr(state, f.name) for f in dataclasses.fields(state)}
        return RenjuState(**fields, counts=counts)

    @functools.cached_property
    def _jit_initial(self):
        return host_compile.host_jit(self._forbidden.initial, "renju_counts", repr(self))

    def _run_lengths(self, board: jax.Array, cell: jax.Array, colour: jax.Array) -> jax.Array:
        """int32[4]: length of the run of `colour` through `cell` in each direction, counting
        up to k stones on either side. board: int8[n*n] with the stone already on `cell`."""
        k = self.win_length
        same = (board[jnp.asarray(self._line_index)[cell]] == colour) & jnp.asarray(
            self._line_valid
        )[cell]  # [4, 2k+1]
        before = jnp.cumprod(same[:, :k][:, ::-1], axis=1).sum(axis=1)
        after = jnp.cumprod(same[:, k + 1 :], axis=1).sum(axis=1)
        return (1 + before + after).astype(jnp.int32)

    def _exact_five(self, player):
        """Whether `player` (0 Black, 1 White; traced or not) wins only with exactly k in a row,
        not more: standard's both players, renju's Black; freestyle's k or more wins."""
        if self.rule == "renju":
            return player == 0
        return self.rule == "standard"

    def _wins(self, runs: jax.Array, mover: jax.Array) -> jax.Array:
        """runs: int32[4] through the last stone of `mover` -> whether it won."""
        exact = (runs == self.win_length).any()
        longer = (runs >= self.win_length).any()
        return jnp.where(self._exact_five(mover), exact, longer)

    def _variant_forbidden(self, board: jax.Array, mover: jax.Array) -> jax.Array | None:
        """bool[n*n] of empty cells the mover may not play (rule variants); None for none."""
        if self._forbidden is None:
            return None
        return self._forbidden.mask(board.reshape(self.size, self.size)) & (mover == 0)

    def _variant_planes(self, state: State) -> list[jax.Array]:
        """Extra observation planes of a rule variant, each [n, n]."""
        if self._forbidden is None:
            return []
        # Forbidden points are exactly the empty cells missing from Black's legal mask.
        empty = state.board.reshape(-1) == 0
        blocked = empty & ~state.legal_action_mask & (state.current_player == 0)
        return [(blocked & ~state.terminated).reshape(self.size, self.size)]

    def _legal_mask(self, board, mover, terminated):
        mask = (board == 0) & ~terminated
        forbidden = self._variant_forbidden(board, mover)
        return mask if forbidden is None else mask & ~forbidden

    @functools.cached_property
    def _jit_legal_mask(self):
        return host_compile.host_jit(self._legal_mask, "legal_mask", repr(self))

    def forbidden_mask(self, state: State) -> np.ndarray:
        """bool[n, n]: the points where Black may not play in this position, whoever is to
        move (none but in renju)."""
        if self._forbidden is None:
            return super().forbidden_mask(state)
        return self.forbidden_points(np.asarray(state.board))

    def forbidden_points(self, board: np.ndarray) -> np.ndarray:
        """bool[n, n]: the points where Black may not play on `board` (int8[n, n]; renju)."""
        if self._forbidden is None:
            raise ValueError(f"only renju has forbidden points; this game's rule is {self.rule}")
        mask = self._jit_forbidden(jnp.asarray(board, jnp.int8))
        return np.asarray(mask).reshape(self.size, self.size)

    @functools.cached_property
    def _jit_forbidden(self):
        return host_compile.host_jit(self._forbidden.mask, "forbidden", repr(self))

    def _play(self, state: State, action: jax.Array) -> State:
        mover = state.current_player
        colour = (mover + 1).astype(jnp.int8)
        cells = jnp.arange(self.num_cells)
        board = jnp.where(cells == action, colour, state.board.reshape(-1))
        won = self._wins(self._run_lengths(board, action, colour), mover)
        step_count = state.step_count + 1
        terminated = won | (step_count >= self.num_cells)
        next_player = 1 - mover
        if self._forbidden is None:
            mask = self._legal_mask(board, next_player, terminated)
            variant = {}
        else:
            mask, variant = self._renju_mask(state, board, action, colour, next_player, terminated)
        # Renju: Black may be left with only forbidden points; the game is then drawn.
        terminated = terminated | ~mask.any()
        return state.replace(
            board=board.reshape(self.size, self.size),
            current_player=next_player,
            legal_action_mask=mask,
            terminated=terminated,
            winner=jnp.where(won, mover, -1).astype(jnp.int32),
            step_count=step_count,
            **variant,
        )

    def _renju_mask(self, state, board, action, colour, next_player, terminated):
        """The legal mask after a renju move, from counts updated around the move; the
        double-three reading runs only where Black is to move and a point needs it (under
        `jax.vmap`, only on those boards: `Forbidden.in_play`). -> (mask, new state fields)."""
        forbidden = self._forbidden
        counts = forbidden.play(state.counts, board, action, colour)
        sure, doubtful = forbidden.status(counts, board)
        black = next_player == 0
        # A finished game's step is thrown away (`Game.step`): no reading for it either.
        needs = black & ~terminated & ~state.terminated & doubtful.any()
        blocked = forbidden.in_play(board, counts, sure, doubtful, needs) & black
        mask = (board == 0) & ~terminated & ~blocked
        return mask, {"counts": counts}

    # --- observation and symmetries --------------------------------------------------------

    @property
    def observation_shape(self) -> tuple[int, int, int]:
        return (self.size, self.size, 3 + self._num_variant_planes + 4 * self.threats)

    def observe(self, state: State) -> jax.Array:
        mover = state.current_player
        own = state.board == (mover + 1).astype(jnp.int8)
        opponent = state.board == (2 - mover).astype(jnp.int8)
        black = jnp.broadcast_to(mover == 0, own.shape)
        planes = jnp.stack([own, opponent, black, *self._variant_planes(state)], axis=-1)
        if self.threats:
            threats = threat_planes(own, opponent, self.win_length) & ~state.terminated
            planes = jnp.concatenate([planes, threats], axis=-1)
        return planes.astype(jnp.float32)

    def forced_result(self, state: State) -> tuple[jax.Array, jax.Array]:
        """Won in 1 (a legal win point), lost in 2 (the opponent has two win points, or one
        the mover may not play), won in 3 (a legal move leaving two win points, the opponent
        none): `_threats.forced_result`, each side's fives exact as its rule reads them. Not
        seen: renju's draw when Black, to answer such a move, has only forbidden points."""
        mover = state.current_player
        own = state.board == (mover + 1).astype(jnp.int8)
        opponent = state.board == (2 - mover).astype(jnp.int8)
        legal = state.legal_action_mask.reshape(own.shape)
        exact = (self._exact_five(mover), self._exact_five(1 - mover))
        result, plies = forced_result(own, opponent, legal, self.win_length, *exact)
        live = ~state.terminated
        return jnp.where(live, result, 0), jnp.where(live, plies, 0)

    def winning_line(self, state: State) -> jax.Array:
        """The winner's five (or longer line where that wins: freestyle, renju's White)."""
        winner = state.winner
        colour = (winner + 1).astype(jnp.int8)
        cells = line_cells(state.board == colour, self.win_length, self._exact_five(winner))
        cells &= winner >= 0
        return jnp.where(cells, colour, 0).astype(jnp.int8)

    @functools.cached_property
    def symmetries(self) -> tuple[Symmetry, ...]:
        return _square.dihedral_symmetries(self.size)

    # --- host helpers ----------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        return _square.format_cell(self._to_action(int(action)), self.size, rows_from_bottom=True)

    def string_to_action(self, text: str) -> int:
        """Renju-board coordinates: column letter from the left, row number from the bottom."""
        return _square.parse_cell(text, self.size, rows_from_bottom=True)

    def illegal_reason(self, state: State, action: int) -> str:
        if int(np.asarray(state.board).reshape(-1)[action]) != 0:
            return "that point is already taken"
        return "that point is forbidden for Black (overline, double-four or double-three)"

    def winning_cells(self, state: State) -> list[int]:
        """The stones of the winning five (or longer line where it wins); empty before a win."""
        winner = int(state.winner)
        if winner < 0:
            return []
        exact = bool(self._exact_five(winner))
        lines = winning_lines(np.asarray(state.board), winner + 1, self.win_length, exact)
        return np.flatnonzero(lines).tolist()

    # --- what front ends show ----------------------------------------------------------

    sgf_number = 4

    @property
    def label(self) -> str:
        return f"{super().label} {self.rule}"

    def hint_marks(self, state: State) -> dict[int, str]:
        """Renju: the points forbidden to Black, when Black is to move."""
        if self._forbidden is None or int(state.current_player) != 0:
            return {}
        return {int(i): "#" for i in np.flatnonzero(self.forbidden_mask(state))}

    def plane_meanings(self) -> list[tuple[str, str]]:
        renju = [_descriptions.RENJU_PLANE] if self.rule == "renju" else []
        return [*_descriptions.GOMOKU_PLANES, *renju, *_descriptions.THREAT_PLANES * self.threats]

    def terms(self) -> dict[str, str]:
        threats = _descriptions.THREAT_TERMS if self.threats else {}
        return threats | (_descriptions.RENJU_TERMS if self.rule == "renju" else {})

    def end_rule(self) -> str:
        return _descriptions.GOMOKU_END.format(wins=_descriptions.GOMOKU_WINS[self.rule])

    def check_sgf(self) -> None:
        if self.win_length != 5:
            raise ValueError(f"SGF's Gomoku is five in a row; this game needs {self.win_length}")

    def sgf_properties(self) -> str:
        return f"RU[{self.rule}]"

    @classmethod
    def from_sgf(cls, size: int, rule: str | None, moves: list[str]) -> Gomoku:
        return cls(size=size, rule=(rule or "freestyle").lower())

    def render(self, state: State) -> str:
        board = np.asarray(state.board)
        lines = _square.render_grid(board, rows_from_bottom=True, symbols=_SYMBOLS)
        if bool(state.terminated):
            winner = int(state.winner)
            lines.append(f"{'XO'[winner]} wins" if winner >= 0 else "draw")
        else:
            lines.append(f"{'XO'[int(state.current_player)]} to move")
        return "\n".join(lines)

    def _winner_of_board(self, board: np.ndarray) -> int:
        runs = longest_runs(board)
        k = self.win_length
        wins = [
            p
            for p in (0, 1)
            if any((r == k) if self._exact_five(p) else (r >= k) for r in runs[p + 1])
        ]
        if len(wins) == 2:
            raise ValueError(f"both players have {k} in a row; such a position cannot arise")
        return wins[0] if wins else -1

    def _from_board(self, board: np.ndarray, to_play: int) -> State:
        winner = self._winner_of_board(board)
        stones = int((board != 0).sum())
        terminated = winner >= 0 or stones == self.num_cells
        flat = jnp.asarray(board.reshape(-1))
        mask = self._jit_legal_mask(flat, jnp.int32(to_play), jnp.bool_(terminated))
        terminated = terminated or not bool(mask.any())
        state = State(
            board=jnp.asarray(board),
            current_player=jnp.int32(to_play),
            legal_action_mask=mask,
            terminated=jnp.bool_(terminated),
            rewards=outcome_rewards(jnp.int32(winner), jnp.bool_(terminated)),
            winner=jnp.int32(winner),
            step_count=jnp.int32(stones),
        )
        return self._with_codes(state)
