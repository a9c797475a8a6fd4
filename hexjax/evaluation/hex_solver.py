"""An exact Hex solver for small boards (n <= 7), in plain Python on bitboards.

Board conventions are those of `hexjax.games.hex`: `board: int8[n, n]`, 0 empty, 1 a stone of
player 0, 2 a stone of player 1; action = r * n + c. Neighbours of (r, c) are (r-1, c)
(r-1, c+1) (r, c-1) (r, c+1) (r+1, c-1) (r+1, c). Player 0 (Black, first to move) joins row 0
to row n-1; player 1 joins column 0 to column n-1. Plain Hex: no swap rule, and no draws.

Method: depth-first search over "does the side to move have a winning move", on bitboards
(Python ints, bit r * n + c, neighbours and flood fill computed with shifts), with a
transposition table keyed on both players' stones and the side to move, kept across calls, and
shared by a position and its half-turn rotation. A position is first judged without search:

1. the mover wins at once if one empty cell joins its edges;
2. the mover wins if its groups are joined edge to edge by links with disjoint carriers, each
   a bridge (two empty cells that each join the same two groups, or a group and its edge) or
   a ziggurat (edge template IIIa): it answers each intrusion in the same carrier;
3. the mover loses if it cannot join its edges even with every empty cell its own;
4. the mover loses if the opponent threatens to join at once on two cells (a stone only blocks
   the cell it stands on), or if the opponent has a chain as in 2.

Otherwise the mover tries its moves: all of them judged as in 1-4 first, then the rest searched
deeply, shortest-path cells first. If the opponent threatens to join at once on one cell, that
cell is the only move.

Proof sets. A result comes with a set of empty cells, its proof set, such that the winner still
wins when every other empty cell holds a loser's stone. Hex is monotone (a stone of one's own
never hurts), so when the mover's move y loses with proof set P_y, any other move outside P_y is
no better than y and loses too: the mover need only try moves in the intersection of the proof
sets of the moves that lost so far (the "must-play" region). A lost position's proof set is the
union of its tried moves' sets; a won one's is the winning move's set plus the move.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from hexjax.evaluation._hex_geometry import Geometry, fitting_template, lowest_two
from hexjax.games import Hex

MIN_SIZE, MAX_SIZE = 2, 7
_UNREACHABLE = 99


class _Groups(NamedTuple):
    """What the search needs to know about one player's stones, whatever the empty cells."""

    stones: int
    groups: tuple[tuple[int, int], ...]  # (group, group and the cells around it)
    touches_start: int  # the start edge and the cells next to groups on it
    touches_end: int  # the end edge and the cells next to groups on it


def solves(game) -> bool:
    """Whether the solver reads positions of `game`: Hex up to MAX_SIZE x MAX_SIZE."""
    return isinstance(game, Hex) and MIN_SIZE <= game.size <= MAX_SIZE


class OutOfTime(Exception):
    """The solver's deadline passed before the position was settled."""


class HexSolver:
    """Exact solver for plain Hex on an n x n board, 2 <= n <= 7.

    The transposition table is kept across calls, so solving many positions of one game is
    cheap. Solving every first move of the empty 5x5 board takes seconds; larger boards are
    practical for positions with enough stones.
    """

    def __init__(self, size: int) -> None:
        whole = isinstance(size, (int, np.integer)) and not isinstance(size, bool)
        if not (whole and MIN_SIZE <= size <= MAX_SIZE):
            raise ValueError(
                f"HexSolver size must be an integer in [{MIN_SIZE}, {MAX_SIZE}], got {size!r}"
            )
        size = int(size)
        self.size = size
        self._geometry = Geometry(size)
        self._cells = size * size
        # key -> (mover wins, proof set); key = mover stones | opponent << n*n | mover << 2n*n.
        self._table: dict[int, tuple[bool, int]] = {}
        self._unsettled: set[int] = set()  # keys that need a search (judging alone failed)
        self._groups_cache: dict[int, _Groups] = {}  # stones | player << n*n -> groups
        self._deadline: float | None = None  # time.monotonic() past which a search stops

    def wins(self, board: np.ndarray, to_play: int) -> bool:
        """True iff `to_play` (0 or 1) wins `board` (int8[n, n]) with perfect play.

        A finished game is lost by the side to move, whose opponent just connected; in general
        the answer for a finished position is whether `to_play` is the player who connected.
        """
        black, white = self._bitboards(board, to_play)
        winner = self._winner(black, white)
        if winner is not None:
            return winner == to_play
        mover, opponent = (black, white) if to_play == 0 else (white, black)
        return self._solve(mover, opponent, to_play)[0]

    def winning_moves(self, board: np.ndarray, to_play: int) -> frozenset[int]:
        """The actions (r * n + c) after which `to_play` wins `board` (int8[n, n]).

        Empty when every move loses or when the game is already over.
        """
        black, white = self._bitboards(board, to_play)
        if self._winner(black, white) is not None:
            return frozenset()
        mover, opponent = (black, white) if to_play == 0 else (white, black)
        empty = self._geometry.full & ~(mover | opponent)
        winning = set()
        for cell in range(self._cells):
            bit = 1 << cell
            if not empty & bit:
                continue
            # _solve assumes nobody has connected, so a move that connects is judged here.
            joins = self._geometry.connected(mover | bit, to_play)
            if joins or not self._solve(opponent, mover | bit, 1 - to_play)[0]:
                winning.add(cell)
        return frozenset(winning)

    def winning_move(self, board: np.ndarray, to_play: int, deadline: float | None = None):
        """An action after which `to_play` wins `board`, or None when every move loses (or the
        game is over). Raises OutOfTime once `time.monotonic()` passes `deadline`; what was
        settled before stays in the table, so a later call goes on from there."""
        black, white = self._bitboards(board, to_play)
        if self._winner(black, white) is not None:
            return None
        mover, opponent = (black, white) if to_play == 0 else (white, black)
        self._deadline = deadline
        try:
            wins, proof = self._solve(mover, opponent, to_play)
            if not wins:
                return None
            empty = self._geometry.full & ~(mover | opponent)
            for cell in self._geometry.move_order:  # the winning move is in the proof set
                bit = 1 << cell
                if not proof & empty & bit:
                    continue
                if (
                    self._geometry.connected(mover | bit, to_play)
                    or not self._solve(opponent, mover | bit, 1 - to_play)[0]
                ):
                    return cell
            raise AssertionError("a won position's proof set holds its winning move")
        finally:
            self._deadline = None

    def _bitboards(self, board: np.ndarray, to_play: int) -> tuple[int, int]:
        """Validated (player 0 stones, player 1 stones) of `board` (int8[n, n])."""
        n = self.size
        board = np.asarray(board)
        if board.shape != (n, n):
            raise ValueError(f"board must have shape ({n}, {n}), got {board.shape}")
        if not np.isin(board, (0, 1, 2)).all():
            raise ValueError("board values must be 0 (empty), 1 (player 0) or 2 (player 1)")
        if isinstance(to_play, bool) or to_play not in (0, 1):
            raise ValueError(f"to_play must be 0 or 1, got {to_play!r}")
        flat = board.reshape(-1)
        black = sum(1 << int(cell) for cell in np.flatnonzero(flat == 1))
        white = sum(1 << int(cell) for cell in np.flatnonzero(flat == 2))
        return black, white

    def _winner(self, black: int, white: int) -> int | None:
        """The player who has joined their edges, or None (both cannot: the Hex theorem)."""
        for player, stones in enumerate((black, white)):
            if self._geometry.connected(stones, player):
                return player
        return None

    # SEARCH

    def _solve(self, mover: int, opponent: int, player: int) -> tuple[bool, int]:
        """(mover wins, proof set) for `player` to move; neither side has connected yet."""
        result = self._known(mover, opponent, player)
        if result is None:
            if self._deadline is not None and time.monotonic() > self._deadline:
                raise OutOfTime
            result = self._search(mover, opponent, player)
            self._store(mover, opponent, player, result)
        return result

    def _key(self, mover: int, opponent: int, player: int) -> int:
        return mover | opponent << self._cells | player << 2 * self._cells

    def _known(self, mover: int, opponent: int, player: int) -> tuple[bool, int] | None:
        """The result from the table, or from judging the position alone; else None."""
        key = self._key(mover, opponent, player)
        result = self._table.get(key)
        if result is not None or key in self._unsettled:
            return result
        result = self._judge(mover, opponent, player)
        if result is None:
            self._unsettled.add(key)
        else:
            self._store(mover, opponent, player, result)
        return result

    def _store(self, mover: int, opponent: int, player: int, result: tuple[bool, int]) -> None:
        """Record `result` for the position and for its half-turn rotation, the same game."""
        rotate = self._geometry.rotate
        self._table[self._key(mover, opponent, player)] = result
        rotated = self._key(rotate(mover), rotate(opponent), player)
        self._table[rotated] = (result[0], rotate(result[1]))

    def _judge(self, mover: int, opponent: int, player: int) -> tuple[bool, int] | None:
        """(mover wins, proof set) when the position is decided without search, else None."""
        geometry = self._geometry
        empty = geometry.full & ~(mover | opponent)
        mine = self._groups(mover, player)
        wins_now = empty & mine.touches_start & mine.touches_end
        if wins_now:
            return True, wins_now & -wins_now
        carrier = self._bridge_chain(mine, empty, player)
        if carrier is not None:
            return True, carrier
        start, end = geometry.edges[player]
        if not geometry.flood(start & ~opponent, mover | empty) & end:
            return False, 0  # the opponent wins whoever gets the empty cells
        theirs = self._groups(opponent, 1 - player)
        threats = empty & theirs.touches_start & theirs.touches_end
        if threats & (threats - 1):
            return False, lowest_two(threats)
        carrier = self._bridge_chain(theirs, empty, 1 - player)
        if carrier is not None:
            return False, carrier
        return None

    def _search(self, mover: int, opponent: int, player: int) -> tuple[bool, int]:
        """(mover wins, proof set) of a position that `_judge` leaves open."""
        geometry = self._geometry
        empty = geometry.full & ~(mover | opponent)
        theirs = self._groups(opponent, 1 - player)
        threats = empty & theirs.touches_start & theirs.touches_end
        must_play = threats or empty  # moves worth trying
        proof = threats  # the cells the loss found so far depends on
        # Look at every move first: one that wins plainly ends the search, and known losses
        # shrink the must-play region before any deep search.
        mine = self._groups(mover, player)
        deep = []
        for cell in geometry.move_order:
            bit = 1 << cell
            if not must_play & bit:
                continue
            child_key = self._key(opponent, mover | bit, 1 - player)
            child = self._table.get(child_key)
            if child is None:
                if child_key not in self._unsettled:
                    child_proof = self._plain_winning_move(mine, opponent, player, bit, empty)
                    if child_proof is not None:
                        self._store(opponent, mover | bit, 1 - player, (False, child_proof))
                        return True, child_proof | bit
                deep.append(cell)
            elif not child[0]:
                return True, child[1] | bit
            else:
                must_play &= child[1]
                proof |= child[1]
        if len(deep) > 1:
            # Cells on the mover's shortest paths first; the stable sort keeps centre-first ties.
            lengths = geometry.path_lengths(mover, empty, player)
            deep.sort(key=lambda cell: lengths.get(cell, _UNREACHABLE))
        for cell in deep:
            bit = 1 << cell
            if not must_play & bit:
                continue
            opponent_wins, child_proof = self._solve(opponent, mover | bit, 1 - player)
            if not opponent_wins:
                return True, child_proof | bit
            must_play &= child_proof
            proof |= child_proof
        return False, proof

    def _plain_winning_move(
        self, mine: _Groups, opponent: int, player: int, move: int, empty: int
    ) -> int | None:
        """The proof set after `move` (a bit) if it plainly wins for the mover, else None.

        Only what the move changes is looked at: it may cut the opponent off, make two threats
        or complete a chain. The opponent's own chances were judged before the move.
        """
        geometry = self._geometry
        empty ^= move
        start, end = geometry.edges[1 - player]
        if not geometry.flood(start, opponent | empty) & end:
            return 0  # the opponent can no longer join its edges
        after = self._groups_after(mine, move, player)
        threats = empty & after.touches_start & after.touches_end
        if threats & (threats - 1):
            return lowest_two(threats)
        return self._bridge_chain(after, empty, player)

    # GROUPS AND BRIDGES

    def _groups(self, stones: int, player: int) -> _Groups:
        key = stones | player << self._cells
        found = self._groups_cache.get(key)
        if found is None:
            found = self._groups_cache[key] = self._find_groups(stones, player)
        return found

    def _groups_after(self, before: _Groups, move: int, player: int) -> _Groups:
        """The groups once a stone is added on `move` (a bit), merging those it touches."""
        geometry = self._geometry
        start, end = geometry.edges[player]
        merged, merged_around = move, geometry.neighbours(move)
        kept = []
        for group, around in before.groups:
            if around & move:
                merged |= group
                merged_around |= around
            else:
                kept.append((group, around))
        touches_start, touches_end = before.touches_start, before.touches_end
        if merged & start:
            touches_start |= merged_around
        if merged & end:
            touches_end |= merged_around
        groups = (*kept, (merged, merged_around))
        return _Groups(before.stones | move, groups, touches_start, touches_end)

    def _find_groups(self, stones: int, player: int) -> _Groups:
        geometry = self._geometry
        start, end = geometry.edges[player]
        groups = []
        touches_start, touches_end = start, end
        all_stones = stones
        while stones:
            group = geometry.flood(stones & -stones, stones)
            around = geometry.neighbours(group)
            groups.append((group, around))
            stones ^= group
            if group & start:
                touches_start |= around
            if group & end:
                touches_end |= around
        return _Groups(all_stones, tuple(groups), touches_start, touches_end)

    def _bridge_chain(self, mine: _Groups, empty: int, player: int) -> int | None:
        """Carrier of a chain of the player's groups joined edge to edge, or None.

        Links: two empty cells that each touch two groups (or a group and an edge) join them
        even if the opponent moves first, as a stone on one is answered on the other; so does a
        ziggurat between a stone and its edge. Carriers must be disjoint. The chain grows
        greedily from the start edge, so None does not prove there is none.
        """
        start, end = self._geometry.edges[player]
        to_start, to_end = self._geometry.ziggurats[player]
        stones = mine.stones
        to_start = [(stone, carrier) for stone, carrier in to_start if stone & stones]
        to_end = [(stone, carrier) for stone, carrier in to_end if stone & stones]
        touching = mine.touches_start  # cells next to the chain (the start edge and its groups)
        chain = 0
        pending = []
        for group, around in mine.groups:
            if group & start:
                chain |= group
            else:
                pending.append((group, around))
        free = empty  # empty cells not yet in the carrier
        while True:
            end_links = touching & end & free
            if end_links & (end_links - 1):
                return (empty ^ free) | lowest_two(end_links)
            link = fitting_template(to_end, chain, free)
            if link:
                return (empty ^ free) | link
            waiting = []
            for group, around in pending:
                links = around & touching & free
                if links & (links - 1):
                    link = lowest_two(links)
                else:
                    link = fitting_template(to_start, group, free)
                if link:
                    free ^= link
                    if group & end:
                        return empty ^ free
                    touching |= around
                    chain |= group
                else:
                    waiting.append((group, around))
            if len(waiting) == len(pending):
                return None
            pending = waiting
