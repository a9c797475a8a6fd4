"""Victory by continuous threats (VCT) in Gomoku and renju: fours and threes, bounded.

What Gomoku engines read before anything else, one step past continuous fours (vcf.py): the
attacker may also play a quiet threat, a move after which it would win by continuous fours if it
moved again (an open three is the usual one). The defender then has many replies, and the win
must hold against every one of them:

- a reply that cannot touch the threat's proof (the continuous-four line the attacker would
  play) is answered by that line: it is none of the line's points, and no line of five cells
  through it, free of the attacker's stones, holds three of the defender's stones counting the
  line's forced blocks (so it cannot give the defender a five, or a four to answer with);
- every other reply (the line's points, the defender's own fours and near-fours) is searched:
  the attacker must win again from there, with one threat fewer.

A four is a threat whose reply is forced (the point completing it). Threats are bounded
(`max_threats`: fours and threes before the closing continuous fours), searched shallowest first,
so the proof found is among the shortest in threats. Wins the candidates miss are missed (quiet
threats are looked for where a move makes three in a line of five cells, or four), never
claimed: every claimed win holds against every reply.

Renju: Black's forbidden points are read by the game itself at every Black move (vcf.py), and a
stone anywhere along Black's lines can change which points are forbidden, so the untouched
replies are answered by the line only where no such change can matter:

- Black attacking: a White stone gives Black no four, overline or three; it can only make a
  three real (an extension point no longer forbidden), so it can make one of Black's fours in
  the line forbidden only where that four move has two or more naive threes (six cells, both
  ends empty, three Black stones and one empty point inside). Where one of the line's fours
  has, every reply is searched. (Black's closing five is never forbidden.)
- White attacking: a line that ends on a block Black may not play (forbidden) depends on that
  point staying forbidden, which a Black stone can change; for such a line every reply is
  searched. Otherwise a block turned forbidden only ends the game sooner.
"""

from __future__ import annotations

import time

import numpy as np

from hexjax.evaluation.hex_solver import OutOfTime
from hexjax.evaluation.vcf import MAX_FOURS, MAX_REMEMBERED, K, VcfSolver, moves_to_win

MAX_THREATS = 3  # threats (fours or threes) before the closing continuous fours
THREAT_FOURS = 6  # the longest continuous-four line read after a threat


class VctSolver(VcfSolver):
    """Continuous-threat wins on one five-in-a-row board and rule (`game`: a hexjax Gomoku)."""

    def __init__(self, game, max_threats: int = MAX_THREATS, max_fours: int = MAX_FOURS,
                 threat_fours: int = THREAT_FOURS):  # fmt: skip
        super().__init__(game, max_fours)
        self.max_threats = max_threats
        self.threat_fours = threat_fours
        self._lost: dict[tuple[bytes, int], int] = {}  # position -> threats proven not to win

    def win(self, board: np.ndarray, to_play: int, deadline: float | None = None):
        """(first move, the attacker's moves to the five against the longest defence) of a win
        by continuous threats, shortest in threats first, or None. A win by continuous fours
        alone comes first (shortest in fours). Raises OutOfTime past `deadline`."""
        line = self.proof(board, to_play, deadline)
        if line is not None:
            return line[0], moves_to_win(line)
        cells = self._cells(board)
        if len(self._lost) > MAX_REMEMBERED:
            self._lost.clear()
        for threats in range(1, self.max_threats + 1):
            found = self._threaten(cells, to_play, threats, deadline)
            if found is not None:
                return found
        return None

    def loses_to_threats(self, board: np.ndarray, to_play: int, move: int, deadline=None) -> bool:
        """Whether `move` by `to_play` lets the opponent win by continuous fours (past `deadline`
        before that is settled: OutOfTime), or by continuous threats found by `deadline` (none
        found in time: False). A move that makes five itself does not."""
        if self.loses_to_fours(board, to_play, move, deadline):
            return True
        after = np.array(board, np.int8).reshape(-1)
        after[move] = to_play + 1
        if self._makes_five(self._cells(after), move, to_play):
            return False
        try:
            return self.win(after.reshape(self.size, self.size), 1 - to_play, deadline) is not None
        except OutOfTime:
            return False

    def _win_within(self, cells, attacker: int, threats: int, deadline) -> int | None:
        """The attacker's moves to the five against the longest defence, within `threats`
        threats then continuous fours, or None."""
        line = self._attack(cells, attacker, self.threat_fours, deadline)
        if line is not None:
            return moves_to_win(line)
        if threats == 0:
            return None
        found = self._threaten(cells, attacker, threats, deadline)
        return None if found is None else found[1]

    def _threaten(self, cells, attacker: int, threats: int, deadline):
        """(move, moves to the five) of a threat that wins within `threats`, or None."""
        if deadline is not None and time.monotonic() > deadline:
            raise OutOfTime
        key = (cells.tobytes(), attacker)
        if self._lost.get(key, 0) >= threats or self._fives(cells, 1 - attacker):
            return None  # a four of the defender's must be blocked: continuous fours only
        forbidden = self._forbidden_for_black(cells) if attacker == 0 else None
        for move in self._threat_points(cells, attacker):
            if forbidden is not None and forbidden[move]:
                continue  # renju: Black may not play there
            cells[move] = attacker + 1
            try:
                if self._fives(cells, attacker):
                    found = self._after_four_threat(cells, attacker, threats, deadline)
                else:
                    found = self._after_quiet_threat(cells, attacker, threats, deadline)
            finally:
                cells[move] = 0
            if found is not None:
                return move, found
        self._lost[key] = max(self._lost.get(key, 0), threats)
        return None

    def _after_four_threat(self, cells, attacker: int, threats: int, deadline) -> int | None:
        """After the attacker's four: the block is forced (two fives to block: a win)."""
        completions = self._fives(cells, attacker)
        if len(completions) > 1:
            return 2
        (block,) = completions
        cells[block] = 2 - attacker
        try:
            if self._makes_five(cells, block, 1 - attacker):
                return None
            rest = self._win_within(cells, attacker, threats - 1, deadline)
        finally:
            cells[block] = 0
        return None if rest is None else 1 + rest

    def _after_quiet_threat(self, cells, attacker: int, threats: int, deadline) -> int | None:
        """After a quiet move: a threat if the attacker would win by fours moving again; then a
        win if it wins after every reply."""
        line = self._attack(cells, attacker, self.threat_fours, deadline)
        if line is None:
            return None  # not a threat
        longest = moves_to_win(line)
        if self._line_answers_the_rest(cells, attacker, line):
            replies = self._replies_that_touch(cells, attacker, line)
        else:
            replies = np.flatnonzero(cells[:-1] == 0).tolist()
        for reply in replies:
            cells[reply] = 2 - attacker
            try:
                rest = self._win_within(cells, attacker, threats - 1, deadline)
            finally:
                cells[reply] = 0
            if rest is None:
                return None
            longest = max(longest, rest)
        return 1 + longest

    def _line_answers_the_rest(self, cells, attacker: int, line: list[int]) -> bool:
        """Whether the continuous-four `line` still wins after any reply that does not touch it
        (always outside renju; in renju, see the module docstring)."""
        if self.game.rule != "renju":
            return True
        if attacker == 1:
            return len(line) % 2 == 1  # not ending on a block Black may not play
        played = []
        try:
            for index, point in enumerate(line[:-1]):
                if index % 2 == 0 and self._naive_threes(cells, point) >= 2:
                    return False
                cells[point] = 2 - index % 2  # Black's four, then White's block
                played.append(point)
            return True
        finally:
            cells[played] = 0

    def _naive_threes(self, cells, point: int) -> int:
        """Black's lines through the empty `point` that hold a three once Black plays there,
        counted loosely (a window of six cells, both ends empty, the four inside with three
        Black stones, `point` among them, and one empty point): at least renju's threes, and
        no White stone adds one."""
        n, (row, col) = self.size, divmod(point, self.size)
        count = 0
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            for first in range(-4, 0):  # the window's first cell; `point` is 1 to 4 cells in
                cells_at = [(row + (first + k) * dr, col + (first + k) * dc) for k in range(6)]
                if not all(0 <= r < n and 0 <= c < n for r, c in cells_at):
                    continue
                values = [int(cells[r * n + c]) for r, c in cells_at]
                values[-first] = 1  # Black's stone on `point`
                inside = values[1:5]
                if values[0] == values[5] == 0 and inside.count(1) == 3 and inside.count(0) == 1:
                    count += 1
                    break
        return count

    def _replies_that_touch(self, cells, attacker: int, line: list[int]) -> list[int]:
        """The defender's replies the continuous-four `line` may not answer (module docstring):
        its empty points, and the empty points of lines of five cells without the attacker's
        stones that hold three or more of the defender's, its forced blocks on the board."""
        defender = cells == 2 - attacker
        defender[line[1::2]] = True  # the blocks
        values = cells[self._windows]
        free = ~(values == attacker + 1).any(1) & (defender[self._windows].sum(1) >= K - 2)
        near = set(self._windows[free][values[free] == 0].tolist()) | set(line)
        return sorted(point for point in near if cells[point] == 0)

    def _threat_points(self, cells, side: int) -> list[int]:
        """Empty points that make a four or three in a line of five cells otherwise empty, the
        points in the most such lines first."""
        colour = side + 1
        values = cells[self._windows]
        mine, empty = (values == colour).sum(1), (values == 0).sum(1)
        near = (mine >= K - 3) & (mine + empty == K)
        counts = np.bincount(self._windows[near][values[near] == 0], minlength=len(cells))
        points = np.flatnonzero(counts[:-1])
        return points[np.argsort(-counts[points], kind="stable")].tolist()
