"""The web page's games: a `Match` and its `Agent` behind a lock, each request's work on it
(the person's move, the AI's search, undo, the JSON the page draws), and the games kept in
memory, the least recently used dropped first. `hexjax/play/web.py` routes requests here.

The AI's search is the agent's (`Agent.move`: the lasting search counted in simulations), whose
steps the compilation cache keeps: a server started again reads them back instead of compiling
a search at its first reply."""

from __future__ import annotations

import collections
import json
import secrets
import threading
import time

import numpy as np

from hexjax.evaluation import root_solvers, sgf
from hexjax.games import GameConfig
from hexjax.play.agent import Agent, Agents
from hexjax.play.agent_move import AgentMove, SearchStopped
from hexjax.play.match import Match, MoveError
from hexjax.training import models

SOLVER_S = 0.25  # before each search, what the game's root solver may take to prove a win


class ApiError(Exception):
    """A refused request: its HTTP status and a message naming the problem."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class WebGame:
    """One game: the match, the agent that plays the AI's side, and who plays which colour."""

    def __init__(self, variant: GameConfig, agent: Agent, human: int | None, simulations: int):
        self.id = secrets.token_urlsafe(16)
        self.variant = variant
        self.agent = agent
        self.match = Match(agent.game)
        self.human = human  # the colour the person plays: 0 Black (first), 1 White; None: no one
        self.simulations = simulations
        self._lock = threading.Lock()
        self._last_search: tuple[tuple[int, ...], AgentMove] | None = None  # (moves, result)
        self._solver = root_solvers.root_solver(agent.game)  # its table lasts the game

    @classmethod
    def start(cls, agents: Agents, variant: GameConfig, human, simulations: int, opening):
        try:
            agent = agents.get(variant.name, variant.size, variant.rule, variant.swap)
        except models.ModelError as error:
            raise ApiError(404, str(error)) from None
        game = cls(variant, agent, human, simulations)
        if isinstance(opening, str):  # a move list as one string, a records file's line
            try:
                opening = agent.game.parse_moves(opening)
            except ValueError as error:
                raise ApiError(400, f"opening {error}") from None
        for index, move in enumerate(opening):
            try:
                game.match.play(move)
            except MoveError as error:
                raise ApiError(400, f"opening move {index + 1} ({show(move)}): {error}") from None
        return game

    def locked(self, method, *args):
        """Run `method` holding this game's lock: one request at a time changes or reads it."""
        with self._lock:
            return method(*args)

    # Each method below runs under the lock (see `locked`).

    def human_move(self, move: int | str) -> dict:
        try:  # coordinates first: a malformed move is the request's fault, whatever the position
            action = self.match.parse(move)
        except MoveError as error:
            raise ApiError(400, str(error)) from None
        if self.human is None:
            raise ApiError(409, "the AI plays both sides of this game; start one to play in")
        self._check_turn(self.human, "it is the AI's turn; ask it to move (POST .../ai)")
        try:
            self.match.play(action)
        except MoveError as error:
            raise ApiError(409, str(error)) from None
        return self.to_json()

    def ai_move(self) -> dict:
        ai = self.match.to_play if self.human is None else 1 - self.human
        self._check_turn(ai, "it is your turn, not the AI's")
        result = self._search()
        analysis = self._analysis_json(result)  # of the position before the move
        self.match.play(result.action)
        return {**self.to_json(), "analysis": analysis}

    def analysis(self) -> dict:
        if self.match.over:
            raise ApiError(409, f"the game is over ({self.match.result()})")
        return self._analysis_json(self._search())

    def undo(self) -> dict:
        """Take back moves until the person is to move again, their last move undone."""
        if self.human is None:
            raise ApiError(409, "nothing to undo: the AI plays both sides of this game")
        if self.match.undo_turn(self.human) == 0:
            raise ApiError(409, "nothing to undo: you have not moved yet")
        return self.to_json()

    def _check_turn(self, player: int, message: str) -> None:
        if self.match.over:
            raise ApiError(409, f"the game is over ({self.match.result()})")
        if self.match.to_play != player:
            raise ApiError(409, message)

    def _search(self) -> AgentMove:
        """The agent's search of the position, reused while the position stays the same (the
        page asks for the analysis again when a toggle is switched on)."""
        position = tuple(self.match.actions)
        if self._last_search is None or self._last_search[0] != position:
            result = self._proven()
            try:
                result = result or self.agent.move(self.match.state, self.simulations)
            except SearchStopped:
                raise ApiError(503, "the server is stopping") from None
            self._last_search = (position, result)
        return self._last_search[1]

    def _proven(self) -> AgentMove | None:
        """A win the game's root solver proves within SOLVER_S (Hex up to 7x7, wins by threats in
        Gomoku and renju), else None."""
        if self._solver is None:
            return None
        state = self.match.state
        proven = self._solver(np.asarray(state.board), int(state.current_player),
                              time.monotonic() + SOLVER_S)  # fmt: skip
        return None if proven is None else AgentMove.of_proof(proven, self.agent.game.num_actions)

    def sgf(self) -> tuple[str, str]:
        """The game as SGF, and a file name for it."""
        ai = f"hexjax {self.variant.name}{self.variant.size} ({self.simulations} simulations)"
        names = [ai, ai]
        if self.human is not None:
            names[self.human] = "you"
        try:
            text = sgf.write_sgf(self.match.game, self.match.actions, *names)
        except ValueError as error:
            raise ApiError(404, f"no SGF for this game: {error}") from None
        return text, f"hexjax-{self.variant.name}{self.variant.size}-{self.id[:8]}.sgf"

    def to_json(self, ply: int | None = None) -> dict:
        """The game, or with `ply` the position after its first `ply` moves."""
        plies = len(self.match.actions)
        if ply is not None and ply > plies:
            raise ApiError(
                400, f"'ply' must be between 0 and {plies} (the moves played), got {ply}"
            )
        match = self.match if ply is None else self.match.at(ply)
        game = match.game
        legal = match.legal_actions()
        last = match.actions[-1] if match.actions else None
        board = match.board()
        return {
            "id": self.id,
            **variant_json(self.variant),
            "human": self.human,
            "simulations": self.simulations,
            "board": board.tolist(),  # rows from the top; 0 empty, 1 Black, 2 White
            "to_play": match.to_play,
            "ai_to_move": not match.over and match.to_play != self.human,  # always with no human
            "legal": legal,
            "legal_moves": [game.action_to_string(a) for a in legal],
            "forbidden": np.flatnonzero(match.forbidden()).tolist(),  # renju: Black may not play
            "can_pass": game.extra_action("pass") in legal,
            "can_swap": game.extra_action("swap") in legal,
            "moves": match.moves(),
            "actions": list(match.actions),
            "last": None if last is None else {"action": last, "move": game.action_to_string(last)},
            "stones": [int((board == 1).sum()), int((board == 2).sum())],
            "ply": len(match.actions),  # the moves shown
            "plies": plies,  # the moves of the game
            "over": match.over,
            "chain": game.winning_cells(match.state),  # the winner's chain or five, to highlight
            "winner": match.winner,
            "result": match.result(),
        }

    def _analysis_json(self, result: AgentMove) -> dict:
        """The search of the position on the board: its policy over the cells (rows of the
        board) and over pass / swap, and the win probability."""
        game, to_play = self.match.game, self.match.to_play
        n = game.size
        policy = result.policy.astype(np.float64).round(4)
        black = result.win_probability if to_play == 0 else 1 - result.win_probability
        return {
            "ply": len(self.match.actions),  # the position searched: after this many moves
            "to_play": to_play,
            "move": self.match.game.action_to_string(result.action),
            "policy": policy[: n * n].reshape(n, n).tolist(),
            "policy_extra": {e.word: float(policy[e.action]) for e in game.extra_actions},
            "best": [
                {
                    "move": self.match.game.action_to_string(a),
                    "action": a,
                    "probability": round(p, 4),
                }
                for a, p in result.top(5)
            ],
            "value": round(result.value, 4),
            "win_probability": round(result.win_probability, 4),  # for the side to move
            "black_win_probability": round(black, 4),
            "proven": result.proven,  # a solver proved the move wins (no search)
            "moves_to_win": result.moves_to_win,  # proven: the mover's moves to the win
        }


class Games:
    """The games in play by id, at most `capacity`: a new game drops the least recently used."""

    def __init__(self, capacity: int):
        if capacity < 1:
            raise ValueError(f"max_games must be at least 1, got {capacity}")
        self.capacity = capacity
        self._games: collections.OrderedDict[str, WebGame] = collections.OrderedDict()
        self._lock = threading.Lock()  # held for dictionary updates only, never for game work

    def add(self, game: WebGame) -> None:
        with self._lock:
            while len(self._games) >= self.capacity:
                self._games.popitem(last=False)
            self._games[game.id] = game

    def get(self, game_id: str) -> WebGame:
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                raise ApiError(
                    404, f"no game {show(game_id)} (unknown, or dropped for newer games)"
                )
            self._games.move_to_end(game_id)
            return game


def variant_json(variant: GameConfig) -> dict:
    return {
        "game": variant.name,
        "size": variant.size,
        "rule": variant.rule,
        "swap": variant.swap,
        "label": variant.label,
    }


def show(value) -> str:
    """A client's value for a message, cut short."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."
