"""Round robins: every pair of entrants plays an arena match; the results feed
`hexjax.evaluation.elo`.

An entrant (`hexjax.base.Entrant`) is a player factory with its parameters. Entrants of one
kind (the checkpoints of one run, say) share a factory and differ only in their parameters, so
each pair of kinds compiles one arena, reused for every pair of entrants of those kinds.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping

import jax
import numpy as np

from hexjax.base import Entrant
from hexjax.evaluation import elo
from hexjax.evaluation.arena import arena
from hexjax.games import Game


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
                lambda pa, pb, k, fa=first.make_player, fb=second.make_player: arena(
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
