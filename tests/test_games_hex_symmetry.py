"""Hex symmetries: winners invariant, observations and legal moves transform consistently."""

import jax
import numpy as np
import pytest
from support.hex_oracle import winner as oracle_winner
from support.playouts import random_playouts

import hexjax


def test_hex_has_exactly_the_rhombus_symmetries():
    names = [s.name for s in hexjax.make("hex", size=5).symmetries]
    assert names == ["identity", "rotate180", "transpose", "antitranspose"]
    swap_names = [s.name for s in hexjax.make("hex", size=5, swap=True).symmetries]
    assert swap_names == ["identity", "rotate180"]


def test_the_other_square_symmetries_break_hex():
    """A 90-degree rotation (valid on a square, not on a rhombus) changes who won."""
    board = np.array([[0, 1, 0], [1, 0, 0], [1, 2, 2]])  # Black joins b1-a2-a3
    assert oracle_winner(board.tolist()) == 0
    rotated = np.rot90(board)
    assert oracle_winner(rotated.tolist()) != 0
    swapped = np.where(rotated == 0, 0, 3 - rotated)
    assert oracle_winner(swapped.tolist()) != 1


@pytest.mark.parametrize(("size", "swap"), [(4, False), (7, False), (11, False), (6, True)])
def test_winners_are_invariant_on_random_finished_games(size, swap):
    game = hexjax.make("hex", size=size, swap=swap)
    states, _ = random_playouts(game, jax.random.key(size + 50), batch=64)
    final = jax.device_get(jax.tree.map(lambda x: x[-1], states))
    for b in range(64):
        board = final.board[b]
        won = int(final.winner[b])
        assert won in (0, 1)
        for sym in game.symmetries:
            image = sym.board_fn(board)
            expected = 1 - won if sym.swaps_colours else won
            assert oracle_winner(image.tolist()) == expected, sym.name
            assert int(game.from_board(image, to_play=0).winner) == expected, sym.name


@pytest.mark.parametrize(("size", "swap"), [(5, False), (6, True)])
def test_observations_and_masks_follow_the_board(size, swap):
    game = hexjax.make("hex", size=size, swap=swap)
    states, _ = random_playouts(game, jax.random.key(9), batch=16)
    host = jax.device_get(states)
    observe = jax.jit(game.observe)  # one compile, not each operation dispatched alone
    for t in range(2, size * size // 2, 3):
        for b in range(16):
            if host.terminated[t, b]:
                continue
            state = jax.tree.map(lambda x, t=t, b=b: x[t, b], states)
            obs = observe(state)
            to_play = int(host.current_player[t, b])
            mask = np.asarray(host.legal_action_mask[t, b])
            for sym in game.symmetries:
                image_to_play = 1 - to_play if sym.swaps_colours else to_play
                image = game.from_board(sym.board_fn(host.board[t, b]), image_to_play)
                np.testing.assert_array_equal(
                    observe(image), sym.observation_fn(obs), err_msg=sym.name
                )
                moved = np.zeros_like(mask)
                moved[sym.action_map] = mask
                cell_mask = np.asarray(image.legal_action_mask)[: size * size]
                np.testing.assert_array_equal(cell_mask, moved[: size * size], err_msg=sym.name)


def test_policy_transform_moves_probability_with_the_cells():
    game = hexjax.make("hex", size=3)
    policy = np.zeros(9, np.float32)
    policy[1] = 1.0  # b1 = (0, 1)
    by_name = {s.name: np.asarray(s.transform_policy(policy)) for s in game.symmetries}
    assert by_name["rotate180"].argmax() == 7  # (2, 1) = b3
    assert by_name["transpose"].argmax() == 3  # (1, 0) = a2
    assert by_name["antitranspose"].argmax() == 5  # (1, 2) = c2
