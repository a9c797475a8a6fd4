"""How often a player picks a winning move where one exists, on positions from an agent's games
against itself: Hex up to 7x7, where the exact solver (`hex_solver`) knows the answer."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from hexjax.base import Entrant
from hexjax.evaluation import arena, hex_solver
from hexjax.games import Game, State

# The solver's time grows steeply with the empty cells: 5x5 positions take well under a second,
# early 7x7 ones minutes each. So on bigger boards only late positions are solved.
MAX_EMPTY = 25  # every position of a 5x5 game


@dataclasses.dataclass(frozen=True)
class Options:
    games: int  # of the agent against itself, whose positions are judged
    opening_plies: int  # random plies before the agent plays (varies the games)
    seed: int = 0
    max_empty: int = MAX_EMPTY  # positions with more empty cells are left out


def self_play_positions(game: Game, agent: Entrant, options: Options, openings=None,
                        mesh=None) -> State:  # fmt: skip
    """The positions (a batch) of `options.games` games of `agent` against itself with at
    most `options.max_empty` empty cells."""
    player = agent.make_player(agent.params)
    # The arena plays each opening with both colours: between two copies of one deterministic
    # agent those games are the same, so play twice as many and keep the first half.
    games = jax.jit(
        lambda k: arena.arena_games(game, player, player, k, 2 * options.games,
                                    options.opening_plies, openings=openings, mesh=mesh)
    )(jax.random.key(options.seed))  # fmt: skip
    states = arena.positions_of_games(game, games.moves[: options.games])
    solvable = (np.asarray(states.board) == 0).sum(axis=(1, 2)) <= options.max_empty
    return jax.tree.map(lambda x: x[jnp.asarray(solvable)], states)


def scores(game: Game, contenders: dict[str, Entrant], states: State,
           seed: int = 0) -> Iterator[tuple[str, dict]]:  # fmt: skip
    """(name, {positions, correct, accuracy, seconds}) for each contender in turn: how often
    its move in `states` is a winning one where the position has one."""
    solver = hex_solver.HexSolver(game.size)
    boards = np.asarray(states.board)
    to_plays = np.asarray(states.current_player)
    for name, contender in contenders.items():
        start = time.monotonic()
        choose = jax.jit(lambda p, k, c=contender: c.make_player(p)(k, states))
        actions = np.asarray(choose(contender.params, jax.random.key(seed + 1)))
        result = accuracy(solver, boards, to_plays, actions)
        result["seconds"] = round(time.monotonic() - start, 1)
        yield name, result


def accuracy(
    solver: hex_solver.HexSolver,
    boards: Sequence[np.ndarray],
    to_plays: Sequence[int],
    chosen_actions: Sequence[int],
) -> dict[str, float | int]:
    """How often `chosen_actions` are winning moves, over the positions that have one.

    boards: int8[n, n] each; to_plays and chosen_actions: one int per board. Positions with no
    winning move (lost, or already over) are skipped and counted in "skipped".
    """
    if not len(boards) == len(to_plays) == len(chosen_actions):
        raise ValueError("boards, to_plays and chosen_actions must have the same length")
    positions = correct = skipped = 0
    for board, to_play, action in zip(boards, to_plays, chosen_actions, strict=True):
        winning = solver.winning_moves(board, int(to_play))
        if not winning:
            skipped += 1
            continue
        positions += 1
        correct += int(action) in winning
    return {
        "positions": positions,
        "correct": correct,
        "skipped": skipped,
        "accuracy": correct / positions if positions else 0.0,
    }
