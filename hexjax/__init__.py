"""hexjax: AlphaZero-style agents for Hex, Gomoku and Othello, fully vectorised in JAX.

The package in layers (docs/design.md), each importing only those below it: `games` (rules),
`base` and `sharding` (the named contracts, device meshes), `alphazero` (the jitted core),
`baselines` and `evaluation`, `training` (runs on disk, the host loop), `play` (front ends),
`commands` (the command-line programs). The root re-exports the games' public names.
"""

from hexjax.games import Game, State, Symmetry, available_games, make

__version__ = "0.1.0"

__all__ = ["Game", "State", "Symmetry", "__version__", "available_games", "make"]
