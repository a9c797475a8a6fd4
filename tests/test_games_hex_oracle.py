"""hexjax's Hex against the plain-Python BFS referee in support/hex_oracle.py."""

import jax
import numpy as np
import pytest
from support.hex_oracle import connects, winner
from support.playouts import random_playouts

import hexjax


def test_oracle_on_hand_made_boards():
    assert connects([[1, 0], [1, 0]], 0)
    assert connects([[0, 1], [1, 0]], 0)  # (0, 1) touches (1, 0)
    assert not connects([[1, 0], [0, 1]], 0)  # (0, 0) and (1, 1) do not touch
    assert connects([[2, 2], [0, 0]], 1)
    assert connects([[0, 2], [2, 0]], 1)
    assert winner([[0, 0], [0, 0]]) == -1


@pytest.mark.parametrize(("size", "swap"), [(3, False), (6, False), (11, False), (7, True)])
def test_every_ply_of_random_games_matches_the_oracle(size, swap):
    game = hexjax.make("hex", size=size, swap=swap)
    states, _ = random_playouts(game, jax.random.key(size), batch=64)
    boards = np.asarray(states.board)
    terminated = np.asarray(states.terminated)
    winners = np.asarray(states.winner)
    for t in range(boards.shape[0]):
        for b in range(boards.shape[1]):
            expected = winner(boards[t, b].tolist())
            assert winners[t, b] == expected, (t, b)
            assert terminated[t, b] == (expected >= 0), (t, b)


@pytest.mark.parametrize("size", [2, 3, 4, 5, 8, 11, 19])
def test_full_boards_always_have_exactly_one_winner(size):
    game = hexjax.make("hex", size=size)
    rng = np.random.default_rng(size)
    cells = size * size
    for _ in range(40):
        colours = np.array([1, 2] * cells)[:cells]  # as many Black stones as White (+1)
        board = rng.permutation(colours).reshape(size, size)
        expected = [p for p in (0, 1) if connects(board.tolist(), p)]
        assert len(expected) == 1
        state = game.from_board(board, to_play=0)
        assert bool(state.terminated) and int(state.winner) == expected[0]


@pytest.mark.parametrize("size", [3, 5, 9])
def test_from_board_on_random_partial_boards(size):
    game = hexjax.make("hex", size=size)
    rng = np.random.default_rng(100 + size)
    for _ in range(60):
        board = rng.choice([0, 1, 2], size=(size, size), p=[0.4, 0.3, 0.3])
        state = game.from_board(board, to_play=int(rng.integers(2)))
        expected = winner(board.tolist())
        assert int(state.winner) == expected
        assert bool(state.terminated) == (expected >= 0)
        legal = np.asarray(state.legal_action_mask)
        np.testing.assert_array_equal(legal, (board.ravel() == 0) & (expected < 0))


@pytest.mark.parametrize("size", [4, 7])
def test_play_continues_correctly_from_composed_positions(size):
    """Groups rebuilt by from_board must merge exactly like groups built move by move."""
    game = hexjax.make("hex", size=size)
    step = jax.jit(game.step)
    rng = np.random.default_rng(size)
    for _ in range(30):
        board = rng.choice([0, 1, 2], size=(size, size), p=[0.6, 0.2, 0.2])
        state = game.from_board(board, to_play=int(rng.integers(2)))
        while not bool(state.terminated):
            action = int(rng.choice(np.flatnonzero(np.asarray(state.legal_action_mask))))
            state = step(state, action)
            expected = winner(np.asarray(state.board).tolist())
            assert int(state.winner) == expected


@pytest.mark.parametrize(("size", "swap"), [(5, False), (7, True)])
def test_the_final_owners_are_a_full_board_the_same_player_wins(size, swap):
    """`final_owners` (the ownership head's target) of every finished random game: the stones
    kept, every empty cell filled, and on that full board the oracle finds the game's winner
    connected; live positions are left as they stand."""
    game = hexjax.make("hex", size=size, swap=swap)
    states, _ = random_playouts(game, jax.random.key(7 + size), batch=32)
    owners = np.asarray(jax.vmap(jax.vmap(game.final_owners))(states))
    boards, winners = np.asarray(states.board), np.asarray(states.winner)
    finished = 0
    for t in range(boards.shape[0]):
        for b in range(boards.shape[1]):
            board, filled = boards[t, b], owners[t, b]
            stones = board != 0
            np.testing.assert_array_equal(filled[stones], board[stones])
            if winners[t, b] < 0:
                np.testing.assert_array_equal(filled, board)
                continue
            finished += 1
            assert (filled != 0).all()
            assert winner(filled.tolist()) == winners[t, b]
    assert finished >= 32
