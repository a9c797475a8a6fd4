"""Game registry: `make(name, **options)` and `available_games()`."""

from __future__ import annotations

from hexjax.games._base import Game, State, Symmetry
from hexjax.games.gomoku import Gomoku
from hexjax.games.hex import Hex, HexState
from hexjax.games.othello import Othello, OthelloState

_REGISTRY: dict[str, type[Game]] = {"hex": Hex, "gomoku": Gomoku, "othello": Othello}


def available_games() -> list[str]:
    """Names accepted by `make`."""
    return sorted(_REGISTRY)


def make(name: str, **options) -> Game:
    """A game by name with its options, e.g. `make("hex", size=7, swap=True)`."""
    try:
        cls = _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown game {name!r}; available: {', '.join(available_games())}"
        ) from None
    try:
        return cls(**options)
    except TypeError as error:
        raise ValueError(f"bad options for {name!r}: {error}") from None


__all__ = [
    "Game",
    "Gomoku",
    "Hex",
    "HexState",
    "Othello",
    "OthelloState",
    "State",
    "Symmetry",
    "available_games",
    "make",
]
