"""The rollout-MCTS baseline: its playouts (generic and Hex's fast one) and its tree search."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support.hex_oracle import connects

import hexjax
from hexjax.evaluation import arena, players, rollout_mcts
from hexjax.evaluation.scores import summarize
from hexjax.games import Game


@pytest.mark.parametrize("size", [2, 3, 5, 7, 11])
def test_hex_flood_fill_matches_the_referee(size):
    """Random boards of any density, including full ones and snakes across the board."""
    game = hexjax.make("hex", size=size)
    rng = np.random.default_rng(size)
    density = rng.uniform(0.3, 1.0, size=(400, 1, 1))
    stones = rng.uniform(size=(400, size, size)) < density
    ours = np.asarray(jax.jit(jax.vmap(game.top_bottom_connected))(jnp.asarray(stones)))
    expected = [connects(board.astype(int).tolist(), 0) for board in stones]
    assert ours.tolist() == expected


@pytest.mark.parametrize(("swap", "moves"), [(False, "d4 c5 e2"), (True, "b2"), (False, "")])
def test_hex_dealt_playout_has_the_distribution_of_played_playouts(swap, moves):
    """Hex deals the empty cells at once instead of playing ply by ply; the first-player win
    rate of 20,000 playouts each must agree within 4.5 standard errors."""
    game = hexjax.make("hex", size=7, swap=swap)
    state = game.from_moves(moves)
    count = 20_000

    def rate(fn, seed):
        keys = jax.random.split(jax.random.key(seed), count)
        winners = np.asarray(jax.jit(jax.vmap(fn, in_axes=(0, None)))(keys, state))
        assert set(np.unique(winners)) <= {0, 1}
        return (winners == 0).mean()

    dealt = rate(game.playout_winner, 1)
    played = rate(lambda k, s: Game.playout_winner(game, k, s), 2)
    standard_error = np.sqrt(2 * 0.25 / count)
    assert abs(dealt - played) < 4.5 * standard_error


@pytest.mark.parametrize(
    ("name", "options", "moves"),
    [
        ("hex", {"size": 3}, "a1 b2 a2 c1 a3"),
        ("gomoku", {"size": 5, "win_length": 3}, "a1 e5 b1 e4 c1"),
        ("othello", {"size": 4}, None),
    ],
)
def test_playout_of_a_finished_game_is_its_winner_and_live_ones_end(name, options, moves):
    game = hexjax.make(name, **options)
    keys = jax.random.split(jax.random.key(0), 64)
    live = jax.jit(jax.vmap(game.playout_winner, in_axes=(0, None)))(keys, game.new_state())
    assert set(np.unique(np.asarray(live))) <= {-1, 0, 1}
    if moves:
        over = game.from_moves(moves)
        assert bool(over.terminated)
        winners = jax.jit(jax.vmap(game.playout_winner, in_axes=(0, None)))(keys, over)
        assert (np.asarray(winners) == int(over.winner)).all()


def test_root_visits_add_up_and_illegal_moves_are_never_expanded():
    game = hexjax.make("hex", size=3)
    state = game.from_moves("a1 b2 c3 a3")  # five empty cells
    visits = jax.jit(rollout_mcts.make_uct(game, 300))(jax.random.key(0), state)
    visits = np.asarray(visits)
    legal = np.asarray(state.legal_action_mask)
    assert visits.sum() == 300
    assert (visits[~legal] == 0).all() and (visits[legal] > 0).all()


def test_uct_blocks_the_only_threat():
    """Hex 3x3, White to move; Black's a1-a2 reaches the bottom through a3 alone, so a3 is
    White's only move that does not lose at once (checked by brute force here)."""
    game = hexjax.make("hex", size=3)
    state = game.from_board(["X . O", "X . .", ". . ."], to_play=1)

    def loses(action):
        child = game._jit_step(state, action)
        return any(int(game._jit_step(child, a).winner) == 0 for a in game.legal_actions(child))

    safe = [a for a in game.legal_actions(state) if not loses(a)]
    assert safe == [game.string_to_action("a3")]
    states = jax.tree.map(lambda x: jnp.stack([x] * 4), state)
    action = jax.jit(players.rollout_mcts_player(game, 500))(jax.random.key(1), states)
    assert np.asarray(action).tolist() == safe * 4


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("hex", {"size": 5}),
        ("gomoku", {"size": 6, "win_length": 4}),
        # Othello's runs more than it compiles: over a minute under the suite's compiler flags.
        pytest.param("othello", {"size": 6}, marks=pytest.mark.slow),
    ],
)
def test_more_simulations_play_better(name, options):
    game = hexjax.make(name, **options)
    strong = players.rollout_mcts_player(game, 400)
    weak = players.rollout_mcts_player(game, 25)
    play = jax.jit(lambda key: arena.arena(game, strong, weak, key, 24, 2))
    summary = summarize(np.asarray(play(jax.random.key(0))))
    assert summary["score"] >= 0.7, summary
