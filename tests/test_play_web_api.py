"""The web API (hexjax/play/web.py) through Starlette's TestClient, on tiny untrained models.

Every endpoint, every class of refused request (each leaving the game as it was), several games
at once from several threads, two moves racing for one turn, and the least-recently-used cap.
Only the Hex 5x5 agent searches (2 simulations, compiled once); the other games' positions are
set up with an opening.
"""

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import numpy as np
import pytest

import hexjax
from hexjax.evaluation import arena

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient  # noqa: E402
from support.play_models import make_tiny_model  # noqa: E402

from hexjax.play import Agents, web_game  # noqa: E402
from hexjax.play.web import MAX_SIMULATIONS, create_app  # noqa: E402

SIMULATIONS = 2
MAX_BODY = 1024
# Othello 6x6: after these 31 moves White (to move) has no placement, only the pass.
OTHELLO_TO_PASS = (
    "d5 c5 b4 e3 e2 e1 f1 d2 c2 b5 a6 d6 f4 b3 c6 e4 a4 b2 f3 b6 c1 e6 a5 d1 b1 e5 f5 a1 f6 a3 f2"
)
# Renju 9x9: Black's c5 d5 and e3 e4 make e5 a double three, forbidden for Black (to move).
RENJU_DOUBLE_THREE = "c5 a1 d5 a9 e3 i1 e4 i9"
E5_ON_9X9 = (9 - 5) * 9 + 4  # rows count from the bottom in Gomoku notation


@pytest.fixture(scope="module")
def agents(tmp_path_factory):
    directory = tmp_path_factory.mktemp("models")
    make_tiny_model(directory, "hex5", "hex", 5)
    make_tiny_model(directory, "hex4swap", "hex", 4, swap=True)
    make_tiny_model(directory, "othello6", "othello", 6)
    make_tiny_model(directory, "renju9", "gomoku", 9, rule="renju")
    return Agents(model_dir=directory)


@pytest.fixture(scope="module")
def client(agents):
    with TestClient(create_app(agents, max_body=MAX_BODY, simulations=SIMULATIONS)) as client:
        yield client


def new_game(client, **fields) -> dict:
    body = {"game": "hex", "size": 5, **fields}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def refused(response, status: int, *words: str) -> str:
    """Assert a JSON error with this status whose message names the problem; return it."""
    assert response.status_code == status, response.text
    message = response.json()["error"]
    for word in words:
        assert word in message, message
    return message


def current(client, game: dict) -> dict:
    response = client.get(f"/api/games/{game['id']}")
    assert response.status_code == 200
    return response.json()


def post(client, game: dict, what: str, body=None):
    return client.post(f"/api/games/{game['id']}/{what}", json=body)


# --- endpoints ----------------------------------------------------------------------------


def test_options_list_the_models_and_defaults(client):
    options = client.get("/api/options").json()
    labels = [v["label"] for v in options["games"]]  # Hex first, then Gomoku, Othello; by size
    assert labels == ["hex 4x4 with swap", "hex 5x5", "gomoku 9x9 renju", "othello 6x6"]
    renju = next(v for v in options["games"] if v["label"] == "gomoku 9x9 renju")
    assert renju == {"game": "gomoku", "size": 9, "rule": "renju", "swap": False,
                     "label": "gomoku 9x9 renju"}  # fmt: skip
    defaults = options["defaults"]
    assert defaults["human"] == 0 and defaults["simulations"] == SIMULATIONS
    assert {k: defaults[k] for k in ("game", "size")} == {
        k: options["games"][0][k] for k in ("game", "size")
    }
    assert options["max_simulations"] == MAX_SIMULATIONS


def test_a_single_model_serves_its_own_game_only(agents):
    only = Agents(model="renju9", model_dir=agents.model_dir)
    with TestClient(create_app(only)) as client:
        options = client.get("/api/options").json()
        assert [v["label"] for v in options["games"]] == ["gomoku 9x9 renju"]
        assert options["defaults"]["rule"] == "renju"
        refused(client.post("/api/games", json={"game": "hex"}), 404, "gomoku 9x9 renju")


def test_new_game_json_and_get(client):
    game = new_game(client, human=0, simulations=3)
    assert len(game["id"]) >= 16
    assert game["game"] == "hex" and game["size"] == 5 and game["label"] == "hex 5x5"
    assert game["human"] == 0 and game["simulations"] == 2  # rounded down to a power of two
    assert game["board"] == [[0] * 5 for _ in range(5)]
    assert game["to_play"] == 0 and not game["ai_to_move"]
    assert game["legal"] == list(range(25))
    assert game["legal_moves"][:6] == ["a1", "b1", "c1", "d1", "e1", "a2"]
    assert game["moves"] == [] and game["last"] is None and game["forbidden"] == []
    assert not game["over"] and game["winner"] == -1 and game["result"] == ""
    assert not game["can_pass"] and not game["can_swap"]
    assert current(client, game) == game
    assert new_game(client)["id"] != game["id"]
    # Fields left out take the first model that fits the ones given.
    response = client.post("/api/games", json={"game": "gomoku"})
    assert response.status_code == 201
    assert (response.json()["size"], response.json()["rule"]) == (9, "renju")


def test_any_simulation_count_is_rounded_down_to_a_power_of_two(client, agents):
    """Clients asking 1..40 and 4096 simulations get powers of two, as every front end."""
    asked = [*range(1, 41), MAX_SIMULATIONS]
    counts = {new_game(client, human=1, simulations=n)["simulations"] for n in asked}
    assert counts == {1, 2, 4, 8, 16, 32, MAX_SIMULATIONS}


def test_human_move_then_ai_reply(client):
    game = new_game(client)
    after = post(client, game, "moves", {"move": "c3"}).json()
    assert after["board"][2][2] == 1 and after["moves"] == ["c3"]
    assert after["last"] == {"action": 12, "move": "c3"}
    assert after["to_play"] == 1 and after["ai_to_move"]
    assert 12 not in after["legal"]

    reply = post(client, game, "ai").json()
    assert len(reply["moves"]) == 2 and reply["to_play"] == 0 and not reply["ai_to_move"]
    action = reply["last"]["action"]
    assert action in after["legal"]  # an empty cell of the position the AI was given
    assert reply["board"][action // 5][action % 5] == 2
    assert sum(map(sum, reply["board"])) == 1 + 2

    analysis = reply["analysis"]  # the AI's search of the position before its move
    assert analysis["ply"] == 1 and analysis["to_play"] == 1
    assert analysis["move"] == reply["moves"][1]
    assert analysis["policy"][2][2] == 0  # c3 was taken
    assert sum(map(sum, analysis["policy"])) == pytest.approx(1, abs=1e-3)
    assert 0 <= analysis["win_probability"] <= 1
    assert analysis["black_win_probability"] == pytest.approx(1 - analysis["win_probability"])
    assert analysis["best"][0]["probability"] == max(max(row) for row in analysis["policy"])

    # A move may also be given as its action index.
    free = reply["legal"][0]
    assert post(client, game, "moves", {"move": free}).json()["last"]["action"] == free


def test_ai_plays_first_when_the_person_plays_white(client):
    game = new_game(client, human=1)
    assert game["to_play"] == 0 and game["ai_to_move"] and game["moves"] == []
    refused(post(client, game, "moves", {"move": "a1"}), 409, "AI's turn")
    assert current(client, game) == game
    reply = post(client, game, "ai").json()
    assert len(reply["moves"]) == 1 and reply["stones"] == [1, 0] and not reply["ai_to_move"]
    before = current(client, game)
    refused(post(client, game, "ai"), 409, "your turn")
    assert current(client, game) == before


def test_analysis_searches_the_position_once(client, agents, monkeypatch):
    monkeypatch.setattr(web_game, "SOLVER_S", -1.0)  # no time for the solver: Hex 5x5 is searched
    search = agents.get("hex", 5).counted
    search.prepare()  # its rate measured now: the searches counted below are the page's
    searches = []
    real_move = search.move
    monkeypatch.setattr(search, "move", lambda *a, **k: searches.append(1) or real_move(*a, **k))

    game = new_game(client)
    post(client, game, "moves", {"move": "a1"})
    post(client, game, "ai")
    first = client.get(f"/api/games/{game['id']}/analysis").json()
    again = client.get(f"/api/games/{game['id']}/analysis").json()
    assert first == again and len(searches) == 2  # the AI's move, then one analysis
    assert first["ply"] == 2 and first["to_play"] == 0
    played = current(client, game)["actions"]
    flat = [p for row in first["policy"] for p in row]
    assert all(flat[a] == 0 for a in played)
    assert sum(flat) == pytest.approx(1, abs=1e-3) and first["policy_extra"] == {}
    assert first["black_win_probability"] == first["win_probability"]  # Black to move


def test_undo_goes_back_to_the_persons_turn(client):
    game = new_game(client)
    refused(post(client, game, "undo"), 409, "nothing to undo")
    post(client, game, "moves", {"move": "b2"})
    post(client, game, "ai")
    post(client, game, "moves", {"move": "d4"})
    undone = post(client, game, "undo").json()  # the AI has not answered d4 yet
    assert undone["moves"][0] == "b2" and len(undone["moves"]) == 2 and undone["to_play"] == 0
    undone = post(client, game, "undo").json()  # the AI's reply and b2
    assert undone["moves"] == [] and undone["board"] == [[0] * 5 for _ in range(5)]

    # Playing White: the AI's first move alone cannot be taken back.
    white = new_game(client, human=1)
    opened = post(client, white, "ai").json()
    refused(post(client, white, "undo"), 409, "nothing to undo")
    assert current(client, white)["moves"] == opened["moves"]


def test_game_over_refuses_moves_until_undone(client):
    opening = ["c1", "a1", "c2", "a2", "c3", "a3", "c4", "a4"]
    game = new_game(client, moves=opening)
    assert game["moves"] == opening and game["to_play"] == 0
    won = post(client, game, "moves", {"move": "c5"}).json()  # column c joins top and bottom
    assert won["over"] and won["winner"] == 0 and won["result"] == "Black wins"
    assert won["legal"] == [] and not won["ai_to_move"]
    refused(post(client, game, "moves", {"move": "e5"}), 409, "over", "Black wins")
    refused(post(client, game, "ai"), 409, "over")
    refused(client.get(f"/api/games/{game['id']}/analysis"), 409, "over")
    assert current(client, game) == won
    back = post(client, game, "undo").json()
    assert not back["over"] and back["moves"] == opening


def test_the_winning_chain_is_in_the_game(client):
    opening = ["c1", "a1", "c2", "a2", "c3", "a3", "c4", "a4"]
    game = new_game(client, moves=opening)
    assert game["chain"] == []
    won = post(client, game, "moves", {"move": "c5"}).json()
    assert won["chain"] == [2, 7, 12, 17, 22]  # column c, top to bottom
    # Renju: Black's five on row 5 (the fifth row from the bottom is row 4 from the top).
    five = new_game(client, game="gomoku", size=9, moves="a5 a1 b5 b1 c5 c1 d5 d1 e5")
    assert five["over"] and five["winner"] == 0 and five["chain"] == [36, 37, 38, 39, 40]


def test_favicon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response.headers["content-type"] == "image/x-icon"
    assert response.content[:4] == b"\x00\x00\x01\x00"  # an ICO file's header


def test_refused_moves_name_the_problem_and_change_nothing(client):
    game = new_game(client)
    game = post(client, game, "moves", {"move": "c3"}).json()
    post(client, game, "ai")
    game = current(client, game)
    taken = game["last"]["move"]
    cases = [
        ({"move": "c3"}, 409, "occupied"),
        ({"move": taken}, 409, "occupied"),
        ({"move": "f1"}, 400, "off the 5x5 board"),
        ({"move": "a0"}, 400, "off the 5x5 board"),
        ({"move": "hello"}, 400, "not a cell"),
        ({"move": ""}, 400, "not a cell"),
        ({"move": 25}, 400, "outside 0..24"),
        ({"move": -1}, 400, "outside 0..24"),
        ({"move": "swap"}, 400, "swap is not enabled"),
        ({"move": "pass"}, 400, "not a cell"),
        ({"move": "d²"}, 400, "'d²' is not a cell like 'a1'"),
        ({"move": "q" * 1000}, 400, "'" + "q" * 20 + "...' is not a cell"),
        ({"move": True}, 400, "'move' must be"),
        ({"move": 3.0}, 400, "'move' must be"),
        ({"move": ["a1"]}, 400, "'move' must be"),
        ({"move": None}, 400, "'move' must be"),
        ({}, 400, "'move' must be"),
        ({"move": "a1", "colour": 1}, 400, "unknown field 'colour'"),
    ]
    for body, status, words in cases:
        refused(post(client, game, "moves", body), status, words)
        assert current(client, game) == game, body
    refused(post(client, game, "ai", {"now": True}), 400, "unknown field 'now'")
    assert current(client, game) == game


def test_renju_forbidden_points(client):
    game = new_game(client, game="gomoku", size=9, rule="renju", moves=RENJU_DOUBLE_THREE.split())
    assert game["to_play"] == 0 and game["forbidden"] == [E5_ON_9X9]
    assert E5_ON_9X9 not in game["legal"]
    refused(post(client, game, "moves", {"move": "e5"}), 409, "e5", "forbidden for Black")
    assert current(client, game) == game
    played = post(client, game, "moves", {"move": "h2"}).json()
    assert played["board"][9 - 2][7] == 1 and played["to_play"] == 1


def test_othello_pass_when_it_is_the_only_move(client):
    game = new_game(client, game="othello", size=6, human=1, moves=OTHELLO_TO_PASS.split())
    assert game["to_play"] == 1 and game["can_pass"] and not game["ai_to_move"]
    assert game["legal"] == [36] and game["legal_moves"] == ["pass"]
    refused(post(client, game, "moves", {"move": "a2"}), 409, "the only move is pass")
    assert current(client, game) == game
    passed = post(client, game, "moves", {"move": "pass"}).json()
    assert passed["moves"][-1] == "pass" and passed["board"] == game["board"]
    assert passed["to_play"] == 0 and passed["ai_to_move"] and not passed["can_pass"]
    assert passed["last"] == {"action": 36, "move": "pass"}

    start = new_game(client, game="othello", size=6)
    assert start["stones"] == [2, 2] and not start["can_pass"]
    refused(post(client, start, "moves", {"move": "pass"}), 409, "only allowed when no placement")
    refused(post(client, start, "moves", {"move": "a1"}), 409, "flips nothing")


def test_hex_swap_as_the_second_move(client):
    game = new_game(client, size=4, swap=True, human=1, moves=["b1"])
    assert game["can_swap"] and "swap" in game["legal_moves"] and 16 in game["legal"]
    swapped = post(client, game, "moves", {"move": "swap"}).json()
    # Black's b1 (row 0, column 1) becomes White's stone reflected in the diagonal: a2.
    assert swapped["board"][0][1] == 0 and swapped["board"][1][0] == 2
    assert swapped["moves"] == ["b1", "swap"] and not swapped["can_swap"]
    refused(post(client, swapped, "moves", {"move": "swap"}), 409, "AI's turn")

    black = new_game(client, size=4, swap=True)
    assert not black["can_swap"]
    refused(post(client, black, "moves", {"move": "swap"}), 409, "only allowed as the second")


# --- refused requests -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, status, words",
    [
        ({"game": "chess", "size": 8}, 400, ["unknown game 'chess'", "hex"]),
        ({"game": 3}, 400, ["'game' must be a string"]),
        ({"game": "hex", "size": 9}, 404, ["no model", "size 9", "hex 5x5"]),
        ({"game": "gomoku", "size": 15, "rule": "renju"}, 404, ["no model", "gomoku 9x9 renju"]),
        ({"game": "gomoku", "size": 9, "rule": "freestyle"}, 404, ["no model"]),
        ({"game": "hex", "size": "5"}, 400, ["'size' must be an integer"]),
        ({"game": "hex", "size": 5.0}, 400, ["'size' must be an integer"]),
        ({"game": "hex", "size": True}, 400, ["'size' must be an integer"]),
        ({"game": "gomoku", "rule": "pro"}, 400, ["unknown rule 'pro'"]),
        ({"game": "hex", "swap": "yes"}, 400, ["'swap' must be true or false"]),
        ({"game": "hex", "size": 5, "human": 2}, 400, ["'human' must be between 0 and 1"]),
        ({"game": "hex", "size": 5, "human": False}, 400, ["'human' must be an integer"]),
        ({"game": "hex", "size": 5, "simulations": 0}, 400, ["'simulations' must be between"]),
        ({"game": "hex", "simulations": MAX_SIMULATIONS + 1}, 400, ["'simulations'"]),
        ({"game": "hex", "simulations": "many"}, 400, ["'simulations' must be an integer"]),
        ({"game": "hex", "colour": 1}, 400, ["unknown field 'colour'"]),
        ({"game": "hex", "moves": 12}, 400, ["'moves' must be a list of moves or a string"]),
        ({"game": "hex", "moves": "a1 zz"}, 400, ["opening move 2 ('zz')", "not a cell"]),
        ({"game": "hex", "moves": "a1 a1"}, 400, ["opening move 2", "occupied"]),
        ({"game": "hex", "human": "nobody"}, 400, ["'human' must be an integer"]),
        ({"game": "hex", "moves": ["a1", "a1"]}, 400, ["opening move 2", "occupied"]),
        ({"game": "hex", "moves": ["a1", "z1"]}, 400, ["opening move 2", "off the"]),
        ({"game": "hex", "moves": [{"a": 1}]}, 400, ["opening move 1"]),
    ],
)
def test_new_game_refused(client, body, status, words):
    refused(client.post("/api/games", json=body), status, *words)


def test_malformed_bodies(client, agents):
    game = new_game(client)
    path = f"/api/games/{game['id']}/moves"
    json_type = {"content-type": "application/json"}
    cases = [
        (b'{"move": "a1"', json_type, 400, "not valid JSON"),
        (b'{"move": NaN}', json_type, 400, "NaN is not a JSON number"),
        (b'["a1"]', json_type, 400, "must be a JSON object, got list"),
        (b'"a1"', json_type, 400, "must be a JSON object, got str"),
        (b'{"move": "\xff"}', json_type, 400, "not valid JSON"),
        (b'{"move": "a1"}', {"content-type": "text/plain"}, 415, "application/json"),
        (b'{"move": "a1"}', {}, 415, "application/json"),
        (b"{}" + b" " * MAX_BODY, json_type, 413, f"at most {MAX_BODY} bytes"),
    ]
    for content, headers, status, words in cases:
        refused(client.post(path, content=content, headers=headers), status, words)
    # Without a Content-Length (a chunked body) the limit holds on what is read.
    chunks = (b" " * 512 for _ in range(4))
    response = client.post(path, content=chunks, headers=json_type)
    assert "content-length" not in response.request.headers
    refused(response, 413, f"at most {MAX_BODY} bytes")
    refused(client.post("/api/games", content=b"{" * 2000, headers=json_type), 413, "at most")
    assert current(client, game) == game
    # Nesting too deep for the parser (a body within the default limit).
    with TestClient(create_app(agents)) as roomy:
        deep = b"[" * 2000 + b"]" * 2000
        refused(roomy.post("/api/games", content=deep, headers=json_type), 400, "not valid JSON")
    # A body at the limit is read.
    padded = b'{"move": "a1"}' + b" " * (MAX_BODY - 14)
    assert client.post(path, content=padded, headers=json_type).status_code == 200


def test_unknown_ids_routes_and_methods(client):
    refused(client.get("/api/games/nope"), 404, 'no game "nope"')
    refused(client.post("/api/games/nope/moves", json={"move": "a1"}), 404, "no game")
    refused(client.post("/api/games/nope/ai"), 404, "no game")
    refused(client.post("/api/games/nope/undo"), 404, "no game")
    refused(client.get("/api/games/nope/analysis"), 404, "no game")
    refused(client.get("/api/nothing"), 404, "Not Found", "/api/nothing")
    response = client.delete("/api/games")
    refused(response, 405, "Method Not Allowed")
    assert response.headers["allow"] == "POST"
    refused(client.get("/api/games"), 405, "Method Not Allowed")


def test_page_and_static_files(client):
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert '<script src="/static/app.js">' in page.text and 'id="message"' in page.text
    for name, kind in [("app.js", "javascript"), ("style.css", "text/css")]:
        response = client.get(f"/static/{name}")
        assert response.status_code == 200 and kind in response.headers["content-type"]


# --- several games at once -----------------------------------------------------------------


def test_least_recently_used_game_is_dropped(agents):
    with TestClient(create_app(agents, max_games=3, simulations=SIMULATIONS)) as client:
        first, second, third = (new_game(client) for _ in range(3))
        current(client, first)  # now the second is the least recently used
        fourth = new_game(client)
        refused(client.get(f"/api/games/{second['id']}"), 404, "no game")
        for game in (first, third, fourth):
            assert current(client, game)["id"] == game["id"]


def test_threads_playing_several_games(client):
    games = [new_game(client) for _ in range(4)]
    errors = []

    def play(index, game):
        try:
            for _ in range(3):
                legal = current(client, game)["legal"]
                mine = legal[(5 * index) % len(legal)]  # each game its own moves
                assert post(client, game, "moves", {"move": mine}).status_code == 200
                assert post(client, game, "ai").status_code == 200
        except AssertionError as error:
            errors.append(error)

    threads = [threading.Thread(target=play, args=item) for item in enumerate(games)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    for game in games:
        final = current(client, game)
        assert len(final["actions"]) == len(set(final["actions"])) == 6
        for ply, action in enumerate(final["actions"]):  # Hex never removes a stone
            assert final["board"][action // 5][action % 5] == 1 + ply % 2
        assert final["stones"] == [3, 3]


def race(client, game: dict, cells) -> dict:
    """Post one move per cell, from one thread each, all at once: {cell: status}."""
    start = threading.Barrier(len(cells))
    statuses = {}

    def move(cell):
        start.wait()
        statuses[cell] = post(client, game, "moves", {"move": cell}).status_code

    threads = [threading.Thread(target=move, args=(cell,)) for cell in cells]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


def test_two_moves_racing_for_one_turn(client):
    game = new_game(client)
    for round_ in range(5):
        statuses = race(client, game, ["a1", "e5"])
        assert sorted(statuses.values()) == [200, 409], round_
        winner = next(cell for cell, status in statuses.items() if status == 200)
        after = current(client, game)
        assert after["moves"] == [winner] and after["stones"] == [1, 0]
        post(client, game, "undo")


def test_a_search_holds_only_its_own_game(client, agents, monkeypatch):
    search = agents.get("hex", 5).counted
    search.prepare()  # its rate measured now: the search below is the page's
    searching, release = threading.Event(), threading.Event()
    real_move = search.move

    def slow_move(*args, **kwargs):
        searching.set()
        assert release.wait(30)
        return real_move(*args, **kwargs)

    monkeypatch.setattr(search, "move", slow_move)
    monkeypatch.setattr(web_game, "SOLVER_S", -1.0)  # Hex 5x5 is solved at once: searched instead
    slow, other = new_game(client, human=1), new_game(client)
    results = {}
    ai = threading.Thread(target=lambda: results.update(ai=post(client, slow, "ai")))
    ai.start()
    try:
        assert searching.wait(30)
        # Other games go on while the search runs...
        assert post(client, other, "moves", {"move": "b2"}).status_code == 200
        assert client.get("/api/options").status_code == 200
        # ...while requests on the searching game wait for it.
        reader = threading.Thread(target=lambda: results.update(get=current(client, slow)))
        reader.start()
        time.sleep(0.5)
        assert "get" not in results
    finally:
        release.set()
    ai.join(30)
    reader.join(30)
    assert results["ai"].status_code == 200
    assert (
        results["get"]["moves"] == results["ai"].json()["moves"]
        and len(results["get"]["moves"]) == 1
    )


# --- watching and replaying ---------------------------------------------------------------


def test_a_records_file_line_loads_as_a_game_the_ai_plays_alone(client, tmp_path):
    hex5 = hexjax.make("hex", size=5)
    records = tmp_path / "records.txt"
    arena.write_records(hex5, np.array([hex5.parse_moves("a1 b2 c3") + [-1, -1]]), records)
    line = records.read_text().splitlines()[0]
    game = new_game(client, human=None, moves=line)
    assert game["human"] is None and game["moves"] == ["a1", "b2", "c3"]
    assert game["ai_to_move"] and game["ply"] == game["plies"] == 3
    for ply in (4, 5):  # the AI plays White, then Black
        reply = post(client, game, "ai").json()
        assert len(reply["moves"]) == ply and reply["ai_to_move"]
    before = current(client, game)
    assert before["stones"] == [3, 2]
    refused(post(client, game, "moves", {"move": "e5"}), 409, "AI plays both sides")
    refused(post(client, game, "undo"), 409, "nothing to undo", "both sides")
    assert current(client, game) == before


def test_stepping_through_a_game_by_ply(client):
    game = new_game(client, moves=["c1", "a1", "c2", "a2", "c3"])
    start = client.get(f"/api/games/{game['id']}?ply=0").json()
    assert start["board"] == [[0] * 5 for _ in range(5)] and start["moves"] == []
    assert (start["ply"], start["plies"], start["last"]) == (0, 5, None)
    assert start["to_play"] == 0 and start["legal"] == list(range(25))
    two = client.get(f"/api/games/{game['id']}?ply=2").json()
    assert two["moves"] == ["c1", "a1"] and two["last"] == {"action": 0, "move": "a1"}
    assert two["board"][0][:3] == [2, 0, 1] and two["stones"] == [1, 1] and two["to_play"] == 0
    whole = client.get(f"/api/games/{game['id']}?ply=5").json()
    assert whole == current(client, game) == game
    for query, words in [
        ("ply=6", "'ply' must be between 0 and 5"),
        ("ply=-1", "'ply' must be a number of moves"),
        ("ply=two", "'ply' must be a number of moves"),
        ("ply=1.0", "'ply' must be a number of moves"),
        ("ply=%C2%B2", "'ply' must be a number of moves"),
        ("ply=" + "9" * 50, "'ply' must be a number of moves"),
        ("move=1", "unknown query parameter"),
    ]:
        refused(client.get(f"/api/games/{game['id']}?{query}"), 400, words)
    assert current(client, game) == game
    refused(client.get("/api/games/nope?ply=1"), 404, "no game")


def test_sgf_download(client):
    game = new_game(client, moves=["c1", "a1", "c2", "a2", "c3", "a3", "c4", "a4"])
    post(client, game, "moves", {"move": "c5"})
    response = client.get(f"/api/games/{game['id']}/sgf")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/x-go-sgf")
    assert response.headers["content-disposition"].startswith("attachment; filename=")
    assert response.headers["content-disposition"].endswith('.sgf"')
    assert response.text == (
        "(;FF[4]GM[11]SZ[5]AP[hexjax]PB[you]PW[hexjax hex5 (2 simulations)]RE[B+]"
        ";B[c1];W[a1];B[c2];W[a2];B[c3];W[a3];B[c4];W[a4];B[c5])\n"
    )
    renju = new_game(client, game="gomoku", size=9, human=None, moves="e5 a1")
    assert client.get(f"/api/games/{renju['id']}/sgf").text == (
        "(;FF[4]GM[4]SZ[9]RU[renju]AP[hexjax]PB[hexjax gomoku9 (2 simulations)]"
        "PW[hexjax gomoku9 (2 simulations)];B[ee];W[ai])\n"
    )
    othello = new_game(client, game="othello", size=6)
    refused(client.get(f"/api/games/{othello['id']}/sgf"), 404, "no SGF", "othello")
    refused(client.get("/api/games/nope/sgf"), 404, "no game")
    refused(client.post(f"/api/games/{game['id']}/sgf"), 405, "Method Not Allowed")


def _post(address: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(address, json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=600) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@contextlib.contextmanager
def _server(flags: list[str], env: dict | None = None):
    """The server started as a user does, on a free port: (process, its /api/games URL) once it
    answers. Killed on the way out, whatever failed."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = [sys.executable, "-m", "hexjax.commands.play", "--web", "--port", str(port), *flags]
    server = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        assert "play at" in server.stdout.readline()  # printed before it listens: wait
        for _ in range(3000):
            with contextlib.suppress(urllib.error.URLError):
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/options", timeout=10)
                break
            time.sleep(0.1)
        yield server, f"http://127.0.0.1:{port}/api/games"
    finally:
        server.kill()


def test_ctrl_c_ends_a_search_in_flight(agents):
    """The server started as a user does, a 4096-simulation AI move asked for, then Ctrl-C
    (SIGINT): the request in flight gets 503 at once instead of its move when the search is
    done, and the server exits cleanly."""
    flags = ["--model-dir", str(agents.model_dir), "--simulations", "4096"]
    with _server(flags) as (server, url):
        status, game = _post(url, {"game": "gomoku", "size": 9, "human": 1})
        assert status == 201 and game["ai_to_move"] and game["simulations"] == 4096
        answers, ai = [], f"{url}/{game['id']}/ai"
        asking = threading.Thread(target=lambda: answers.append(_post(ai, {})))
        asking.start()
        time.sleep(2)  # the search (or its compile) is under way: it takes far longer
        server.send_signal(signal.SIGINT)
        asking.join(timeout=600)
        _, err = server.communicate(timeout=120)
    assert answers == [(503, {"error": "the server is stopping"})], err
    assert server.returncode == 0, err


def test_a_second_server_reads_the_search_from_the_compilation_cache(agents, tmp_path):
    """The AI's search keeps its compiled steps in $XDG_CACHE_HOME/hexjax/jax: a server started
    again and asked the same move writes nothing new, so its first reply compiles no search."""
    cache = tmp_path / "xdg" / "hexjax" / "jax"
    env = {k: v for k, v in os.environ.items() if k != "JAX_COMPILATION_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    flags = ["--model-dir", str(agents.model_dir), "--simulations", "4"]

    def first_reply() -> set[str]:
        with _server(flags, env) as (_, url):
            status, game = _post(url, {"game": "gomoku", "size": 9, "human": 1})
            assert status == 201
            status, game = _post(f"{url}/{game['id']}/ai", {})
            assert status == 200 and game["stones"] == [1, 0], game
        return {str(p.relative_to(cache)) for p in cache.rglob("*")}

    first = first_reply()
    steps = {name.split("/")[1].split("-")[0] for name in first if name.startswith("exported/")}
    assert {"grow", "reroot", "plan", "choose"} <= steps, first
    assert first_reply() == first


def test_a_win_by_fours_is_proven_and_played(client):
    """Renju 9x9, Black to move with an open three on row 5: a four at either end wins next
    move whatever White does. The solver proves it before any search; the AI plays it."""
    game = new_game(client, game="gomoku", size=9, rule="renju", human=None,
                    moves="d5 a1 e5 a9 f5 i1")  # fmt: skip
    analysis = client.get(f"/api/games/{game['id']}/analysis").json()
    assert analysis["proven"] and analysis["moves_to_win"] == 2
    assert analysis["move"] in ("c5", "g5") and analysis["win_probability"] == 1.0
    reply = post(client, game, "ai").json()
    assert reply["moves"][-1] == analysis["move"]
    hex_game = new_game(client, moves="a1")  # Hex 5x5 is solved at once: White's a1 loses
    analysis = client.get(f"/api/games/{hex_game['id']}/analysis").json()
    assert analysis["proven"] and analysis["moves_to_win"] is None  # the Hex solver: no count
    othello = new_game(client, game="othello", size=6)  # no solver: searched
    assert client.get(f"/api/games/{othello['id']}/analysis").json()["proven"] is False
