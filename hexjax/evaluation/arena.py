"""The arena: batched games between two players, and what is made of their records.

`arena(game, first, second, key, num_games, opening_plies, mesh)` plays games in parallel
with colours alternated, after `opening_plies` uniformly random plies (or from given openings)
so that deterministic players do not replay one game, and returns per-game scores from
`first`'s view; with a mesh each device plays its share. Openings files, every first move,
game records, the positions of recorded games and score summaries live here too.
"""

from __future__ import annotations

import math
import pathlib
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from hexjax import sharding
from hexjax.base import Player
from hexjax.games import Game, random_legal_action

__all__ = [
    "ArenaGames",
    "arena",
    "arena_games",
    "first_move_openings",
    "load_openings",
    "positions_of_games",
    "summarize",
    "write_records",
]


class ArenaGames(NamedTuple):
    scores: jax.Array  # float32[G] `first`'s score: 1 win, 0.5 draw, 0 loss
    moves: jax.Array  # int32[G, game.max_plies] every game's actions, opening included; -1 after


def arena(
    game: Game,
    first: Player,
    second: Player,
    key,
    num_games: int,
    opening_plies: int = 2,
    **options,
):
    """float32[num_games] scores for `first` (1 win, 0.5 draw, 0 loss); see `arena_games`."""
    return arena_games(game, first, second, key, num_games, opening_plies, **options).scores


def arena_games(
    game: Game,
    first: Player,
    second: Player,
    key,
    num_games: int,
    opening_plies: int = 2,
    openings=None,
    mesh=None,
) -> ArenaGames:
    """`num_games` games between two players, all at once. `first` moves first in the first
    half of the games and second in the other half, and game i of each half starts from the
    same opening, so every opening is played once with each colour:

    - `opening_plies` uniformly random plies, or
    - `openings` (int32[M, L], see `load_openings`): game i of each half plays opening
      i mod M, then `opening_plies` random plies more (usually 0).

    With a `mesh` (`hexjax.sharding.batch_mesh`) of d devices, each device plays num_games / d
    of the games, all at once; the results keep the one-device layout (the first half is where
    `first` was Black).
    """
    if num_games % 2:
        raise ValueError(f"the arena needs an even number of games, got {num_games}")
    if openings is not None:
        openings = jnp.asarray(openings, jnp.int32)
        if openings.ndim != 2 or openings.shape[0] < 1:
            raise ValueError(f"openings must be int32[M, L] with M >= 1, got {openings.shape}")
    half = num_games // 2
    if mesh is not None and mesh.devices.size > 1:
        return _sharded_arena(game, first, second, key, num_games, opening_plies, openings, mesh)
    init_key, opening_key, play_key = jax.random.split(key, 3)
    states = jax.vmap(game.init)(jax.random.split(init_key, half))
    moves = jnp.full((half, game.max_plies), -1, jnp.int32)
    if openings is not None:
        states, moves = _play_openings(game, states, moves, openings)
    states, moves = _random_plies(game, states, moves, opening_key, opening_plies)
    # Every ply hands the move over in every game, so at ply t the same player moves in all
    # games of a half: each player runs once per ply, on the half where it is to move.
    step = jax.vmap(game.step)

    opened = opening_plies + (0 if openings is None else openings.shape[1])

    def ply(carry):
        t, k, leading, trailing, lead_moves, trail_moves = carry  # first is Black in `leading`
        k, key_a, key_b = jax.random.split(k, 3)
        lead_action, trail_action = jax.lax.cond(
            (t + opened) % 2 == 0,
            lambda: (first(key_a, leading), second(key_b, trailing)),
            lambda: (second(key_a, leading), first(key_b, trailing)),
        )
        return (
            t + 1,
            k,
            step(leading, lead_action),
            step(trailing, trail_action),
            _record(lead_moves, leading, lead_action),
            _record(trail_moves, trailing, trail_action),
        )

    def live(carry):
        _, _, leading, trailing, _, _ = carry
        return ~(leading.terminated.all() & trailing.terminated.all())

    _, _, leading, trailing, lead_moves, trail_moves = jax.lax.while_loop(
        live, ply, (jnp.int32(0), play_key, states, states, moves, moves)
    )
    winner = jnp.concatenate([leading.winner, trailing.winner])
    first_colour = (jnp.arange(num_games) >= half).astype(jnp.int32)
    scores = jnp.where(winner == first_colour, 1.0, jnp.where(winner < 0, 0.5, 0.0))
    return ArenaGames(scores, jnp.concatenate([lead_moves, trail_moves]))


def _record(moves, states, actions):
    """Write each live game's action at its ply (int32[G, L] moves)."""
    column = jnp.minimum(states.step_count, moves.shape[1] - 1)
    written = moves.at[jnp.arange(moves.shape[0]), column].set(actions)
    return jnp.where(states.terminated[:, None], moves, written)


def _play_openings(game: Game, states, moves, openings):
    """Game i plays opening i mod M."""
    rows = openings[jnp.arange(states.step_count.shape[0]) % openings.shape[0]]

    def one_ply(carry, actions):
        states, moves = carry
        return (jax.vmap(game.step)(states, actions), _record(moves, states, actions)), None

    (states, moves), _ = jax.lax.scan(one_ply, (states, moves), rows.T)
    return states, moves


def _random_plies(game: Game, states, moves, key, count: int):
    def one_ply(carry, k):
        states, moves = carry
        actions = random_legal_action(k, states.legal_action_mask)
        return (jax.vmap(game.step)(states, actions), _record(moves, states, actions)), None

    (states, moves), _ = jax.lax.scan(one_ply, (states, moves), jax.random.split(key, count))
    return states, moves


def _sharded_arena(game, first, second, key, num_games, opening_plies, openings, mesh):
    """Each device plays an arena of its own share of the games; the openings are dealt so
    that device d's game i of each half plays the global game's opening."""
    count = mesh.devices.size
    sharding.check_divisible("half the arena's games", num_games // 2, mesh)
    per_half = num_games // 2 // count

    def per_device(keys, openings):
        if openings is not None:
            shift = jax.lax.axis_index(sharding.AXIS) * per_half
            openings = jnp.roll(openings, -shift, axis=0)
        games = arena_games(
            game, first, second, keys[0], num_games // count, opening_plies, openings
        )
        # [first Black / White, games(, plies)]
        return games.scores.reshape(2, -1), games.moves.reshape(2, per_half, -1)

    # check_vma=False: the games' initial states are the same on every device until the
    # per-device keys make them differ, which the type check cannot follow.
    scores, moves = jax.shard_map(
        per_device,
        mesh=mesh,
        in_specs=(sharding.PartitionSpec(sharding.AXIS), sharding.PartitionSpec()),
        out_specs=(sharding.PartitionSpec(None, sharding.AXIS),) * 2,
        check_vma=False,
    )(jax.random.split(key, count), openings)
    return ArenaGames(scores.reshape(-1), moves.reshape(num_games, -1))


def load_openings(game: Game, path) -> np.ndarray:
    """int32[M, L] openings from a text file of move lists (one a line, in the game's
    notation, as `format_moves` writes them; blank lines and `#` comments skipped). Every
    opening must be legal, leave the game running and have the same number of plies (the
    arena hands the move over in all games at once)."""
    rows = []
    for number, line in enumerate(pathlib.Path(path).read_text().splitlines(), 1):
        text = line.partition("#")[0].strip()
        if not text:
            continue
        try:
            state = game.from_moves(text)
        except ValueError as error:
            raise ValueError(f"{path}, line {number}: {error}") from None
        if bool(state.terminated):
            raise ValueError(f"{path}, line {number}: the opening ends the game")
        rows.append(game.parse_moves(text))
        if len(rows[-1]) != len(rows[0]):
            raise ValueError(
                f"{path}, line {number}: {len(rows[-1])} plies where the first opening "
                f"has {len(rows[0])}; every opening needs the same number"
            )
    if not rows:
        raise ValueError(f"{path}: no openings in the file")
    return np.asarray(rows, np.int32)


def first_move_openings(game: Game) -> np.ndarray:
    """int32[M, 1]: every legal first move, one opening each. Played with both colours, this is
    a common test set in computer Hex: no opening is drawn twice or left out by chance, and a first
    move that gives one side a won game gives it to each player once."""
    return np.asarray(game.legal_actions(game.new_state()), np.int32)[:, None]


def write_records(game: Game, moves, path) -> None:
    """One game a line, its moves in the game's notation (loadable with `game.from_moves`)."""
    lines = [game.format_moves([int(a) for a in row if a >= 0]) for row in np.asarray(moves)]
    pathlib.Path(path).write_text("\n".join(lines) + "\n")


def positions_of_games(game: Game, moves):
    """Every position of the recorded games (moves: int32[G, L], -1 after the end) where
    the game is still running, stacked: a state batch [P]. Built on the host from one jitted
    replay; positions repeated across games are kept (they weigh as often as they occur)."""
    moves = jnp.asarray(moves, jnp.int32)

    @jax.jit
    def replay(moves):
        states = jax.vmap(game.init)(jax.random.split(jax.random.key(0), moves.shape[0]))

        def one_ply(states, actions):
            after = jax.vmap(game.step)(states, jnp.maximum(actions, 0))
            keep = actions < 0
            after = jax.tree.map(
                lambda old, new: jnp.where(keep.reshape((-1,) + (1,) * (new.ndim - 1)), old, new),
                states,
                after,
            )
            return after, states  # the position before this ply

        _, before = jax.lax.scan(one_ply, states, moves.T)
        return before  # leaves [L, G, ...]

    before = jax.tree.map(lambda x: np.asarray(x).reshape(-1, *x.shape[2:]), replay(moves))
    live = ~before.terminated & (np.asarray(moves).T.reshape(-1) >= 0)
    return jax.tree.map(lambda x: jnp.asarray(x[live]), before)


def summarize(scores) -> dict:
    """Wins, draws, losses, the mean score and its 95% confidence interval (normal
    approximation with the sample variance, clipped to [0, 1]). For arena scores (an even
    count, `first` Black in the first half) also the score with each colour."""
    scores = np.asarray(scores, np.float64)
    count = len(scores)
    mean = float(scores.mean()) if count else 0.0
    spread = 1.96 * float(scores.std(ddof=1)) / math.sqrt(count) if count > 1 else 1.0
    summary = {
        "games": count,
        "wins": int((scores == 1).sum()),
        "draws": int((scores == 0.5).sum()),
        "losses": int((scores == 0).sum()),
        "score": mean,
        "low": max(0.0, mean - spread),
        "high": min(1.0, mean + spread),
    }
    if count and count % 2 == 0:
        summary["as_black"] = float(scores[: count // 2].mean())
        summary["as_white"] = float(scores[count // 2 :].mean())
    return summary
