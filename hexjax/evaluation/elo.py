"""Elo ratings from match results: a Bradley–Terry fit, anchored at one player.

Bradley–Terry gives player i a strength g_i with P(i beats j) = g_i / (g_i + g_j); Elo is
400 log10(g). Draws count as half a win for each side. The fit is Hunter's MM iteration
(monotone, no step size) with a small prior: every pair that met also drew `prior_games`
virtual games, so a player that won every game gets a large but finite rating. Standard errors
come from the Fisher information with the anchor held fixed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

ELO_PER_NEPER = 400 / math.log(10)


class Match(NamedTuple):
    first: str
    second: str
    score: float  # points of `first`: 1 a win, 0.5 a draw
    games: int


class Ratings(NamedTuple):
    elo: dict[str, float]
    stderr: dict[str, float]  # 0 for the anchor


def fit(
    matches: Sequence[Match],
    anchor: str,
    prior_games: float = 0.5,
    iterations: int = 10_000,
    tolerance: float = 1e-10,
) -> Ratings:
    """Elo of every player in `matches`, with `anchor` at 0."""
    names = sorted({m.first for m in matches} | {m.second for m in matches})
    if anchor not in names:
        raise ValueError(f"the anchor {anchor!r} played no game")
    index = {name: i for i, name in enumerate(names)}
    count = len(names)
    games = np.zeros((count, count))  # games[i, j]: games between i and j
    points = np.zeros((count, count))  # points[i, j]: what i scored against j
    for m in matches:
        if m.games < 1 or not 0 <= m.score <= m.games:
            raise ValueError(f"bad result {m}: need 0 <= score <= games and games >= 1")
        i, j = index[m.first], index[m.second]
        games[i, j] += m.games
        games[j, i] += m.games
        points[i, j] += m.score
        points[j, i] += m.games - m.score
    met = games > 0
    games = games + prior_games * met
    points = points + prior_games / 2 * met
    _check_connected(names, met)
    wins = points.sum(axis=1)
    strength = np.ones(count)
    for _ in range(iterations):
        pair = games / (strength[:, None] + strength[None, :])
        updated = wins / pair.sum(axis=1)
        updated /= updated[index[anchor]]
        done = np.max(np.abs(np.log(updated) - np.log(strength))) < tolerance
        strength = updated
        if done:
            break
    elo = ELO_PER_NEPER * np.log(strength)
    return Ratings(
        elo={name: float(elo[i]) for name, i in index.items()},
        stderr=_stderr(names, index[anchor], strength, games),
    )


def _check_connected(names, met) -> None:
    """Ratings are only comparable between players linked by games."""
    reached, frontier = {0}, [0]
    while frontier:
        i = frontier.pop()
        for j in np.flatnonzero(met[i]):
            if int(j) not in reached:
                reached.add(int(j))
                frontier.append(int(j))
    if len(reached) < len(names):
        apart = sorted(names[i] for i in set(range(len(names))) - reached)
        raise ValueError(f"no chain of games links {apart} to {names[0]!r}")


def _stderr(names, anchor: int, strength, games) -> dict[str, float]:
    """Elo standard errors: the inverse Fisher information of the log-strengths, anchor
    removed."""
    p = strength[:, None] / (strength[:, None] + strength[None, :])
    weight = games * p * p.T
    information = np.diag(weight.sum(axis=1)) - weight
    keep = [i for i in range(len(names)) if i != anchor]
    covariance = np.linalg.pinv(information[np.ix_(keep, keep)])
    stderr = {names[anchor]: 0.0}
    for position, i in enumerate(keep):
        stderr[names[i]] = float(ELO_PER_NEPER * math.sqrt(max(covariance[position, position], 0)))
    return stderr
