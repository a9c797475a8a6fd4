"""How soon do the play front ends answer? Their first AI move after a start, on this machine.

The web page (default): starts `python -m hexjax.commands.play --web` on a free port, as a
user's `make web` does, and waits until it answers. Then, for each game asked for, a new game
with the person as White so that the AI opens (`POST /api/games`), and the AI's moves (`POST
/api/games/{id}/ai`), each timed from the request sent to the answer read. Prints the seconds
until the server answered and, per game, the first reply (the one that may compile the search)
and the later replies' median.

`--front terminal`: for each game, `python -m hexjax.commands.play --game G --board N --colour
white` (the AI opens), timed from its first line (the model loaded) to "AI plays", and the
process's start to that first line.

`--front api`: for each game, a new Python process that does what a notebook does
(`Agent.shipped(...)`, then `agent.move(state, simulations)` twice on the start position),
timed from its start to the agent loaded, the first move and the second.

Both use the compilation cache they always use (`hexjax/play/compile_cache.py`); run twice to
see a warm cache.

    python experiments/first_reply.py                       # Hex 11x11 and Gomoku 15x15
    python experiments/first_reply.py --games gomoku:15:renju hex:7 --simulations 64
    python experiments/first_reply.py --front terminal --games hex:7 hex:11
    python experiments/first_reply.py --front api --games gomoku:15 hex:11 --simulations 64
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request

READY_TIMEOUT_S = 300.0  # the longest the server may take to answer its first request


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def request(url: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    headers = {} if body is None else {"Content-Type": "application/json"}
    with urllib.request.urlopen(urllib.request.Request(url, data, headers), timeout=600) as reply:
        return json.loads(reply.read())


def timed(url: str, body: dict | None = None) -> tuple[dict, float]:
    started = time.monotonic()
    answer = request(url, body)
    return answer, time.monotonic() - started


def wait_until_serving(base: str, process: subprocess.Popen) -> float:
    began = time.monotonic()
    while time.monotonic() - began < READY_TIMEOUT_S:
        if process.poll() is not None:
            raise SystemExit(f"the server exited with code {process.returncode}")
        try:
            request(base + "/api/options")
            return time.monotonic() - began
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.05)
    raise SystemExit(f"the server did not answer within {READY_TIMEOUT_S:.0f} s")


def play(base: str, spec: str, simulations: int, moves: int) -> tuple[float, list[float]]:
    """(first reply, later replies) of the AI opening a game of `spec` (GAME:SIZE[:RULE]) and
    answering the person's moves, each the first legal move in the list the server gives."""
    name, size, *rule = spec.split(":")
    body = {"game": name, "size": int(size), "human": 1, "simulations": simulations}
    if rule:
        body["rule"] = rule[0]
    game = request(base + "/api/games", body)
    url = f"{base}/api/games/{game['id']}"
    seconds = []
    for _ in range(moves):
        game, took = timed(url + "/ai", {})
        seconds.append(took)
        if game["over"]:
            break
        game = request(url + "/moves", {"move": game["legal"][0]})
        if game["over"]:
            break
    return seconds[0], seconds[1:]


def terminal(spec: str, simulations: int | None) -> tuple[float, float]:
    """(start to the first line, first line to "AI plays") of the terminal game `spec`."""
    name, size, *rule = spec.split(":")
    argv = [sys.executable, "-m", "hexjax.commands.play", "--game", name, "--board", size,
            "--colour", "white", "--no-colour", *(["--rule", rule[0]] if rule else []),
            *(["--simulations", str(simulations)] if simulations else [])]  # fmt: skip
    began = time.monotonic()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        if not process.stdout.readline():
            raise SystemExit(f"{' '.join(argv)} printed nothing")
        ready = time.monotonic()
        for line in process.stdout:
            if line.startswith("AI plays"):
                break
        else:
            raise SystemExit(f"{' '.join(argv)} ended before the AI played")
        replied = time.monotonic()
        process.communicate("quit\n", timeout=60)
    finally:
        process.kill()
    return ready - began, replied - ready


# What a notebook does, in a process of its own: prints its three times as JSON.
_API_SESSION = """
import json, sys, time
began = time.monotonic()
import hexjax
from hexjax.play import Agent
name, size, rule, simulations = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
agent = Agent.shipped(name, size, rule)
loaded = time.monotonic()
state = agent.game.new_state()
agent.move(state, simulations)
first = time.monotonic()
agent.move(state, simulations)
second = time.monotonic()
print(json.dumps([loaded - began, first - loaded, second - first, hexjax.__file__]))
"""


def api(spec: str, simulations: int) -> list:
    """[start to the agent loaded, its first move, its second, the hexjax imported] in a new
    Python process (as PYTHONPATH says, not the current folder first: -P)."""
    name, size, *rule = spec.split(":")
    argv = [sys.executable, "-P", "-c", _API_SESSION, name, size, rule[0] if rule else "freestyle",
            str(simulations)]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"the {spec} session failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--front", choices=("web", "terminal", "api"), default="web")
    parser.add_argument("--games", nargs="+", default=["hex:11", "gomoku:15"],
                        help="GAME:SIZE[:RULE] for each game, in order")  # fmt: skip
    parser.add_argument("--simulations", type=int, default=None,
                        help="each game's strength (default: the front end's)")  # fmt: skip
    parser.add_argument("--moves", type=int, default=4, help="AI moves a web game")
    args = parser.parse_args(argv)
    if args.front == "terminal":
        print("| game | started | first reply |")
        print("|---|---|---|")
        for spec in args.games:
            started, first = terminal(spec, args.simulations)
            print(f"| {spec} | {started:.1f} s | {first:.2f} s |", flush=True)
        return 0
    if args.front == "api":
        simulations = args.simulations or 64
        print(f"{simulations} simulations a move")
        print("| game | agent loaded | first move | second move | hexjax |")
        print("|---|---|---|---|---|")
        for spec in args.games:
            loaded, first, second, package = api(spec, simulations)
            print(f"| {spec} | {loaded:.1f} s | {first:.2f} s | {second:.2f} s | {package}",
                  flush=True)  # fmt: skip
        return 0
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    argv = [sys.executable, "-m", "hexjax.commands.play", "--web", "--port", str(port)]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    try:
        serving_s = wait_until_serving(base, process)
        simulations = args.simulations or request(base + "/api/options")["defaults"]["simulations"]
        print(f"server answering after {serving_s:.1f} s; {simulations} simulations a move")
        print("| game | first reply | later replies (median) |")
        print("|---|---|---|")
        for spec in args.games:
            first, later = play(base, spec, simulations, args.moves)
            rest = f"{statistics.median(later):.2f} s" if later else "-"
            print(f"| {spec} | {first:.2f} s | {rest} |", flush=True)
    finally:
        process.terminate()
        process.wait(timeout=60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
