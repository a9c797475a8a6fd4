"""Differential test: hexjax Hex against OpenSpiel's `hex`, every ply of random games."""

import functools
import random

import jax
import jax.numpy as jnp
import numpy as np
import pyspiel
import pytest

import hexjax

NUM_GAMES = 500


def open_spiel_games(size: int, swap: bool, num_games: int, seed: int):
    """Random games from OpenSpiel: actions, legal sets and outcome at every ply."""
    game = pyspiel.load_game("hex", {"board_size": size, "swap": swap})
    rng = random.Random(seed)
    records = []
    for _ in range(num_games):
        state = game.new_initial_state()
        actions, legal, over, returns = [], [state.legal_actions()], [False], [[0.0, 0.0]]
        while not state.is_terminal():
            action = rng.choice(state.legal_actions())
            state.apply_action(action)
            actions.append(action)
            legal.append(state.legal_actions() if not state.is_terminal() else [])
            over.append(state.is_terminal())
            returns.append(list(state.returns()) if state.is_terminal() else [0.0, 0.0])
        records.append((actions, legal, over, returns))
    return records


@functools.cache
def replay_fn(game):
    step = jax.vmap(game.step)

    def replay(actions):  # actions: int32[B, T]
        start = jax.vmap(game.init)(jax.random.split(jax.random.key(0), actions.shape[0]))

        def ply(state, action):
            state = step(state, action)
            return state, (state.legal_action_mask, state.terminated, state.winner)

        _, history = jax.lax.scan(ply, start, actions.T)
        first = (start.legal_action_mask, start.terminated, start.winner)
        return jax.tree.map(lambda s, h: jnp.concatenate([s[None], h]), first, history)

    return jax.jit(replay)


@pytest.mark.parametrize(
    ("size", "swap"), [(3, False), (5, False), (7, False), (11, False), (5, True), (7, True)]
)
def test_matches_open_spiel_at_every_ply(size, swap):
    game = hexjax.make("hex", size=size, swap=swap)
    records = open_spiel_games(size, swap, NUM_GAMES, seed=size + 100 * swap)
    length = max(len(r[0]) for r in records)
    actions = np.zeros((NUM_GAMES, length), np.int32)  # padding plies act on finished games
    for i, (moves, *_) in enumerate(records):
        actions[i, : len(moves)] = moves
    first_player_wins = sum(r[3][-1][0] > 0 for r in records)
    assert 0 < first_player_wins < NUM_GAMES  # both sides win some: the comparison has teeth
    masks, terminated, winners = jax.device_get(replay_fn(game)(jnp.asarray(actions)))
    for i, (moves, legal, over, returns) in enumerate(records):
        for t in range(len(moves) + 1):
            expected_mask = np.zeros(game.num_actions, bool)
            expected_mask[legal[t]] = True
            np.testing.assert_array_equal(masks[t, i], expected_mask, err_msg=f"game {i} ply {t}")
            assert terminated[t, i] == over[t], (i, t)
            expected_winner = -1 if not over[t] else (0 if returns[t][0] > 0 else 1)
            assert winners[t, i] == expected_winner, (i, t)
        # After the end, padding plies change nothing (absorbing state).
        assert terminated[len(moves) :, i].all()
        assert (winners[len(moves) :, i] == winners[len(moves), i]).all()
