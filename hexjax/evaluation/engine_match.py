"""Matches against external engines, refereed by hexjax's own rules.

`play_engine_match(game, agent_move, make_opponent, openings, num_games)` plays the agent (a
function from one state to its action) against an engine (`hexjax.evaluation.engines`) the
way the arena plays two batched players: the agent is Black in the first half of the games
and White in the second, and game i of each half starts from `openings[i]`, so every opening
is played once with each colour and `scores.summarize` reads the scores alike.

The engine's moves are checked against the game's rules: an illegal move (a renju foul, an
occupied point, a swap where there is none) loses the game for the engine and is reported.
So does a failure of its process (it died, did not answer in time, answered nonsense or
refused a move): a process that died or hangs is killed, and the next game starts a fresh one.
The match stops, with EngineFailure naming why, only when the engine never starts (a wrong
command or setup line) or MAX_FAILED_STARTS restarts in a row fail. With `jobs` > 1, that
many engine processes each play a share of the games at once (the agent's moves are then
asked from several threads).
"""

from __future__ import annotations

import pathlib
import shlex
import statistics
import threading
import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from hexjax.evaluation import sgf
from hexjax.evaluation.engines import RESIGN, EngineFailure, EngineOpponent
from hexjax.games import Game, State

__all__ = [
    "EngineGame",
    "MAX_FAILED_STARTS",
    "play_engine_match",
    "random_openings",
    "summary",
    "write_sgf",
]

MAX_FAILED_STARTS = 3
RULES = "rules"  # EngineGame.ended for a game won or drawn on the board


class EngineGame(NamedTuple):
    actions: list[int]  # every move, the opening's included
    agent_black: bool
    score: float  # the agent's: 1 win, 0.5 draw, 0 loss
    ended: str  # RULES, 'resigned', 'illegal move' or an EngineFailure's kind
    detail: str  # what happened, for the report ('' for a game ended by the rules)
    verdict: int | None  # the winner by the engine's own judgement (None: not asked)
    agent_seconds: list[float]
    engine_seconds: list[float]

    @property
    def verdict_differs(self) -> bool:
        """The engine judges the finished game otherwise than the rules did."""
        if self.ended != RULES or self.verdict is None:
            return False
        agent = 0 if self.agent_black else 1
        winner = agent if self.score == 1 else 1 - agent if self.score == 0 else -1
        return self.verdict != winner

    def sgf_result(self) -> str | None:
        """SGF's RE for a game the rules did not end (R resign, T time, F forfeit), else None."""
        if self.ended == RULES:
            return None
        winner = "BW"[0 if self.agent_black else 1]
        return f"{winner}+" + {"resigned": "R", "timeout": "T"}.get(self.ended, "F")


def random_openings(game: Game, count: int, plies: int, seed: int, starts=((),)) -> list[list[int]]:
    """`count` openings: opening i is `starts[i mod len(starts)]` followed by `plies` uniformly
    random legal plies, drawn again until they leave the game running."""
    rng = np.random.default_rng(seed)
    openings = []
    for index in range(count):
        start = [int(a) for a in starts[index % len(starts)]]
        for _ in range(1000):
            state, actions = game.from_moves(start), list(start)
            for _ in range(plies):
                if bool(state.terminated):
                    break
                action = int(rng.choice(game.legal_actions(state)))
                state = game.host_step(state, action)
                actions.append(action)
            if not bool(state.terminated):
                break
        else:
            raise ValueError(
                f"{plies} random plies after {game.format_moves(start)!r} end the game"
            )
        openings.append(actions)
    return openings


def play_engine_match(
    game: Game,
    agent_move: Callable[[State], int],
    make_opponent: Callable[[], EngineOpponent],
    openings: list[list[int | str]],
    num_games: int,
    jobs: int = 1,
    report: Callable[[int, int], None] | None = None,
) -> list[EngineGame]:
    """The games in the arena's order (the agent Black in the first half); see the module."""
    if num_games < 2 or num_games % 2:
        raise ValueError(f"an engine match needs an even number of games, got {num_games}")
    if not openings:
        raise ValueError("an engine match needs at least one opening (it may be empty: [[]])")
    openings = [game.parse_moves(list(opening)) for opening in openings]
    half = num_games // 2
    results: list[EngineGame | None] = [None] * num_games
    lock = threading.Lock()
    pending = iter(range(num_games))
    errors: list[BaseException] = []
    done = [0]

    def worker() -> None:
        opponent = make_opponent()
        failed_starts, started = 0, False
        try:
            while not errors:
                with lock:
                    index = next(pending, None)
                if index is None:
                    return
                opening = openings[(index % half) % len(openings)]
                result = _one_game(game, agent_move, opponent, opening, index < half)
                failed_starts = failed_starts + 1 if result.ended == "start" else 0
                started = started or result.ended != "start"
                if failed_starts and not started:  # it never worked: its command or setup
                    command = shlex.join(opponent.argv)
                    raise EngineFailure("died", f"{command} did not start: {result.detail}")
                if failed_starts >= MAX_FAILED_STARTS:
                    raise EngineFailure(
                        "died", f"{failed_starts} starts in a row failed: {result.detail}"
                    )
                if result.ended == "start":  # a game the engine could not begin: it loses
                    result = result._replace(ended="died")
                with lock:
                    results[index] = result
                    done[0] += 1
                    finished = done[0]
                if report is not None:
                    report(finished, num_games)
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
            errors.append(error)
        finally:
            opponent.close()

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


def _one_game(game, agent_move, opponent: EngineOpponent, opening, agent_black) -> EngineGame:
    actions = list(opening)
    agent = 0 if agent_black else 1
    timing: dict[str, list[float]] = {"agent": [], "engine": []}

    def result(score, ended, detail="", verdict=None) -> EngineGame:
        return EngineGame(actions, agent_black, score, ended, detail, verdict,
                          timing["agent"], timing["engine"])  # fmt: skip

    try:
        opponent.new_game(opening)
    except EngineFailure as error:
        return result(1.0, "start", f"{error.kind}: {error}")
    state = game.from_moves(opening)
    try:
        while not bool(state.terminated):
            started = time.monotonic()
            if int(state.current_player) == agent:
                action = int(agent_move(state))
                timing["agent"].append(time.monotonic() - started)
                state = game.host_step(state, action)
                actions.append(action)
                try:
                    opponent.tell(action)  # the last one too: the engine's verdict needs it
                except EngineFailure as error:
                    if not bool(state.terminated):
                        raise
                    opponent.failed(error)  # the game stands as the rules ended it
                    return result(float(int(state.winner) == agent), RULES, f"no verdict: {error}")
                continue
            action = opponent.ask()
            timing["engine"].append(time.monotonic() - started)
            if action == RESIGN:
                return result(1.0, "resigned", f"{opponent.name} resigned")
            if not bool(state.legal_action_mask[action]):
                move = game.action_to_string(action)
                reason = game.illegal_reason(state, action)
                return result(1.0, "illegal move", f"{opponent.name} played {move}: {reason}")
            state = game.host_step(state, action)
            actions.append(action)
    except EngineFailure as error:
        opponent.failed(error)
        return result(1.0, error.kind, str(error))
    winner = int(state.winner)
    score = 0.5 if winner < 0 else float(winner == agent)
    try:
        verdict = opponent.verdict()
    except EngineFailure as error:  # the game stands as the rules ended it
        opponent.failed(error)
        return result(score, RULES, f"no verdict: {error}")
    return result(score, RULES, verdict=verdict)


def summary(games: list[EngineGame]) -> dict:
    """What the arena's summary does not say: how the games ended, the engine's failures and
    verdicts, and the mean seconds a move of each side."""
    endings: dict[str, int] = {}
    for g in games:
        endings[g.ended] = endings.get(g.ended, 0) + 1
    agent = [s for g in games for s in g.agent_seconds]
    engine = [s for g in games for s in g.engine_seconds]
    return {
        "endings": endings,
        "engine_failures": [
            {"game": i + 1, "ended": g.ended, "detail": g.detail}
            for i, g in enumerate(games)
            if g.ended not in (RULES, "resigned")
        ],
        "verdicts_asked": sum(g.verdict is not None for g in games),
        "verdicts_differ": [i + 1 for i, g in enumerate(games) if g.verdict_differs],
        # Means: a search's time goes mostly into a few moves (MoHex's early ones, say).
        "agent_seconds_per_move": round(statistics.mean(agent), 3) if agent else None,
        "engine_seconds_per_move": round(statistics.mean(engine), 3) if engine else None,
        "plies": round(statistics.mean(len(g.actions) for g in games), 1),
    }


def write_sgf(game: Game, games: list[EngineGame], directory, stem: str, agent: str, engine: str):
    """Each game as `directory`/`stem`-N.sgf, N from 1 in the match's order; a game the rules
    did not end says how it ended (RE with R, T or F, and a comment)."""
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for index, played in enumerate(games):
        names = (agent, engine) if played.agent_black else (engine, agent)
        text = sgf.write_sgf(game, played.actions, *names, result=played.sgf_result(),
                             comment=played.detail or None)  # fmt: skip
        (directory / f"{stem}-{index + 1}.sgf").write_text(text)
