"""The engines' timed search: within its time on a fake clock, the plain search when not kept,
and a kept tree that carries what it read into the next move."""

import concurrent.futures
import dataclasses
import os
import signal
import time

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from support.play_models import make_tiny_model, plain_search

from hexjax.evaluation import puzzles, root_solvers
from hexjax.games._hex_dead import dead_cells
from hexjax.play import clock, compile_cache, lasting, search_rate, solver_process
from hexjax.play.agent import Agent
from hexjax.play.agent_move import SearchStopped
from hexjax.play.lasting import LastingSearch


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    directory = make_tiny_model(tmp_path_factory.mktemp("models"), "hex5", "hex", 5)
    return Agent.from_model("hex5", directory)


class FakeTime:
    """A clock that moves only when the search grows: 1 ms a simulation, 2 ms a chunk."""

    def __init__(self):
        self.seconds = 0.0

    def __call__(self):
        return self.seconds

    def slow_down(self, search: LastingSearch):
        grow = search._steps["grow"]

        def timed(params, tree, count, index):
            self.seconds += 0.002 + 0.001 * int(count)
            return grow(params, tree, count, index)

        search._steps["grow"] = timed


def on_fake_time(agent, fake: FakeTime) -> LastingSearch:
    """A search (no solver) whose rate was measured on `fake`'s clock."""
    search = LastingSearch(agent, 4096, now=fake, solve=False)
    search.prepare()
    fake.slow_down(search)
    search._rate.clear()
    search.move(agent.game.new_state(), None, simulations=64)
    return search


def test_moves_spend_their_budget_and_never_more(agent):
    fake = FakeTime()
    search = on_fake_time(agent, fake)
    state = agent.game.new_state()
    for budget in (0.5, 0.1, 0.5, 0.02, 2.0):
        before = fake()
        reply = search.move(state, budget)
        spent = fake() - before
        assert spent <= lasting.USE * budget + 1e-9, (budget, spent)
        # Most of the time searched: chunks of CHUNK_S, each 2 ms of dispatch.
        assert reply.simulations >= 0.8 * lasting.USE * budget / 0.001 - 8, (budget, reply)
        state = agent.game.step(state, reply.action)
        legal = np.flatnonzero(np.asarray(state.legal_action_mask))
        state = agent.game.step(state, int(legal[len(legal) // 2]))


@pytest.mark.parametrize("unsure", [True, False])
def test_an_unsure_search_goes_on_up_to_twice_its_budget(agent, monkeypatch, unsure):
    """Where the clock allows more (`most_s`), a move the search is unsure of takes up to EXTEND
    times its budget and never past `most_s`; a sure one keeps to its budget."""
    fake = FakeTime()
    search = on_fake_time(agent, fake)
    monkeypatch.setattr(lasting, "CLOSE", 0.0 if unsure else 2.0)  # policies: always, never
    monkeypatch.setattr(lasting, "VALUE_DROP", 9.0)
    for budget, most in ((0.1, 1.0), (0.1, 0.15)):
        before = fake()
        search.move(agent.game.new_state(), budget, most_s=most)
        spent = fake() - before
        allowed = min(most, lasting.EXTEND * budget) if unsure else budget
        assert 0.8 * lasting.USE * allowed <= spent <= lasting.USE * allowed + 1e-9, spent


def test_a_fresh_tree_without_a_clock_is_the_plain_search(agent):
    search = LastingSearch(agent, 64, keep=False)
    state = agent.game.from_moves(agent.game.parse_moves("c3 b2"))
    for count in (16, 64):
        plain = plain_search(agent, state, count)
        grown = search.move(state, None, simulations=count)
        assert (grown.action, grown.simulations) == (plain.action, count)
        np.testing.assert_allclose(grown.policy, plain.policy, atol=1e-6)
        assert grown.value == pytest.approx(plain.value, abs=1e-6)
        assert search.kept == 0


def test_the_agents_move_is_the_plain_search_with_progress(agent):
    """`Agent.move` (the web page's, the terminal's and the Python API's search, counted): the
    plain search's move, its progress after each chunk up to the count, and no budget (it has
    no measured rate to spend one by)."""
    search = agent.counted
    state = agent.game.from_moves(agent.game.parse_moves("c3 b2"))
    reported = []
    grown = agent.move(state, 64, progress=lambda *p: reported.append(p))
    plain = plain_search(agent, state, 64)
    assert (grown.action, grown.simulations) == (plain.action, 64)
    np.testing.assert_allclose(grown.policy, plain.policy, atol=1e-6)
    done = [d for d, _ in reported]
    assert done == sorted(done) and reported[-1] == (64, 64) and {t for _, t in reported} == {64}
    with pytest.raises(ValueError, match="counts simulations"):
        search.move(state, 0.5)


def test_a_kept_tree_carries_the_reply_it_read(agent):
    search = LastingSearch(agent, 256)
    game = agent.game
    state = game.new_state()
    first = search.move(state, None)
    tree = jax.tree.map(np.asarray, search._local.tree)
    node = tree.children_index[0, 0, first.action]
    reply = int(tree.children_visits[0, node].argmax())
    read = tree.children_index[0, node, reply]
    state = game.step(game.step(state, first.action), reply)
    second = search.move(state, None)
    assert search.kept == tree.node_visits[0, read] > 1  # every visit made a node here
    assert second.simulations == 256 and state.legal_action_mask[second.action]
    # A position the tree never held (another game): a new tree.
    search.move(game.from_moves(game.parse_moves("a1")), None, simulations=8)
    assert search.kept == 0
    # Without keeping, never.
    fresh = LastingSearch(agent, 256, keep=False)
    fresh.move(game.new_state(), None)
    fresh.move(state, None)
    assert fresh.kept == 0


def test_stopped_and_finished(agent):
    search = LastingSearch(agent, 64)
    over = agent.game.from_moves(agent.game.parse_moves("a1 b1 a2 b2 a3 b3 a4 b4 a5"))
    with pytest.raises(ValueError, match="the game is over"):
        search.move(over, 1.0)
    stopping = Agent.of_network(agent.config, agent.params, "stopping")
    stopping.stop_searches()
    with pytest.raises(SearchStopped):
        LastingSearch(stopping, 64).move(agent.game.new_state(), 1.0)
    with pytest.raises(ValueError, match="timed search must be one of kept, fresh, counts"):
        clock.SearchClock(64, search="deep")


@pytest.mark.parametrize("beside", [False, True], ids=["solver-first", "solver-beside"])
def test_a_timed_hex_move_plays_a_proven_win_without_searching(agent, beside):
    game = agent.game
    # Black (top to bottom) has c1-c4; White's stones are away from column c: b5 or c5 joins.
    state = game.from_moves(game.parse_moves("c1 a1 c2 a2 c3 a3 c4 a4"))
    search = LastingSearch(agent, 64, beside=beside)
    search.wait_for_solver()  # its process up (an engine starts it at START, without waiting)
    reply = search.move(state, 1.0)
    assert game.action_to_string(reply.action) in ("b5", "c5")
    assert reply.proven and reply.simulations == 0
    assert reply.value == 1.0 and reply.policy[reply.action] == 1.0
    # Without the solver: a search.
    searched = LastingSearch(agent, 64, solve=False).move(state, 1.0)
    assert not searched.proven and searched.simulations > 0


def test_a_kept_tree_too_full_for_the_next_search_gives_way_to_a_new_one(agent):
    search = LastingSearch(agent, 64)  # room for 129 nodes
    state = agent.game.new_state()
    search.move(state, None)
    search.move(state, None)  # the same position: all 65 nodes kept, 64 more fit
    assert search.kept == 65 and int(search._local.tree.extra_data.size[0]) == 129
    reply = search.move(state, None)  # 129 kept would leave no room: a new tree
    assert search.kept == 0 and reply.simulations == 64


def test_a_timed_gomoku_move_plays_a_win_by_fours_without_searching(tmp_path):
    directory = make_tiny_model(tmp_path, "gomoku9", "gomoku", 9)
    agent = Agent.from_model("gomoku9", directory)
    puzzle = next(p for p in puzzles.load_puzzles() if (p.size, p.goal) == (9, "vcf5"))
    state = agent.game.from_board(np.asarray(puzzle.board), puzzle.to_play)
    search = LastingSearch(agent, 64)
    search.wait_for_solver()  # its process up (an engine starts it at START, without waiting)
    reply = search.move(state, 1.0)
    assert reply.action in puzzle.answers and reply.proven and reply.simulations == 0


def test_a_timed_gomoku_move_that_loses_to_fours_gives_way(tmp_path, monkeypatch):
    """The opponent has four in a row: every move but the block lets it make five. The tiny
    network's search plays elsewhere; screened, every move but the block is refused."""
    directory = make_tiny_model(tmp_path, "gomoku9", "gomoku", 9)
    agent = Agent.from_model("gomoku9", directory)
    puzzle = next(p for p in puzzles.load_puzzles() if (p.size, p.goal) == (9, "forced_block"))
    state = agent.game.from_board(np.asarray(puzzle.board), puzzle.to_play)
    unscreened = LastingSearch(agent, 64, solve=False).move(state, 1.0)
    assert unscreened.action not in puzzle.answers  # what the screen has to mend
    monkeypatch.setattr(lasting, "SCREENED", agent.game.num_actions)
    search = LastingSearch(agent, 64)
    search.wait_for_solver()  # the screen runs in the solver's process when a core is spare
    screened = search.move(state, 1.0)
    assert screened.action in puzzle.answers and not screened.proven


def test_unsure_when_the_top_two_are_close_or_the_value_fell(agent):
    search = LastingSearch(agent, 64, solve=False)
    peaked, close = np.array([0.9, 0.05, 0.05]), np.array([0.45, 0.4, 0.15])
    assert search._unsure(close, 0.0) and not search._unsure(peaked, 0.0)  # no earlier value
    search._local.value = 0.5  # the value this thread's last move saw
    assert search._unsure(peaked, 0.5 - lasting.VALUE_DROP)
    assert not search._unsure(peaked, 0.5 - lasting.VALUE_DROP / 2)


PROVES_AFTER_S = 0.5


def slow_solver(game):
    """A root solver that proves a move PROVES_AFTER_S seconds after it is asked (None when its
    deadline comes first); the proof's length is the id of the process it ran in."""

    def solve(board, to_play, deadline=None):
        asked = time.monotonic()
        if deadline is not None and deadline < asked + PROVES_AFTER_S:
            time.sleep(max(0.0, deadline - asked))
            return None
        time.sleep(PROVES_AFTER_S)
        empty = np.flatnonzero(np.asarray(board).reshape(-1) == 0)
        return root_solvers.Proven(int(empty[0]), os.getpid())

    return solve


def no_solver(game):
    """A root solver that proves nothing and takes its whole time to say so."""

    def solve(board, to_play, deadline=None):
        time.sleep(max(0.0, deadline - time.monotonic()))
        return None

    return solve


def test_a_solver_beside_the_search_has_the_whole_move_in_a_process_of_its_own(agent):
    """At 2 s a move the solver first has 0.4 s: too little for a proof that takes 0.5 s.
    Beside the search it has the search's whole time, in the solver's process; its proof ends
    the search and is played. A solver that proves nothing keeps the move within its time."""
    state = agent.game.new_state()
    first = LastingSearch(agent, 4096, beside=False, make_solver=slow_solver).move(state, 2.0)
    assert not first.proven and first.simulations > 0
    for make in (slow_solver, no_solver):  # the process started, the solvers made, first
        solver_process.prepare(make, agent.config.game).result()
    beside = LastingSearch(agent, 4096, beside=True, make_solver=slow_solver).move(state, 2.0)
    assert beside.proven and beside.simulations == 0
    assert beside.moves_to_win != os.getpid()  # the solver's process, not this one
    unproven = LastingSearch(agent, 4096, beside=True, make_solver=no_solver)
    unproven.prepare()
    began = time.monotonic()
    searched = unproven.move(state, 2.0)
    assert not searched.proven and searched.simulations > 0
    assert time.monotonic() - began < 2.0


def test_pondering_grows_the_tree_the_next_move_keeps(agent):
    """After its move the search grows the tree at the opponent's turn until told to stop; the
    next move keeps the subtree of the reply, with what pondering added."""
    game = agent.game
    search = LastingSearch(agent, 256)
    state = game.new_state()
    ours = search.move(state, None, simulations=16)
    after = game.step(state, ours.action)
    assert search.ponder(after, stop=lambda: True) == 0  # stopped before a chunk
    checks = iter(range(3))
    grown = search.ponder(after, stop=lambda: next(checks, None) is None)  # three chunks
    tree = jax.tree.map(np.asarray, search._local.tree)
    assert grown >= 3 * lasting.SMALLEST_CHUNK and tree.node_visits[0, 0] >= grown
    reply = int(tree.children_visits[0, 0].argmax())
    node = tree.children_index[0, 0, reply]
    search.move(game.step(after, reply), None, simulations=8)
    assert search.kept == tree.node_visits[0, node] > 1
    # Without a kept tree there is nothing to grow.
    assert LastingSearch(agent, 256, keep=False).ponder(after, stop=lambda: False) == 0


def test_a_solver_process_that_died_leaves_the_move_to_the_search_and_starts_again(agent):
    game = agent.game
    won = game.from_moves(game.parse_moves("c1 a1 c2 a2 c3 a3 c4 a4"))  # b5 or c5 wins
    search = LastingSearch(agent, 64, beside=True)
    solver_process.prepare(root_solvers.root_solver, agent.config.game).result()
    for pid in list(solver_process._pool._processes):
        os.kill(pid, signal.SIGKILL)
    reply = search.move(won, 1.0)  # the dead process's answer fails: the search, or a new one
    assert won.legal_action_mask[reply.action]
    for _ in range(2):  # the new process up (a request may still meet the dead one)
        try:
            solver_process.prepare(root_solvers.root_solver, agent.config.game).result()
            break
        except concurrent.futures.BrokenExecutor:
            continue
    reply = search.move(won, 1.0)
    assert reply.proven and game.action_to_string(reply.action) in ("b5", "c5")


def test_dead_cells_are_not_searched_at_the_root(agent):
    """Hex's dead cells (`Hex.moves_to_search`) get no visit and no policy at the root, in the
    one-off search and the kept one (PUCT too, whose root rule reads the node's own moves);
    unpruned, Gumbel's policy covers them."""
    game = agent.game  # Hex 5x5
    board = np.zeros((5, 5), np.int8)
    board[1, 2] = board[1, 3] = board[2, 3] = board[3, 2] = 1  # (2,2)'s ring: X X X X . .
    board[4, 4] = board[0, 0] = board[4, 0] = 2
    state = game.from_board(board, 1)
    dead = np.flatnonzero(np.asarray(dead_cells(jnp.asarray(board))))
    assert 12 in dead and len(dead) < int(state.legal_action_mask.sum())
    for pruned in (plain_search(agent, state, 16), agent.move(state, 16)):
        assert (pruned.policy[dead] == 0).all() and pruned.action not in dead
    unpruned = Agent(agent.trained, prune=False)
    for whole in (plain_search(unpruned, state, 16), unpruned.move(state, 16)):
        assert (whole.policy[dead] > 0).all()
    puct = Agent(dataclasses.replace(agent.trained, search_policy="puct"))
    kept = LastingSearch(puct, 64, solve=False)
    move = kept.move(state, None, simulations=64)
    assert (move.policy[dead] == 0).all() and move.action not in dead
    visits = np.asarray(kept._local.tree.children_visits[0, 0])  # the root's children
    assert visits[dead].sum() == 0 and visits.sum() == 64


def test_a_later_start_recalls_the_rate_instead_of_measuring_it(agent, tmp_path, monkeypatch):
    """On the wall clock with the cache on, the rate measured (or played) is remembered; a later
    start's search plans its first move by it without measuring. A fake clock remembers nothing."""
    monkeypatch.setattr(compile_cache, "_folder", tmp_path)
    (tmp_path / "measured").mkdir()
    first = LastingSearch(agent, 256, solve=False)
    first.prepare()
    measured = first.rate
    assert measured > 0 and len(list((tmp_path / "measured").iterdir())) == 1
    later = LastingSearch(agent, 256, solve=False)
    searched = []
    monkeypatch.setattr(later, "move", lambda *a, **k: searched.append(1))
    later.prepare()
    assert not searched and later.rate == pytest.approx(measured)
    # Played moves remember their own rate when it moved by more than REMEMBER_CHANGE.
    monkeypatch.setattr(search_rate, "REMEMBER_CHANGE", -1.0)  # every move
    first.move(agent.game.new_state(), 0.2)
    assert compile_cache.recall("rate", first._rate.key) == pytest.approx(first.rate)
    fake = LastingSearch(agent, 256, now=FakeTime(), solve=False)
    fake.prepare()
    assert fake._rate.key is None
