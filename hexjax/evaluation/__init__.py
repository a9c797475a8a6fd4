"""Measuring agents: players that need no training (random, greedy, rollout MCTS), the
network's players, the batched arena, round robins and Elo, the exact Hex solver and the Gomoku
tactics puzzles, and the plots of all of them. Nothing here reads checkpoints: a trained agent
comes in as an `Entrant` (`hexjax.training.restore.load_trained`).

Modules: `players`, `greedy`, `rollout_mcts`, `arena` (`arena.arena`, `arena_games`, openings,
records), `scores` (`summarize`), `tournament`, `elo`, `hex_solver`, `puzzles`, `plots`. A package
attribute never shadows a module of the same name.
"""

from hexjax.evaluation.arena import arena_games
from hexjax.evaluation.elo import fit
from hexjax.evaluation.players import (
    greedy_player,
    make_network_player,
    make_search_player,
    random_player,
    rollout_mcts_player,
)
from hexjax.evaluation.scores import summarize
from hexjax.evaluation.tournament import round_robin

__all__ = [
    "arena_games",
    "fit",
    "greedy_player",
    "make_network_player",
    "make_search_player",
    "random_player",
    "rollout_mcts_player",
    "round_robin",
    "summarize",
]
