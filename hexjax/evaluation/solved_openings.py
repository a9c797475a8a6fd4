"""The solved first moves of Hex 7x7, and how many of them a value function gets right.

Hayward, Björnsson, Johanson, Kan, Po and van Rijswijk solved every 7x7 opening ("Solving 7x7
Hex with domination, fill-in, and virtual connections", Theoretical Computer Science 349, 2005;
the proof trees at webdocs.cs.ualberta.ca/~hayward/hex7trees). The table below is transcribed
from Benzene's regression test `regression/dfpn-solve-7x7.tst` (the Alberta Hex group's solver,
github.com/cgao3/benzene-vanilla-cmake), which lists the winner after each first move a1..d4;
the other 24 cells follow by the half-turn rotation, which maps a 7x7 Hex position to one of
the same value. Benzene's coordinates and colours are hexjax's: column letter, row number
from 1 at the top, a1 an acute corner, the first player (Black) joining top and bottom.

    a b c d e f g        + the first player wins after playing here,
 1  - - - - - - +        - the second player wins
 2   - - + - + + +
 3    - + + + + + -
 4     + + + + + + +
 5      - + + + + + -
 6       + + + - + - -
 7        + - - - - - -
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from hexjax.alphazero import network as network_lib
from hexjax.alphazero import search as search_lib
from hexjax.games import Game, Hex, tree_where

SIZE = 7
# Row by row from the top, column a first; "+" where the opening wins for the first player.
_TABLE = (
    "------+",
    "--+-+++",
    "-+++++-",
    "+++++++",
    "-+++++-",
    "+++-+--",
    "+------",
)
FIRST_PLAYER_WINS = np.array([[cell == "+" for cell in row] for row in _TABLE])  # bool[7, 7]


def applies(game: Game) -> bool:
    """The table is for plain Hex 7x7 (with the swap rule the second player's options differ)."""
    return game.as_played == Hex(SIZE).as_played


def score(values_after) -> dict:
    """`values_after`: float[49], for each first move (action order) the value of the position
    after it from the view of the player to move there (the second player). Right where the
    sign says the second player loses exactly on the openings that win for the first."""
    values = np.asarray(values_after, np.float64).reshape(-1)
    if values.shape != (SIZE * SIZE,):
        raise ValueError(f"expected {SIZE * SIZE} values, got {values.shape}")
    first_wins = FIRST_PLAYER_WINS.reshape(-1)
    right = (values < 0) == first_wins
    return {
        "values": [round(float(v), 4) for v in values],
        "openings": int(right.size),
        "correct": int(right.sum()),
        "accuracy": float(right.mean()),
        "correct_winning": int((right & first_wins).sum()),  # of the first player's wins
        "winning": int(first_wins.sum()),
        "wrong": [int(a) for a in np.flatnonzero(~right)],
        # The second player's mean value where the first player wins (right: below 0) and
        # where it loses (right: above 0).
        "mean_where_first_wins": float(values[first_wins].mean()),
        "mean_where_first_loses": float(values[~first_wins].mean()),
    }


def board(values, wrong) -> list[str]:
    """`values` float[49] as the 7x7 board they belong to, one line a row, each value marked
    with ! where its sign is wrong (`wrong`: the actions)."""
    wrong = set(wrong)
    marks = ["!" if action in wrong else " " for action in range(SIZE * SIZE)]
    # Action a is the cell of column a % SIZE and row a // SIZE, as in the table above.
    lines = ["    " + "".join(f"{chr(ord('a') + c):>4}   " for c in range(SIZE))]
    for row in range(SIZE):
        cells = range(row * SIZE, (row + 1) * SIZE)
        lines.append(f"{row + 1:>3} " + "".join(f"{values[a]:+6.2f}{marks[a]}" for a in cells))
    return lines


def won_positions_lost(first_moves, agent_black, scores) -> dict:
    """Games from the solved first moves (int[G] first moves, bool[G] whether the agent was
    Black, float[G] its scores): of the positions that were wins for the agent's side, how
    many it lost, and the same for its opponent. Played with both colours, every first move
    is a won position for one player in each of its two games."""
    first_moves = np.asarray(first_moves, np.int64).reshape(-1)
    agent_black = np.asarray(agent_black, bool).reshape(-1)
    scores = np.asarray(scores, np.float64).reshape(-1)
    first_wins = FIRST_PLAYER_WINS.reshape(-1)[first_moves]
    agent_side_wins = first_wins == agent_black  # the agent holds the won side
    result = {}
    for who, won, kept, black in (
        ("agent", agent_side_wins, scores == 1.0, agent_black),
        ("opponent", ~agent_side_wins, scores == 0.0, ~agent_black),
    ):
        lost = won & ~kept
        result[who] = {
            "won_positions": int(won.sum()),
            "lost": int(lost.sum()),
            "lost_as_black": sorted(int(a) for a in first_moves[lost & black]),
            "lost_as_white": sorted(int(a) for a in first_moves[lost & ~black]),
        }
    return result


def first_move_values(game: Game, net, params, search=None, seed: int = 0) -> dict[str, np.ndarray]:
    """The value after each first move, from the second player's view (`score`'s input): the
    network's ("network alone") and, given a `search_lib.SearchConfig`, the search's
    ("search")."""
    first_moves = jnp.arange(game.num_actions, dtype=jnp.int32)
    states = jax.vmap(lambda a: game.step(game.new_state(), a))(first_moves)
    _, network_values = jax.jit(network_lib.apply, static_argnums=0)(
        net, params, jax.vmap(game.observe)(states)
    )
    values = {"network alone": np.asarray(network_values)}
    if search is not None:
        run = search_lib.make_search(game, net, search)
        values["search"] = np.asarray(jax.jit(run)(params, jax.random.key(seed), states).value)
    return values


def selfplay_first_player_wins(game: Game, net, params, search, games: int, seed: int = 0):
    """float[49]: for each first move, the share of `games` games from it that the first player
    wins when the network plays both sides with `search` (a `search_lib.SearchConfig`; a
    training config's search samples as self-play does): the outcomes that the value after
    each first move learns from. Where the first move loses yet these say it wins, self-play
    does not find the refutation, and no value target can teach its sign."""
    run = search_lib.make_search(game, net, search)
    first_moves = jnp.repeat(jnp.arange(game.num_actions, dtype=jnp.int32), games)
    start = jax.vmap(lambda a: game.step(game.new_state(), a))(first_moves)

    def ply(carry):
        states, key, count = carry
        key, search_key = jax.random.split(key)
        action = run(params, search_key, states, count).action
        moved = jax.vmap(game.step)(states, action)
        return tree_where(states.terminated, states, moved), key, count + 1

    @jax.jit
    def play(params, key):
        count = jnp.ones(first_moves.shape, jnp.int32)  # plies played
        states, _, _ = jax.lax.while_loop(
            lambda carry: ~carry[0].terminated.all(), ply, (start, key, count)
        )
        return states.rewards[:, 0]

    first_player = np.asarray(play(params, jax.random.key(seed)))
    return (first_player > 0).reshape(game.num_actions, games).mean(axis=1)
