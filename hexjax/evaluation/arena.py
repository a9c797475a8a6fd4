"""The arena: batched games between two players, and what is made of their records.

`arena(game, first, second, key, num_games, opening_plies, mesh)` plays games in parallel
with colours alternated, after `opening_plies` uniformly random plies (or from given openings)
so that deterministic players do not replay one game, and returns per-game scores from
`first`'s view; with a mesh each device plays its share. Openings files, every first move,
game records and the positions of recorded games live here too (score summaries:
`scores.py`).
"""

from __future__ import annotations

import pathlib
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from hexjax import sharding
from hexjax.base import Player, PlayerFactory
from hexjax.games import Game, State, random_legal_action, tree_where

__all__ = [
    "ArenaGames",
    "arena",
    "arena_games",
    "arena_in_chunks",
    "first_move_openings",
    "load_openings",
    "positions_of_games",
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
    `first` was Black). `arena_in_chunks` plays the same games a few plies per call.
    """
    openings, opened = _check(num_games, opening_plies, openings)
    if mesh is not None and mesh.devices.size > 1:
        arena = _sharded_start(game, key, num_games, opening_plies, openings, mesh)
        arena = _sharded_advance(game, first, second, arena, opened, None, mesh)
        return _sharded_finish(arena, num_games, mesh)
    arena = _start(game, key, num_games, opening_plies, openings)
    return _finish(_advance(game, first, second, arena, opened), num_games)


def arena_in_chunks(
    game: Game,
    make_first: PlayerFactory,
    make_second: PlayerFactory,
    num_games: int,
    opening_plies: int = 2,
    openings=None,
    mesh=None,
    plies_per_call: int | None = 4,
):
    """The games of `arena_games` played `plies_per_call` plies per jitted call (None: to the
    end in one), so that the host can report progress between calls: a function
    `play(first_params, second_params, key, report=None) -> ArenaGames` that calls
    `report(finished_games, num_games)` after each call. The same key plays the same games as
    `arena_games`: each call continues the games where the last one stopped. With a mesh
    whose device count does not split the halves evenly, the games play on one device."""
    openings, opened = _check(num_games, opening_plies, openings)
    sharded = mesh is not None and mesh.devices.size > 1
    sharded = sharded and (num_games // 2) % mesh.devices.size == 0

    def start(key):
        if sharded:
            return _sharded_start(game, key, num_games, opening_plies, openings, mesh)
        return _start(game, key, num_games, opening_plies, openings)

    def advance(first_params, second_params, arena):
        first, second = make_first(first_params), make_second(second_params)
        if sharded:
            arena = _sharded_advance(game, first, second, arena, opened, plies_per_call, mesh)
        else:
            arena = _advance(game, first, second, arena, opened, plies_per_call)
        return arena, arena.leading.terminated.sum() + arena.trailing.terminated.sum()

    def finish(arena):
        return _sharded_finish(arena, num_games, mesh) if sharded else _finish(arena, num_games)

    start, advance, finish = jax.jit(start), jax.jit(advance), jax.jit(finish)

    def play(first_params, second_params, key, report=None) -> ArenaGames:
        arena, finished = start(key), 0
        while finished < num_games:
            arena, finished = advance(first_params, second_params, arena)
            finished = int(finished)
            if report is not None:
                report(finished, num_games)
        return finish(arena)

    return play


class _Arena(NamedTuple):
    """Games under way, as the ply loop carries them: `first` is Black in `leading`, White in
    `trailing` (with a mesh, every field gets a leading device axis)."""

    ply: jax.Array  # int32: plies played after the openings
    key: jax.Array  # the key of the next ply
    leading: State  # [G/2] games
    trailing: State  # [G/2] games
    lead_moves: jax.Array  # int32[G/2, game.max_plies]
    trail_moves: jax.Array  # int32[G/2, game.max_plies]


def _check(num_games: int, opening_plies: int, openings):
    """Validated openings (int32[M, L] or None) and the plies every opening takes."""
    if num_games % 2:
        raise ValueError(f"the arena needs an even number of games, got {num_games}")
    if openings is None:
        return None, opening_plies
    openings = jnp.asarray(openings, jnp.int32)
    if openings.ndim != 2 or openings.shape[0] < 1:
        raise ValueError(f"openings must be int32[M, L] with M >= 1, got {openings.shape}")
    return openings, opening_plies + openings.shape[1]


def _start(game: Game, key, num_games: int, opening_plies: int, openings) -> _Arena:
    """The games after their openings."""
    half = num_games // 2
    init_key, opening_key, play_key = jax.random.split(key, 3)
    states = jax.vmap(game.init)(jax.random.split(init_key, half))
    moves = jnp.full((half, game.max_plies), -1, jnp.int32)
    if openings is not None:
        states, moves = _play_openings(game, states, moves, openings)
    states, moves = _random_plies(game, states, moves, opening_key, opening_plies)
    return _Arena(jnp.int32(0), play_key, states, states, moves, moves)


def _advance(game: Game, first, second, arena: _Arena, opened: int, plies=None) -> _Arena:
    """Play until every game is over, or at most `plies` more plies."""
    # Every ply hands the move over in every game, so at ply t the same player moves in all
    # games of a half: each player runs once per ply, on the half where it is to move.
    step = jax.vmap(game.step)
    stop = None if plies is None else arena.ply + plies

    def ply(arena: _Arena) -> _Arena:
        key, key_a, key_b = jax.random.split(arena.key, 3)
        lead_action, trail_action = jax.lax.cond(
            (arena.ply + opened) % 2 == 0,
            lambda: (first(key_a, arena.leading), second(key_b, arena.trailing)),
            lambda: (second(key_a, arena.leading), first(key_b, arena.trailing)),
        )
        return _Arena(
            arena.ply + 1,
            key,
            step(arena.leading, lead_action),
            step(arena.trailing, trail_action),
            _record(arena.lead_moves, arena.leading, lead_action),
            _record(arena.trail_moves, arena.trailing, trail_action),
        )

    def live(arena: _Arena):
        running = ~(arena.leading.terminated.all() & arena.trailing.terminated.all())
        return running if stop is None else running & (arena.ply < stop)

    return jax.lax.while_loop(live, ply, arena)


def _finish(arena: _Arena, num_games: int) -> ArenaGames:
    winner = jnp.concatenate([arena.leading.winner, arena.trailing.winner])
    first_colour = (jnp.arange(num_games) >= num_games // 2).astype(jnp.int32)
    scores = jnp.where(winner == first_colour, 1.0, jnp.where(winner < 0, 0.5, 0.0))
    return ArenaGames(scores, jnp.concatenate([arena.lead_moves, arena.trail_moves]))


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


# With a mesh each device plays an arena of its own share of the games; between the phases the
# per-device arenas travel as one with a leading device axis.
# check_vma=False: the games' initial states are the same on every device until the per-device
# keys make them differ, which the type check cannot follow.


def _on_devices(function, mesh, in_specs, out_specs):
    return jax.shard_map(function, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                         check_vma=False)  # fmt: skip


def _device_axis(arena, add: bool):
    return jax.tree.map(lambda x: x[None] if add else x[0], arena)


def _sharded_start(game, key, num_games, opening_plies, openings, mesh) -> _Arena:
    """Device d's game i of each half plays the global game's opening."""
    count = mesh.devices.size
    sharding.check_divisible("half the arena's games", num_games // 2, mesh)
    per_half = num_games // 2 // count

    def per_device(keys, openings):
        if openings is not None:
            shift = jax.lax.axis_index(sharding.AXIS) * per_half
            openings = jnp.roll(openings, -shift, axis=0)
        arena = _start(game, keys[0], num_games // count, opening_plies, openings)
        return _device_axis(arena, add=True)

    specs = (sharding.PartitionSpec(sharding.AXIS), sharding.PartitionSpec())
    per_device = _on_devices(per_device, mesh, specs, sharding.PartitionSpec(sharding.AXIS))
    return per_device(jax.random.split(key, count), openings)


def _sharded_advance(game, first, second, arena, opened, plies, mesh) -> _Arena:
    def per_device(arena):
        arena = _advance(game, first, second, _device_axis(arena, add=False), opened, plies)
        return _device_axis(arena, add=True)

    spec = sharding.PartitionSpec(sharding.AXIS)
    return _on_devices(per_device, mesh, (spec,), spec)(arena)


def _sharded_finish(arena, num_games, mesh) -> ArenaGames:
    """The one-device layout: the first half is where `first` was Black."""
    count = mesh.devices.size

    def per_device(arena):
        games = _finish(_device_axis(arena, add=False), num_games // count)
        # [first Black / White, games(, plies)]
        return games.scores.reshape(2, -1), games.moves.reshape(2, num_games // 2 // count, -1)

    specs = (sharding.PartitionSpec(sharding.AXIS),)
    scores, moves = _on_devices(
        per_device, mesh, specs, (sharding.PartitionSpec(None, sharding.AXIS),) * 2
    )(arena)
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


def first_move_openings(game: Game, count: int | None = None) -> np.ndarray:
    """int32[M, 1]: every legal first move, one opening each. Played with both colours, this is
    a common test set in computer Hex: no opening is drawn twice or left out by chance, and a first
    move that gives one side a won game gives it to each player once. With `count`, that many
    of them spread evenly in reading order (every row of the board gets its share), for
    boards whose every first move makes too long a match."""
    moves = np.asarray(game.legal_actions(game.new_state()), np.int32)
    if count is not None:
        if not 1 <= count <= len(moves):
            raise ValueError(f"{count} first moves asked, {len(moves)} exist")
        moves = moves[np.linspace(0, len(moves) - 1, count).round().astype(int)]
    return moves[:, None]


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
            return tree_where(actions < 0, states, after), states  # and the position before

        _, before = jax.lax.scan(one_ply, states, moves.T)
        return before  # leaves [L, G, ...]

    before = jax.tree.map(lambda x: np.asarray(x).reshape(-1, *x.shape[2:]), replay(moves))
    live = ~before.terminated & (np.asarray(moves).T.reshape(-1) >= 0)
    return jax.tree.map(lambda x: jnp.asarray(x[live]), before)
