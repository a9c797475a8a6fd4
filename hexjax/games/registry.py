"""Games by name: `make(name, **options)`, `available_games()`, and `GameConfig`, the typed
record of a game that configs, checkpoints and shipped models carry."""

from __future__ import annotations

import dataclasses

from hexjax.games._base import Game
from hexjax.games.gomoku import Gomoku
from hexjax.games.hex import Hex
from hexjax.games.othello import Othello

_REGISTRY: dict[str, type[Game]] = {"hex": Hex, "gomoku": Gomoku, "othello": Othello}
# The board a command line picks when none is given.
DEFAULT_SIZES = {"hex": 7, "gomoku": 9, "othello": 8}


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


@dataclasses.dataclass(frozen=True)
class GameConfig:
    name: str = "hex"
    size: int = 7
    rule: str = "freestyle"  # gomoku only: freestyle | standard | renju
    swap: bool = False  # hex only

    def make(self) -> Game:
        options = {"size": self.size}
        if self.name == "gomoku":
            options["rule"] = self.rule
        if self.name == "hex":
            options["swap"] = self.swap
        return make(self.name, **options)
