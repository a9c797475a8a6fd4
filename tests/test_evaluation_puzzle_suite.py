"""The Gomoku tactics puzzle suite, hexjax/data/gomoku_puzzles.json.

Every stored answer set is recomputed from the rules by the plain-Python checker
(tests/support/puzzle_checker.py, which never imports hexjax), and every position is cross-checked
against hexjax's own rules: not over, answers legal, winning moves winning, and renju forbidden
points the same as the reference oracle's. The search for "quiet" five-ply wins in vcf5
puzzles is slow and runs under `make test-slow`.
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from importlib import resources

import numpy as np
import pytest
from support import puzzle_checker as checker
from support import renju_oracle

from hexjax.evaluation.puzzles import Puzzle, load_puzzles, puzzle_state

RAW = json.loads(
    resources.files("hexjax").joinpath("data", "gomoku_puzzles.json").read_text(encoding="utf-8")
)
IDS = [entry.get("id", str(i)) for i, entry in enumerate(RAW)]


def _action(move: str, n: int) -> int:
    r, c = checker.parse_move(move, n)
    return r * n + c


# ----------------------------------------------------------------------------- the data


def test_every_entry_follows_the_schema():
    problems = {entry.get("id"): checker.schema_problems(entry) for entry in RAW}
    assert {pid: found for pid, found in problems.items() if found} == {}
    assert len(set(IDS)) == len(IDS), "ids must be unique"


def test_the_suite_covers_every_category():
    counts = Counter(entry["category"] for entry in RAW)
    assert set(counts) == set(checker.CATEGORIES)
    assert min(counts.values()) >= 8, counts
    assert len(RAW) >= 40
    # Variety: all three rules, all three sizes, both sides to move.
    assert {entry["rule"] for entry in RAW} == set(checker.RULES)
    assert {entry["size"] for entry in RAW} == set(checker.SIZES)
    assert {entry["to_play"] for entry in RAW} == {0, 1}


def test_the_15x15_suite_has_the_issue_s_counts():
    """At 15x15: 40+ freestyle puzzles with every freestyle kind, 20+ renju with traps; both
    sides to move, and positions reaching every edge region of the board."""
    at_15 = [entry for entry in RAW if entry["size"] == 15]
    freestyle = Counter(e["category"] for e in at_15 if e["rule"] == "freestyle")
    renju = Counter(e["category"] for e in at_15 if e["rule"] == "renju")
    assert sum(freestyle.values()) >= 40 and sum(renju.values()) >= 20, (freestyle, renju)
    for category in ("win_in_one", "forced_block", "four_three", "vcf3", "vcf5"):
        assert freestyle[category] >= 5, freestyle
    assert renju["renju_trap"] >= 8 and len(renju) == len(checker.CATEGORIES), renju
    for rule in ("freestyle", "renju"):
        assert {e["to_play"] for e in at_15 if e["rule"] == rule} == {0, 1}
    # Some answers lie within two lines of each edge.
    answers = [checker.parse_move(m, 15) for e in at_15 for m in e["answers"]]
    assert min(r for r, _ in answers) <= 1 and max(r for r, _ in answers) >= 13
    assert min(c for _, c in answers) <= 1 and max(c for _, c in answers) >= 13


def test_stone_counts_are_plausible():
    for entry in RAW:
        black = sum(row.count("X") for row in entry["board"])
        white = sum(row.count("O") for row in entry["board"])
        assert black - white == entry["to_play"], entry["id"]  # Black moved first


@pytest.mark.parametrize("entry", RAW, ids=IDS)
def test_stored_answers_are_what_the_rules_give(entry):
    answers, problems = checker.analyse(entry)
    assert problems == []
    assert answers == set(entry["answers"])


FIVE_PLIES = [e for e in RAW if e["goal"] in ("vcf5", "four_three")]


@pytest.mark.slow
@pytest.mark.parametrize("entry", FIVE_PLIES, ids=[e["id"] for e in FIVE_PLIES])
def test_five_ply_puzzles_have_no_quiet_win(entry):
    """No first move other than the stored fours wins within 5 plies (a double three, say)."""
    answers, problems = checker.analyse(entry, thorough=True)
    assert problems == []
    assert answers == set(entry["answers"])


# ----------------------------------------------------------------------------- the checker


def test_checker_finds_the_textbook_cases():
    n = 15
    empty = ["." * n] * n

    def puzzle(rows, goal, rule="freestyle", to_play=0):
        board = list(empty)
        for r, row in rows.items():
            board[r] = row
        return {
            "size": n,
            "rule": rule,
            "to_play": to_play,
            "goal": goal,
            "board": board,
            "category": goal,
            "answers": [],
            "note": "",
            "id": "t",
        }

    # An open three: either end makes an open four (vcf3); so does nothing else.
    three = puzzle({7: "....XXX........", 9: "...O..O..O....."}, "vcf3")
    assert checker.analyse(three) == ({"d8", "h8"}, [])
    # Black XX.XXX: the gap wins in freestyle, is six in standard, is forbidden in renju.
    six = {7: "..XX.XXX.......", 9: "...O..O..O....."}
    assert checker.analyse(puzzle(six, "win_in_one")) == ({"e8"}, [])
    assert checker.analyse(puzzle(six, "win_in_one", "standard"))[1] == ["no win in one"]
    board = checker.parse_board(puzzle(six, "win_in_one", "renju")["board"])
    assert renju_oracle.forbidden_kind(board, 7, 4) == "overline"
    # A four-three: g8 makes the four d8-g8 (blocked by c8, so only h8 wins) and the open
    # three g8-g9-g10; once White blocks h8, g7 or g11 makes an open four.
    four_three = {
        5: "......X........",
        6: "......X........",
        7: "..OXXX.........",
        12: "...O..O..O.....",
        13: ".O.............",
    }
    assert checker.analyse(puzzle(four_three, "four_three")) == ({"g8"}, [])
    assert checker.analyse(puzzle(four_three, "vcf3"))[1] == ["no vcf3 win"]
    board = checker.parse_board(puzzle(four_three, "four_three")["board"])
    assert checker.is_four_three(board, 0, (7, 6), "freestyle")
    assert not checker.is_four_three(board, 0, (7, 7), "freestyle")  # h8: a four, no three
    # Without the column stones g8 is a plain four: White blocks h8 and Black has nothing.
    plain = four_three | {5: "." * n, 6: "." * n, 13: ".O....X........"}
    answers, problems = checker.analyse(puzzle(plain, "four_three"))
    assert answers == set() and problems == ["no four_three win"]
    # A four the defender answers with its own five does not win.
    counter = puzzle({7: "...XXX.........", 9: "..OOOO........."}, "vcf3", to_play=0)
    answers, problems = checker.analyse(counter)
    assert answers == set() and "no vcf3 win" in problems


def test_the_fast_five_test_agrees_with_the_oracles():
    """analyse() already compares them on every empty point; check a few shapes directly."""
    board = checker.parse_board(["." * 9] * 4 + ["XXXX.XOOO"] + ["." * 9] * 4)
    for rule in checker.RULES:
        for c in range(9):
            if board[4][c] == 0:
                for player in (0, 1):
                    assert checker.makes_five(board, 4, c, player, rule) == (
                        checker.oracle_makes_five(board, 4, c, player, rule)
                    )
    assert not checker.makes_five(board, 4, 4, 0, "standard")  # XXXXXX: six
    assert checker.makes_five(board, 4, 4, 0, "freestyle")


# ----------------------------------------------------------------------------- hexjax


def test_loader_reads_the_suite():
    puzzles = load_puzzles()
    assert [p.id for p in puzzles] == IDS
    for puzzle, entry in zip(puzzles, RAW, strict=True):
        n = entry["size"]
        assert isinstance(puzzle, Puzzle)
        assert puzzle.board.dtype == np.int8 and puzzle.board.shape == (n, n)
        assert puzzle.board.tolist() == checker.parse_board(entry["board"])
        # hexjax's notation and the checker's independent reading agree.
        assert puzzle.answers == {_action(m, n) for m in entry["answers"]}
        assert puzzle.forbidden == {_action(m, n) for m in entry.get("forbidden", [])}
        assert (puzzle.category, puzzle.goal, puzzle.rule) == (
            entry["category"],
            entry["goal"],
            entry["rule"],
        )
        assert (puzzle.size, puzzle.to_play, puzzle.note) == (n, entry["to_play"], entry["note"])


def test_hexjax_agrees_on_every_position():
    for puzzle in load_puzzles():
        game, state = puzzle_state(puzzle)
        n, pid = puzzle.size, puzzle.id
        assert not bool(state.terminated), pid
        assert int(state.current_player) == puzzle.to_play, pid
        assert np.array_equal(np.asarray(state.board), puzzle.board), pid
        legal = np.asarray(state.legal_action_mask)
        assert all(legal[a] for a in puzzle.answers), pid
        if puzzle.goal == "win_in_one":
            for action in puzzle.answers:
                after = game._jit_step(state, action)
                assert bool(after.terminated) and int(after.winner) == puzzle.to_play, pid
        if puzzle.rule == "renju":
            board = [list(row) for row in puzzle.board.tolist()]
            oracle = {r * n + c for r, c in renju_oracle.forbidden_points(board)}
            assert puzzle.forbidden <= oracle, pid
            hexjax_forbidden = set(np.flatnonzero(game.forbidden_mask(state)).tolist())
            assert hexjax_forbidden == oracle, pid
            if puzzle.to_play == 0:
                assert not any(legal[a] for a in oracle), pid


def test_a_forced_block_is_the_only_move_that_survives():
    """Apply the block with hexjax: the opponent then has no five; anywhere else it has one."""
    for puzzle in load_puzzles():
        if puzzle.goal != "forced_block":
            continue
        game, state = puzzle_state(puzzle)
        (block,) = puzzle.answers
        after = game._jit_step(state, block)
        board = [list(row) for row in np.asarray(after.board).tolist()]
        assert not checker.five_points(board, 1 - puzzle.to_play, puzzle.rule), puzzle.id
        legal = np.asarray(state.legal_action_mask)
        elsewhere = next(a for a in range(puzzle.size**2) if a != block and legal[a])
        after = game._jit_step(state, elsewhere)
        assert bool(after.legal_action_mask[block]), puzzle.id
        assert int(game._jit_step(after, block).winner) == 1 - puzzle.to_play, puzzle.id


# ----------------------------------------------------------------------------- loader errors


def _write(tmp_path, entries):
    path = tmp_path / "puzzles.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


def _good():
    return copy.deepcopy(next(e for e in RAW if e["id"] == "win-04"))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda e: e.pop("note"), "puzzle 'win-04': missing field(s) note"),
        (lambda e: e.update(category="mate_in_two"), "puzzle 'win-04': category must be one"),
        (lambda e: e.update(goal="vcf3"), "puzzle 'win-04': goal must equal the category"),
        (lambda e: e.update(size=11), "puzzle 'win-04': size must be one of"),
        (lambda e: e["board"].__setitem__(3, "..." + "#" * 10), "board row 3 has '#'"),
        (lambda e: e["board"].pop(), "puzzle 'win-04': board must be a list of 13 row strings"),
        (lambda e: e.update(answers=["d5"]), "puzzle 'win-04': answers: d5 is not an empty point"),
        (lambda e: e.update(answers=["z5"]), "puzzle 'win-04': answers: 'z5' is off the 13x13"),
        (lambda e: e.update(answers=["C5"]), "answers: write 'C5' as 'c5'"),
        (lambda e: e.update(answers=[]), "puzzle 'win-04': answers is empty"),
        (lambda e: e.update(to_play=True), "puzzle 'win-04': to_play must be 0 or 1"),
        (lambda e: e.update(forbidden=["c5"]), "only renju_trap puzzles list forbidden points"),
        (lambda e: e.update(category="renju_trap"), "a renju_trap puzzle is played under renju"),
        (lambda e: e.update(colour="X"), "puzzle 'win-04': unknown field(s) colour"),
    ],
)
def test_loader_names_the_puzzle_and_the_problem(tmp_path, change, message):
    entry = _good()
    change(entry)
    with pytest.raises(ValueError, match=re.escape(message)):
        load_puzzles(_write(tmp_path, [_good() | {"id": "fine"}, entry]))


def test_loader_rejects_duplicates_and_non_lists(tmp_path):
    with pytest.raises(ValueError, match="puzzle 'win-04': duplicate id"):
        load_puzzles(_write(tmp_path, [_good(), _good()]))
    with pytest.raises(ValueError, match="puzzle 1: expected an object"):
        load_puzzles(_write(tmp_path, [_good(), "win-05"]))
    with pytest.raises(ValueError, match="expected a list of puzzles"):
        load_puzzles(_write(tmp_path, {"puzzles": []}))
    bad = tmp_path / "bad.json"
    bad.write_text("[{", encoding="utf-8")
    with pytest.raises(ValueError, match="not valid JSON"):
        load_puzzles(bad)


def test_the_generator_keeps_the_file_s_layout():
    """tests/support/puzzle_generator.py rewrites the file; its layout is the file's own."""
    from support import puzzle_generator

    text = resources.files("hexjax").joinpath("data", "gomoku_puzzles.json").read_text("utf-8")
    assert puzzle_generator.dump(RAW) == text
    generated = [e for e in RAW if e["id"].startswith(puzzle_generator.PREFIX)]
    assert all(e["size"] == 15 and e["rule"] in ("freestyle", "renju") for e in generated)
