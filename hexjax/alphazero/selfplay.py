"""Batched self-play that never cuts a game short, and the value targets of finished games.

B games run side by side. Each iteration plays `plies` more plies in every game (a game that
ends is replaced by a new one on the next ply), recording each position's observation, search
policy and mover. A position gets its value target, the final outcome from its own mover's view,
only when its game ends; positions of games still going at the end of an iteration wait in a
per-game *pending* buffer (at most one game's length, `game.max_plies` rows per slot) and are
completed in a later iteration. Nothing is thrown away and no game is truncated.

Per iteration the pending rows and the new ones form one [P + T, B] sequence per game slot (P =
max_plies, T = plies; pending rows are right-aligned so that they end where the new ones
start). A reverse scan carries each game's outcome back from the ply where it ended; rows of
finished games go to the replay buffer, the rest (the open game's rows, all within the last P)
become the new pending buffer.

A new game may start from a random opening (`opening_plies` > 0): k ~ U{0..opening_plies}
uniformly random legal plies, played without search and not recorded. Without it, self-play of
a solved game like Hex 7x7 collapses onto the first player's winning line: the network then
never sees a position the second player wins (docs/experiments/diverse-self-play.md).
"""

from __future__ import annotations

import chex
import jax
import jax.numpy as jnp

from hexjax import sharding
from hexjax.alphazero.search import valued_rewards
from hexjax.games import Game, State, tree_where
from hexjax.games.sampling import random_legal_action


@chex.dataclass(frozen=True)
class Trajectory:
    """Positions in time-major order. Leading axes [T, B] (or [P, B] when pending)."""

    obs: chex.Array  # uint8[T, B, *observation_shape]
    policy: chex.Array  # float32[T, B, A]
    mover: chex.Array  # int32[T, B] player to move at the position
    valid: chex.Array  # bool[T, B] a real position (pending rows may be empty)
    done: chex.Array  # bool[T, B] the game ended on the move played from this position
    outcome: chex.Array  # float32[T, B, 2] final rewards where `done`, else 0
    # float32[T, B] the search's root value, mover's view; None where the value targets do not
    # use it (`root_value_share` 0: the layout of runs that never did).
    root_value: chex.Array | None = None
    # int8[T, B, n, n] the owners of the board the game ended on (`Game.final_owners`), where
    # `done`; None unless ownership targets are trained (the network's ownership head).
    final_board: chex.Array | None = None
    # float32[T, B] how much the search's policy differs from the network's prior there
    # (`policy_surprise`); None unless training samples by it (`surprise_share` > 0).
    surprise: chex.Array | None = None
    # The auxiliary targets, only in `settle`'s finished rows: the opponent's reply policy
    # (float32[.., A], zeros where none: the game's last move, or a cheap search's reply) and
    # each cell's final owner from the mover's view (int8[.., n * n]: 1 own, -1 the opponent's),
    # whether the game ended drawn (bool[..]).
    reply: chex.Array | None = None
    ownership: chex.Array | None = None
    drawn: chex.Array | None = None


@chex.dataclass(frozen=True)
class SelfPlayState:
    games: State  # batched [B]: the games in flight
    pending: Trajectory  # [P, B]: positions of unfinished games, right-aligned
    plies: chex.Array  # int32[B] plies searched in each game in flight (drives temperature)


def empty_trajectory(game: Game, length: int, batch: int, root_values: bool = False,
                     final_boards: bool = False, surprises: bool = False):  # fmt: skip
    n = game.size
    return Trajectory(
        obs=jnp.zeros((length, batch, *game.observation_shape), jnp.uint8),
        policy=jnp.zeros((length, batch, game.num_actions), jnp.float32),
        mover=jnp.zeros((length, batch), jnp.int32),
        valid=jnp.zeros((length, batch), jnp.bool_),
        done=jnp.zeros((length, batch), jnp.bool_),
        outcome=jnp.zeros((length, batch, 2), jnp.float32),
        root_value=jnp.zeros((length, batch), jnp.float32) if root_values else None,
        final_board=jnp.zeros((length, batch, n, n), jnp.int8) if final_boards else None,
        surprise=jnp.zeros((length, batch), jnp.float32) if surprises else None,
    )


def random_openings(game: Game, key: jax.Array, states: State, max_plies: int) -> State:
    """`states` [B] with k ~ U{0..max_plies} uniformly random legal plies played in each game
    (k drawn per game); a ply that would end the game is not played."""
    if max_plies == 0:
        return states
    count_key, plies_key = jax.random.split(key)
    counts = jax.random.randint(count_key, states.terminated.shape, 0, max_plies + 1)
    step = jax.vmap(game.step)

    def ply(states, inputs):
        index, ply_key = inputs
        after = step(states, random_legal_action(ply_key, states.legal_action_mask))
        return tree_where((index < counts) & ~after.terminated, after, states), None

    inputs = (jnp.arange(max_plies), jax.random.split(plies_key, max_plies))
    return jax.lax.scan(ply, states, inputs)[0]


def new_games(game: Game, key: jax.Array, batch: int, opening_plies: int = 0) -> State:
    """`batch` new games, each from a random opening of up to `opening_plies` plies."""
    if opening_plies == 0:  # from the start position, with no opening keys drawn
        return jax.vmap(game.init)(jax.random.split(key, batch))
    init_key, opening_key = jax.random.split(key)
    games = jax.vmap(game.init)(jax.random.split(init_key, batch))
    return random_openings(game, opening_key, games, opening_plies)


def init_selfplay(game: Game, key: jax.Array, batch: int, opening_plies: int = 0,
                  root_values: bool = False, final_boards: bool = False,
                  surprises: bool = False):  # fmt: skip
    """`batch` games in flight; `root_values`: their positions keep the search's root value;
    `final_boards`: their games' last boards (for ownership targets); `surprises`: their
    positions' policy surprise."""
    return SelfPlayState(
        games=new_games(game, key, batch, opening_plies),
        pending=empty_trajectory(game, game.max_plies, batch, root_values, final_boards, surprises),
        plies=jnp.zeros(batch, jnp.int32),
    )


def reset_finished(game: Game, key: jax.Array, states: State, opening_plies: int = 0) -> State:
    """The batch `states` [B] with every terminated game replaced by a new one."""
    done = states.terminated
    return tree_where(done, new_games(game, key, done.shape[0], opening_plies), states)


def play(game: Game, search, params, key, state: SelfPlayState, plies: int, opening_plies: int = 0,
         final_owners=None):  # fmt: skip
    """(new state, Trajectory[T=plies, B], first_moves int32[T, B]) after `plies` plies of every
    game, searched with `search(params, key, states, ply) -> SearchResult`; games that end are
    replaced by new ones from random openings of up to `opening_plies` plies. `first_moves`
    holds the move searched at each game's first searched ply, -1 elsewhere (for the opening
    entropy, a sign of collapse). A state that keeps final boards keeps `final_owners(state)`
    of each game's last state (default `game.final_owners`; or `game.winning_line`)."""
    step = jax.vmap(game.step)
    owners = jax.vmap(final_owners or game.final_owners)
    observe = jax.vmap(game.observe)

    def ply(carry, ply_key):
        games, count = carry
        search_key, reset_key = jax.random.split(ply_key)
        result = search(params, search_key, games, count)
        nxt = step(games, result.action)
        done = nxt.terminated
        record = Trajectory(
            obs=observe(games).astype(jnp.uint8),
            policy=result.policy,
            mover=games.current_player,
            valid=jnp.ones_like(done),
            done=done,
            outcome=jnp.where(done[:, None], nxt.rewards, 0.0),
            root_value=None if state.pending.root_value is None else result.value,
            final_board=None
            if state.pending.final_board is None
            else jnp.where(done[:, None, None], owners(nxt), 0).astype(jnp.int8),
            surprise=None
            if state.pending.surprise is None
            else policy_surprise(result.policy, result.prior_logits),
        )
        first_move = jnp.where(count == 0, result.action, -1)
        games = reset_finished(game, reset_key, nxt, opening_plies)
        return (games, jnp.where(done, 0, count + 1)), (record, first_move)

    keys = jax.random.split(key, plies)
    (games, count), (trajectory, first_moves) = jax.lax.scan(ply, (state.games, state.plies), keys)
    return state.replace(games=games, plies=count), trajectory, first_moves


def policy_surprise(policy: jax.Array, prior_logits: jax.Array) -> jax.Array:
    """float32[B]: KL(policy || softmax(prior_logits)), how far the search moved from the
    network's guess (KataGo's policy surprise); 0 for a row without a policy target (all zeros:
    a cheap search's, under playout caps)."""
    log_prior = jax.nn.log_softmax(prior_logits)
    log_policy = jnp.log(jnp.where(policy > 0, policy, 1.0))
    return jnp.sum(jnp.where(policy > 0, policy * (log_policy - log_prior), 0.0), axis=-1)


def opening_entropy(first_moves: jax.Array, num_actions: int) -> jax.Array:
    """Entropy (nats) of the empirical distribution of the moves in `first_moves` (-1: none):
    0 when every game opens alike."""
    counts = jnp.zeros(num_actions + 1, jnp.float32).at[first_moves.reshape(-1)].add(1.0)[:-1]
    p = counts / jnp.maximum(counts.sum(), 1.0)
    return -jnp.sum(jnp.where(p > 0, p * jnp.log(jnp.where(p > 0, p, 1.0)), 0.0))


def value_targets(
    sequence: Trajectory, discount: float = 1.0, draw_value: float = 0.0, root_share: float = 0.0
) -> tuple[jax.Array, jax.Array]:
    """(value float32[T, B], finished bool[T, B]) for a [T, B] sequence: the outcome of the
    position's game from its mover's view, where that game has ended within the sequence,
    times discount^k for a position k plies before the game's last move, a draw valued as the
    search values it (`SearchConfig.discount` and `draw_value`). With `root_share` > 0 (the
    sequence holding root values) the target is that share of the search's root value and the
    rest of the outcome: the search's view lowers the noise of a single game's result."""

    def back(carry, row):
        outcome, known = carry
        final = valued_rewards(row.outcome, row.done, draw_value)
        outcome = jnp.where(row.done[:, None], final, discount * outcome)
        known = known | row.done
        value = jnp.take_along_axis(outcome, row.mover[:, None], axis=1)[:, 0]
        return (outcome, known), (value, known & row.valid)

    batch = sequence.mover.shape[1]
    start = (jnp.zeros((batch, 2), jnp.float32), jnp.zeros(batch, jnp.bool_))
    _, (value, finished) = jax.lax.scan(back, start, sequence, reverse=True)
    if root_share > 0:
        if sequence.root_value is None:
            raise ValueError("root_share needs a trajectory with root values (root_values=True)")
        value = (1 - root_share) * value + root_share * sequence.root_value
    return value, finished


def reply_targets(sequence: Trajectory) -> jax.Array:
    """float32[T, B, A]: each position's next position's policy (the opponent's reply, searched
    from there), zeros after the game's last move and in the sequence's last row."""
    following = jnp.concatenate([sequence.policy[1:], jnp.zeros_like(sequence.policy[:1])])
    valid = jnp.concatenate([sequence.valid[1:], jnp.zeros_like(sequence.valid[:1])])
    return jnp.where((valid & ~sequence.done)[..., None], following, 0.0)


def ownership_targets(sequence: Trajectory) -> jax.Array:
    """int8[T, B, n * n]: each cell's owner when its game ended (`Game.final_owners`: Hex's
    filled board, else the stones), from the position's mover's view (1 the mover's, -1 the
    opponent's, 0 nobody's); zeros where the game goes on past the sequence."""

    def back(board, row):
        board = jnp.where(row.done[:, None, None], row.final_board, board)
        mover = row.mover[:, None, None].astype(jnp.int8)
        owner = jnp.where(board == mover + 1, 1, jnp.where(board == 2 - mover, -1, 0))
        return board, owner.astype(jnp.int8).reshape(board.shape[0], -1)

    start = jnp.zeros_like(sequence.final_board[0])
    return jax.lax.scan(back, start, sequence, reverse=True)[1]


def draw_targets(sequence: Trajectory) -> jax.Array:
    """bool[T, B]: the position's game ended drawn (every player's reward 0); False where the
    game goes on past the sequence."""

    def back(drawn, row):
        drawn = jnp.where(row.done, (row.outcome == 0).all(axis=-1), drawn)
        return drawn, drawn

    start = jnp.zeros(sequence.done.shape[1], jnp.bool_)
    return jax.lax.scan(back, start, sequence, reverse=True)[1]


def settle(
    state: SelfPlayState,
    trajectory: Trajectory,
    discount: float = 1.0,
    draw_value: float = 0.0,
    root_share: float = 0.0,
    replies: bool = False,
    draws: bool = False,
):
    """Join the pending rows with a new trajectory: (new state, finished rows flat).

    Returns the state with its pending buffer replaced and the finished positions as a flat
    Trajectory [(P + T) * B] plus their value targets and a `ready` mask: the caller adds the
    `ready` rows to the replay buffer; `discount`, `draw_value` and `root_share` as in
    `value_targets`. The flat rows carry reply targets if `replies`, ownership targets if the
    trajectories hold final boards, draw targets if `draws`."""
    pending_length = state.pending.mover.shape[0]
    sequence = jax.tree.map(lambda a, b: jnp.concatenate([a, b]), state.pending, trajectory)
    value, finished = value_targets(sequence, discount, draw_value, root_share)
    # The open game of each slot started after its last `done`, so it lies in the last P rows.
    tail = jax.tree.map(lambda x: x[-pending_length:], sequence)
    pending = tail.replace(valid=tail.valid & ~finished[-pending_length:])
    targets = sequence.replace(
        reply=reply_targets(sequence) if replies else None,
        ownership=None if sequence.final_board is None else ownership_targets(sequence),
        drawn=draw_targets(sequence) if draws else None,
    )
    flat = jax.tree.map(lambda x: x.reshape(-1, *x.shape[2:]), targets)
    return state.replace(pending=pending), flat, value.reshape(-1), finished.reshape(-1)


def selfplay_shardings(selfplay, mesh: sharding.Mesh):
    """Shardings for a SelfPlayState: every part split along its game axis."""
    first = sharding.NamedSharding(mesh, sharding.PartitionSpec(sharding.AXIS))
    second = sharding.NamedSharding(mesh, sharding.PartitionSpec(None, sharding.AXIS))
    return selfplay.replace(
        games=jax.tree.map(lambda _: first, selfplay.games),
        pending=jax.tree.map(lambda _: second, selfplay.pending),
        plies=first,
    )


def game_statistics(done: jax.Array, first_outcome: jax.Array, plies_of_finished) -> dict:
    """Statistics of the games that ended in an iteration (`done` marks each game's last ply,
    `first_outcome` is player 0's outcome there, `plies_of_finished` the plies those games
    lasted, summed): their count, mean length, the first player's win rate and the draw rate."""
    finished = done.sum()
    per_game = jnp.maximum(finished, 1)
    return {
        "games_finished": finished,
        "game_length": plies_of_finished / per_game,
        "first_player_win_rate": (done & (first_outcome > 0)).sum() / per_game,
        "draw_rate": (done & (first_outcome == 0)).sum() / per_game,
    }
