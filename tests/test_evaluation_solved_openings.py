"""The solved 7x7 Hex openings: the table against a second source, and the score of values."""

import numpy as np
import pytest

import hexjax
from hexjax.evaluation import solved_openings

TABLE = solved_openings.FIRST_PLAYER_WINS


def _action(name: str) -> int:
    return hexjax.make("hex", size=7).string_to_action(name)


def _cell(name: str) -> tuple[int, int]:
    return divmod(_action(name), 7)


def test_the_table_agrees_with_hayward_et_al():
    # webdocs.cs.ualberta.ca/~hayward/hex7trees: openings with a winning countermove lose
    # (a1 c4, a2 e3, a3 d4, a5 b6, b1 c4, b2 e3), "--" win (a4, a6, a7, b3).
    for name in ("a1", "a2", "a3", "a5", "b1", "b2"):
        assert not TABLE[_cell(name)], name
    for name in ("a4", "a6", "a7", "b3"):
        assert TABLE[_cell(name)], name


def test_the_table_has_the_half_turn_symmetry_and_a_winning_centre():
    assert (TABLE[::-1, ::-1] == TABLE).all()
    assert TABLE[_cell("d4")]  # the centre wins, as on every board solved so far
    assert not TABLE[_cell("a1")] and not TABLE[_cell("g7")]  # the acute corners lose


def test_a_value_is_right_where_its_sign_names_the_winner():
    first_wins = TABLE.reshape(-1)
    perfect = np.where(first_wins, -0.9, 0.9)  # the second player's view after the move
    right = solved_openings.score(perfect)
    assert right["correct"] == 49 and right["values"] == list(perfect)
    means = (right["mean_where_first_wins"], right["mean_where_first_loses"])
    assert means == pytest.approx((-0.9, 0.9))
    pessimist = np.full(49, -0.5)  # "the second player always loses"
    result = solved_openings.score(pessimist)
    assert result["correct"] == result["winning"] == int(first_wins.sum())
    assert len(result["wrong"]) == 49 - result["winning"]
    means = (result["mean_where_first_wins"], result["mean_where_first_loses"])
    assert means == pytest.approx((-0.5, -0.5))
    with pytest.raises(ValueError, match="expected 49"):
        solved_openings.score(np.zeros(25))


def test_only_plain_hex_7x7_has_a_table():
    assert solved_openings.applies(hexjax.make("hex", size=7))
    assert not solved_openings.applies(hexjax.make("hex", size=7, swap=True))
    assert not solved_openings.applies(hexjax.make("hex", size=5))
    assert not solved_openings.applies(hexjax.make("gomoku", size=9))


def test_the_board_puts_each_value_on_its_cell_and_marks_the_wrong_ones():
    values = np.zeros(49)
    values[_action("b1")], values[_action("a2")] = 0.25, -0.5
    lines = solved_openings.board(values, [_action("a2")])
    assert lines[0].split() == list("abcdefg")
    assert lines[1].split()[:3] == ["1", "+0.00", "+0.25"]  # row 1: a1, b1
    assert lines[2].split()[:2] == ["2", "-0.50!"]  # a2, wrong
    assert "!" not in lines[1] and len(lines) == 8


def test_won_positions_lost_by_each_side_from_every_first_move_with_both_colours():
    # The agent is Black in the first 49 games (after first move a), White in the last 49.
    moves = np.concatenate([np.arange(49), np.arange(49)])
    agent_black = np.arange(98) < 49
    wins = solved_openings.FIRST_PLAYER_WINS.reshape(-1)
    # Both sides perfect: every game goes to the side the solution says.
    perfect = np.concatenate([wins, ~wins]).astype(float)
    kept = solved_openings.won_positions_lost(moves, agent_black, perfect)
    assert kept["agent"] == kept["opponent"] == {
        "won_positions": 49, "lost": 0, "lost_as_black": [], "lost_as_white": []
    }  # fmt: skip
    # The agent loses as Black after g1 (a first-player win, action 6) and as White after a1
    # (a second-player win, action 0); it wins as White after a7 (action 42, a first-player win).
    scores = perfect.copy()
    scores[6], scores[49 + 0], scores[49 + 42] = 0.0, 0.0, 1.0
    kept = solved_openings.won_positions_lost(moves, agent_black, scores)
    assert kept["agent"]["lost"] == 2
    assert kept["agent"]["lost_as_black"] == [6] and kept["agent"]["lost_as_white"] == [0]
    assert kept["opponent"] == {
        "won_positions": 49, "lost": 1, "lost_as_black": [42], "lost_as_white": []
    }  # fmt: skip


def test_selfplay_shares_are_the_games_one_move_at_a_time_would_give():
    """Deterministic searches (no Gumbel noise): every game from a first move is the same, and
    its winner is the one a plain loop of single-game searches reaches."""
    import dataclasses

    import jax

    from hexjax.alphazero import network as network_lib
    from hexjax.alphazero import search as search_lib
    from hexjax.alphazero.config import PRESETS

    game = hexjax.make("hex", size=7)
    config = PRESETS["tiny"]
    net = network_lib.make_network(config.network, game.num_actions)
    params = network_lib.init_params(net, jax.random.key(3), game.observation_shape)
    search = dataclasses.replace(config.search, gumbel_scale=0.0)
    shares = solved_openings.selfplay_first_player_wins(game, net, params, search, games=2)
    assert shares.shape == (49,) and set(np.unique(shares)) <= {0.0, 1.0}
    run = jax.jit(search_lib.make_search(game, net, search))
    for first in ("a1", "d4", "g6"):
        state = game.step(game.new_state(), _action(first))
        while not bool(state.terminated):
            batch = jax.tree.map(lambda x: x[None], state)
            action = run(params, jax.random.key(0), batch, batch.step_count).action[0]
            state = game.step(state, action)
        assert shares[_action(first)] == float(state.rewards[0] > 0), first
