"""Round robins: every pair of entrants plays an arena match; the results feed `hexjax.elo`.

An entrant is a player factory with its parameters: `Entrant(kind, make_player, params)`.
Entrants of one kind (the checkpoints of one run, say) share a factory and differ only in
their parameters, so each pair of kinds compiles one arena, reused for every pair of entrants
of those kinds.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import jax
import numpy as np

from hexjax import elo, players
from hexjax.games import Game


class Entrant(NamedTuple):
    kind: str  # entrants of one kind share `make_player`
    make_player: Callable[[Any], Callable]  # params -> player(key, states) -> actions
    params: Any = None


def round_robin(
    game: Game,
    entrants: Mapping[str, Entrant],
    key: jax.Array,
    games: int,
    opening_plies: int = 2,
    openings=None,
    mesh=None,
    report: Callable[[elo.Match], None] | None = None,
) -> list[elo.Match]:
    """`games` games for every pair of entrants (colours alternated, shared openings)."""
    compiled = {}
    matches = []
    names = list(entrants)
    for (a, b), match_key in zip(
        itertools.combinations(names, 2),
        jax.random.split(key, len(names) * (len(names) - 1) // 2),
        strict=True,
    ):
        first, second = entrants[a], entrants[b]
        kinds = (first.kind, second.kind)
        if kinds not in compiled:
            compiled[kinds] = jax.jit(
                lambda pa, pb, k, fa=first.make_player, fb=second.make_player: players.arena(
                    game,
                    fa(pa),
                    fb(pb),
                    k,
                    games,
                    opening_plies,
                    openings=openings,
                    mesh=mesh,
                )
            )
        scores = np.asarray(compiled[kinds](first.params, second.params, match_key))
        match = elo.Match(a, b, float(scores.sum()), games)
        matches.append(match)
        if report is not None:
            report(match)
    return matches


def fixed(player) -> Callable[[Any], Callable]:
    """A factory for a player without parameters (random, greedy, rollout MCTS)."""

    def make_player(params):
        del params
        return player

    return make_player
