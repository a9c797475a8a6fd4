"""A game being played by people and agents: the position, its history, validated moves, undo.

Front ends (terminal, web, GTP, Gomocup) keep one `Match` per game. `play` takes a move in the
game's notation ("d4", "swap", "pass") or an action index and raises MoveError with a message
naming the problem (bad coordinates, occupied, forbidden, game over); the match is then left
as it was.
"""

from __future__ import annotations

import numpy as np

from hexjax.games import Game, State


class MoveError(ValueError):
    """A move that cannot be played here; the message says why."""


class Match:
    def __init__(self, game: Game, moves=(), start: State | None = None):
        """A match from the start position (or from `start`, a composed one), then `moves`."""
        self.game = game
        self._states: list[State] = [game.new_state() if start is None else start]
        self.actions: list[int] = []
        for move in moves:
            self.play(move)

    @property
    def state(self) -> State:
        return self._states[-1]

    @property
    def to_play(self) -> int:
        """0: the first player (Black / X), 1: the second."""
        return int(self.state.current_player)

    @property
    def over(self) -> bool:
        return bool(self.state.terminated)

    @property
    def winner(self) -> int:
        """0 or 1 once the game is won, -1 while it goes on or after a draw."""
        return int(self.state.winner)

    def parse(self, move: int | str) -> int:
        """The action a move names, its coordinates checked but not its legality here; MoveError
        if it names no move of this game."""
        try:
            return self.game.parse_move(move)
        except ValueError as error:
            raise MoveError(str(error)) from None

    def action(self, move: int | str) -> int:
        """The action a move names, checked for legality here; MoveError if it cannot be played."""
        action = self.parse(move)
        if self.over:
            raise MoveError("the game is over")
        if not np.asarray(self.state.legal_action_mask)[action]:
            reason = self.game.illegal_reason(self.state, action)
            raise MoveError(f"{self.game.action_to_string(action)}: {reason}")
        return action

    def play(self, move: int | str) -> int:
        """Play a move for the side to move; returns its action."""
        action = self.action(move)
        self._states.append(self.game.host_step(self.state, action))
        self.actions.append(action)
        return action

    def state_for(self, player: int) -> State:
        """The position with `player` to move: the game's own state in turn, else the same
        board with `player` to move (a GTP controller may ask either side for a move)."""
        if player == self.to_play:
            return self.state
        return self.game.from_board(self.board(), player)

    def play_as(self, player: int, move: int | str) -> int:
        """Play a move for `player`: in turn as `play`; out of turn (a position being set up)
        the stone is placed and the other side is to move. Returns its action."""
        if player == self.to_play:
            return self.play(move)
        action = self.parse(move)
        if self.over:
            raise MoveError("the game is over")
        name = self.game.action_to_string(action)
        if action >= self.game.num_cells:
            raise MoveError(f"{name} can only be played in turn")
        state = self.state_for(player)
        if not np.asarray(state.legal_action_mask)[action]:
            raise MoveError(f"{name}: {self.game.illegal_reason(state, action)}")
        self._states.append(self.game.host_step(state, action))
        self.actions.append(action)
        return action

    def undo(self, plies: int = 1) -> int:
        """Take back up to `plies` moves; returns how many were taken back."""
        taken = min(plies, len(self.actions))
        for _ in range(taken):
            self._states.pop()
            self.actions.pop()
        return taken

    def undo_turn(self, player: int) -> int:
        """Take back moves until one of `player`'s is gone, so it is their turn again; returns
        how many. With none of theirs to take back, nothing changes and it returns 0."""
        kept = list(self._states), list(self.actions)
        while self.actions:
            self.undo(1)
            if self.to_play == player:  # the move just taken back was theirs
                return len(kept[1]) - len(self.actions)
        self._states, self.actions = kept
        return 0

    def at(self, ply: int) -> Match:
        """The match as it was after its first `ply` moves: a copy, this one left as it is."""
        if not 0 <= ply <= len(self.actions):
            raise ValueError(f"ply must be between 0 and {len(self.actions)}, got {ply}")
        earlier = Match.__new__(Match)
        earlier.game = self.game
        earlier._states = self._states[: ply + 1]
        earlier.actions = self.actions[:ply]
        return earlier

    def legal_actions(self) -> list[int]:
        return self.game.legal_actions(self.state)

    def moves(self) -> list[str]:
        """The moves played so far, in notation."""
        return [self.game.action_to_string(a) for a in self.actions]

    def board(self) -> np.ndarray:
        """int8[n, n]: 0 empty, 1 the first player's stone, 2 the second's."""
        return np.asarray(self.state.board)

    def forbidden(self) -> np.ndarray:
        """bool[n, n]: points where Black may not play (renju; all False otherwise)."""
        return self.game.forbidden_mask(self.state)

    def result(self) -> str:
        """ "Black wins", "White wins", "draw" or "" while the game goes on."""
        if not self.over:
            return ""
        return {0: "Black wins", 1: "White wins"}.get(self.winner, "draw")
