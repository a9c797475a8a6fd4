"""Self-play bookkeeping: value targets, games spanning iterations, nothing lost."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support.drawn_boards import drawn_game

import hexjax
from hexjax.alphazero import replay, selfplay
from hexjax.alphazero.search import SearchResult

# Hex 3x3: Black a1 a2 a3 joins the top and bottom rows on the fifth ply.
SCRIPT = "a1 b1 a2 b2 a3"


def scripted_search(game, script):
    """A stand-in for the search that plays `script` (by ply) with a one-hot policy."""
    actions = jnp.asarray(game.parse_moves(script) + [0] * game.max_plies, jnp.int32)

    def search(params, key, states, ply):
        del params, key
        action = actions[ply]
        policy = jax.nn.one_hot(action, game.num_actions)
        value = jnp.zeros(action.shape[0])
        return SearchResult(action=action, policy=policy, value=value, tree=None)

    return search


def test_value_targets_of_a_game_played_across_two_iterations():
    game = hexjax.make("hex", size=3)
    search = scripted_search(game, SCRIPT)
    state = selfplay.init_selfplay(game, jax.random.key(0), batch=2)
    # Iteration 1: three plies, the game is not over: nothing is ready, all three pend.
    state, trajectory, _ = selfplay.play(game, search, None, jax.random.key(1), state, plies=3)
    state, rows, value, ready = selfplay.settle(state, trajectory)
    assert not np.asarray(ready).any()
    assert np.asarray(state.pending.valid).sum() == 2 * 3
    # Iteration 2: plies four and five end the game (Black wins); a new game starts.
    state, trajectory, _ = selfplay.play(game, search, None, jax.random.key(2), state, plies=3)
    assert np.asarray(trajectory.done).tolist() == [[False, False], [True, True], [False] * 2]
    state, rows, value, ready = selfplay.settle(state, trajectory)
    ready = np.asarray(ready)
    assert ready.sum() == 2 * 5
    movers = np.asarray(rows.mover)[ready].reshape(5, 2)  # time-major: [ply, game]
    values = np.asarray(value)[ready].reshape(5, 2)
    assert movers[:, 0].tolist() == [0, 1, 0, 1, 0]
    assert values[:, 0].tolist() == [1, -1, 1, -1, 1]  # the mover's own view each time
    # The policy targets are the moves that were played, in order.
    played = np.asarray(rows.policy)[ready].reshape(5, 2, -1).argmax(axis=-1)[:, 0]
    assert game.format_moves(played.tolist()) == SCRIPT
    # The observation of ply 3 (Black to move after a1 b1) shows Black's a1 as its own stone.
    obs = np.asarray(rows.obs)[ready].reshape(5, 2, 3, 3, -1)[2, 0]
    assert obs[0, 0, 0] == 1 and obs[0, 1, 1] == 1
    # The new game's first position waits in the pending buffer.
    assert np.asarray(state.pending.valid).sum() == 2 * 1
    assert (np.asarray(state.plies) == 1).all()


def test_no_position_is_lost_or_duplicated():
    from hexjax.alphazero.network import NetworkConfig, init_params, make_network
    from hexjax.alphazero.search import SearchConfig, make_search

    game = hexjax.make("gomoku", size=5, win_length=4)
    net = make_network(NetworkConfig(preset="tiny"), game.num_actions)
    params = init_params(net, jax.random.key(0), game.observation_shape)
    search = make_search(game, net, SearchConfig(num_simulations=2, max_considered_actions=2))
    state = selfplay.init_selfplay(game, jax.random.key(1), batch=8)
    buffer = replay.init_buffer(game, capacity=10_000)

    @jax.jit
    def iteration(state, buffer, key):
        state, trajectory, _ = selfplay.play(game, search, params, key, state, plies=7)
        state, rows, value, ready = selfplay.settle(state, trajectory)
        buffer = replay.add(buffer, rows.obs, rows.policy, value, ready)
        return state, buffer, trajectory.done.sum()

    games = 0
    for i in range(6):
        state, buffer, done = iteration(state, buffer, jax.random.key(10 + i))
        games += int(done)
        pending = int(np.asarray(state.pending.valid).sum())
        assert int(buffer.added) + pending == 8 * 7 * (i + 1)
    assert games > 8  # several games finished, each with all its positions
    values = np.asarray(buffer.value)[: int(buffer.size)]
    assert set(np.unique(values)) <= {-1.0, 0.0, 1.0}


def test_discounted_value_targets_shrink_with_the_plies_left():
    """With discount g, a position k plies before the game's last move is worth g^k of the
    outcome from its mover's view: the winner's last move 1, the loser's move before it -g."""
    game = hexjax.make("hex", size=3)
    state = selfplay.init_selfplay(game, jax.random.key(0), batch=1)
    search = scripted_search(game, SCRIPT)
    state, trajectory, _ = selfplay.play(game, search, None, jax.random.key(1), state, plies=5)
    value, finished = selfplay.value_targets(trajectory, discount=0.5)
    assert np.asarray(finished).all()
    assert np.asarray(value)[:, 0].tolist() == [0.0625, -0.125, 0.25, -0.5, 1.0]
    value, _ = selfplay.value_targets(trajectory)
    assert np.asarray(value)[:, 0].tolist() == [1, -1, 1, -1, 1]


def test_a_drawn_game_is_valued_by_colour_and_a_won_one_as_before():
    """With draw_value d, every position of a drawn game is worth d to the first player and -d
    to the second (discounted like an outcome); a decided game's values do not change."""
    game, moves = drawn_game(6)
    script = " ".join(moves)
    state = selfplay.init_selfplay(game, jax.random.key(0), batch=1)
    state, trajectory, _ = selfplay.play(
        game, scripted_search(game, script), None, jax.random.key(1), state, plies=36
    )
    assert np.asarray(trajectory.done)[:, 0].tolist() == [False] * 35 + [True]
    value, finished = selfplay.value_targets(trajectory, draw_value=-0.25)
    assert np.asarray(finished).all()
    assert np.asarray(value)[:, 0].tolist() == [-0.25, 0.25] * 18
    value, _ = selfplay.value_targets(trajectory, discount=0.5, draw_value=-0.25)
    assert np.asarray(value)[-2:, 0].tolist() == [-0.125, 0.25]
    assert (np.asarray(selfplay.value_targets(trajectory)[0]) == 0).all()
    hex3 = hexjax.make("hex", size=3)
    start = selfplay.init_selfplay(hex3, jax.random.key(0), batch=1)
    search = scripted_search(hex3, SCRIPT)
    won = selfplay.play(hex3, search, None, jax.random.key(1), start, plies=5)[1]
    value, _ = selfplay.value_targets(won, draw_value=-0.25)
    assert np.asarray(value)[:, 0].tolist() == [1, -1, 1, -1, 1]


def test_random_openings_play_up_to_the_limit_and_never_end_a_game():
    """Each game gets k ~ U{0..max_plies} legal plies: every k occurs, about equally often; on
    Hex 2x2 a ply that would end the game is never played."""
    game = hexjax.make("hex", size=4)
    states = jax.vmap(game.init)(jax.random.split(jax.random.key(0), 2000))
    opened = selfplay.random_openings(game, jax.random.key(1), states, max_plies=3)
    stones = (np.asarray(opened.board) != 0).reshape(2000, -1).sum(axis=1)
    counts = np.bincount(stones, minlength=4)
    assert counts.sum() == 2000 and len(counts) == 4
    assert (np.abs(counts - 500) < 100).all(), counts
    # Hex 2x2: Black wins with two stones on ply 3 or 5; games stop before a winning ply.
    tiny = hexjax.make("hex", size=2)
    states = jax.vmap(tiny.init)(jax.random.split(jax.random.key(2), 500))
    opened = selfplay.random_openings(tiny, jax.random.key(3), states, max_plies=4)
    assert not np.asarray(opened.terminated).any()
    stones = (np.asarray(opened.board) != 0).reshape(500, -1).sum(axis=1)
    assert set(stones.tolist()) == {0, 1, 2, 3}  # a fourth stone always ends the 2x2 game
    # Players alternate through the opening: the side to move follows the stone count.
    assert (np.asarray(opened.current_player) == stones % 2).all()


def test_self_play_from_openings_records_every_searched_position():
    """New games start from random openings (not recorded); every searched ply is still
    recorded once, and games begin with 0, 1 or 2 stones."""
    from hexjax.alphazero.network import NetworkConfig, init_params, make_network
    from hexjax.alphazero.search import SearchConfig, make_search

    game = hexjax.make("gomoku", size=5, win_length=4)
    net = make_network(NetworkConfig(preset="tiny"), game.num_actions)
    params = init_params(net, jax.random.key(0), game.observation_shape)
    search = make_search(game, net, SearchConfig(num_simulations=2, max_considered_actions=2))
    state = selfplay.init_selfplay(game, jax.random.key(1), batch=16, opening_plies=2)
    buffer = replay.init_buffer(game, capacity=10_000)

    @jax.jit
    def iteration(state, buffer, key):
        state, trajectory, first = selfplay.play(game, search, params, key, state, 7, 2)
        state, rows, value, ready = selfplay.settle(state, trajectory)
        buffer = replay.add(buffer, rows.obs, rows.policy, value, ready)
        return state, buffer, trajectory, first

    opening_stones = []
    for i in range(5):
        before = state.plies
        state, buffer, trajectory, first = iteration(state, buffer, jax.random.key(10 + i))
        pending = int(np.asarray(state.pending.valid).sum())
        assert int(buffer.added) + pending == 16 * 7 * (i + 1)
        # A game's first searched ply: the stones on its board came from the opening.
        starts = np.zeros((7, 16), bool)
        starts[0] = np.asarray(before) == 0
        starts[1:] = np.asarray(trajectory.done)[:-1]
        stones = np.asarray(trajectory.obs)[..., :2].reshape(7, 16, -1).sum(axis=-1)
        opening_stones += stones[starts].tolist()
        first = np.asarray(first)
        assert ((first >= 0) == starts).all()
    assert set(opening_stones) == {0, 1, 2}


def test_opening_entropy():
    entropy = lambda moves: float(selfplay.opening_entropy(jnp.asarray(moves), 9))  # noqa: E731
    assert entropy([[3, -1], [3, 3]]) == 0.0
    assert abs(entropy([[3, 5], [-1, -1]]) - np.log(2)) < 1e-6
    assert abs(entropy(list(range(9))) - np.log(9)) < 1e-6
    assert entropy([[-1, -1]]) == 0.0


def test_root_values_mixed_into_the_targets_across_two_iterations():
    """With root_value_share w each target is w of the search's root value and 1 - w of the
    outcome, for rows kept pending between iterations too. The scripted search values ply k at
    (k + 1) / 10; Black wins on the fifth ply."""
    game = hexjax.make("hex", size=3)
    scripted = scripted_search(game, SCRIPT)

    def search(params, key, states, ply):
        result = scripted(params, key, states, ply)
        return result.replace(value=jnp.full(result.action.shape, (ply + 1) / 10, jnp.float32))

    state = selfplay.init_selfplay(game, jax.random.key(0), batch=1, root_values=True)
    state, trajectory, _ = selfplay.play(game, search, None, jax.random.key(1), state, plies=3)
    state, _, _, ready = selfplay.settle(state, trajectory, root_share=0.25)
    assert not np.asarray(ready).any()  # the game goes on: its rows wait, root values too
    state, trajectory, _ = selfplay.play(game, search, None, jax.random.key(2), state, plies=2)
    state, _, value, ready = selfplay.settle(state, trajectory, root_share=0.25)
    targets = np.asarray(value)[np.asarray(ready)]
    np.testing.assert_allclose(targets, [0.775, -0.7, 0.825, -0.65, 0.875], rtol=1e-6)


def test_without_root_values_the_layout_is_the_old_one():
    # Runs stored before root values (and runs without them) keep their checkpoint layout.
    game = hexjax.make("hex", size=3)
    plain = selfplay.init_selfplay(game, jax.random.key(0), batch=2)
    assert plain.pending.root_value is None
    assert len(jax.tree.leaves(plain.pending)) == 6  # obs policy mover valid done outcome
    with_values = selfplay.init_selfplay(game, jax.random.key(0), batch=2, root_values=True)
    assert with_values.pending.root_value.shape == (game.max_plies, 2)
    with pytest.raises(ValueError, match="root values"):
        selfplay.value_targets(plain.pending, root_share=0.5)
