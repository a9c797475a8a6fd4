"""The game contract of docs/design.md, checked on every registered game."""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import CONFORMANCE_OPTIONS
from support.playouts import random_playouts, state_at

import hexjax

# Renju at 15 is renju at 9 at a larger compile (about two minutes of the suite): slow tier.
SLOW_CASES = [("gomoku", {"size": 15, "rule": "renju"})]
CASES = [
    pytest.param(
        (name, options),
        id=f"{name}-" + "-".join(f"{k}{v}" for k, v in options.items()),
        marks=[pytest.mark.slow] if (name, options) in SLOW_CASES else [],
    )
    for name in hexjax.available_games()
    for options in CONFORMANCE_OPTIONS.get(name, [])
]


def test_every_registered_game_has_conformance_options():
    assert set(hexjax.available_games()) <= set(CONFORMANCE_OPTIONS)
    assert all(CONFORMANCE_OPTIONS[name] for name in hexjax.available_games())


@pytest.fixture(scope="module", params=CASES)
def played(request):
    name, options = request.param
    game = hexjax.make(name, **options)
    states, actions = random_playouts(game, jax.random.key(7), batch=64)
    return game, jax.device_get(states), np.asarray(actions)


def test_field_shapes_and_dtypes(played):
    game, states, _ = played
    n, a = game.size, game.num_actions
    expected = {
        "board": ((n, n), np.int8),
        "current_player": ((), np.int32),
        "legal_action_mask": ((a,), np.bool_),
        "terminated": ((), np.bool_),
        "rewards": ((2,), np.float32),
        "winner": ((), np.int32),
        "step_count": ((), np.int32),
    }
    for field, (shape, dtype) in expected.items():
        value = getattr(states, field)
        assert value.shape[2:] == shape, field
        assert value.dtype == dtype, field


def test_observation_shape_and_dtype(played):
    game, states, _ = played
    obs = jax.vmap(jax.vmap(game.observe))(states)
    assert obs.shape == states.board.shape[:2] + game.observation_shape
    assert obs.dtype == jnp.float32
    # 0/1 planes: the replay buffer stores observations as uint8 (hexjax/replay.py).
    assert np.isin(np.asarray(obs), (0.0, 1.0)).all()


def test_every_game_ends_within_max_plies(played):
    game, states, _ = played
    assert states.terminated[game.max_plies].all()


def test_legal_mask_nonempty_while_live_and_empty_when_over(played):
    _, states, _ = played
    live = ~states.terminated
    counts = states.legal_action_mask.sum(-1)
    assert (counts[live] > 0).all()
    assert (counts[~live] == 0).all()


def test_terminal_state_is_absorbing(played):
    _, states, _ = played
    was_over = states.terminated[:-1]
    for field in (
        "board",
        "current_player",
        "legal_action_mask",
        "rewards",
        "winner",
        "step_count",
        "terminated",
    ):
        value = getattr(states, field)
        same = (value[1:] == value[:-1]).reshape(value.shape[0] - 1, value.shape[1], -1).all(-1)
        assert same[was_over].all(), field


def test_rewards_match_winner(played):
    _, states, _ = played
    over = states.terminated
    winner = states.winner
    rewards = states.rewards
    assert (rewards.sum(-1) == 0).all()
    assert (rewards[~over] == 0).all()
    assert (winner[~over] == -1).all()
    for player in (0, 1):
        won = over & (winner == player)
        assert (rewards[won][:, player] == 1).all()
        assert (rewards[won][:, 1 - player] == -1).all()
    drawn = over & (winner == -1)
    assert (rewards[drawn] == 0).all()


def test_final_owners_keep_every_stone_and_name_a_colour(played):
    """The ownership target: a cell with a stone is owned by that stone's colour; every owner
    is 0, 1 or 2; a live position's owners are its board."""
    game, states, _ = played
    owners = np.asarray(jax.vmap(jax.vmap(game.final_owners))(states))
    board = states.board
    assert owners.shape == board.shape and owners.dtype == np.int8
    np.testing.assert_array_equal(owners[board != 0], board[board != 0])
    assert np.isin(owners, (0, 1, 2)).all()
    live = ~states.terminated
    np.testing.assert_array_equal(owners[live], board[live])


def test_forced_results_are_well_formed(played):
    """Every game's `forced_result`: 1, -1 or 0, with 1 to 3 plies exactly when settled, and
    nothing settled once the game is over (tests/test_games_forced_result.py checks Gomoku's
    against its moves)."""
    game, states, _ = played
    result, plies = (np.asarray(x) for x in jax.vmap(jax.vmap(game.forced_result))(states))
    assert result.shape == plies.shape == states.terminated.shape
    assert np.isin(result, (-1, 0, 1)).all() and np.isin(plies, (0, 1, 2, 3)).all()
    np.testing.assert_array_equal(plies == 0, result == 0)
    assert (result[states.terminated] == 0).all()


def test_step_count_and_turns(played):
    _, states, _ = played
    live = ~states.terminated[:-1]
    assert (states.step_count[0] == 0).all()
    assert (states.current_player[0] == 0).all()
    assert (states.step_count[1:][live] == states.step_count[:-1][live] + 1).all()
    assert np.isin(states.current_player, (0, 1)).all()
    # Every ply (passes and swaps too) hands the move over: the search's discount is -1.
    moved = live & ~states.terminated[1:]
    assert (states.current_player[1:][moved] == 1 - states.current_player[:-1][moved]).all()


@pytest.mark.parametrize("bad_action", ["occupied", -1, "num_actions"])
def test_illegal_action_inside_jit_loses_for_the_mover(played, bad_action):
    game, states, _ = played
    t = 2 if game.size > 2 else 1
    state = state_at(states, t, 0)
    assert not bool(state.terminated)
    if bad_action == "occupied":
        action = int(np.flatnonzero(~np.asarray(state.legal_action_mask))[0])
    elif bad_action == "num_actions":
        action = game.num_actions
    else:
        action = bad_action
    after = jax.jit(game.step)(state, action)
    mover = int(state.current_player)
    assert bool(after.terminated)
    assert int(after.winner) == 1 - mover
    assert after.rewards.tolist() == ([-1.0, 1.0] if mover == 0 else [1.0, -1.0])
    assert not np.asarray(after.legal_action_mask).any()
    np.testing.assert_array_equal(after.board, state.board)


def test_step_compiles_once(played):
    game, states, actions = played
    chex.clear_trace_counter()  # the counter is keyed by source code, shared across parameters

    def batched_step(state, action):
        return jax.vmap(game.step)(state, action)

    step = jax.jit(chex.assert_max_traces(batched_step, n=1))
    for t in range(3):
        batch = jax.tree.map(lambda x, t=t: x[t], states)
        jax.block_until_ready(step(batch, jnp.asarray(actions[t])))


def test_init_ignores_or_uses_key_consistently(played):
    game, _, _ = played
    keys = jax.random.split(jax.random.key(3), 8)
    batch = jax.jit(jax.vmap(game.init))(keys)
    assert batch.board.shape == (8, game.size, game.size)
    assert (np.asarray(batch.step_count) == 0).all()


def test_symmetries_are_permutations(played):
    game, states, _ = played
    names = [s.name for s in game.symmetries]
    assert names[0] == "identity" and len(set(names)) == len(names)
    obs = jax.vmap(game.observe)(jax.tree.map(lambda x: x[3], states))
    for sym in game.symmetries:
        assert sorted(sym.action_map.tolist()) == list(range(game.num_actions)), sym.name
        assert sym.observation_fn(obs).shape == obs.shape
        policy = jax.nn.one_hot(jnp.arange(game.num_actions), game.num_actions)
        moved = np.asarray(sym.transform_policy(policy))
        np.testing.assert_array_equal(moved.argmax(-1), sym.action_map)


# --- what front ends ask of a game (so that none branches on its name) -----------------------


@pytest.mark.parametrize("case", CASES)
def test_every_observation_plane_is_described(case):
    name, options = case
    game = hexjax.make(name, **options)
    planes = game.plane_meanings()
    assert len(planes) == game.observation_shape[-1]
    keys = [key for key, _ in planes]
    assert len(set(keys)) == len(keys) and all(text for _, text in planes)
    assert game.end_rule()
    assert game.label.startswith(f"{name} {game.size}x{game.size}")


@pytest.mark.parametrize("case", CASES)
def test_extra_actions_are_the_moves_off_the_cells(case):
    name, options = case
    game = hexjax.make(name, **options)
    cells = game.size * game.size
    extras = {extra.action for extra in game.extra_actions}
    assert extras == set(range(cells, game.num_actions))
    for extra in game.extra_actions:
        assert game.extra_action(extra.word) == extra.action
        assert game.parse_move(extra.word) == extra.action
        assert game.parse_move(extra.protocol_word) == extra.action
        assert game.protocol_move(extra.action) == extra.protocol_word
    assert game.protocol_move(0) == game.action_to_string(0)
    assert game.extra_action("no such move") is None


@pytest.mark.parametrize("case", CASES)
def test_sgf_points_read_back_as_their_actions(case):
    name, options = case
    game = hexjax.make(name, **options)
    try:
        game.check_sgf()
    except ValueError as error:  # Othello; Gomoku other than five in a row
        assert "SGF" in str(error)
        assert game.sgf_number is None or getattr(game, "win_length", 5) != 5
        return
    values = [game.sgf_point(a) for a in range(game.num_actions)]
    assert len(set(values)) == game.num_actions
    assert [game.sgf_action(v) for v in values] == list(range(game.num_actions))
    again = type(game).from_sgf(game.size, getattr(game, "rule", None), values)
    assert again.as_played == game.as_played


@pytest.mark.parametrize("case", CASES)
def test_forbidden_mask_and_marks_stay_on_empty_cells(case):
    name, options = case
    game = hexjax.make(name, **options)
    state = game.new_state()
    mask = game.forbidden_mask(state)
    assert mask.shape == (game.size, game.size) and mask.dtype == np.bool_
    board = np.asarray(state.board).reshape(-1)
    assert all(board[cell] == 0 for cell in game.hint_marks(state))
