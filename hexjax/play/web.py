"""Play in a web page: a JSON API over `Match` and `Agent`, and the page in static/ that uses it.

  GET  /                         the page (static/index.html, app.js, style.css)
  GET  /favicon.ico              the page's icon
  GET  /api/options              the games that have a model ({game, size, rule, swap, label}), the
                                 defaults and the simulation limit
  POST /api/games                {game, size, rule, swap, human, simulations, moves} -> 201, a game
                                 (fields left out take the first model that fits those given;
                                 `simulations` is rounded down to a power of two, as the
                                 other front ends count them (the AI's search compiles once
                                 a model, whatever the count);
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
                                 to 7x7, wins by threats in Gomoku, fours in renju) proved a
                                 win first

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

import contextlib
import json
import pathlib

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from hexjax.alphazero.search import PLAY_SIMULATIONS
from hexjax.games import GameConfig, available_games
from hexjax.games.gomoku import RULES
from hexjax.play.agent import Agents
from hexjax.play.agent_move import MAX_SIMULATIONS, simulation_count
from hexjax.play.web_game import ApiError, Games, WebGame, show, variant_json
from hexjax.training import models

STATIC_DIR = pathlib.Path(__file__).parent / "static"
GAME_ORDER = ("hex", "gomoku", "othello")  # the page lists the games so; the first is its default


def create_app(agents: Agents, max_games: int = 100, max_body: int = 4096,
               simulations: int = PLAY_SIMULATIONS) -> Starlette:  # fmt: skip
    """The web app: the page and the API over `agents`; `simulations` is the default strength."""
    if not 1 <= simulations <= MAX_SIMULATIONS:
        raise ValueError(f"simulations must be between 1 and {MAX_SIMULATIONS}, got {simulations}")
    simulations = simulation_count(simulations)
    games = Games(max_games)
    playable = _playable(agents)

    async def options(request: Request) -> JSONResponse:
        variants = [variant_json(v) for v in playable]
        defaults = {**variants[0], "human": 0, "simulations": simulations} if variants else None
        return JSONResponse({"games": variants, "defaults": defaults,
                             "max_simulations": MAX_SIMULATIONS})  # fmt: skip

    async def new_game(request: Request) -> JSONResponse:
        body = await _read_json(request, max_body)
        _check_fields(body, {"game", "size", "rule", "swap", "human", "simulations", "moves"})
        variant = _choose_variant(body, playable)
        human = None if body.get("human", 0) is None else _ranged(body, "human", 0, 0, 1)
        # Rounded down to a power of two, as the other front ends count simulations.
        strength = simulation_count(_ranged(body, "simulations", simulations, 1, MAX_SIMULATIONS))
        opening = body.get("moves", [])
        if not isinstance(opening, list | str):
            raise ApiError(400, f"'moves' must be a list of moves or a string, got {show(opening)}")
        game = await run_in_threadpool(WebGame.start, agents, variant, human, strength, opening)
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
                                f"got {show(move)}")  # fmt: skip
        game = games.get(request.path_params["id"])
        return JSONResponse(await run_in_threadpool(game.locked, game.human_move, move))

    def game_action(method_name: str):
        """An endpoint that takes no fields and runs one `WebGame` method under its lock."""

        async def endpoint(request: Request) -> JSONResponse:
            _check_fields(await _read_json(request, max_body), set())
            game = games.get(request.path_params["id"])
            return JSONResponse(await run_in_threadpool(game.locked, getattr(game, method_name)))

        return endpoint

    routes = [
        Route("/", _page),
        Route("/favicon.ico", _icon),
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
    app = Starlette(routes=routes, exception_handlers=handlers)
    return app


async def _page(request: Request) -> FileResponse:
    return FileResponse(STATIC_DIR / "index.html")


async def _icon(request: Request) -> FileResponse:
    return FileResponse(STATIC_DIR / "favicon.ico", media_type="image/x-icon")


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
        raise ApiError(400, f"unknown query parameter {show(unknown[0])} (parameters: ply)")
    if "ply" not in request.query_params:
        return None
    value = request.query_params["ply"]
    if not (value.isascii() and value.isdigit()) or len(value) > 6:
        raise ApiError(400, f"'ply' must be a number of moves, got {show(value)}")
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
        raise ApiError(400, f"{name!r} must be {_KINDS[kind]}, got {show(value)}")
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
    wanted = ", ".join(f"{field} {show(value)}" for field, value in asked.items()) or "any game"
    have = ", ".join(v.label for v in playable) or "none"
    raise ApiError(404, f"no model for {wanted} (models: {have})")


def _playable(agents: Agents) -> list[GameConfig]:
    """The games `agents` can serve (a single model's or checkpoint's own game), in GAME_ORDER
    and by size."""
    if agents.only is not None:
        games = [agents.only.config.game]
    else:
        games = [info.config.game for info in agents.available()]
    playable = [g.as_played() for g in games]
    return sorted(playable, key=lambda g: (GAME_ORDER.index(g.name), g.size, g.rule, g.swap))


# --- errors as JSON -------------------------------------------------------------------------


async def _api_error(request: Request, error: ApiError) -> JSONResponse:
    return JSONResponse({"error": str(error)}, status_code=error.status)


async def _http_error(request: Request, error: HTTPException) -> JSONResponse:
    # Starlette's own: an unknown route (404) or a wrong method (405, with its Allow header).
    message = f"{error.detail}: {request.method} {request.url.path}"
    return JSONResponse({"error": message}, status_code=error.status_code, headers=error.headers)


async def _server_error(request: Request, error: Exception) -> JSONResponse:
    return JSONResponse({"error": f"internal error: {error}"}, status_code=500)
