"""A slow, obviously correct checker for the Gomoku puzzle suite (hexjax/data/gomoku_puzzles.json).

Standard library only, plus the two plain-Python references in tests/: `gomoku_oracle` (who has
won) and `renju_oracle` (Black's forbidden points and renju fives). Nothing here imports hexjax:
the board diagrams and the move notation are read independently, so the test can compare the
two readings.

Boards are lists of lists `board[r][c]` of 0 (empty), 1 (Black, player 0, moves first) and 2
(White, player 1); row 0 is the TOP row. Moves are written as on a renju board: column letter
from the left, row number from the BOTTOM ("h8" is the centre of 15x15, "a1" the bottom-left).

Rules: freestyle, five or more in a row wins; standard, exactly five; renju, Black wins only
with exactly five and may not play a forbidden point (overline, double-four, double-three; a
move making exactly five is never forbidden), White wins with five or more and has no
restrictions.

What the checker computes, from the rules alone, for the side to move (the "attacker"):

* win_in_one: every legal move that makes a winning five.
* forced_block: the opponent's winning points were the side to move to pass. A puzzle requires
  exactly one such point, no win in one for the side to move, and the point to be playable; any
  other move then loses at once, because the opponent plays that point.
* vcf3 / vcf5: the first moves with which the attacker makes five within 3 / 5 plies against
  every defence, each attacker move before the five being a four (a move after which the
  attacker has a winning point). The search (`attacker_wins`) is exact for that game:
    - an attacker with a winning point plays it and wins;
    - after an attacker four, a defender with a winning point of its own plays it and wins, so
      that four fails;
    - otherwise, if the attacker now has two or more winning points, one defender stone cannot
      cover them all (a stone of the defender's colour never changes the attacker's runs, it
      only occupies a point) and the attacker wins on its next move;
    - with exactly one winning point w, every defender move other than w lets the attacker
      play w, so w is the only defence; in renju, if the defender is Black and w is forbidden
      for Black, there is no defence and the attacker wins;
    - the defender having played w, the search goes on with two plies fewer.
  Every move that wins within 3 plies is a four: after any other move and any reply the
  attacker has no winning point (the opponent's stone cannot give it one). So the vcf3 set is
  the set of ALL first moves that win within 3 plies. Within 5 plies a move that is not a four
  ("quiet", e.g. a double three) can also win; `quiet_wins_within_five` looks for those by
  trying every defender reply, and a vcf5 puzzle requires there to be none, so its answers are
  likewise all the first moves that win within 5 plies.
* four_three: a vcf5 position (the same answer set, every first move that wins within 5 plies,
  and the same "no shorter win" and "no quiet win" conditions) in which EVERY answer is a
  four-three (`is_four_three`): the move makes a four, exactly one winning point w, and an open
  three in another line through it, i.e. once the defender has blocked w there is a point x on
  another line through the move, legal for the attacker, where its stone makes two or more
  winning points on that line (a straight four). A vcf5 puzzle may also be won by a four-three
  (most of the older ones are); the generated ones are not (their first four makes no three).
* "No shorter win": a vcf3 puzzle has no win in one; a vcf5 or four_three puzzle has no win in
  one and no first move that wins within 3 plies.

A renju_trap puzzle is one of these goals (not forced_block) under renju. The checker confirms
that the answer set under renju differs from the answer set under freestyle or under standard
(the renju rule decides the puzzle) and that each point in its optional `forbidden` list (the
forbidden points of the position that its idea turns on) is empty and forbidden for Black.

(Renju also says a Black player left with only forbidden points draws; on the puzzle boards
Black always has plenty of legal moves, so the search never meets that case.)
"""

from __future__ import annotations

import copy
import string

from support import gomoku_oracle, renju_oracle

EMPTY, BLACK, WHITE = 0, 1, 2
K = 5  # five in a row
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # a row, a column, both diagonals
RULES = ("freestyle", "standard", "renju")
SIZES = (9, 13, 15)
CATEGORIES = ("win_in_one", "forced_block", "four_three", "vcf3", "vcf5", "renju_trap")
GOALS = ("win_in_one", "forced_block", "four_three", "vcf3", "vcf5")
RENJU_GOALS = ("win_in_one", "four_three", "vcf3", "vcf5")
PLIES = {"vcf3": 3, "four_three": 5, "vcf5": 5}
SYMBOLS = {".": EMPTY, "X": BLACK, "O": WHITE}
FIELDS = ("id", "category", "goal", "rule", "size", "board", "to_play", "answers", "note")
OPTIONAL_FIELDS = ("forbidden",)


# ----------------------------------------------------------------------------- notation


def parse_move(text: str, n: int) -> tuple[int, int]:
    """'h8' -> (row, col): column letter from the left, row number from the bottom."""
    letters = string.ascii_lowercase[:n]
    if len(text) < 2 or text[0] not in letters or not text[1:].isdigit():
        raise ValueError(f"bad move {text!r}")
    number = int(text[1:])
    if not 1 <= number <= n or text[1] == "0":
        raise ValueError(f"bad move {text!r}")
    return n - number, letters.index(text[0])


def format_move(r: int, c: int, n: int) -> str:
    return f"{string.ascii_lowercase[c]}{n - r}"


def parse_board(rows: list[str]) -> list[list[int]]:
    return [[SYMBOLS[ch] for ch in row] for row in rows]


# ----------------------------------------------------------------------------- rules


def _on(n: int, r: int, c: int) -> bool:
    return 0 <= r < n and 0 <= c < n


def _run_length(board, r: int, c: int, dr: int, dc: int) -> int:
    """Length of the run of board[r][c]'s colour through (r, c) along (dr, dc)."""
    n, stone = len(board), board[r][c]
    length = 1
    for sign in (1, -1):
        rr, cc = r + sign * dr, c + sign * dc
        while _on(n, rr, cc) and board[rr][cc] == stone:
            length += 1
            rr, cc = rr + sign * dr, cc + sign * dc
    return length


def exact_five(rule: str, player: int) -> bool:
    """Does `player` need exactly five (True) or five or more (False)?"""
    return rule == "standard" or (rule == "renju" and player == 0)


def makes_five(board, r: int, c: int, player: int, rule: str) -> bool:
    """Would `player` win by a stone on the empty (r, c)? Only the lines through (r, c) change."""
    assert board[r][c] == EMPTY
    board[r][c] = player + 1
    try:
        lengths = [_run_length(board, r, c, dr, dc) for dr, dc in DIRECTIONS]
    finally:
        board[r][c] = EMPTY
    if exact_five(rule, player):
        return K in lengths
    return max(lengths) >= K


def oracle_makes_five(board, r: int, c: int, player: int, rule: str) -> bool:
    """`makes_five` by the reference implementations (whole-board check), for cross-checks.
    The position must not already be won."""
    if rule == "renju":
        return renju_oracle.is_five(board, r, c, player + 1)
    after = copy.deepcopy(board)
    after[r][c] = player + 1
    return gomoku_oracle.has_won(after, player, K, rule)


def is_over(board, rule: str) -> tuple[bool, int]:
    """(over, winner) by gomoku_oracle; renju judges Black by exact five, White by five+."""
    if rule == "renju":
        black = K in gomoku_oracle.runs(board, BLACK)
        white = any(length >= K for length in gomoku_oracle.runs(board, WHITE))
        full = all(v != EMPTY for row in board for v in row)
        winner = 0 if black else 1 if white else -1
        return black or white or full, winner
    return gomoku_oracle.outcome(board, K, rule)


def may_play(board, r: int, c: int, player: int, rule: str) -> bool:
    """Is (r, c) a legal move for `player`? Renju: not a forbidden point for Black."""
    if board[r][c] != EMPTY:
        return False
    return not (rule == "renju" and player == 0 and renju_oracle.is_forbidden(board, r, c))


def _has_neighbour(board, r: int, c: int, stone: int) -> bool:
    n = len(board)
    return any(
        _on(n, r + dr, c + dc) and board[r + dr][c + dc] == stone
        for dr in (-1, 0, 1)
        for dc in (-1, 0, 1)
        if dr or dc
    )


def five_points(board, player: int, rule: str) -> set[tuple[int, int]]:
    """All empty points where `player` makes a winning five. Such a move is always legal (in
    renju a move making exactly five is never forbidden). A five through w has a stone next to
    w, which skips most points quickly."""
    n = len(board)
    return {
        (r, c)
        for r in range(n)
        for c in range(n)
        if board[r][c] == EMPTY
        and _has_neighbour(board, r, c, player + 1)
        and makes_five(board, r, c, player, rule)
    }


def _five_points_through(board, r: int, c: int, player: int, rule: str) -> set:
    """Winning points of `player` on the lines through its stone at (r, c), within 4 of it:
    where every five that includes (r, c) must be completed."""
    n = len(board)
    found = set()
    for dr, dc in DIRECTIONS:
        for k in range(-4, 5):
            rr, cc = r + k * dr, c + k * dc
            on_empty = k and _on(n, rr, cc) and board[rr][cc] == EMPTY
            if on_empty and makes_five(board, rr, cc, player, rule):
                found.add((rr, cc))
    return found


def four_moves(board, player: int, rule: str, legal_only: bool = True) -> list:
    """Moves after which `player` has a winning point it did not have before (fours), in
    reading order. A new winning point w shares a five with the move, whose other three points
    hold `player`'s stones, so a move with fewer than three of them within 4 along every line
    is skipped. `legal_only=False` ignores renju's forbidden points (geometry only)."""
    n, stone = len(board), player + 1
    moves = []
    for r in range(n):
        for c in range(n):
            if board[r][c] != EMPTY:
                continue
            if not any(
                sum(
                    1
                    for k in range(-4, 5)
                    if _on(n, r + k * dr, c + k * dc) and board[r + k * dr][c + k * dc] == stone
                )
                >= 3
                for dr, dc in DIRECTIONS
            ):
                continue
            board[r][c] = stone
            try:
                new = _five_points_through(board, r, c, player, rule)
            finally:
                board[r][c] = EMPTY
            if new and (not legal_only or may_play(board, r, c, player, rule)):
                moves.append((r, c))
    return moves


# ----------------------------------------------------------------------------- search


def attacker_wins(board, attacker: int, plies: int, rule: str) -> bool:
    """Can `attacker`, to move, make five within `plies` plies (odd) by continuous fours,
    against every defence? See the module docstring."""
    if five_points(board, attacker, rule):
        return True
    if plies < 3:
        return False
    defender_fives = five_points(board, 1 - attacker, rule)
    return any(
        four_wins(board, attacker, move, plies, rule, defender_fives)
        for move in four_moves(board, attacker, rule)
    )


def four_wins(board, attacker, move, plies, rule, defender_fives=None) -> bool:
    """Does the four `move` (attacker to move, no winning point yet) win within `plies`?"""
    assert plies >= 3, "a four wins two plies later at the earliest"
    r, c = move
    defender = 1 - attacker
    if defender_fives is None:
        defender_fives = five_points(board, defender, rule)
    # The attacker's stone only takes a point away from the defender's runs.
    if defender_fives - {move}:
        return False  # the defender makes five first
    board[r][c] = attacker + 1
    try:
        threats = five_points(board, attacker, rule)
        assert threats, f"{format_move(r, c, len(board))} is not a four"
        if len(threats) >= 2:
            return True
        ((wr, wc),) = threats
        if not may_play(board, wr, wc, defender, rule):
            return True  # renju: Black may not block on a forbidden point
        board[wr][wc] = defender + 1
        try:
            return attacker_wins(board, attacker, plies - 2, rule)
        finally:
            board[wr][wc] = EMPTY
    finally:
        board[r][c] = EMPTY


def winning_fours(board, attacker: int, plies: int, rule: str) -> set:
    """First moves (fours) that win within `plies` by continuous fours."""
    defender_fives = five_points(board, 1 - attacker, rule)
    return {
        move
        for move in four_moves(board, attacker, rule)
        if four_wins(board, attacker, move, plies, rule, defender_fives)
    }


def _direction(a, b) -> tuple[int, int]:
    """The DIRECTIONS entry of the line through the points a != b."""
    dr, dc = b[0] - a[0], b[1] - a[1]
    step = ((dr > 0) - (dr < 0), (dc > 0) - (dc < 0))
    return step if step in DIRECTIONS else (-step[0], -step[1])


def is_four_three(board, attacker: int, move, rule: str) -> bool:
    """Does the legal `move` (attacker to move, no winning point yet) make a four and an open
    three at once? The four: exactly one winning point w after the move. The three: with the
    defender's stone on w, some empty point x within 4 of the move on another line through it,
    legal for the attacker, where the attacker's stone makes two or more winning points on that
    line (within 5 of the move). Shape only; whether the move wins is `four_wins`'s business."""
    n, (r, c) = len(board), move
    assert not five_points(board, attacker, rule) and may_play(board, r, c, attacker, rule)
    board[r][c] = attacker + 1
    threats = five_points(board, attacker, rule)
    try:
        if len(threats) != 1:
            return False
        ((wr, wc),) = threats
        board[wr][wc] = 2 - attacker  # the defender's stone
        try:
            four_line = _direction((r, c), (wr, wc))
            for dr, dc in DIRECTIONS:
                if (dr, dc) == four_line:
                    continue
                for k in range(-4, 5):
                    xr, xc = r + k * dr, c + k * dc
                    if not k or not _on(n, xr, xc) or not may_play(board, xr, xc, attacker, rule):
                        continue
                    board[xr][xc] = attacker + 1
                    wins = sum(
                        1
                        for j in range(-5, 6)
                        if _on(n, r + j * dr, c + j * dc)
                        and board[r + j * dr][c + j * dc] == EMPTY
                        and makes_five(board, r + j * dr, c + j * dc, attacker, rule)
                    )
                    board[xr][xc] = EMPTY
                    if wins >= 2:
                        return True
            return False
        finally:
            board[wr][wc] = EMPTY
    finally:
        board[r][c] = EMPTY


def quiet_wins_within_five(board, attacker: int, rule: str) -> set:
    """Legal first moves that are neither a five nor a four and still win within 5 plies
    against EVERY defender reply (e.g. a double three). Call only without a win in one.

    Exhaustive: a quiet move wins iff the defender has no winning point after it and, for every
    legal defender reply, the attacker then wins within 3 plies, which (as for vcf3) needs a
    four. Replies are tried most-promising first only to find a refutation sooner."""
    assert not five_points(board, attacker, rule)
    n, defender = len(board), 1 - attacker
    fours = set(four_moves(board, attacker, rule, legal_only=False))
    found = set()
    for r in range(n):
        for c in range(n):
            if (r, c) in fours or not may_play(board, r, c, attacker, rule):
                continue
            board[r][c] = attacker + 1
            try:
                if _quiet_move_wins(board, attacker, defender, rule):
                    found.add((r, c))
            finally:
                board[r][c] = EMPTY
    return found


def _quiet_move_wins(board, attacker, defender, rule) -> bool:
    if five_points(board, defender, rule):
        return False
    threats = four_moves(board, attacker, rule, legal_only=False)
    if not threats:
        return False  # after any reply the attacker has no four, so no five by ply 5
    # Replies near the attacker's fours (their points and winning points) first.
    near = set(threats)
    for r, c in threats:
        board[r][c] = attacker + 1
        near |= _five_points_through(board, r, c, attacker, rule)
        board[r][c] = EMPTY
    n = len(board)
    replies = sorted(near) + [
        (r, c) for r in range(n) for c in range(n) if (r, c) not in near and board[r][c] == EMPTY
    ]
    for r, c in replies:
        if not may_play(board, r, c, defender, rule):
            continue
        board[r][c] = defender + 1
        try:
            if not attacker_wins(board, attacker, 3, rule):
                return False
        finally:
            board[r][c] = EMPTY
    return True


# ----------------------------------------------------------------------------- puzzles


def goal_answers(board, to_play: int, goal: str, rule: str) -> set:
    """The moves that achieve `goal` for the side to move (no validity checks)."""
    board = copy.deepcopy(board)
    if goal == "win_in_one":
        return five_points(board, to_play, rule)
    if goal == "forced_block":
        points = five_points(board, 1 - to_play, rule)
        return (
            {p for p in points if may_play(board, *p, to_play, rule)} if len(points) == 1 else set()
        )
    return winning_fours(board, to_play, PLIES[goal], rule)


def analyse(puzzle: dict, thorough: bool = False) -> tuple[set[str], list[str]]:
    """(answers computed from the rules, problems with the puzzle). `thorough` adds the slow
    search for quiet wins in vcf5 and four_three puzzles."""
    n, rule, to_play, goal = puzzle["size"], puzzle["rule"], puzzle["to_play"], puzzle["goal"]
    board = parse_board(puzzle["board"])
    problems = []
    over, winner = is_over(board, rule)
    if over:
        return set(), [f"the game is already over (winner {winner})"]
    # The fast local five test must agree with the references on every empty point.
    for r in range(n):
        for c in range(n):
            if board[r][c] == EMPTY:
                for player in (0, 1):
                    fast = makes_five(board, r, c, player, rule)
                    if fast != oracle_makes_five(board, r, c, player, rule):
                        problems.append(f"five test disagrees with the oracle at {(r, c)}")

    own_fives = five_points(board, to_play, rule)
    answers = goal_answers(board, to_play, goal, rule)
    if goal == "win_in_one" and not own_fives:
        problems.append("no win in one")
    if goal != "win_in_one" and own_fives:
        problems.append("the side to move wins at once")
    if goal == "forced_block":
        threats = five_points(board, 1 - to_play, rule)
        if len(threats) != 1:
            problems.append(f"the opponent has {len(threats)} winning points, not one")
        elif not answers:
            problems.append("the only block is forbidden")
    if goal in PLIES:
        if not answers:
            problems.append(f"no {goal} win")
        if PLIES[goal] == 5 and not own_fives and winning_fours(board, to_play, 3, rule):
            problems.append("there is a win within 3 plies")
        if goal == "four_three":
            other = [m for m in answers if not is_four_three(board, to_play, m, rule)]
            if other:
                moves = sorted(format_move(r, c, n) for r, c in other)
                problems.append(f"answers that are not four-threes: {moves}")
        if PLIES[goal] == 5 and thorough and not own_fives:
            quiet = quiet_wins_within_five(copy.deepcopy(board), to_play, rule)
            if quiet:
                moves = sorted(format_move(r, c, n) for r, c in quiet)
                problems.append(f"quiet moves also win within 5 plies: {moves}")

    if puzzle["category"] == "renju_trap":
        forbidden = [parse_move(m, n) for m in puzzle.get("forbidden", [])]
        for r, c in forbidden:
            if board[r][c] != EMPTY or not renju_oracle.is_forbidden(board, r, c):
                problems.append(f"{format_move(r, c, n)} is not forbidden for Black")
        others = [goal_answers(board, to_play, goal, other) for other in ("freestyle", "standard")]
        if all(other == answers for other in others):
            problems.append("the answers are the same under freestyle and standard")
    return {format_move(r, c, n) for r, c in answers}, problems


def schema_problems(puzzle: dict) -> list[str]:
    """Field-level problems of one puzzle entry (the rules are `analyse`'s business)."""
    problems = []
    missing = [f for f in FIELDS if f not in puzzle]
    extra = [f for f in puzzle if f not in FIELDS + OPTIONAL_FIELDS]
    if missing or extra:
        return [f"missing fields {missing}, unknown fields {extra}"]
    n, category, goal, rule = puzzle["size"], puzzle["category"], puzzle["goal"], puzzle["rule"]
    if not isinstance(puzzle["id"], str) or not puzzle["id"]:
        problems.append("id must be a non-empty string")
    if category not in CATEGORIES:
        problems.append(f"unknown category {category!r}")
    if category == "renju_trap":
        if goal not in RENJU_GOALS or rule != "renju":
            problems.append("a renju_trap has rule renju and a goal other than forced_block")
    elif goal != category:
        problems.append(f"goal {goal!r} must equal the category {category!r}")
    if "forbidden" in puzzle and category != "renju_trap":
        problems.append("only renju_trap puzzles list forbidden points")
    if rule not in RULES:
        problems.append(f"unknown rule {rule!r}")
    if n not in SIZES:
        return problems + [f"size {n!r} is not one of {SIZES}"]
    board = puzzle["board"]
    if (
        not isinstance(board, list)
        or len(board) != n
        or any(
            not isinstance(row, str) or len(row) != n or set(row) - set(SYMBOLS) for row in board
        )
    ):
        return problems + [f"board must be {n} strings of {n} characters from '.XO'"]
    if puzzle["to_play"] not in (0, 1) or isinstance(puzzle["to_play"], bool):
        problems.append("to_play must be 0 or 1")
    moves = puzzle["answers"] + puzzle.get("forbidden", [])
    if not puzzle["answers"] or len(set(moves)) != len(moves):
        problems.append("answers must be non-empty; no move may repeat")
    for move in moves:
        try:
            r, c = parse_move(move, n)
        except ValueError as error:
            problems.append(str(error))
            continue
        if board[r][c] != ".":
            problems.append(f"{move} is not an empty point")
    if not isinstance(puzzle["note"], str) or not puzzle["note"].strip():
        problems.append("note must be a non-empty string")
    return problems
