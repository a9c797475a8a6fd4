"""The Gomoku tactics puzzle suite (hexjax/data/gomoku_puzzles.json): loading and validation.

Each puzzle is a position with the side to move and the set of correct moves, verified from the
rules alone by tests/support/puzzle_checker.py. Categories:

* win_in_one: every move that makes five at once.
* forced_block: the opponent threatens exactly one winning point; the answer is that point.
* vcf3 / vcf5: the side to move wins by continuous fours within 3 / 5 plies (and not sooner);
  the answers are every first move that does.
* four_three: a vcf5 position whose every answer is a four-three, a four and an open three made
  at once (the block of the four leaves the three to become an open four).
* renju_trap: renju, where the forbidden points decide; `goal` names the question asked
  (win_in_one, four_three, vcf3 or vcf5) and `forbidden` lists the forbidden points the idea
  turns on.

The JSON file holds a list of objects with `id`, `category`, `goal`, `rule`, `size`, `board`
(n strings, row 0 at the top, '.' empty, 'X' Black, 'O' White), `to_play` (0 Black, 1 White),
`answers` (moves in the game's notation, e.g. "h8") and `note`, plus `forbidden` for renju traps.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from importlib import resources
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from hexjax.games import Gomoku, make
from hexjax.games._base import Game, State

CATEGORIES = ("win_in_one", "forced_block", "four_three", "vcf3", "vcf5", "renju_trap")
RENJU_GOALS = ("win_in_one", "four_three", "vcf3", "vcf5")
RULES = ("freestyle", "standard", "renju")
SIZES = (9, 13, 15)
_FIELDS = ("id", "category", "goal", "rule", "size", "board", "to_play", "answers", "note")
_OPTIONAL = ("forbidden",)
_STONES = {".": 0, "X": 1, "O": 2}


@dataclasses.dataclass(frozen=True)
class Puzzle:
    id: str
    category: str
    goal: str
    rule: str
    size: int
    board: np.ndarray = dataclasses.field(compare=False)  # int8[n, n]: 0 empty, 1 X, 2 O
    to_play: int
    answers: frozenset[int]  # action indices r * n + c
    note: str
    forbidden: frozenset[int] = frozenset()  # renju_trap: forbidden points the idea uses


@functools.cache
def applies(game: Game) -> bool:
    """The suite is of Gomoku positions (five in a row, under each rule)."""
    return isinstance(game, Gomoku)


@functools.cache  # one game a board: each instance compiles its own jitted rules
def _game(size: int, rule: str) -> Game:
    return make("gomoku", size=size, rule=rule)


def default_path():
    """The packaged puzzle file (a Traversable; `open` and `read_text` work on it)."""
    return resources.files("hexjax").joinpath("data", "gomoku_puzzles.json")


def load_puzzles(path: str | Path | None = None) -> list[Puzzle]:
    """Read and validate the puzzle file (the packaged suite by default).

    Raises ValueError naming the puzzle (its id, or its position in the list) and the problem."""
    source = default_path() if path is None else Path(path)
    try:
        entries = json.loads(source.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{source}: not valid JSON: {error}") from None
    if not isinstance(entries, list):
        raise ValueError(f"{source}: expected a list of puzzles, got {type(entries).__name__}")
    puzzles, seen = [], set()
    for index, entry in enumerate(entries):
        label = f"puzzle {index}"
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            label = f"puzzle {entry['id']!r}"
        try:
            puzzle = _parse(entry)
        except ValueError as error:
            raise ValueError(f"{label}: {error}") from None
        if puzzle.id in seen:
            raise ValueError(f"{label}: duplicate id")
        seen.add(puzzle.id)
        puzzles.append(puzzle)
    return puzzles


def _parse(entry) -> Puzzle:
    if not isinstance(entry, dict):
        raise ValueError(f"expected an object, got {type(entry).__name__}")
    missing = [f for f in _FIELDS if f not in entry]
    if missing:
        raise ValueError(f"missing field(s) {', '.join(missing)}")
    unknown = sorted(set(entry) - set(_FIELDS) - set(_OPTIONAL))
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(unknown)}")
    pid, category, goal, rule = entry["id"], entry["category"], entry["goal"], entry["rule"]
    if not isinstance(pid, str) or not pid.strip():
        raise ValueError("id must be a non-empty string")
    if category not in CATEGORIES:
        raise ValueError(f"category must be one of {', '.join(CATEGORIES)}, got {category!r}")
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}, got {rule!r}")
    if category == "renju_trap":
        if rule != "renju":
            raise ValueError(f"a renju_trap puzzle is played under renju, not {rule!r}")
        if goal not in RENJU_GOALS:
            raise ValueError(f"a renju_trap goal is one of {', '.join(RENJU_GOALS)}, got {goal!r}")
    elif goal != category:
        raise ValueError(f"goal must equal the category {category!r}, got {goal!r}")
    size = entry["size"]
    if size not in SIZES or isinstance(size, bool):
        raise ValueError(f"size must be one of {SIZES}, got {size!r}")
    board = _parse_board(entry["board"], size)
    to_play = entry["to_play"]
    if to_play not in (0, 1) or isinstance(to_play, bool):
        raise ValueError(f"to_play must be 0 or 1, got {to_play!r}")
    answers = _parse_moves(entry["answers"], "answers", board)
    if not answers:
        raise ValueError("answers is empty")
    forbidden = frozenset()
    if "forbidden" in entry:
        if category != "renju_trap":
            raise ValueError("only renju_trap puzzles list forbidden points")
        forbidden = _parse_moves(entry["forbidden"], "forbidden", board)
    note = entry["note"]
    if not isinstance(note, str) or not note.strip():
        raise ValueError("note must be a non-empty string")
    return Puzzle(pid, category, goal, rule, size, board, to_play, answers, note, forbidden)


def _parse_board(rows, size: int) -> np.ndarray:
    if not isinstance(rows, list) or len(rows) != size:
        raise ValueError(f"board must be a list of {size} row strings")
    board = np.zeros((size, size), np.int8)
    for r, row in enumerate(rows):
        if not isinstance(row, str) or len(row) != size:
            raise ValueError(f"board row {r} must be a string of {size} characters, got {row!r}")
        for c, ch in enumerate(row):
            if ch not in _STONES:
                raise ValueError(f"board row {r} has {ch!r}; use '.', 'X' or 'O'")
            board[r, c] = _STONES[ch]
    board.flags.writeable = False  # a Puzzle is frozen; copy the board to change it
    return board


def _parse_moves(moves, field: str, board: np.ndarray) -> frozenset[int]:
    size = board.shape[0]
    game = _game(size, "freestyle")  # notation only: the same for every rule
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise ValueError(f"{field} must be a list of move strings")
    actions = []
    for move in moves:
        try:
            action = game.string_to_action(move)
        except ValueError as error:
            raise ValueError(f"{field}: {error}") from None
        if game.action_to_string(action) != move:
            raise ValueError(f"{field}: write {move!r} as {game.action_to_string(action)!r}")
        if board.reshape(-1)[action] != 0:
            raise ValueError(f"{field}: {move} is not an empty point")
        actions.append(action)
    if len(set(actions)) != len(actions):
        raise ValueError(f"{field}: a move is listed twice")
    return frozenset(actions)


def puzzle_state(puzzle: Puzzle) -> tuple[Game, State]:
    """(game, state) for the puzzle's position, built with `hexjax.make` and `from_board`."""
    game = _game(puzzle.size, puzzle.rule)
    return game, game.from_board(puzzle.board, puzzle.to_play)


def solved(puzzles, player_for) -> dict[str, bool]:
    """Puzzle id -> whether the player's move is one of the answers.

    player_for(game) -> a batched player (key, states) -> actions, or None where the player
    cannot play that game (a network trained on another board); those puzzles are left out.
    Puzzles of one game are played as one batch."""
    by_game: dict[tuple[int, str], list[Puzzle]] = {}
    for puzzle in puzzles:
        by_game.setdefault((puzzle.size, puzzle.rule), []).append(puzzle)
    hits = {}
    for (size, rule), group in sorted(by_game.items()):
        game = _game(size, rule)
        player = player_for(game)
        if player is None:
            continue
        states = [game.from_board(p.board, p.to_play) for p in group]
        batch = jax.tree.map(lambda *xs: jnp.stack(xs), *states)
        actions = np.asarray(jax.jit(player)(jax.random.key(0), batch))
        for puzzle, action in zip(group, actions, strict=True):
            hits[puzzle.id] = int(action) in puzzle.answers
    return hits


def solved_one_at_a_time(puzzles, move_for) -> dict[str, bool]:
    """As `solved`, for a player that takes one position at a time on the host (an engine's
    timed move): move_for(game) -> (state -> action), or None where it does not play."""
    hits = {}
    for puzzle in puzzles:
        game = _game(puzzle.size, puzzle.rule)
        move = move_for(game)
        if move is not None:
            hits[puzzle.id] = (
                int(move(game.from_board(puzzle.board, puzzle.to_play))) in puzzle.answers
            )
    return hits


def _rate(puzzles) -> dict[str, float | int]:
    total, hits = len(puzzles), sum(puzzles)
    return {"puzzles": total, "solved": hits, "accuracy": hits / total if total else 0.0}


def solve_rates(puzzles, player_for, hits=None) -> dict[str, dict[str, float | int]]:
    """Per category (those with puzzles played): how many puzzles a player solves.

    See `solved` for player_for; `hits`, its result, saves playing the puzzles again."""
    hits = solved(puzzles, player_for) if hits is None else hits
    return {
        category: _rate(group)
        for category in CATEGORIES
        if (group := [hits[p.id] for p in puzzles if p.category == category and p.id in hits])
    }


# Goals scored together per board (a renju trap counts under its goal):
GROUPS = {"win_or_block": ("win_in_one", "forced_block"), "vcf": ("vcf3", "four_three", "vcf5")}


def board_rates(puzzles, hits) -> dict[str, dict[str, dict[str, float | int]]]:
    """Per board and rule played ("15x15 freestyle"), the solve rates of each group of `GROUPS`
    (by goal: win in one and forced block; wins by continuous fours, the four-threes included)
    and of all the board's puzzles. `hits` is `solved`'s result."""
    boards: dict[tuple[int, str], list[Puzzle]] = {}
    for puzzle in puzzles:
        if puzzle.id in hits:
            boards.setdefault((puzzle.size, puzzle.rule), []).append(puzzle)
    return {
        f"{size}x{size} {rule}": {
            **{
                name: _rate([hits[p.id] for p in group if p.goal in goals])
                for name, goals in GROUPS.items()
            },
            "all": _rate([hits[p.id] for p in group]),
        }
        for (size, rule), group in sorted(boards.items())
    }
