"""Differential testing against OpenSpiel: record random games there, replay them here."""

import functools
import random

import jax
import jax.numpy as jnp
import numpy as np
import pyspiel


def open_spiel_games(name: str, params: dict, num_games: int, seed: int):
    """Random games from OpenSpiel: (actions, legal sets, over flags, returns) per game, the
    last three with one entry per ply from the start position."""
    game = pyspiel.load_game(name, params)
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
def _replay_fn(game):
    step = jax.vmap(game.step)

    def replay(actions):  # int32[B, T]
        start = jax.vmap(game.init)(jax.random.split(jax.random.key(0), actions.shape[0]))

        def ply(state, action):
            state = step(state, action)
            return state, (state.legal_action_mask, state.terminated, state.winner)

        _, history = jax.lax.scan(ply, start, actions.T)
        first = (start.legal_action_mask, start.terminated, start.winner)
        return jax.tree.map(lambda s, h: jnp.concatenate([s[None], h]), first, history)

    return jax.jit(replay)


def assert_same_games(game, records):
    """Replay OpenSpiel's games with hexjax; legal moves, end and winner equal at every ply."""
    num_games = len(records)
    decided = [r[3][-1] for r in records]
    assert any(ret[0] > 0 for ret in decided) and any(ret[1] > 0 for ret in decided), (
        "both sides should win some games, or the comparison has no teeth"
    )
    length = max(len(r[0]) for r in records)
    actions = np.zeros((num_games, length), np.int32)  # padding plies act on finished games
    for i, (moves, *_) in enumerate(records):
        actions[i, : len(moves)] = moves
    masks, terminated, winners = jax.device_get(_replay_fn(game)(jnp.asarray(actions)))
    for i, (moves, legal, over, returns) in enumerate(records):
        for t in range(len(moves) + 1):
            expected_mask = np.zeros(game.num_actions, bool)
            expected_mask[legal[t]] = True
            np.testing.assert_array_equal(masks[t, i], expected_mask, err_msg=f"game {i} ply {t}")
            assert terminated[t, i] == over[t], (i, t)
            expected = -1
            if over[t] and returns[t][0] != returns[t][1]:
                expected = 0 if returns[t][0] > returns[t][1] else 1
            assert winners[t, i] == expected, (i, t)
        # After the end, padding plies change nothing (absorbing state).
        assert terminated[len(moves) :, i].all()
        assert (winners[len(moves) :, i] == winners[len(moves), i]).all()
