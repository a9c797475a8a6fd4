"""Generate 15x15 Gomoku puzzles from semi-random games (the `g15-*` entries of
hexjax/data/gomoku_puzzles.json). Plain Python, like the checker it relies on: nothing here
imports hexjax.

Run from the repository root (deterministic for a seed; minutes of CPU):

    PYTHONPATH=tests python -m support.puzzle_generator --seed 15

Each game is played by two noisy pattern players: a point's score adds, over the five-point
windows through it, a weight for its own stones in windows free of the opponent (attack) and for
the opponent's stones in windows free of its own (defence); a move is drawn with probability
proportional to score ** (1 / temperature), the temperature drawn per game, so most games block
fours and extend threes but some miss them. The first stone goes anywhere on the board (2 from
the edge at most), so positions reach the edges. In renju Black never plays a forbidden point
(renju_oracle). A game ends at a five or after `MAX_STONES` stones.

Every position from `MIN_STONES` stones on is classified with the checker
(tests/support/puzzle_checker.py) for the side to move: a win in one (at most two winning
points), a forced block (the opponent has exactly one winning point, the side to move none), a
vcf3 (no win in one, one or two first moves win within 3 plies), or else a four_three (none
within 3 plies, one or two first moves win within 5 and every one is a four-three) or a vcf5
(one to three first moves win within 5 plies, at least one of them not a four-three: two fours
before the double threat, or a four whose block is forbidden for Black). A renju position whose
answer set differs from the freestyle one is a renju_trap. Puzzles are then picked per (rule,
category), at most one per game and category and at most two per game, both sides to move where
the supply allows; vcf5 and four_three picks must also pass the exhaustive "no quiet win"
search. Finally every picked puzzle goes through `puzzle_checker.analyse` once more.

The hand-made puzzles (every entry whose id does not start with `g15-`) are kept as they are.
"""

from __future__ import annotations

import argparse
import copy
import json
import multiprocessing
import random
import re
from pathlib import Path

from support import puzzle_checker as ch
from support import renju_oracle

N = 15
PREFIX = "g15-"
MIN_STONES, MAX_STONES = 12, 90
COLOUR = ("Black", "White")
ATTACK = (1, 6, 30, 200, 100_000)  # own stones in a window free of the opponent's
DEFENCE = (0, 4, 20, 150, 50_000)  # the opponent's stones in a window free of own
# New puzzles per rule and category (the category of a renju trap is renju_trap).
TARGETS = {
    "freestyle": {"win_in_one": 7, "forced_block": 7, "four_three": 7, "vcf3": 7, "vcf5": 7},
    "renju": {
        "win_in_one": 3,
        "forced_block": 3,
        "four_three": 3,
        "vcf3": 3,
        "vcf5": 2,
        "renju_trap": 6,
    },
}
DATA = Path(__file__).parents[2] / "hexjax" / "data" / "gomoku_puzzles.json"


# ----------------------------------------------------------------------------- games


def _near(board, radius: int = 2) -> list[tuple[int, int]]:
    stones = [(r, c) for r in range(N) for c in range(N) if board[r][c]]
    points = {
        (r + dr, c + dc)
        for r, c in stones
        for dr in range(-radius, radius + 1)
        for dc in range(-radius, radius + 1)
        if 0 <= r + dr < N and 0 <= c + dc < N
    }
    return sorted(p for p in points if board[p[0]][p[1]] == ch.EMPTY)


def _score(board, r: int, c: int, player: int) -> float:
    mine, theirs = player + 1, 2 - player
    total = 0.0
    for dr, dc in ch.DIRECTIONS:
        for start in range(-4, 1):
            cells = [(r + (start + k) * dr, c + (start + k) * dc) for k in range(5)]
            if not all(0 <= rr < N and 0 <= cc < N for rr, cc in cells):
                continue
            values = [board[rr][cc] for rr, cc in cells]
            own, other = values.count(mine), values.count(theirs)
            if not other:
                total += ATTACK[own]
            if not own:
                total += DEFENCE[other]
    return total


def _choose(board, player: int, rule: str, temperature: float, rng: random.Random):
    points = _near(board)
    weights = [_score(board, r, c, player) ** (1 / temperature) for r, c in points]
    while points:
        (index,) = rng.choices(range(len(points)), weights)
        r, c = points[index]
        if ch.may_play(board, r, c, player, rule):
            return r, c
        del points[index], weights[index]  # renju: a forbidden point for Black
    return None


def play_game(rule: str, rng: random.Random):
    """Yield (board copy, side to move) for each position from MIN_STONES stones on."""
    board = [[ch.EMPTY] * N for _ in range(N)]
    temperature = rng.uniform(0.35, 1.0)
    board[rng.randint(2, N - 3)][rng.randint(2, N - 3)] = ch.BLACK
    player = 1
    for stones in range(1, MAX_STONES):
        if stones >= MIN_STONES:
            yield copy.deepcopy(board), player
        move = _choose(board, player, rule, temperature, rng)
        if move is None:
            return
        r, c = move
        won = ch.makes_five(board, r, c, player, rule)
        board[r][c] = player + 1
        if won:
            return
        player = 1 - player


# ----------------------------------------------------------------------------- classification


def classify(board, to_play: int, rule: str) -> tuple[str, set] | None:
    """(goal, answers) of a position worth keeping, or None."""
    own = ch.five_points(board, to_play, rule)
    if own:
        return ("win_in_one", own) if len(own) <= 2 else None
    opponent = ch.five_points(board, 1 - to_play, rule)
    if opponent:
        if len(opponent) == 1 and ch.goal_answers(board, to_play, "forced_block", rule):
            return "forced_block", opponent
        return None
    vcf3 = ch.winning_fours(board, to_play, 3, rule)
    if vcf3:
        return ("vcf3", vcf3) if len(vcf3) <= 2 else None
    vcf5 = ch.winning_fours(board, to_play, 5, rule)
    if not vcf5 or len(vcf5) > 3:
        return None
    if all(ch.is_four_three(board, to_play, move, rule) for move in vcf5):
        return ("four_three", vcf5) if len(vcf5) <= 2 else None
    return "vcf5", vcf5


def principal_line(board, attacker: int, move, plies: int, rule: str) -> list:
    """One winning continuation of the four `move`: [move, block, move, block, ..., five]."""
    board = copy.deepcopy(board)
    line = [move]
    while True:
        r, c = line[-1]
        board[r][c] = attacker + 1
        threats = sorted(ch.five_points(board, attacker, rule))
        if len(threats) >= 2 or not ch.may_play(board, *threats[0], 1 - attacker, rule):
            return line + [threats[0]]
        (wr, wc) = threats[0]
        board[wr][wc] = 2 - attacker
        line.append((wr, wc))
        plies -= 2
        if ch.five_points(board, attacker, rule):
            return line + [min(ch.five_points(board, attacker, rule))]
        defender_fives = ch.five_points(board, 1 - attacker, rule)
        line.append(
            next(
                m
                for m in ch.four_moves(board, attacker, rule)
                if ch.four_wins(board, attacker, m, plies, rule, defender_fives)
            )
        )


# ----------------------------------------------------------------------------- notes


def _m(point) -> str:
    return ch.format_move(*point, N)


def note(board, to_play: int, goal: str, rule: str, answers: set) -> str:
    me, you = COLOUR[to_play], COLOUR[1 - to_play]
    moves = sorted(answers)
    if goal == "win_in_one":
        return f"{me} makes five at {' or '.join(_m(p) for p in moves)}."
    if goal == "forced_block":
        (point,) = moves
        fours = ch.four_moves(board, to_play, rule)
        lure = f" (a four of its own, e.g. {_m(fours[0])}, is too slow)" if fours else ""
        return f"{you} threatens five at {_m(point)}: {me} must block there{lure}."
    plies = ch.PLIES[goal]
    lines = []
    for move in moves:
        line = principal_line(board, to_play, move, plies, rule)
        steps = []
        for i in range(0, len(line) - 2, 2):
            steps.append(f"{_m(line[i])} ({you[0]} {_m(line[i + 1])})")
        after = copy.deepcopy(board)
        for i, point in enumerate(line[:-1]):
            after[point[0]][point[1]] = (to_play if i % 2 == 0 else 1 - to_play) + 1
        final = line[-2]
        threats = sorted(ch.five_points(after, to_play, rule))
        if len(threats) >= 2:
            ending = f"{_m(final)} makes two winning points, {' and '.join(map(_m, threats))}"
        else:
            ending = f"{_m(final)} threatens {_m(threats[0])}, forbidden for Black to block"
        lines.append(", ".join([*steps, ending]))
    kind = {"vcf3": "wins by a four", "vcf5": "wins by continuous fours"}.get(
        goal, "wins with a four-three"
    )
    return f"{me} {kind}: " + "; or ".join(lines) + "."


def _trap_note(board, to_play, goal, answers, freestyle) -> tuple[str, list]:
    """The renju twist in words, and the forbidden points of the position it involves."""
    forbidden = renju_oracle.forbidden_points(board)
    lost = sorted(freestyle - answers)
    gained = sorted(answers - freestyle)
    words, points = [], []
    for point in lost:
        if point in forbidden:
            kind = renju_oracle.forbidden_kind(board, *point)
            words.append(f"{_m(point)} would win in freestyle but is forbidden ({kind})")
            points.append(point)
    others = [_m(p) for p in lost if p not in forbidden]
    if others:
        words.append(f"{', '.join(others)} would win in freestyle, not in renju")
    if gained:
        words.append(f"{', '.join(map(_m, gained))} wins only in renju")
    blocks = set()
    for move in sorted(answers):
        if goal != "win_in_one":
            line = principal_line(board, to_play, move, ch.PLIES[goal], "renju")
            blocks |= {p for p in line[1::2] if p in forbidden}
    points += sorted(blocks - set(points))
    return "; ".join(words), points


# ----------------------------------------------------------------------------- harvest


def harvest(rule: str, games: int, seed: int) -> list[dict]:
    """Candidate puzzles (dicts, without ids) from `games` games."""
    rng = random.Random(f"{seed}-{rule}")
    found = []
    for game in range(games):
        for board, to_play in play_game(rule, rng):
            kind = classify(board, to_play, rule)
            if kind is None:
                continue
            goal, answers = kind
            category = goal
            freestyle = None
            if rule == "renju" and goal != "forced_block":
                freestyle = ch.goal_answers(board, to_play, goal, "freestyle")
                if freestyle != answers:
                    category = "renju_trap"
            found.append(
                {
                    "game": game,
                    "stones": sum(v != 0 for row in board for v in row),
                    "category": category,
                    "goal": goal,
                    "rule": rule,
                    "board": board,
                    "to_play": to_play,
                    "answers": answers,
                    "freestyle": freestyle,
                }
            )
    return found


def _sound(candidate: dict) -> bool:
    """A five-ply puzzle must have no quiet win (the exhaustive search; slow)."""
    if candidate["goal"] not in ("vcf5", "four_three"):
        return True
    if "sound" not in candidate:
        board = copy.deepcopy(candidate["board"])
        quiet = ch.quiet_wins_within_five(board, candidate["to_play"], candidate["rule"])
        candidate["sound"] = not quiet
    return candidate["sound"]


def pick(candidates: list[dict], targets: dict[str, int], rng: random.Random) -> list[dict]:
    """Per category: at most one puzzle a game, two a game in all; the side to move alternates
    where the supply allows; games not used yet first, then positions of 16 stones or more."""
    chosen, per_game = [], {}
    for category, count in targets.items():
        pool = [c for c in candidates if c["category"] == category]
        rng.shuffle(pool)
        taken, games = [], set()
        while len(taken) < count:
            pool.sort(key=lambda c: (per_game.get(c["game"], 0), c["stones"] < 16))
            open_ = [c for c in pool if c["game"] not in games and per_game.get(c["game"], 0) < 2]
            wanted = len(taken) % 2
            found = next((c for c in open_ if c["to_play"] == wanted and _sound(c)), None)
            found = found or next((c for c in open_ if _sound(c)), None)
            if found is None:
                break
            taken.append(found)
            games.add(found["game"])
            per_game[found["game"]] = per_game.get(found["game"], 0) + 1
        chosen += taken
    return chosen


def to_entry(candidate: dict, pid: str) -> dict:
    board, to_play, goal = candidate["board"], candidate["to_play"], candidate["goal"]
    rule, answers = candidate["rule"], candidate["answers"]
    text = note(board, to_play, goal, rule, answers)
    entry = {
        "id": pid,
        "category": candidate["category"],
        "goal": goal,
        "rule": rule,
        "size": N,
        "to_play": to_play,
        "board": ["".join(".XO"[v] for v in row) for row in board],
        "answers": sorted(_m(p) for p in answers),
        "note": text,
    }
    if candidate["category"] == "renju_trap":
        twist, points = _trap_note(board, to_play, goal, answers, candidate["freestyle"])
        entry["note"] = f"{text} Renju: {twist}." if twist else text
        if points:
            entry["forbidden"] = sorted(_m(p) for p in points)
    return entry


def generate(seed: int, games: dict[str, int]) -> list[dict]:
    entries = []
    rules = list(TARGETS)
    with multiprocessing.Pool(len(rules)) as pool:  # the rules' games in parallel
        harvests = pool.starmap(harvest, [(rule, games[rule], seed) for rule in rules])
    for rule, candidates in zip(rules, harvests, strict=True):
        targets = TARGETS[rule]
        chosen = pick(candidates, targets, random.Random(f"{seed}-{rule}-pick"))
        counts = {}
        for candidate in chosen:
            key = candidate["category"]
            counts[key] = counts.get(key, 0) + 1
            short = {"freestyle": "f", "renju": "r"}[rule]
            pid = f"{PREFIX}{short}-{key.replace('_', '-')}-{counts[key]:02d}"
            entry = to_entry(candidate, pid)
            answers, problems = ch.analyse(entry, thorough=True)
            assert not problems and answers == set(entry["answers"]), (pid, problems)
            entries.append(entry)
        print(rule, len(candidates), "candidates; picked", counts, "of", targets, flush=True)
    return entries


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--freestyle-games", type=int, default=120)
    parser.add_argument("--renju-games", type=int, default=120)
    parser.add_argument("--out", type=Path, default=DATA)
    args = parser.parse_args(argv)
    kept = [
        e for e in json.loads(DATA.read_text(encoding="utf-8")) if not e["id"].startswith(PREFIX)
    ]
    games = {"freestyle": args.freestyle_games, "renju": args.renju_games}
    entries = kept + generate(args.seed, games)
    args.out.write_text(dump(entries), encoding="utf-8")


def dump(entries: list[dict]) -> str:
    """The file's layout: indented JSON, one board row a line, move lists on one line."""
    text = json.dumps(entries, indent=2, ensure_ascii=False)
    return (
        re.sub(
            r'"(answers|forbidden)": \[[^\]]*\]',
            lambda m: f'"{m[1]}": ' + json.dumps(json.loads(m[0].split(": ", 1)[1])),
            text,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
