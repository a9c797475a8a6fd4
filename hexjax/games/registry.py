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
# The options only some games take, and which: the one record every command checks its flags
# against, so that `--rule` on an Othello run is refused rather than ignored.
GAME_OPTIONS = {"rule": ("gomoku",), "swap": ("hex",), "threats": ("gomoku",)}
# Options that change what the network sees, not how the game is played.
OBSERVATION_OPTIONS = ("threats",)


def available_games() -> list[str]:
    """Names accepted by `make`."""
    return sorted(_REGISTRY)


def sgf_games() -> dict[int, type[Game]]:
    """The games SGF records can hold, by their GM[] number."""
    return {cls.sgf_number: cls for cls in _REGISTRY.values() if cls.sgf_number is not None}


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


def applies_only(flag: str, games, game: str) -> str:
    """The message for a flag given with a game it does not apply to."""
    return f"{flag} applies to {' and '.join(games)} only (the game is {game})"


def check_options(game: str, given: dict[str, str]) -> None:
    """ValueError naming the first flag that `game` does not take. `given` maps each flag the
    user gave, as written (`--rule`, `--game.rule`), to its game option (`rule`); a flag that is
    not a game option (`--board`) applies to every game."""
    for flag, option in given.items():
        games = GAME_OPTIONS.get(option)
        if games is not None and game not in games:
            raise ValueError(applies_only(flag, games, game))


@dataclasses.dataclass(frozen=True)
class GameConfig:
    name: str = "hex"
    size: int = 7
    rule: str = "freestyle"  # gomoku only: freestyle | standard | renju
    swap: bool = False  # hex only
    threats: bool = False  # gomoku only: observation planes of win and four points

    def make(self) -> Game:
        options = {"size": self.size}
        for option, games in GAME_OPTIONS.items():
            if self.name in games:
                options[option] = getattr(self, option)
        return make(self.name, **options)

    @property
    def label(self) -> str:
        """ "hex 7x7", "gomoku 15x15 renju", "hex 9x9 with swap" (`Game.label`)."""
        return self.make().label

    def canonical(self) -> GameConfig:
        """The game as it plays: the options it does not take at their defaults, so that two
        configs of one game compare equal."""
        unused = {
            field.name: field.default
            for field in dataclasses.fields(self)
            if self.name not in GAME_OPTIONS.get(field.name, (self.name,))
        }
        return dataclasses.replace(self, **unused)

    def as_played(self) -> GameConfig:
        """The game as it is played, whatever its network sees (`canonical` with the
        observation options at their defaults): what front ends match models by."""
        defaults = {field.name: field.default for field in dataclasses.fields(self)}
        return dataclasses.replace(
            self.canonical(), **{name: defaults[name] for name in OBSERVATION_OPTIONS}
        )
