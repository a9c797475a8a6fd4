"""Victory by continuous fours (VCF) in Gomoku and renju: the threat search engines run first.

The attacker plays only fours (a move after which it has a point that makes five); the defender's
reply is then forced: the one point that completes the four (none can stop two: the attacker
wins). Such a line is short and narrow, so it is searched exactly, deepest last (iterative
deepening: the first proof found is a shortest one). The rules are the game's own:

- a five is exactly five in standard Gomoku and for Black in renju, five or more otherwise;
- renju's Black may not play a forbidden point (overline, double four, double three; the game's
  own reading decides, `Gomoku.forbidden_points`): it cannot attack there, and as defender it
  cannot block there, which loses;
- the defender's counter-threat counts: when the defender has a point that makes five, the
  attacker's next move must take it (and still be a four), two such points end the line.

A line where the defender could answer a four with a five of its own does not arise: the attacker
moves only when the defender has no five to make, or takes that point. Boards are int8[n, n]
(0 empty, 1 Black, 2 White), as everywhere in hexjax; positions are settled in plain Python and
NumPy, a few tens of microseconds a node.
"""

from __future__ import annotations

import time

import numpy as np

from hexjax.evaluation.hex_solver import OutOfTime
from hexjax.games import Gomoku

K = 5  # a five
MAX_FOURS = 16  # the longest proof searched, in attacker moves (the win itself included)
MAX_REMEMBERED = 1_000_000  # positions kept between calls, then forgotten at once
_WALL = 3  # off the board: blocks a line as a stone of neither side does


class VcfSolver:
    """Continuous-four wins on one Gomoku board and rule (`game`: a hexjax Gomoku)."""

    def __init__(self, game, max_fours: int = MAX_FOURS):
        if not isinstance(game, Gomoku) or game.win_length != K:
            raise ValueError(f"VcfSolver plays five in a row, not {game}")
        self.game = game
        self.size = n = game.size
        self.max_fours = max_fours
        self._windows, self._before, self._after = _windows(n)
        self._failed: dict[tuple[bytes, int], int] = {}  # position -> fours proven not to win
        self._forbidden: dict[bytes, np.ndarray] = {}
        if game.rule == "renju":  # the game's reading compiles now, not in a move's time
            game.forbidden_points(np.zeros((n, n), np.int8))

    def winning_move(self, board: np.ndarray, to_play: int, deadline: float | None = None):
        """The first move of a shortest continuous-four win for `to_play`, or None when there is
        none within `max_fours` fours. Raises OutOfTime past `deadline` (time.monotonic())."""
        line = self.proof(board, to_play, deadline)
        return None if line is None else line[0]

    def loses_to_fours(self, board: np.ndarray, to_play: int, move: int, deadline=None) -> bool:
        """Whether `move` by `to_play` lets the opponent win by continuous fours (a move that
        makes five itself does not)."""
        after = np.array(board, np.int8).reshape(-1)
        if after[move] != 0:
            raise ValueError(f"point {move} is not empty")
        after[move] = to_play + 1
        if self._makes_five(self._cells(after), move, to_play):
            return False
        return self.proof(after.reshape(self.size, self.size), 1 - to_play, deadline) is not None

    def proof(self, board: np.ndarray, to_play: int, deadline: float | None = None):
        """A shortest win by continuous fours as actions (the attacker's, the forced replies, the
        five last), or None. In a line of even length the last entry is the point completing the
        last four, which renju's Black may not block (forbidden): the five there follows
        whatever Black plays."""
        board = np.asarray(board)
        if board.shape != (self.size, self.size):
            raise ValueError(f"expected a {self.size}x{self.size} board, got shape {board.shape}")
        if to_play not in (0, 1):
            raise ValueError(f"to_play is 0 (Black) or 1 (White), got {to_play!r}")
        if len(self._failed) + len(self._forbidden) > MAX_REMEMBERED:
            self._failed.clear()
            self._forbidden.clear()
        cells = self._cells(board)
        for fours in range(1, self.max_fours + 1):
            line = self._attack(cells, to_play, fours, deadline)
            if line is not None:
                return line
        return None

    def _cells(self, board) -> np.ndarray:
        """int8[n*n + 1]: the board's points in a row, then the wall (what the search reads)."""
        cells = np.full(self.size * self.size + 1, _WALL, np.int8)
        cells[:-1] = np.asarray(board, np.int8).reshape(-1)
        return cells

    def _attack(self, cells, attacker: int, fours: int, deadline) -> list[int] | None:
        """A win in at most `fours` attacker moves, all fours but the last (a five)."""
        if deadline is not None and time.monotonic() > deadline:
            raise OutOfTime
        fives = self._fives(cells, attacker)
        if fives:
            return [fives[0]]
        key = (cells.tobytes(), attacker)
        if fours <= 1 or self._failed.get(key, 0) >= fours:
            return None
        threats = self._fives(cells, 1 - attacker)
        if len(threats) > 1:
            self._failed[key] = self.max_fours
            return None
        moves = threats if threats else self._four_points(cells, attacker)
        for move in moves:
            line = self._after_four(cells, attacker, move, fours, deadline)
            if line is not None:
                return line
        self._failed[key] = max(self._failed.get(key, 0), fours)
        return None

    def _after_four(self, cells, attacker: int, move: int, fours: int, deadline):
        """The line after the attacker plays `move`, if it is a legal four that wins."""
        if attacker == 0 and self._forbidden_for_black(cells)[move]:
            return None
        cells[move] = attacker + 1
        try:
            completions = self._fives(cells, attacker)
            if not completions:
                return None  # not a four
            if len(completions) > 1:
                return [move, completions[1], completions[0]]  # one block, the other five
            block = completions[0]
            if attacker == 1 and self._forbidden_for_black(cells)[block]:
                return [move, block]  # Black may not block there: the five follows
            cells[block] = 2 - attacker
            try:
                if self._makes_five(cells, block, 1 - attacker):
                    return None
                rest = self._attack(cells, attacker, fours - 1, deadline)
            finally:
                cells[block] = 0
            return None if rest is None else [move, block, *rest]
        finally:
            cells[move] = 0

    def _fives(self, cells, side: int) -> list[int]:
        """The empty points where `side` makes five (under the game's rule), in board order."""
        colour = side + 1
        values = cells[self._windows]
        open_ = ((values == colour).sum(1) == K - 1) & ((values == 0).sum(1) == 1)
        if self._exact(side):  # nothing of its own just beyond either end: not an overline
            open_ &= (cells[self._before] != colour) & (cells[self._after] != colour)
        chosen = self._windows[open_][values[open_] == 0]
        return sorted(set(chosen.tolist()))

    def _makes_five(self, cells, move: int, side: int) -> bool:
        """Whether the stone of `side` on `move` stands in a five (under the game's rule)."""
        colour = side + 1
        touching = (self._windows == move).any(1)
        values = cells[self._windows[touching]]
        full = (values == colour).all(1)
        if self._exact(side):
            full &= cells[self._before[touching]] != colour
            full &= cells[self._after[touching]] != colour
        return bool(full.any())

    def _four_points(self, cells, side: int) -> list[int]:
        """Empty points in a line of five cells holding three of `side`'s stones and nothing
        else: the candidates for a four (each is checked when played)."""
        colour = side + 1
        values = cells[self._windows]
        near = ((values == colour).sum(1) == K - 2) & ((values == 0).sum(1) == 2)
        chosen = self._windows[near][values[near] == 0]
        return sorted(set(chosen.tolist()))

    def _exact(self, side: int) -> bool:
        rule = self.game.rule
        return rule == "standard" or (rule == "renju" and side == 0)

    def _forbidden_for_black(self, cells) -> np.ndarray:
        """bool[n*n + 1]: where Black may not play now (nowhere outside renju)."""
        if self.game.rule != "renju":
            return np.zeros(cells.shape, bool)
        key = cells.tobytes()
        if key not in self._forbidden:
            board = cells[:-1].reshape(self.size, self.size)
            mask = self.game.forbidden_points(board).reshape(-1)
            self._forbidden[key] = np.append(mask, True)
        return self._forbidden[key]


def moves_to_win(line: list[int]) -> int:
    """The attacker's moves in a proof, its five included (a line of even length ends on a
    four renju's Black cannot block: the five follows)."""
    return len(line) // 2 + 1


def _windows(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every line of five cells on the board: int32[W, 5] cell indices, and the cells just
    before and after each (n*n, the wall, where that is off the board)."""
    windows, before, after = [], [], []

    def index(r, c):
        return r * n + c if 0 <= r < n and 0 <= c < n else n * n

    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(n):
            for c in range(n):
                cells = [(r + i * dr, c + i * dc) for i in range(K)]
                if all(0 <= rr < n and 0 <= cc < n for rr, cc in cells):
                    windows.append([rr * n + cc for rr, cc in cells])
                    before.append(index(r - dr, c - dc))
                    after.append(index(r + K * dr, c + K * dc))
    return (np.asarray(windows, np.int32), np.asarray(before, np.int32),
            np.asarray(after, np.int32))  # fmt: skip
