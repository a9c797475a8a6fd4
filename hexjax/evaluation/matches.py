"""The agent against each of its opponents: the matches compiled once, then played in turn with
a key each. Training's evaluations, `compare.py` and `evaluate.py` play their matches so."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import jax

from hexjax.base import Entrant, PlayerFactory
from hexjax.evaluation import arena
from hexjax.games import Game

# play(agent_params, key, report=None) -> ArenaGames: a match of `matches`
Match = Callable[..., arena.ArenaGames]


def matches(
    game: Game,
    agent: PlayerFactory,
    opponents: Mapping[str, Entrant],
    num_games: int,
    opening_plies: int = 2,
    openings=None,
    mesh=None,
    plies_per_call: int | None = None,
) -> dict[str, Match]:
    """{name: play(params, key, report=None) -> ArenaGames}, each compiled once: the agent
    (`agent(params)`) against each opponent (with its own parameters), colours alternated, the
    games of `arena_in_chunks`."""

    def against(opponent: Entrant) -> Match:
        play = arena.arena_in_chunks(
            game, agent, opponent.make_player, num_games, opening_plies, openings, mesh,
            plies_per_call,
        )  # fmt: skip
        return lambda params, key, report=None: play(params, opponent.params, key, report)

    return {name: against(opponent) for name, opponent in opponents.items()}


def each_match(
    matches: Mapping[str, Callable], key, *args, report=None
) -> Iterator[tuple[str, Any, float]]:
    """(name, what the match returned, seconds) for each of `matches` in turn, each called as
    `match(*args, match_key, report)`: the match keys are split off `key` one after another,
    and `report(name, ...)` hears each match's progress."""
    for name, match in matches.items():
        key, match_key = jax.random.split(key)
        start = time.monotonic()
        reported = None if report is None else functools.partial(report, name)
        played = match(*args, match_key, reported)
        yield name, played, round(time.monotonic() - start, 1)
