"""DQN and PPO baselines: hand-computed targets, legal actions only, one compile, learning."""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hexjax
from hexjax.baselines import common, dqn, ppo
from hexjax.evaluation import arena, hex_solver, players, solver_accuracy
from hexjax.training import algorithms, config_io

T, F = True, False


def targets(reward, done, mover, online, target, legal, discount=1.0, double=False):
    return np.asarray(
        dqn.td_targets(
            jnp.asarray(reward, jnp.float32),
            jnp.asarray(done),
            jnp.asarray(mover, jnp.int32),
            jnp.asarray(online, jnp.float32),
            jnp.asarray(target, jnp.float32),
            jnp.asarray(legal),
            discount,
            double,
        )
    )


# One position after the move: the opponent (player 1) to move, three actions, the third
# illegal. The target net rates its moves 0.5, -0.2 (and 0.9 on the illegal one); the online
# net prefers the second legal move (0.3 > 0.1).
ONLINE = [[0.1, 0.3, 0.8]]
TARGET = [[0.5, -0.2, 0.9]]
LEGAL = [[T, T, F]]


def test_one_step_target_is_minus_the_opponents_best_legal_value():
    # DQN: the opponent's best legal target value is 0.5 (not the illegal 0.9): y = -0.5.
    y = targets([[0.0]], [[F]], [[0, 1]], ONLINE, TARGET, LEGAL)
    np.testing.assert_allclose(y, [-0.5])


def test_double_dqn_values_the_online_choice_with_the_target_net():
    # Double DQN: the online net picks action 1, the target net values it -0.2: y = +0.2.
    y = targets([[0.0]], [[F]], [[0, 1]], ONLINE, TARGET, LEGAL, double=True)
    np.testing.assert_allclose(y, [0.2])


def test_a_move_that_ends_the_game_is_worth_its_reward_alone():
    for double in (False, True):
        y = targets([[1.0]], [[T]], [[0, 1]], ONLINE, TARGET, LEGAL, double=double)
        np.testing.assert_allclose(y, [1.0])


def test_the_same_player_to_move_again_keeps_the_sign():
    y = targets([[0.0]], [[F]], [[1, 1]], ONLINE, TARGET, LEGAL)
    np.testing.assert_allclose(y, [0.5])


def test_n_step_returns_alternate_sign_discount_and_stop_at_the_end():
    # Three plies, no end: y = (-0.9)^3 * 0.5 = -0.3645.
    y = targets([[0, 0, 0]], [[F, F, F]], [[0, 1, 0, 1]], ONLINE, TARGET, LEGAL, discount=0.9)
    np.testing.assert_allclose(y, [-0.3645], rtol=1e-6)
    # The opponent wins with the second ply: y = -0.9 * 1, no bootstrap, the third ply (of the
    # next game) ignored.
    y = targets([[0, 1, 1]], [[F, T, F]], [[0, 1, 0, 1]], ONLINE, TARGET, LEGAL, discount=0.9)
    np.testing.assert_allclose(y, [-0.9], rtol=1e-6)
    # Two plies, the second player's move ends in a draw: 0.
    y = targets([[0, 0]], [[F, T]], [[0, 1, 0]], ONLINE, TARGET, LEGAL, discount=0.9)
    np.testing.assert_allclose(y, [0.0])


def advantages(reward, value, done, mover, last_value, last_mover, discount=1.0, lam=0.5):
    column = lambda x, kind=jnp.float32: jnp.asarray(x, kind)[:, None]  # noqa: E731  [T, B=1]
    return np.asarray(
        ppo.gae(
            column(reward),
            column(value),
            column(done, jnp.bool_),
            column(mover, jnp.int32),
            jnp.asarray([last_value], jnp.float32),
            jnp.asarray([last_mover], jnp.int32),
            discount,
            lam,
        )
    )[:, 0]


def test_gae_by_hand_on_a_three_ply_game():
    # Player 0, 1, 0 move; player 0's last move wins. Values 0.1, -0.2, 0.3 (each mover's view).
    # lambda 0.5: delta_2 = 1 - 0.3 = 0.7, A_2 = 0.7
    #   delta_1 = -0.3 + 0.2 = -0.1,  A_1 = -0.1 - 0.5 * 0.7 = -0.45
    #   delta_0 = +0.2 - 0.1 = 0.1,   A_0 = 0.1 + 0.5 * 0.45 = 0.325
    a = advantages([0, 0, 1], [0.1, -0.2, 0.3], [F, F, T], [0, 1, 0], 0.6, 1, lam=0.5)
    np.testing.assert_allclose(a, [0.325, -0.45, 0.7], rtol=1e-6)
    # lambda 1: the Monte Carlo returns +1, -1, +1 minus the values.
    a = advantages([0, 0, 1], [0.1, -0.2, 0.3], [F, F, T], [0, 1, 0], 0.6, 1, lam=1.0)
    np.testing.assert_allclose(a, [0.9, -0.8, 0.7], rtol=1e-6)


def test_gae_bootstraps_an_open_game_from_the_opponents_value():
    # One ply, the game goes on with the opponent to move at value 0.6 (its view): 0 - 0.6 - 0.2.
    a = advantages([0.0], [0.2], [F], [0], 0.6, 1, discount=1.0, lam=0.95)
    np.testing.assert_allclose(a, [-0.8], rtol=1e-6)
    a = advantages([0.0], [0.2], [F], [0], 0.6, 1, discount=0.5, lam=0.95)
    np.testing.assert_allclose(a, [-0.5], rtol=1e-6)


def test_masked_policies_never_choose_an_illegal_action():
    # Networks that put everything on the illegal actions, and states with few legal moves.
    legal = jnp.zeros((512, 10), jnp.bool_).at[:, 3].set(True).at[::2, 7].set(True)
    illegal_favoured = jnp.where(legal, -5.0, 5.0)
    for epsilon in (0.0, 0.5, 1.0):
        actions = dqn.epsilon_greedy(jax.random.key(1), illegal_favoured, legal, epsilon)
        assert bool(jnp.take_along_axis(legal, actions[:, None], 1).all())
    log_probs = ppo.masked_log_probs(illegal_favoured * 1e3, legal)
    assert float(jnp.exp(log_probs)[~legal].max()) == 0.0
    sampled = jax.random.categorical(jax.random.key(2), log_probs)
    assert bool(jnp.take_along_axis(legal, sampled[:, None], 1).all())


def tiny(trainer, **changes):
    config = config_io.replace(trainer.presets["tiny"], {"game.size": 4, **changes})
    return config


@pytest.mark.parametrize("name", ["dqn", "ppo"])
def test_iterations_compile_once_and_every_recorded_move_is_legal(name):
    trainer = algorithms.get(name)
    changes = {"opponent": "pool"} if name == "dqn" else {}
    init, iteration = trainer.make_iteration(tiny(trainer, **changes), None, None)
    chex.clear_trace_counter()
    iteration = jax.jit(chex.assert_max_traces(iteration, n=1))
    state = init(jax.random.key(0))
    first = state.params
    for i in range(6):
        state, metrics = iteration(state, jax.random.key(i + 1))
    assert int(state.iteration) == 6 and int(state.updates) > 0
    assert all(np.isfinite(float(v)) for v in metrics.values())
    changed = jax.tree.map(lambda a, b: bool((a != b).any()), first, state.params)
    assert any(jax.tree.leaves(changed))
    if name == "dqn":
        ring = state.replay
        rows = int(ring.rows)
        chosen = jnp.take_along_axis(ring.legal[:rows], ring.action[:rows, :, None], axis=2)
        assert bool(chosen.all())  # every move of both sides, learner and past selves
        assert int(state.pool_count) == 1 + 6 // 2  # a snapshot every pool_every = 2


def test_dqn_rewards_are_the_movers_outcome_and_games_restart():
    game = hexjax.make("hex", size=2)
    games = jax.vmap(game.init)(jax.random.split(jax.random.key(0), 1))
    # 2x2 Hex (action r * 2 + c): Black (0, 1), White (0, 0), Black (1, 1) joins Black's rows
    # 0 and 1, so Black's third ply wins and pays +1 to its mover.
    plies = jnp.zeros(1, jnp.int32)
    rewards, dones = [], []
    for action in (1, 0, 3):
        games, plies, outcome = common.step_games(
            game, jax.random.key(9), games, plies, jnp.asarray([action])
        )
        rewards.append(float(outcome.reward[0]))
        dones.append(bool(outcome.done[0]))
    assert dones == [False, False, True] and rewards == [0.0, 0.0, 1.0]
    assert int(games.step_count[0]) == 0 and int(plies[0]) == 0  # a new game in the slot


def test_ring_sequences_stay_inside_one_column_and_the_written_rows():
    game = hexjax.make("hex", size=3)
    ring = dqn.init_transitions(game, capacity=4 * 5, games=4)  # 5 rows of 4 games
    for t in range(7):  # wraps: rows hold plies 2..6
        plies = dqn.Transitions(
            obs=jnp.zeros((1, 4, *game.observation_shape), jnp.uint8),
            action=jnp.full((1, 4), t, jnp.int32),
            reward=jnp.zeros((1, 4)),
            done=jnp.zeros((1, 4), jnp.bool_),
            mover=jnp.broadcast_to(jnp.arange(4, dtype=jnp.int32), (1, 4)),
            legal=jnp.ones((1, 4, game.num_actions), jnp.bool_),
            rows=jnp.int32(0),
            cursor=jnp.int32(0),
        )
        ring = dqn.write(ring, plies)
    sequences = dqn.sample_sequences(ring, jax.random.key(0), 2000, steps=2)
    action, mover = np.asarray(sequences["action"]), np.asarray(sequences["mover"])
    assert ((action[:, 1] == action[:, 0] + 1) & (action[:, 2] == action[:, 0] + 2)).all()
    assert set(action[:, 0]) == {2, 3, 4}  # 2..6 are written; a start needs two after it
    assert (mover == mover[:, :1]).all()  # one column (game slot) per sequence


LEARNING_ITERATIONS = {"dqn": 160, "ppo": 160}


@pytest.fixture(scope="module")
def hex3_positions():
    """Every position of 200 random games of Hex 3x3 that has a winning move, with the
    solver's set of winning moves."""
    game = hexjax.make("hex", size=3)
    random_player = players.random_player(game)
    games = arena.arena_games(game, random_player, random_player, jax.random.key(7), 200, 0)
    states = arena.positions_of_games(game, games.moves)
    solver = hex_solver.HexSolver(3)
    boards, to_play = np.asarray(states.board), np.asarray(states.current_player)
    winnable = np.asarray(
        [bool(solver.winning_moves(b, int(p))) for b, p in zip(boards, to_play, strict=True)]
    )
    states = jax.tree.map(lambda x: x[jnp.asarray(winnable)], states)
    return game, states, solver


@pytest.mark.parametrize("name", ["dqn", "ppo"])
def test_a_short_run_beats_random_and_finds_winning_moves(name, hex3_positions):
    game, states, solver = hex3_positions
    trainer = algorithms.get(name)
    config = tiny(trainer, **{"game.size": 3})
    init, iteration = trainer.make_iteration(config, game, None)
    iteration = jax.jit(iteration)
    untrained = init(jax.random.key(0))
    state = untrained
    for i in range(LEARNING_ITERATIONS[name]):
        state, _ = iteration(state, jax.random.key(100 + i))
    make_player = trainer.make_player(config, game, None)

    def accuracy(params):
        actions = jax.jit(lambda p: make_player(p)(jax.random.key(0), states))(params)
        boards, to_play = np.asarray(states.board), np.asarray(states.current_player)
        return solver_accuracy.accuracy(solver, boards, to_play, np.asarray(actions))["accuracy"]

    random_player = players.random_player(game)
    scores = arena.arena(game, make_player(state.params), random_player, jax.random.key(5), 400, 0)
    before, after = accuracy(untrained.params), accuracy(state.params)
    assert float(scores.mean()) > 0.6  # random against random: 0.5
    assert after > before + 0.1


@pytest.mark.parametrize("size", [3, 4])
def test_augmented_samples_stay_consistent_with_their_boards(size):
    """Under every sampled symmetry the move taken is still on an empty cell of the first
    position, and the last position's legal moves are exactly its empty cells (Hex: a cell is
    empty where neither stone plane is set)."""
    game = hexjax.make("hex", size=size)
    random_player = players.random_player(game)
    games = arena.arena_games(game, random_player, random_player, jax.random.key(3), 40, 0)
    states = arena.positions_of_games(game, games.moves)
    first = jax.tree.map(lambda x: x[:-1], states)
    last = jax.tree.map(lambda x: x[1:], states)
    action = random_player(jax.random.key(4), first)
    sequences = {
        "obs": jnp.stack([jax.vmap(game.observe)(s) for s in (first, last)], axis=1),
        "action": jnp.stack([action, action], axis=1),
        "legal": jnp.stack([first.legal_action_mask, last.legal_action_mask], axis=1),
    }
    out = dqn.augment(game, jax.random.key(5), sequences, steps=1)
    cells = size * size
    empty = lambda obs: (obs[..., 0] + obs[..., 1]).reshape(-1, cells) == 0  # noqa: E731
    first_empty, last_empty = (
        np.asarray(empty(out["first_obs"])),
        np.asarray(empty(out["last_obs"])),
    )
    taken = np.asarray(out["action"][:, 0])
    assert first_empty[np.arange(len(taken)), taken].all()
    np.testing.assert_array_equal(np.asarray(out["legal"][:, 1]), last_empty)
    # Some rows were really transformed (not only the identity).
    assert (taken != np.asarray(action)).any()
