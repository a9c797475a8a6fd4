"""hexjax.evaluation.vcf against the puzzle suite, the plain-Python checker's own continuous-four
search (tests/support/puzzle_checker.py, which imports nothing of hexjax) and the game's rules."""

import itertools
import random
import time

import jax
import numpy as np
import pytest
from support import puzzle_checker as checker
from support import puzzle_generator

from hexjax.evaluation import puzzles
from hexjax.evaluation.root_solvers import OutOfTime
from hexjax.evaluation.vcf import VcfSolver
from hexjax.games import make

SUITE = puzzles.load_puzzles()
GOAL_PLIES = {"win_in_one": 1, "vcf3": 3, "four_three": 5, "vcf5": 5}


def plies(line: list[int]) -> int:
    """Plies to the five: a line ending on a four (renju's Black cannot block it) needs one more
    move, the five."""
    return len(line) + (len(line) % 2 == 0)


@pytest.fixture(scope="module")
def solvers():
    cache = {}

    def solver_for(size: int, rule: str) -> VcfSolver:
        if (size, rule) not in cache:
            cache[size, rule] = VcfSolver(make("gomoku", size=size, rule=rule))
        return cache[size, rule]

    return solver_for


@pytest.mark.parametrize("puzzle", SUITE, ids=[p.id for p in SUITE])
def test_finds_every_forced_win_of_the_puzzle_suite(puzzle, solvers):
    line = solvers(puzzle.size, puzzle.rule).proof(puzzle.board, puzzle.to_play)
    if puzzle.goal == "forced_block":  # the block may start a win, never anything else
        assert line is None or line[0] in puzzle.answers
        return
    assert line is not None and line[0] in puzzle.answers
    assert plies(line) <= GOAL_PLIES[puzzle.goal]  # the shortest win, as the answers are


def checker_positions(rule: str, count: int, seed: int):
    """Positions of the checker's own heuristic games (both sides to move)."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        for board, to_play in itertools.islice(puzzle_generator.play_game(rule, rng), 0, None, 7):
            positions.append((board, to_play))
    return positions[:count]


@pytest.mark.parametrize("rule", ["freestyle", "standard", "renju"])
def test_shortest_win_agrees_with_the_checker(rule, solvers):
    """Within 7 plies: the same positions won, in the same number of plies, the first move one
    of the checker's winning first moves."""
    solver = VcfSolver(make("gomoku", size=15, rule=rule), max_fours=4)
    won = 0
    for board, attacker in checker_positions(rule, 40, seed=11):
        line = solver.proof(np.asarray(board, np.int8), attacker)
        won_within = [p for p in (1, 3, 5, 7) if checker.attacker_wins(board, attacker, p, rule)]
        shortest = won_within[0] if won_within else None
        assert (None if line is None else plies(line)) == shortest, (board, attacker, line)
        if shortest == 1:
            assert divmod(line[0], 15) in checker.five_points(board, attacker, rule)
        elif shortest is not None:
            first = divmod(line[0], 15)
            assert first in checker.winning_fours(board, attacker, shortest, rule)
        won += line is not None
    assert won >= 5  # the positions include wins, not only quiet ones


def attacker_fives(state, attacker: int, rule: str) -> set[tuple[int, int]]:
    """The checker's reading: where `attacker` makes five on the state's board."""
    return checker.five_points(np.asarray(state.board).tolist(), attacker, rule)


@pytest.mark.parametrize("rule", ["freestyle", "renju"])
def test_each_proof_wins_when_played_by_the_game(rule):
    """The proof's moves are legal in the game, the defender's replies are its only defence (any
    other reply and the attacker's next move makes five) and the game ends won."""
    game = make("gomoku", size=15, rule=rule)
    solver = VcfSolver(game)
    step = jax.jit(game.step)
    proofs = 0
    for puzzle in [p for p in SUITE if (p.size, p.rule) == (15, rule) and p.goal != "forced_block"]:
        line = solver.proof(puzzle.board, puzzle.to_play)
        state = game.from_board(np.asarray(puzzle.board), puzzle.to_play)
        played = line if len(line) % 2 else line[:-1]  # even: Black cannot block the last four
        for ply, action in enumerate(played):
            assert bool(state.legal_action_mask[action]), (puzzle.id, ply)
            if ply % 2 == 1:  # a forced reply: the four it answers has this point only
                fives = attacker_fives(state, puzzle.to_play, rule)
                assert divmod(action, 15) in fives, (puzzle.id, ply)
                assert len(fives) == 1 or ply == len(line) - 2  # two: no defence, the end
            state = step(state, action)
        if len(line) % 2 == 0:
            block = line[-1]
            fives = attacker_fives(state, puzzle.to_play, rule)
            assert fives == {divmod(block, 15)} and not bool(state.legal_action_mask[block])
            assert game.forbidden_points(np.asarray(state.board)).reshape(-1)[block]
            state = step(step(state, int(np.argmax(state.legal_action_mask))), block)
        assert bool(state.terminated) and int(state.winner) == puzzle.to_play, puzzle.id
        proofs += 1
    assert proofs >= 20


def test_a_passed_deadline_raises_and_later_calls_still_answer(solvers):
    puzzle = next(p for p in SUITE if p.goal == "vcf5" and p.rule == "freestyle")
    solver = VcfSolver(make("gomoku", size=puzzle.size, rule=puzzle.rule))
    with pytest.raises(OutOfTime):
        solver.winning_move(puzzle.board, puzzle.to_play, deadline=time.monotonic() - 1.0)
    move = solver.winning_move(puzzle.board, puzzle.to_play, deadline=time.monotonic() + 600)
    assert move in puzzle.answers


def test_a_quiet_board_has_no_continuous_four_win():
    solver = VcfSolver(make("gomoku", size=9, rule="freestyle"))
    board = np.zeros((9, 9), np.int8)
    board[4, 4], board[4, 5] = 1, 2
    assert solver.proof(board, 0) is None and solver.winning_move(board, 1) is None


def test_other_games_and_other_boards_are_refused():
    with pytest.raises(ValueError, match="five in a row"):
        VcfSolver(make("hex", size=5))
    solver = VcfSolver(make("gomoku", size=9, rule="freestyle"))
    with pytest.raises(ValueError, match="9x9"):
        solver.proof(np.zeros((15, 15), np.int8), 0)
    with pytest.raises(ValueError, match="to_play"):
        solver.proof(np.zeros((9, 9), np.int8), 2)


def test_a_move_that_allows_a_five_loses_to_fours_and_one_that_makes_five_does_not(solvers):
    block = next(p for p in SUITE if p.goal == "forced_block" and p.rule == "freestyle")
    solver = solvers(block.size, block.rule)
    (answer,) = block.answers
    elsewhere = next(a for a in range(block.size**2) if a != answer and block.board.flat[a] == 0)
    assert solver.loses_to_fours(block.board, block.to_play, elsewhere)
    win = next(p for p in SUITE if p.goal == "win_in_one" and p.rule == "freestyle")
    solver = solvers(win.size, win.rule)
    for five in win.answers:
        assert not solver.loses_to_fours(win.board, win.to_play, five)
    taken = int(np.flatnonzero(win.board)[0])
    with pytest.raises(ValueError, match="not empty"):
        solver.loses_to_fours(win.board, win.to_play, taken)
