"""The callable contracts that connect the layers, named once (as mctx's `base.py` does).

A game (`hexjax.games.Game`) is pure rules. Everything that picks moves is one of:

- `Player`: `player(key, states) -> actions`, pure and batched: int32[B] actions, legal
  wherever the game is live. Random, greedy and rollout-MCTS players are Players.
- `PlayerFactory`: `make_player(params) -> Player`, for players with network parameters (the
  network alone, or the network with search), so one compiled arena serves every checkpoint.
- `Entrant`: a PlayerFactory with its parameters and a `kind` (entrants of one kind share the
  factory, so a round robin compiles one arena per pair of kinds).

A training algorithm is a pair `(Init, Iteration)`: `init(key) -> state`, and a pure
`iteration(state, key) -> (state, metrics)` jitted once by the host loop (`MakeIteration`
builds the pair from a config, a game and an optional device mesh).

Above these: a run's checkpoint comes back as a `hexjax.training.restore.Trained` (its
config, game, parameters and PlayerFactory), and the front ends' `hexjax.play.Agent` runs the
same deterministic search on one position at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax

from hexjax.games import State

Params = Any  # a pytree of network parameters
Player = Callable[[jax.Array, State], jax.Array]
PlayerFactory = Callable[[Params], Player]
Init = Callable[[jax.Array], Any]
Iteration = Callable[[Any, jax.Array], tuple[Any, dict]]
MakeIteration = Callable[..., tuple[Init, Iteration]]  # (config, game, mesh) -> (init, iteration)


class Entrant(NamedTuple):
    """A player with its parameters, as tournaments and evaluations take it."""

    kind: str  # entrants of one kind share `make_player`
    make_player: PlayerFactory
    params: Params = None

    @classmethod
    def fixed(cls, kind: str, player: Player) -> Entrant:
        """An entrant without parameters (random, greedy, rollout MCTS)."""
        return cls(kind, lambda params: player)


__all__ = ["Entrant", "Init", "Iteration", "MakeIteration", "Params", "Player", "PlayerFactory"]
