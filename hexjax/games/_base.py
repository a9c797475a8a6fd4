"""The game protocol: state fields, step semantics and host helpers shared by every game.

A game subclass holds static configuration (board size, rule options) and implements the rules
for ONE unbatched game; callers apply `jax.vmap` at the edge. The semantics written here, once:

- `step` on a terminated state returns it unchanged (absorbing terminal state);
- `step` with an illegal or out-of-range action makes the mover lose (inside jit nothing can
  raise); the board is left as it was;
- `rewards` is the outcome per player, set when the game ends and kept afterwards;
- a terminated state has an all-False `legal_action_mask`.
"""

from __future__ import annotations

import abc
import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from hexjax.games import host_compile
from hexjax.games._notation import board_array, shown, split_compact
from hexjax.games.sampling import random_legal_action


@struct.dataclass
class State:
    """Fields every game state has (see docs/design.md); games subclass it to add private fields."""

    board: jax.Array  # int8[n, n]: 0 empty, 1 player 0's stone, 2 player 1's stone
    current_player: jax.Array  # int32: side to move, 0 moves first
    legal_action_mask: jax.Array  # bool[num_actions]: legal moves of the side to move
    terminated: jax.Array  # bool
    rewards: jax.Array  # float32[2]: +1 win, -1 loss, 0 draw or not over
    winner: jax.Array  # int32: -1 none or draw, else 0 or 1
    step_count: jax.Array  # int32: plies played


@dataclass(frozen=True)
class Symmetry:
    """A board symmetry for data augmentation.

    `action_map[a]` is the image of action `a`; `observation_fn` maps an observation
    (float32[n, n, C], or batched [..., n, n, C]) to the observation of the transformed
    position. Values from the mover's view are unchanged by every symmetry listed by a game.
    `swaps_colours` says whether the board transform also exchanges the players' roles.
    """

    name: str
    action_map: np.ndarray  # int32[num_actions]
    observation_fn: Callable[[jax.Array], jax.Array]
    board_fn: Callable[[np.ndarray], np.ndarray]  # int8[n, n] -> int8[n, n], colours as stated
    swaps_colours: bool = False

    def transform_policy(self, policy: jax.Array) -> jax.Array:
        """policy: [..., num_actions] -> policy of the transformed position."""
        inverse = np.argsort(self.action_map)
        return policy[..., inverse]


@dataclass(frozen=True)
class ExtraAction:
    """A move that puts no stone on a cell (Hex's swap, Othello's pass)."""

    action: int
    word: str  # as players write it: "swap", "pass"
    protocol_word: str  # in GTP and SGF records: "swap-pieces" (HexGui's), "pass"
    when: str  # when it is legal, for help texts and the exported description


def checked_int(what: str, value, low: int, high: int, even: bool = False) -> int:
    """A game option that must be an integer in [low, high] (and even); ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{what} must be an integer, got {value!r}")
    if not low <= value <= high or (even and value % 2):
        kind = "even and " if even else ""
        raise ValueError(f"{what} must be {kind}between {low} and {high}, got {value}")
    return int(value)


def tree_where(condition: jax.Array, new, old):
    """`new` where `condition`, else `old`, leaf by leaf over two pytrees of one structure. A
    scalar condition picks whole trees; a bool[B] one picks per game along each leaf's leading
    axis (batched states)."""

    def pick(a, b):
        return jnp.where(
            condition.reshape(condition.shape + (1,) * (b.ndim - condition.ndim)), a, b
        )

    condition = jnp.asarray(condition)
    return jax.tree.map(pick, new, old)


def outcome_rewards(winner: jax.Array, terminated: jax.Array) -> jax.Array:
    """float32[2] rewards from `winner` (-1 none/draw): +1 winner, -1 loser, else 0."""
    decided = terminated & (winner >= 0)
    first = jnp.where(decided, jnp.where(winner == 0, 1.0, -1.0), 0.0)
    return jnp.stack([first, jnp.where(decided, -first, 0.0)]).astype(jnp.float32)


class Game(abc.ABC):
    """Static configuration plus pure rule functions for one game.

    Subclasses implement `init`, `_play` (a legal action on a live state), `observe`,
    `observation_shape`, `symmetries`, coordinate parsing/printing, `render` and `_from_board`.
    """

    name: str
    size: int
    num_actions: int
    max_plies: int  # no game lasts longer (passes and swaps included)

    # --- pure functions (jit / vmap-able) -------------------------------------------------

    @abc.abstractmethod
    def init(self, key: jax.Array) -> State:
        """Initial state. `key` is accepted for games with random starts; Hex ignores it."""

    @abc.abstractmethod
    def _play(self, state: State, action: jax.Array) -> State:
        """Apply a legal `action` to a live state; need not set `rewards` (the base does)."""

    @abc.abstractmethod
    def observe(self, state: State) -> jax.Array:
        """float32[*observation_shape] from the side to move's view."""

    @property
    @abc.abstractmethod
    def observation_shape(self) -> tuple[int, ...]: ...

    @property
    @abc.abstractmethod
    def symmetries(self) -> tuple[Symmetry, ...]: ...

    @property
    def as_played(self) -> str:
        """The game as it is played, whatever its network sees: two games with equal rules
        share their states and moves, so players built on either meet in one arena."""
        return repr(self)

    def step(self, state: State, action: jax.Array) -> State:
        """One ply. Illegal or out-of-range `action` on a live state: the mover loses."""
        action = jnp.asarray(action, jnp.int32)
        in_range = (action >= 0) & (action < self.num_actions)
        safe_action = jnp.clip(action, 0, self.num_actions - 1)
        # A terminated state has an all-False mask, so `legal` is False there too.
        legal = in_range & state.legal_action_mask[safe_action]
        played = self._play(state, safe_action)
        nxt = tree_where(legal, played, state)
        forfeit = ~legal & ~state.terminated
        terminated = nxt.terminated | forfeit
        winner = jnp.where(forfeit, 1 - state.current_player, nxt.winner).astype(jnp.int32)
        return nxt.replace(
            terminated=terminated,
            winner=winner,
            legal_action_mask=nxt.legal_action_mask & ~forfeit,
            rewards=outcome_rewards(winner, terminated),
        )

    def moves_to_search(self, state: State) -> jax.Array:
        """bool[num_actions]: the legal moves a search need consider. All of them here; a game
        may leave out moves it can show are no better than another legal one (Hex's dead
        cells), never all of them. Traceable; for play, where only the root is pruned."""
        return state.legal_action_mask

    def final_owners(self, state: State) -> jax.Array:
        """int8 board: who owns each cell of a finished game (0 nobody, 1 and 2 the first and
        second player's colours, as `state.board` holds them), the ownership head's target.
        The board as the game ended; a game may say more (Hex: its filled board). Traceable."""
        return state.board

    def winning_line(self, state: State) -> jax.Array:
        """int8 board: the winner's colour (1, 2) on the cells of its winning line, 0 elsewhere
        and before a win; the ownership head's `winning_line` target. Only k-in-a-row games
        have one. Traceable."""
        raise NotImplementedError(f"{self.name} has no winning line")

    def forced_result(self, state: State) -> tuple[jax.Array, jax.Array]:
        """(int32 result, int32 plies): what the rules settle a few plies ahead whatever is
        played, from the mover's view: 1 the mover wins, -1 it loses, the game ending after
        `plies` plies when the winner plays it out; 0 and 0 plies where nothing is settled.
        Nothing here; a game may read its one-move tactics (Gomoku's fours). Traceable; the
        search takes it for the network's value where it is set (`SearchConfig.tactics`)."""
        del state
        return jnp.int32(0), jnp.int32(0)

    def playout_winner(self, key: jax.Array, state: State) -> jax.Array:
        """int32 winner (-1 draw) of one uniformly random playout from `state` to the end of
        the game; the state's own winner if it is over. Games may override this with a faster
        computation of the same distribution (Hex fills the board at once)."""

        def live(carry):
            return ~carry[0].terminated

        def ply(carry):
            state, key = carry
            key, move_key = jax.random.split(key)
            return self.step(state, random_legal_action(move_key, state.legal_action_mask)), key

        final, _ = jax.lax.while_loop(live, ply, (state, key))
        return final.winner

    # --- host helpers (plain Python, validated) --------------------------------------------

    @abc.abstractmethod
    def action_to_string(self, action: int) -> str: ...

    @abc.abstractmethod
    def string_to_action(self, text: str) -> int: ...

    @abc.abstractmethod
    def render(self, state: State) -> str: ...

    @abc.abstractmethod
    def _from_board(self, board: np.ndarray, to_play: int) -> State: ...

    @functools.cached_property
    def _jit_step(self):
        return host_compile.host_jit(self.step, "step", repr(self))

    @functools.cached_property
    def _jit_new_state(self):
        return host_compile.host_jit(lambda: self.init(jax.random.key(0)), "new_state", repr(self))

    def host_step(self, state: State, action: int) -> State:
        """`step` for one unbatched state from the host, compiled once (legality unchecked)."""
        return self._jit_step(state, action)

    def new_state(self) -> State:
        """The start position (host convenience; `init(key)` is the pure form)."""
        return self._jit_new_state()

    def legal_actions(self, state: State) -> list[int]:
        return [int(a) for a in np.flatnonzero(np.asarray(state.legal_action_mask))]

    def parse_moves(self, moves: str | Iterable[int | str]) -> list[int]:
        """Actions from a move-list string ("a1 b2 c3", "a1,b2" or compact "a1b2c3") or a
        sequence of actions / move strings. Raises ValueError naming the bad move."""
        tokens = self._split_move_string(moves) if isinstance(moves, str) else list(moves)
        actions = []
        for index, token in enumerate(tokens):
            try:
                actions.append(self.parse_move(token))
            except ValueError as error:
                raise ValueError(f"move {index + 1} ({shown(token)}): {error}") from None
        return actions

    def parse_move(self, move: int | str) -> int:
        """The action of one move (a move string or an action index); ValueError naming it."""
        return self._to_action(move)

    def format_moves(self, actions: Sequence[int], compact: bool = False) -> str:
        """Move-list string, space separated ("a1 b2 c3") or, with `compact`, run together
        ("a1b2c3"); `parse_moves` and `from_moves` read either back."""
        separator = "" if compact else " "
        return separator.join(self.action_to_string(int(a)) for a in actions)

    def from_moves(self, moves: str | Iterable[int | str]) -> State:
        """State after playing `moves` from the start; raises ValueError on an illegal move."""
        state = self.new_state()
        for index, action in enumerate(self.parse_moves(moves)):
            label = f"move {index + 1} ({self.action_to_string(action)})"
            if bool(state.terminated):
                raise ValueError(f"{label}: the game is already over")
            if not bool(state.legal_action_mask[action]):
                raise ValueError(f"{label}: {self.illegal_reason(state, action)}")
            state = self._jit_step(state, action)
        return state

    def from_board(self, board, to_play: int) -> State:
        """State for a composed position. `board`: n x n of 0/1/2 (nested lists or array), or
        text: one string with a row per line, or a list of row strings, using '.' (empty),
        'x'/'X'/'B' (player 0) and 'o'/'O'/'W' (player 1), spaces between cells optional."""
        array = board_array(board, self.size)
        if to_play not in (0, 1) or isinstance(to_play, bool):
            raise ValueError(f"to_play must be 0 or 1, got {to_play!r}")
        return self._from_board(array, int(to_play))

    def _to_action(self, token: int | str) -> int:
        if isinstance(token, str):
            return self.string_to_action(token)
        if isinstance(token, bool) or not isinstance(token, int | np.integer):
            raise ValueError(f"expected an action index or a move string, got {shown(token)}")
        if not 0 <= int(token) < self.num_actions:
            raise ValueError(f"action {int(token)} is outside 0..{self.num_actions - 1}")
        return int(token)

    _move_words: tuple[str, ...] = ()  # non-cell moves ("swap", "pass"), longest first

    def _split_move_string(self, text: str) -> list[str]:
        chunks = text.replace(",", " ").replace(";", " ").split()
        return [token for chunk in chunks for token in split_compact(chunk, self._move_words)]

    def winning_cells(self, state: State) -> list[int]:
        """The cells that make the winner's win, to highlight (a Hex chain, a Gomoku five);
        empty while the game goes on, after a draw, and in games won by count (Othello)."""
        return []

    def illegal_reason(self, state: State, action: int) -> str:
        """Why an illegal `action` cannot be played in `state` (for error messages)."""
        return "illegal here"

    # --- what front ends show: asked of the game, so that none branches on its name -------

    hexagonal: bool = False  # cells on Hex's sheared grid: drawn as a rhombus
    stone_colours: tuple[str, str] = ("black", "white")  # the first and second player's
    board_colour: str = "#dcb35c"  # empty cells in figures (a wooden board)
    side_names: tuple[str, str] = ("X (Black)", "O (White)")
    sgf_number: int | None = None  # SGF's GM[] for the game; None: SGF cannot hold it

    @property
    def extra_actions(self) -> tuple[ExtraAction, ...]:
        """The moves that are not a stone on a cell, if the game has any."""
        return ()

    def extra_action(self, word: str) -> int | None:
        """The action of the extra move `word` ("swap", "pass"); None if the game has none."""
        return next((extra.action for extra in self.extra_actions if extra.word == word), None)

    def protocol_move(self, action: int) -> str:
        """`action` as GTP engines and SGF records write it (HexGui's "swap-pieces")."""
        extra = {extra.action: extra.protocol_word for extra in self.extra_actions}
        return extra.get(int(action)) or self.action_to_string(action)

    @property
    def label(self) -> str:
        """The game in a few words: "hex 9x9 with swap", "gomoku 15x15 renju"."""
        return f"{self.name} {self.size}x{self.size}"

    def forbidden_mask(self, state: State) -> np.ndarray:
        """bool[n, n]: the empty points the first player may not play (renju); none here."""
        return np.zeros((self.size, self.size), bool)

    def hint_marks(self, state: State) -> dict[int, str]:
        """Marks for empty cells of a live position, for a text board: Othello's placements,
        renju's points forbidden to Black to move. None by default."""
        return {}

    def tally(self, board: np.ndarray) -> str:
        """A line under a text board for games decided by count (Othello's discs), else ""."""
        return ""

    # The network's inputs and the rules in words, for exported models (see play/export.py).

    @abc.abstractmethod
    def plane_meanings(self) -> list[tuple[str, str]]:
        """(key, meaning) of each observation plane, in order."""

    def terms(self) -> dict[str, str]:
        """The words the plane meanings use, defined closely enough to compute the planes."""
        return {}

    @abc.abstractmethod
    def end_rule(self) -> str:
        """When the game is over and who won, for a consumer that must tell a finished board."""

    # SGF records (evaluation/sgf.py writes the file; the game says what its points are).

    def check_sgf(self) -> None:
        """ValueError unless SGF can hold this game's records."""
        if self.sgf_number is None:
            raise ValueError(f"SGF cannot hold {self.name} records")

    def sgf_properties(self) -> str:
        """Root properties beyond FF, GM and SZ (Gomoku's rule: "RU[renju]")."""
        return ""

    def sgf_point(self, action: int) -> str:
        """`action` as an SGF move value: square boards' column then row letters, from a."""
        row, col = divmod(int(action), self.size)  # row 0 is the top row
        return _SGF_LETTERS[col] + _SGF_LETTERS[row]

    def sgf_action(self, value: str) -> int:
        """The action of an SGF move value; ValueError naming the problem."""
        n = self.size
        if not re.fullmatch(r"[a-z]{2}", value):
            raise ValueError("not a point like 'hh' (column, then row from the top)")
        col, row = _SGF_LETTERS.index(value[0]), _SGF_LETTERS.index(value[1])
        if col >= n or row >= n:
            raise ValueError(f"off the {n}x{n} board")
        return row * n + col

    @classmethod
    def from_sgf(cls, size: int, rule: str | None, moves: list[str]) -> Game:
        """The game of a record with SZ[size], RU[rule] (or none) and these move values."""
        return cls(size=size)


_SGF_LETTERS = "abcdefghijklmnopqrstuvwxyz"
