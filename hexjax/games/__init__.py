"""The games: pure, jittable rules behind one contract (`Game`, docs/design.md).

`make(name, **options)` builds one (`make("hex", size=7, swap=True)`); `GameConfig` is the
typed record of a game that configs, checkpoints and models carry; `random_legal_action` draws
uniformly among a batch's legal moves.
"""

from __future__ import annotations

from hexjax.games._base import ExtraAction, Game, State, Symmetry, tree_where
from hexjax.games.gomoku import Gomoku
from hexjax.games.hex import Hex, HexState
from hexjax.games.othello import Othello, OthelloState
from hexjax.games.registry import (
    DEFAULT_SIZES,
    GAME_OPTIONS,
    GameConfig,
    applies_only,
    available_games,
    check_options,
    make,
    sgf_games,
)
from hexjax.games.sampling import Positions, random_legal_action, random_positions

__all__ = [
    "DEFAULT_SIZES",
    "ExtraAction",
    "GAME_OPTIONS",
    "Game",
    "GameConfig",
    "Gomoku",
    "Hex",
    "HexState",
    "Othello",
    "OthelloState",
    "Positions",
    "State",
    "Symmetry",
    "applies_only",
    "available_games",
    "check_options",
    "make",
    "random_legal_action",
    "random_positions",
    "sgf_games",
    "tree_where",
]
