"""Renju in play: the legal masks that `step` computes from pattern codes and counts kept up to
date move by move, reading double-threes only on the boards that need it (hexjax/games/_renju.py,
`Forbidden.in_play`), against the fully recursive reference (tests/support/renju_oracle.py).

Batches mix White-to-move boards, boards without doubtful points, boards the first level
settles, boards for the small reading and boards past its bounds; a game with shrunken tiers
sends boards down every fallback to the unbounded reading, several chunks per tier."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support.playouts import random_playouts
from support.renju_golden import GOLDEN
from support.renju_oracle import forbidden_points
from support.renju_positions import crowded_boards, nested_chain_boards

import hexjax
from hexjax.games._renju import Forbidden, _to_words

N = 15


@functools.cache
def renju():
    return hexjax.make("gomoku", size=N, rule="renju")


@functools.cache
def shrunken():
    """Renju with tiers far too small for most boards: every fallback runs, in many chunks, the
    unbounded reading (`Forbidden.exact`) too."""
    game = hexjax.make("gomoku", size=N, rule="renju")
    forbidden = game._forbidden
    forbidden.first_candidates = 1
    forbidden.small_candidates, forbidden.small_slots = 2, (1, 1, 1)
    forbidden.candidates, forbidden.slots = 3, (2, 1)
    forbidden.chunks = (3, 2, 1, 1)
    return game


def oracle_mask(board: np.ndarray) -> np.ndarray:
    mask = np.zeros((N, N), bool)
    for point in forbidden_points(board.tolist()):
        mask[point] = True
    return mask.reshape(-1)


def stack(states):
    return jax.tree.map(lambda *x: jnp.stack(x), *states)


def replayed(game, boards):
    """(states before, actions, boards after): each board less one stone of the colour that
    moved last, that colour to move; `step` then plays the stone back. Half the boards end
    with Black to move (White replays a White stone), half with White (Black replays)."""
    states, actions, after = [], [], []
    for index, board in enumerate(boards):
        colour = 2 if index % 2 == 0 else 1
        stones = np.argwhere(board == colour)
        if not len(stones):
            continue
        r, c = stones[len(stones) // 2]
        before = board.copy()
        before[r, c] = 0
        try:
            state = game.from_board(before, to_play=colour - 1)
        except ValueError:  # both colours have five
            continue
        if bool(state.terminated) or not bool(state.legal_action_mask[r * N + c]):
            continue
        states.append(state)
        actions.append(r * N + c)
        after.append(board)
    return stack(states), jnp.asarray(actions, jnp.int32), np.stack(after)


def mismatches(states, boards):
    """Points where `step`'s legal masks disagree with the oracle: Black's empty points are
    legal exactly where not forbidden, White's always (live states)."""
    legal = np.asarray(states.legal_action_mask)
    black = np.asarray(states.current_player) == 0
    live = ~np.asarray(states.terminated)
    bad = 0
    for board, mask, is_black, is_live in zip(boards, legal, black, live, strict=True):
        if not is_live:
            continue
        empty = board.reshape(-1) == 0
        expected = empty & ~oracle_mask(board) if is_black else empty
        bad += int((mask != expected).sum())
    return bad


@functools.cache
def composed_positions():
    boards = [crowded_boards(40, seed=300)]
    boards += [nested_chain_boards(8, depth, seed=300 + depth) for depth in range(1, 7)]
    return replayed(renju(), np.concatenate(boards))


def tiers(game, states, boards):
    """How many Black-to-move boards each tier settles: (none needed, first level, small
    reading, bounded reading, unbounded reading), by the tiers' own tests."""
    forbidden = game._forbidden

    @jax.jit  # one program: op by op, the readings took half a minute
    def settled_by(boards, current_player, terminated):
        flat = boards.reshape(len(boards), -1)
        counts = jax.vmap(forbidden.initial)(boards)
        sure, doubtful = jax.vmap(forbidden.status)(counts, flat)
        needs = doubtful.any(axis=1) & (current_player == 0) & ~terminated
        first = jax.vmap(forbidden.first_level)(flat, counts, jax.vmap(_to_words)(doubtful))[2]

        def overflows(candidates, slots):
            def read(board):
                codes = forbidden.codes(board.reshape(N, N)).reshape(4, -1)
                return forbidden.read(board, codes, candidates, slots)[1]

            return jax.vmap(read)(flat)

        small = overflows(forbidden.small_candidates, forbidden.small_slots)
        bounded = overflows(forbidden.candidates, forbidden.slots)
        return needs, first, small, bounded

    needs, first, small, bounded = map(
        np.asarray, settled_by(jnp.asarray(boards), states.current_player, states.terminated)
    )
    black = np.asarray((states.current_player == 0) & ~states.terminated)
    return (
        int((black & ~needs).sum()),
        int((needs & first).sum()),
        int((needs & ~first & ~small).sum()),
        int((needs & ~first & small & ~bounded).sum()),
        int((needs & ~first & small & bounded).sum()),
    )


def test_random_games_step_masks_match_the_reference():
    """Every ply of 64 random games: White's masks hold every empty point; Black's, at every
    sixteenth state, exactly the points the oracle allows; the counts equal those computed
    afresh from the board."""
    game = renju()
    states, _ = random_playouts(game, jax.random.key(11), batch=64)
    flat = jax.tree.map(lambda x: x.reshape(-1, *x.shape[2:]), states)
    boards = np.asarray(flat.board)
    white = (np.asarray(flat.current_player) == 1) & ~np.asarray(flat.terminated)
    empty = boards.reshape(len(boards), -1) == 0
    assert (np.asarray(flat.legal_action_mask)[white] == empty[white]).all()
    black = np.flatnonzero((np.asarray(flat.current_player) == 0) & ~np.asarray(flat.terminated))
    sample = black[::16]  # ~220 boards, ~300 forbidden points: the oracle is plain Python
    picked = jax.tree.map(lambda x: x[sample], flat)
    assert mismatches(picked, boards[sample]) == 0
    forbidden = np.asarray(picked.legal_action_mask) != empty[sample]
    assert forbidden.sum() > 50  # the sample does hold forbidden points
    counts = jax.vmap(game._forbidden.initial)(flat.board)
    assert (np.asarray(counts) == np.asarray(flat.counts)).all()


@pytest.mark.slow  # two minutes; the random games and the fallbacks below stay in the quick tier
def test_composed_boards_after_a_move_match_the_reference():
    """Crowded boards and nested chains reached by one `step` in one batch: every tier has
    boards to settle, and every mask is the oracle's."""
    game = renju()
    states, actions, boards = composed_positions()
    after = jax.jit(jax.vmap(game.step))(states, actions)
    assert (np.asarray(after.board) == boards).all()
    none, first, small, bounded, _ = tiers(game, after, boards)
    assert min(none, first, small, bounded) > 0, (none, first, small, bounded)
    assert int((after.current_player == 1).sum()) > 20  # White to move: no reading
    assert mismatches(after, boards) == 0


def test_shrunken_tiers_fall_back_exactly():
    """The same batch with tiers far too small: most boards fall through to the bounded reading
    and past it to the unbounded one, several chunks per tier; the masks do not change."""
    game = shrunken()
    states, actions, boards = composed_positions()
    after = jax.jit(jax.vmap(game.step))(states, actions)
    counts = tiers(game, after, boards)
    assert counts[1] > 3 and min(counts[2:]) > 2, counts
    assert mismatches(after, boards) == 0


def test_single_and_nested_vmap_steps_match_the_reference():
    """`step` alone (jit: the reading behind a `lax.cond`) and under nested `vmap` (as the
    greedy evaluator calls it: states x actions)."""
    game = renju()
    states, actions, boards = composed_positions()
    black = np.flatnonzero(np.arange(len(boards)) % 2 == 0)[:6]  # White replays: Black to move
    single = jax.jit(game.step)
    for index in black:
        state = jax.tree.map(lambda x, index=index: x[index], states)
        after = single(state, actions[index])
        assert mismatches(stack([after]), boards[index][None]) == 0
    # Two states, each with its own replayed stone and a far corner stone where empty.
    pair = jax.tree.map(lambda x: x[black[:2]], states)
    moves = jnp.stack([actions[black[0]], actions[black[1]], 0, N * N - 1])
    grid = jax.jit(jax.vmap(jax.vmap(game.step, in_axes=(None, 0)), in_axes=(0, None)))
    after = jax.tree.map(lambda x: x.reshape(-1, *x.shape[2:]), grid(pair, moves))
    assert mismatches(after, np.asarray(after.board)) == 0


def test_a_reading_past_its_bounds_is_finished_without_them():
    """The golden chain that needs three levels: a bounded reading with two gets it wrong and
    says it overflowed, so the tiers and `mask` finish it with the unbounded reading and get
    the oracle's answer, as they do with the default bounds."""
    name, black, white, point, forbidden = GOLDEN[-1]
    assert name == "nested chain read three levels deep" and forbidden
    board = np.zeros((N, N), np.int8)
    board[tuple(np.transpose(black))] = 1
    board[tuple(np.transpose(white))] = 2
    cell = point[0] * N + point[1]
    for bounds in ({}, {"slots": (16, 8)}):
        reading = Forbidden(N, **bounds)

        @jax.jit  # one program a reading: op by op, its loops compiled one by one
        def in_play_and_mask(board, reading=reading):
            flat = board.reshape(1, -1)
            counts = jax.vmap(reading.initial)(board[None])
            sure, doubtful = jax.vmap(reading.status)(counts, flat)
            needs = doubtful.any(axis=1)
            mask = jax.vmap(reading.in_play)(flat, counts, sure, doubtful, needs)
            return mask[0], reading.mask(board)

        in_play, mask = in_play_and_mask(jnp.asarray(board))
        assert bool(in_play[cell]) and bool(mask[cell])

    @jax.jit
    def read_with_two_levels(board):
        codes = reading.codes(board).reshape(4, -1)
        return reading.read(board.reshape(-1), codes, reading.candidates, (16, 8))

    bounded, overflow = read_with_two_levels(jnp.asarray(board))
    assert not bool(bounded[cell]) and bool(overflow)
    assert bool(oracle_mask(board)[cell])
