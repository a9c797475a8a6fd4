"""hexjax: AlphaZero-style agents for Hex, Gomoku and Othello, fully vectorised in JAX."""

from hexjax.games import Game, State, Symmetry, available_games, make

__version__ = "0.1.0"

__all__ = ["Game", "State", "Symmetry", "__version__", "available_games", "make"]
