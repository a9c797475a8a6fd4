"""Play in a web page: a JSON API over `Match` and `Agent`, and the page in static/ that uses it.

  GET  /                         the page (static/index.html, app.js, style.css)
  GET  /favicon.ico              the page's icon
  GET  /api/options              the games that have a model ({game, size, rule, swap, label}), the
                                 defaults and the simulation limit
  POST /api/games                {game, size, rule, swap, human, simulations, moves} -> 201, a game
                                 (fields left out take the first model that fits those given;
                                 `simulations` is rounded down to a power of two, so clients
                                 asking for any counts compile at most a dozen searches;
                                 `human` is the colour the person plays, 0 Black or 1 White, or
                                 null: the AI plays both sides, a game to watch or replay;
                                 `moves` an optional opening, played before the game is handed
                                 over: a list of moves, or one string as `format_moves` writes
                                 it, such as a line of the arena's records file)
  GET  /api/games/{id}           the game; with ?ply=K as it was after its first K moves
                                 (stepping through a game; read only)
  GET  /api/games/{id}/sgf       the game as an SGF file (Hex as HexGui reads it, Gomoku GM[4];
                                 hexjax/evaluation/sgf.py); 404 for Othello
  POST /api/games/{id}/moves     {move: "d4" | action}: the person's move
  POST /api/games/{id}/ai        the AI's move, with its search ("analysis")
  POST /api/games/{id}/undo      back to the person's previous turn
  GET  /api/games/{id}/analysis  the search's policy and win probability for the side to move;
                                 `proven` and `moves_to_win` when the game's solver (Hex up
                                 to 7x7, wins by fours in Gomoku and renju) proved a win first

Errors are {"error": message} with: 400 a malformed request (JSON, field types and values, move
coordinates, a bad opening, a bad or unknown query parameter), 404 an unknown game id, route, a
game with no model, or an SGF of a game SGF does not cover, 405 a wrong method, 409 a move the
position refuses (occupied, forbidden, illegal, wrong turn, game over, nothing to undo, a move
in a game the AI plays alone), 413 a body over `max_body` bytes, 415 a body that is not
application/json, 503 a search cut short because the server is stopping (Ctrl-C).
A refused request leaves the game as it was.

The AI moves only when asked (POST .../ai): a new game whose AI plays Black waits for the page to
ask, so the page can show "thinking" for every AI move alike. Games live in memory, at most
`max_games`, the least recently used dropped first. Each game has a lock held for the whole of a
request on it, a search included; the work runs in Starlette's thread pool, so other games and
the event loop go on while one game searches.
"""

from __future__ import annotations

import collections
import contextlib
import json
import pathlib
import secrets
import threading
import time

import numpy as np
import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from hexjax.alphazero.search import PLAY_SIMULATIONS
from hexjax.evaluation import root_solvers, sgf
from hexjax.games import GameConfig, available_games
from hexjax.games.gomoku import RULES
from hexjax.play import models
from hexjax.play.agent import (
    MAX_SIMULATIONS,
    Agent,
    AgentMove,
    Agents,
    SearchStopped,
    simulation_count,
)
from hexjax.play.match import Match, MoveError

STATIC_DIR = pathlib.Path(__file__).parent / "static"
GAME_ORDER = ("hex", "gomoku", "othello")  # the page lists the games so; the first is its default
SOLVER_S = 0.25  # before each search, what the game's root solver may take to prove a win


class ApiError(Exception):
    """A refused request: its HTTP status and a message naming the problem."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def create_app(agents: Agents, max_games: int = 100, max_body: int = 4096,
               simulations: int = PLAY_SIMULATIONS) -> Starlette:  # fmt: skip
    """The web app: the page and the API over `agents`; `simulations` is the default strength."""
    if not 1 <= simulations <= MAX_SIMULATIONS:
        raise ValueError(f"simulations must be between 1 and {MAX_SIMULATIONS}, got {simulations}")
    simulations = simulation_count(simulations)
    games = _Games(max_games)
    playable = _playable(agents)

    async def options(request: Request) -> JSONResponse:
        variants = [_variant_json(v) for v in playable]
        defaults = {**variants[0], "human": 0, "simulations": simulations} if variants else None
        return JSONResponse({"games": variants, "defaults": defaults,
                             "max_simulations": MAX_SIMULATIONS})  # fmt: skip

    async def new_game(request: Request) -> JSONResponse:
        body = await _read_json(request, max_body)
        _check_fields(body, {"game", "size", "rule", "swap", "human", "simulations", "moves"})
        variant = _choose_variant(body, playable)
        human = None if body.get("human", 0) is None else _ranged(body, "human", 0, 0, 1)
        # Rounded down to a power of two: a bounded set of compiled searches, whatever is asked.
        strength = simulation_count(_ranged(body, "simulations", simulations, 1, MAX_SIMULATIONS))
        opening = body.get("moves", [])
        if not isinstance(opening, list | str):
            raise ApiError(
                400, f"'moves' must be a list of moves or a string, got {_show(opening)}"
            )
        game = await run_in_threadpool(_WebGame.start, agents, variant, human, strength, opening)
        games.add(game)
        return JSONResponse(await run_in_threadpool(game.locked, game.to_json), status_code=201)

    async def get_game(request: Request) -> JSONResponse:
        ply = _ply_query(request)
        game = games.get(request.path_params["id"])
        return JSONResponse(await run_in_threadpool(game.locked, game.to_json, ply))

    async def get_sgf(request: Request) -> Response:
        game = games.get(request.path_params["id"])
        text, name = await run_in_threadpool(game.locked, game.sgf)
        headers = {"Content-Disposition": f'attachment; filename="{name}"'}
        return Response(text, media_type="application/x-go-sgf", headers=headers)

    async def human_move(request: Request) -> JSONResponse:
        body = await _read_json(request, max_body)
        _check_fields(body, {"move"})
        move = body.get("move")
        if isinstance(move, bool) or not isinstance(move, int | str):
            raise ApiError(400, f"'move' must be a move like \"d4\" or an action index, "
                                f"got {_show(move)}")  # fmt: skip
        game = games.get(request.path_params["id"])
        return JSONResponse(await run_in_threadpool(game.locked, game.human_move, move))

    def game_action(method_name: str):
        """An endpoint that takes no fields and runs one `_WebGame` method under its lock."""

        async def endpoint(request: Request) -> JSONResponse:
            _check_fields(await _read_json(request, max_body), set())
            game = games.get(request.path_params["id"])
            return JSONResponse(await run_in_threadpool(game.locked, getattr(game, method_name)))

        return endpoint

    async def page(request: Request) -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html")

    async def icon(request: Request) -> FileResponse:
        return FileResponse(STATIC_DIR / "favicon.ico", media_type="image/x-icon")

    routes = [
        Route("/", page),
        Route("/favicon.ico", icon),
        Route("/api/options", options),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{id}", get_game),
        Route("/api/games/{id}/moves", human_move, methods=["POST"]),
        Route("/api/games/{id}/ai", game_action("ai_move"), methods=["POST"]),
        Route("/api/games/{id}/undo", game_action("undo"), methods=["POST"]),
        Route("/api/games/{id}/analysis", game_action("analysis")),
        Route("/api/games/{id}/sgf", get_sgf),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    handlers = {ApiError: _api_error, HTTPException: _http_error, Exception: _server_error}
    return Starlette(routes=routes, exception_handlers=handlers)


def serve(host: str = "127.0.0.1", port: int = 8000, checkpoint=None, model: str | None = None,
          model_dir=models.MODELS_DIR, simulations: int = PLAY_SIMULATIONS,
          **search) -> None:  # fmt: skip
    """Serve the page until interrupted (localhost only unless `host` says otherwise): every
    model in `model_dir`, or only the `checkpoint` or the `model` named; `search` as `Agent`
    takes it."""
    agents = Agents(checkpoint=checkpoint, model=model, model_dir=model_dir, **search)
    app = create_app(agents, simulations=simulations)
    print(f"hexjax: play at http://{host}:{port}/ (Ctrl-C to stop)", flush=True)

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame):
            # uvicorn waits for requests in flight: end their searches now, not when done.
            agents.stop_searches()
            super().handle_exit(sig, frame)

    with contextlib.suppress(KeyboardInterrupt):  # uvicorn raises Ctrl-C again once stopped
        Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run()


# --- games in play ------------------------------------------------------------------------


class _WebGame:
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
                raise ApiError(400, f"opening move {index + 1} ({_show(move)}): {error}") from None
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
        """A win the game's root solver proves within SOLVER_S (Hex up to 7x7, wins by fours in
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
        cells = game.size * game.size
        legal = match.legal_actions()
        last = match.actions[-1] if match.actions else None
        board = match.board()
        return {
            "id": self.id,
            **_variant_json(self.variant),
            "human": self.human,
            "simulations": self.simulations,
            "board": board.tolist(),  # rows from the top; 0 empty, 1 Black, 2 White
            "to_play": match.to_play,
            "ai_to_move": not match.over and match.to_play != self.human,  # always with no human
            "legal": legal,
            "legal_moves": [game.action_to_string(a) for a in legal],
            "forbidden": np.flatnonzero(match.forbidden()).tolist(),  # renju: Black may not play
            "can_pass": self.variant.name == "othello" and cells in legal,
            "can_swap": self.variant.name == "hex" and cells in legal,
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
        n, to_play = self.match.game.size, self.match.to_play
        policy = result.policy.astype(np.float64).round(4)
        black = result.win_probability if to_play == 0 else 1 - result.win_probability
        extra = {"othello": "pass", "hex": "swap"}.get(self.variant.name)
        return {
            "ply": len(self.match.actions),  # the position searched: after this many moves
            "to_play": to_play,
            "move": self.match.game.action_to_string(result.action),
            "policy": policy[: n * n].reshape(n, n).tolist(),
            "policy_extra": {extra: float(policy[n * n])} if policy.size > n * n else {},
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


class _Games:
    """The games in play by id, at most `capacity`: a new game drops the least recently used."""

    def __init__(self, capacity: int):
        if capacity < 1:
            raise ValueError(f"max_games must be at least 1, got {capacity}")
        self.capacity = capacity
        self._games: collections.OrderedDict[str, _WebGame] = collections.OrderedDict()
        self._lock = threading.Lock()  # held for dictionary updates only, never for game work

    def add(self, game: _WebGame) -> None:
        with self._lock:
            while len(self._games) >= self.capacity:
                self._games.popitem(last=False)
            self._games[game.id] = game

    def get(self, game_id: str) -> _WebGame:
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                raise ApiError(
                    404, f"no game {_show(game_id)} (unknown, or dropped for newer games)"
                )
            self._games.move_to_end(game_id)
            return game


# --- requests -------------------------------------------------------------------------------


async def _read_json(request: Request, max_body: int) -> dict:
    """The body as a JSON object ({} when empty), refused when over `max_body` bytes: by its
    declared length and, since a chunked body declares none, by what was actually read."""
    declared = request.headers.get("content-length", "")  # the server has checked its form
    if declared.isdigit() and int(declared) > max_body:
        raise ApiError(413, f"the body may be at most {max_body} bytes (Content-Length {declared})")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > max_body:
            raise ApiError(413, f"the body may be at most {max_body} bytes")
    if not body.strip():
        return {}
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/json":
        raise ApiError(415, f"the body must be application/json, not {media_type or 'untyped'}")
    try:
        value = json.loads(body, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as error:  # bad UTF-8 and bad JSON are ValueErrors
        raise ApiError(400, f"the body is not valid JSON: {error}") from None
    if not isinstance(value, dict):
        raise ApiError(400, f"the body must be a JSON object, got {type(value).__name__}")
    return value


def _ply_query(request: Request) -> int | None:
    """The ?ply=K of a request for a game, None without one; no other parameter is known."""
    unknown = sorted(set(request.query_params) - {"ply"})
    if unknown:
        raise ApiError(400, f"unknown query parameter {_show(unknown[0])} (parameters: ply)")
    if "ply" not in request.query_params:
        return None
    value = request.query_params["ply"]
    if not (value.isascii() and value.isdigit()) or len(value) > 6:
        raise ApiError(400, f"'ply' must be a number of moves, got {_show(value)}")
    return int(value)


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _check_fields(body: dict, allowed: set[str]) -> None:
    unknown = sorted(set(body) - allowed)
    if unknown:
        expected = ", ".join(sorted(allowed)) or "none"
        raise ApiError(400, f"unknown field {unknown[0]!r} (fields: {expected})")


_KINDS = {int: "an integer", str: "a string", bool: "true or false"}


def _typed(body: dict, name: str, kind: type):
    value = body[name]
    if type(value) is not kind:  # exact: JSON true is no integer here, nor is 7.0
        raise ApiError(400, f"{name!r} must be {_KINDS[kind]}, got {_show(value)}")
    return value


def _ranged(body: dict, name: str, default: int, low: int, high: int) -> int:
    value = _typed(body, name, int) if name in body else default
    if not low <= value <= high:
        raise ApiError(400, f"{name!r} must be between {low} and {high}, got {value}")
    return value


def _choose_variant(body: dict, playable: list[GameConfig]) -> GameConfig:
    """The first playable game that agrees with the fields given (game, size, rule, swap)."""
    fields = {"game": ("name", str), "size": ("size", int), "rule": ("rule", str),
              "swap": ("swap", bool)}  # fmt: skip
    asked = {field: _typed(body, field, kind) for field, (_, kind) in fields.items()
             if field in body}  # fmt: skip
    if asked.get("game", "hex") not in available_games():
        names = ", ".join(available_games())
        raise ApiError(400, f"unknown game {asked['game']!r} (games: {names})")
    if asked.get("rule", "freestyle") not in RULES:
        raise ApiError(400, f"unknown rule {asked['rule']!r} (rules: {', '.join(RULES)})")
    for variant in playable:
        if all(getattr(variant, fields[field][0]) == value for field, value in asked.items()):
            return variant
    wanted = ", ".join(f"{field} {_show(value)}" for field, value in asked.items()) or "any game"
    have = ", ".join(models.describe(v) for v in playable) or "none"
    raise ApiError(404, f"no model for {wanted} (models: {have})")


def _playable(agents: Agents) -> list[GameConfig]:
    """The games `agents` can serve (a single model's or checkpoint's own game), in GAME_ORDER
    and by size."""
    if agents.only is not None:
        games = [agents.only.config.game]
    else:
        games = [info.config.game for info in agents.available()]
    playable = [g.rules() for g in games]
    return sorted(playable, key=lambda g: (GAME_ORDER.index(g.name), g.size, g.rule, g.swap))


def _variant_json(variant: GameConfig) -> dict:
    return {
        "game": variant.name,
        "size": variant.size,
        "rule": variant.rule,
        "swap": variant.swap,
        "label": models.describe(variant),
    }


def _show(value) -> str:
    """A client's value for a message, cut short."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


# --- errors as JSON -------------------------------------------------------------------------


async def _api_error(request: Request, error: ApiError) -> JSONResponse:
    return JSONResponse({"error": str(error)}, status_code=error.status)


async def _http_error(request: Request, error: HTTPException) -> JSONResponse:
    # Starlette's own: an unknown route (404) or a wrong method (405, with its Allow header).
    message = f"{error.detail}: {request.method} {request.url.path}"
    return JSONResponse({"error": message}, status_code=error.status_code, headers=error.headers)


async def _server_error(request: Request, error: Exception) -> JSONResponse:
    return JSONResponse({"error": f"internal error: {error}"}, status_code=500)
