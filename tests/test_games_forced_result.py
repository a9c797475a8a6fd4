"""`Game.forced_result` (Gomoku's one-move tactics) against the game's own moves, searched
exhaustively three plies deep on small boards; the search's value takes it with `tactics`."""

import argparse

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hexjax
from hexjax.alphazero import growing
from hexjax.alphazero import search as search_lib
from hexjax.play.agent import add_agent_flags, search_choices


def exhaustive(game):
    """jit(state) -> (wins in 1, loses in 2, wins in 3) for the mover, by trying every move
    with the game's step: the rules as the game plays them, nothing read from the board."""
    actions = jnp.arange(game.num_actions)

    def children(state):
        return jax.vmap(game.step, in_axes=(None, 0))(state, actions)

    def wins_now(state, player):
        return jnp.any(state.legal_action_mask & (children(state).winner == player))

    def settled(state):
        mover, other = state.current_player, 1 - state.current_player
        after = children(state)
        legal = state.legal_action_mask
        win1 = jnp.any(legal & (after.winner == mover))
        answered = jax.vmap(wins_now, in_axes=(0, None))(after, other)
        lose2 = jnp.all(~legal | (~after.terminated & answered))

        def forced_win(child):  # every reply leaves the mover a winning move
            replies = children(child)
            again = jax.vmap(wins_now, in_axes=(0, None))(replies, mover)
            return ~child.terminated & jnp.all(
                ~child.legal_action_mask | (~replies.terminated & again)
            )

        win3 = jnp.any(legal & jax.vmap(forced_win)(after))
        return win1, lose2 & ~win1, win3 & ~win1

    return jax.jit(settled)


def clustered_positions(game, seed: int, count: int) -> list:
    """Live positions of games played mostly next to the stones already down, where fours
    and fives come up often."""
    rng = np.random.default_rng(seed)
    n = game.size
    found = []
    while len(found) < count:
        state = game.new_state()
        for _ in range(rng.integers(4, n * n - 6)):
            legal = np.flatnonzero(np.asarray(state.legal_action_mask))
            if bool(state.terminated) or legal.size == 0:
                break
            stones = np.flatnonzero(np.asarray(state.board).reshape(-1))
            if stones.size and rng.random() < 0.85:
                r, c = divmod(int(rng.choice(stones)), n)
                near = [a for a in legal if abs(a // n - r) <= 2 and abs(a % n - c) <= 2]
                legal = np.asarray(near) if near else legal
            state = game.host_step(state, int(rng.choice(legal)))
        if not bool(state.terminated):
            found.append(state)
    return found


def expected(win1, lose2, win3) -> tuple[int, int]:
    return (1, 1) if win1 else (-1, 2) if lose2 else (1, 3) if win3 else (0, 0)


@pytest.mark.parametrize(("rule", "count"), [("freestyle", 80), ("standard", 80)])
def test_forced_results_are_exactly_the_exhaustive_ones(rule, count):
    """Freestyle and standard: every result within three plies is found, and no other."""
    game = hexjax.make("gomoku", size=7, win_length=5, rule=rule)
    settled, forced = exhaustive(game), jax.jit(game.forced_result)
    seen = {}
    for state in clustered_positions(game, seed=len(rule), count=count):
        truth = expected(*(bool(x) for x in settled(state)))
        assert tuple(int(x) for x in forced(state)) == truth, game.render(state)
        seen[truth] = seen.get(truth, 0) + 1
    assert min(seen.get(kind, 0) for kind in ((1, 1), (-1, 2), (1, 3), (0, 0))) >= 1, seen


def test_renju_forced_results_hold_by_the_rules():
    """Renju (Black's fives exact, its forbidden points): wins in 1 and losses in 2 exactly as
    the game's moves have them; a win in 3 only where it is one (a White four whose block is
    forbidden to Black is not read)."""
    game = hexjax.make("gomoku", size=7, rule="renju")
    settled, forced = exhaustive(game), jax.jit(game.forced_result)
    seen = {}
    for state in clustered_positions(game, seed=3, count=60):
        win1, lose2, win3 = (bool(x) for x in settled(state))
        got = tuple(int(x) for x in forced(state))
        truth = expected(win1, lose2, win3)
        if got == (1, 3):
            assert win3, game.render(state)
        else:
            assert got == (truth if truth != (1, 3) else (0, 0)), game.render(state)
        seen[got] = seen.get(got, 0) + 1
    assert min(seen.get(kind, 0) for kind in ((1, 1), (-1, 2), (1, 3))) >= 1, seen


def test_golden_positions():
    game = hexjax.make("gomoku", size=9)
    forced = jax.jit(game.forced_result)
    # Black to move with an open three on the fifth row: an open four wins in 3.
    assert tuple(map(int, forced(game.from_moves("d5 a1 e5 a3 f5 a5")))) == (1, 3)
    # The same, White having a four of its own first: White's five must be stopped (c5's
    # block is no four for Black), and nothing is settled.
    state = game.from_moves("d5 a1 e5 a2 f5 a3 b9 a4")
    assert tuple(map(int, forced(state))) == (0, 0)
    # White to move against Black's open four: lost in 2.
    assert tuple(map(int, forced(game.from_moves("d5 a1 e5 a3 f5 a7 g5")))) == (-1, 2)
    # Black to move with a four: won in 1.
    assert tuple(map(int, forced(game.from_moves("d5 a1 e5 a3 f5 a7 g5 a9")))) == (1, 1)
    # c5 makes six in a row: a win in freestyle, nothing in standard (no five, no open four).
    moves = "a5 a1 b5 a3 d5 a7 e5 a9 f5 i1"
    assert tuple(map(int, forced(game.from_moves(moves)))) == (1, 1)
    standard = hexjax.make("gomoku", size=9, rule="standard")
    assert tuple(map(int, jax.jit(standard.forced_result)(standard.from_moves(moves)))) == (0, 0)


def test_other_games_settle_nothing():
    for game in (hexjax.make("hex", size=5), hexjax.make("othello", size=6)):
        assert tuple(map(int, jax.jit(game.forced_result)(game.new_state()))) == (0, 0)


def test_the_search_value_is_the_forced_result():
    game = hexjax.make("gomoku", size=9)
    states = jax.tree.map(lambda x: jnp.asarray(x)[None], game.from_moves("d5 a1 e5 a3 f5 a7"))

    def net_value(_, params, obs):  # a network that knows nothing
        del params
        return jnp.zeros((obs.shape[0], game.num_actions)), jnp.zeros(obs.shape[0])

    config = search_lib.SearchConfig(num_simulations=8, discount=0.9, tactics=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(search_lib.network_lib, "apply", net_value)
        _, plain = search_lib.evaluate(game, None, None, states)
        _, value = search_lib.evaluate(game, None, None, states, config)
    assert float(plain[0]) == 0.0
    assert float(value[0]) == pytest.approx(0.81)  # won in 3 plies: two discounts


def test_the_kept_tree_and_the_flags_carry_tactics():
    game = hexjax.make("gomoku", size=9)
    states = jax.tree.map(lambda x: jnp.asarray(x)[None], game.from_moves("d5 a1 e5 a3 f5 a7 g5"))

    def net_value(_, params, obs):
        del params
        return jnp.zeros((obs.shape[0], game.num_actions)), jnp.full(obs.shape[0], 0.5)

    config = search_lib.SearchConfig(num_simulations=8, tactics=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(search_lib.network_lib, "apply", net_value)
        tree = growing.start(game, None, None, states, 17, config=config)
        plain = growing.start(game, None, None, states, 17)
    assert float(tree.raw_values[0, 0]) == -1.0  # White faces an open four
    assert float(plain.raw_values[0, 0]) == 0.5
    # A play flag turns it on for a search trained without it, and only then.
    parser = argparse.ArgumentParser()
    add_agent_flags(parser)
    assert search_choices(parser.parse_args(["--tactics"]))["tactics"] is True
    assert search_choices(parser.parse_args([]))["tactics"] is None
    assert search_choices(parser.parse_args(["--no-tactics"]))["tactics"] is False
    assert config.deterministic(64).tactics and not config.deterministic(64, tactics=False).tactics
    assert not search_lib.SearchConfig().deterministic(64).tactics
