"""A strength ladder against an external engine: the evaluate command against the engine at
each budget, one table (`hexjax-engine-ladder`, `experiments/engine_ladder.py`).

    python experiments/engine_ladder.py --engine "gtp:mohex --use-logfile=false" \\
        --setup "param_mohex max_games {level}" --levels 100 1000 10000 \\
        -- --model hex11 --openings first-moves --games 40

Each level is one opponent of a single evaluate run (the agent compiles once): the engine
`--engine` set up by the `--setup` lines with {level} replaced. Everything after `--` goes to
experiments/evaluate.py as it is. Prints the table in Markdown, per colour, with the budget at
which the agent scores 50% (interpolated in the logarithm of the budget) where the scores
cross it; evaluate's JSON record goes to --out.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import shlex
import sys

from hexjax.commands import evaluate, evaluate_matches, split_at_dashes


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    ours, theirs = split_at_dashes(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", required=True, help="gtp:COMMAND or gomocup:COMMAND")
    parser.add_argument(
        "--setup",
        action="append",
        default=[],
        help="a setup line with {level} for the budget (repeatable), e.g. "
        "'param_mohex max_games {level}' or 'INFO max_node {level}'",
    )
    parser.add_argument("--levels", type=int, nargs="+", required=True)
    parser.add_argument("--out", default="engine-ladder.json", help="evaluate's JSON record")
    args = parser.parse_args(ours)
    if not any("{level}" in line for line in args.setup):
        parser.error("no --setup line has {level}: every level would be the same engine")
    if any(level < 1 for level in args.levels):
        parser.error("--levels must be positive")
    if "--out" in theirs:
        parser.error("give --out before --: it is the ladder's")
    theirs += ["--out", args.out]
    opponents = []
    for level in sorted(args.levels):
        opponents += ["--opponent", args.engine]
        for line in args.setup:
            opponents += ["--opponent-setup", line.replace("{level}", str(level))]
    status = evaluate.main([*theirs, *opponents])
    if status:
        return status
    record = json.loads(pathlib.Path(args.out).read_text())
    rows = [(level, record["results"][_label(args, level)]) for level in sorted(args.levels)]
    print()
    print("    " + shlex.join(["python", "experiments/evaluate.py", *theirs, *opponents]))
    print()
    print(table(rows))
    print()
    print(even_budget_line([(level, s["score"]) for level, s in rows]))
    return 0


def _label(args, level: int) -> str:
    setup = [line.replace("{level}", str(level)) for line in args.setup]
    return evaluate_matches.engine_label(args.engine, setup)


def table(rows) -> str:
    """Markdown: a row per level, the score with its interval, per colour, the games that
    ended off the board, seconds a move."""
    lines = [
        "| level | games | score | 95% interval | as Black | as White | engine failures | "
        "s/move agent / engine |",
        "|---:|---:|---:|---|---:|---:|---:|---|",
    ]
    for level, s in rows:
        engine = s.get("engine", {})
        failures = len(engine.get("engine_failures", []))
        seconds = (
            f"{engine.get('agent_seconds_per_move')} / {engine.get('engine_seconds_per_move')}"
        )
        lines.append(
            f"| {level} | {s['games']} | {100 * s['score']:.1f}% | "
            f"[{100 * s['low']:.1f}, {100 * s['high']:.1f}] | {100 * s['as_black']:.1f}% | "
            f"{100 * s['as_white']:.1f}% | {failures} | {seconds} |"
        )
    return "\n".join(lines)


def even_budget(points) -> float | None:
    """The budget at which the score crosses 50%, interpolated in log(budget) between the
    first two levels around it; None where the scores do not cross it."""
    points = sorted(points)
    for (low, low_score), (high, high_score) in zip(points, points[1:], strict=False):
        if low_score >= 0.5 > high_score:
            share = (low_score - 0.5) / (low_score - high_score)
            return math.exp(math.log(low) + share * (math.log(high) - math.log(low)))
    return None


def even_budget_line(points) -> str:
    points = sorted(points)
    budget = even_budget(points)
    if budget is not None:
        return f"the agent scores 50% at about {budget:,.0f} (interpolated)"
    if all(score >= 0.5 for _, score in points):
        return f"the agent scores at least 50% at every level up to {points[-1][0]:,}"
    if all(score < 0.5 for _, score in points):
        return f"the agent scores below 50% at every level from {points[0][0]:,}"
    return "the scores rise through 50% with the budget: no even budget (noise?)"
