"""Strength against CPU-minutes for training recipes, each from several seeds
(`hexjax-learning-efficiency`, `experiments/learning_efficiency.py`):

    python experiments/learning_efficiency.py --iterations 1158 --points 4 --seeds 0 1 \\
        --recipe default= --recipe pooling="--network.global_pooling true" --opponent greedy \\
        --out runs/efficiency-g9 -- --game gomoku --board 9 --game.threats true

Everything after `--` goes to experiments/train.py for every run, then each recipe's own flags.
Each recipe trains once a seed, by iteration count (what a shared machine reproduces), keeping
`--points` checkpoints evenly spaced; every kept checkpoint then plays `--games` games against
each `--opponent` (experiments/evaluate.py --all-steps). In --out, a run already complete is
kept (and its evaluation, where it asked the same), one stopped part-way is resumed, so a
benchmark can grow seed by seed.
Prints a markdown table a recipe (at each checkpoint: the median minutes and, per opponent, the
median score with every seed's) and draws each recipe's median curve, its band the seeds' lowest
and highest score (<out>/efficiency.png).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import shlex
import statistics
import sys

from hexjax.commands import evaluate, split_at_dashes, train
from hexjax.evaluation import plots
from hexjax.training import restore
from hexjax.training.checkpoint import CheckpointError
from hexjax.training.run_dir import RunDir

# Saves by the clock off: a run longer than train.py's few minutes would otherwise save between
# the evenly spaced steps, and keeping the last --points + 1 would drop the early ones.
NO_TIMED_SAVES = 10**6  # minutes
RECORD = "efficiency.json"  # each run's evaluate.py --all-steps record, in its workdir


def parse(argv) -> tuple[argparse.Namespace, list[str]]:
    ours, shared = split_at_dashes(list(argv))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--recipe",
        action="append",
        required=True,
        metavar="NAME=FLAGS",
        help="a recipe: its name and its train.py flags (NAME= for the defaults), repeatable",
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--iterations", type=int, required=True, help="every run's budget")
    parser.add_argument("--points", type=int, default=4, help="checkpoints evaluated a run")
    parser.add_argument("--opponent", action="append", help="evaluate.py's, repeatable")
    parser.add_argument("--games", type=int, default=200, help="a match")
    parser.add_argument("--simulations", type=int, help="the agent's search (evaluate.py's)")
    parser.add_argument("--cpu-devices", type=int, default=1, help="training's and evaluation's")
    parser.add_argument("--out", required=True, help="the runs' folder, the plot's")
    args = parser.parse_args(ours)
    args.recipes = {}
    for spec in args.recipe:
        name, sep, flags = spec.partition("=")
        if not sep or not name or "/" in name:
            parser.error(f"--recipe must be NAME=FLAGS with a plain name, got {spec!r}")
        if name in args.recipes:
            parser.error(f"--recipe {name} is given twice")
        args.recipes[name] = shlex.split(flags)
    if args.iterations < 1 or not 1 <= args.points <= args.iterations:
        parser.error("--iterations must be positive and --points between 1 and --iterations")
    if len(set(args.seeds)) != len(args.seeds):
        parser.error("--seeds must differ")
    owned = {"--seed", "--iterations", "--workdir", "--checkpoint-every", "--keep-checkpoints",
             "--checkpoint-minutes", "--eval-every", "--cpu-devices", "--resume",
             "--minutes"}  # fmt: skip
    for flags in [shared, *args.recipes.values()]:
        taken = owned.intersection(flag.partition("=")[0] for flag in flags)
        if taken:
            parser.error(f"{', '.join(sorted(taken))}: the benchmark sets these for every run")
    return args, shared


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args, shared = parse(argv)
    out = pathlib.Path(args.out)
    curves = {}
    for name, flags in args.recipes.items():
        runs = {}
        for seed in args.seeds:
            workdir = out / f"{name}-s{seed}"
            status = _train(args, [*shared, *flags], seed, workdir)
            if status == 0 and not _evaluated(args, workdir):
                status = _evaluate(args, workdir)
            if status != 0:
                print(f"error: recipe {name}, seed {seed} stopped (exit {status})", file=sys.stderr)
                return status
            runs[seed] = json.loads((workdir / RECORD).read_text())["evaluations"]
        curves[name] = runs
        print(table(name, runs) + "\n")
    medians = {name: median_curve(runs) for name, runs in curves.items()}
    print(f"wrote {plots.score_curves(medians, out / 'efficiency.png')}")
    return 0


def _train(args, flags: list[str], seed: int, workdir: pathlib.Path) -> int:
    """Train one run to --iterations, or the rest of one stopped part-way; 0 when complete."""
    done = _last_step(workdir)
    if done is not None and done >= args.iterations:
        return 0
    every = max(args.iterations // args.points, 1)
    budget = ["--iterations", str(args.iterations - (done or 0))]
    if done is not None:
        return train.main([*budget, "--workdir", str(workdir), "--resume"])
    return train.main([
        *flags, *budget, "--seed", str(seed), "--workdir", str(workdir),
        "--checkpoint-every", str(every), "--keep-checkpoints", str(args.points + 1),
        "--checkpoint-minutes", str(NO_TIMED_SAVES), "--eval-every", "0",
        "--cpu-devices", str(args.cpu_devices),
    ])  # fmt: skip


def _last_step(workdir: pathlib.Path) -> int | None:
    if not RunDir(workdir).config.is_file():
        return None
    try:
        steps = restore.checkpoint_steps(workdir)
    except CheckpointError:
        return None
    return max(steps) if steps else None


def _opponents(args) -> list[str]:
    return args.opponent or ["greedy"]


def _evaluated(args, workdir: pathlib.Path) -> bool:
    """Whether the run's record already holds this evaluation of every kept checkpoint."""
    try:
        record = json.loads((workdir / RECORD).read_text())
        steps = [e["step"] for e in record["evaluations"]]
        opponents = [set(e["results"]) for e in record["evaluations"]]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    asked = args.simulations in (None, record.get("simulations"))
    return (
        asked
        and record.get("games") == args.games
        and steps == restore.checkpoint_steps(workdir)
        and all(found == set(_opponents(args)) for found in opponents)
    )


def _evaluate(args, workdir: pathlib.Path) -> int:
    opponents = [word for spec in _opponents(args) for word in ("--opponent", spec)]
    search = [] if args.simulations is None else ["--simulations", str(args.simulations)]
    return evaluate.main([
        "--checkpoint", str(workdir), "--all-steps", *opponents, *search,
        "--games", str(args.games), "--cpu-devices", str(args.cpu_devices),
        "--out", str(workdir / RECORD),
    ])  # fmt: skip


def median_curve(runs: dict[int, list[dict]]) -> list[dict]:
    """The seeds' curves as one: at each step, the median minutes and score, and the band from
    the seeds' lowest to highest score (evaluate.py's evaluation shape, as the plots take it)."""
    curve = []
    for step, minutes, scores in _by_step(runs):
        results = {
            opponent: {"score": statistics.median(s), "low": min(s), "high": max(s)}
            for opponent, s in scores.items()
        }
        curve.append({"step": step, "minutes": statistics.median(minutes), "results": results})
    return curve


def table(name: str, runs: dict[int, list[dict]]) -> str:
    """One recipe's markdown table: step, median minutes, per opponent the median score and
    each seed's (in the order of --seeds)."""
    rows = list(_by_step(runs))
    opponents = sorted({opponent for _, _, scores in rows for opponent in scores})
    seeds = ", ".join(str(seed) for seed in runs)
    lines = [
        f"{name} (seeds {seeds}; median, then each seed's):",
        "",
        "| step | minutes | " + " | ".join(f"vs {o}" for o in opponents) + " |",
        "|---|---|" + "---|" * len(opponents),
    ]
    for step, minutes, scores in rows:
        cells = [
            f"{100 * statistics.median(s):.1f}% ({' / '.join(f'{100 * x:.1f}' for x in s)})"
            if (s := scores.get(o))
            else ""
            for o in opponents
        ]
        lines.append(f"| {step} | {statistics.median(minutes):.1f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _by_step(runs: dict[int, list[dict]]):
    """(step, each seed's minutes, {opponent: each seed's score}) for the steps every seed has."""
    by_seed = [{e["step"]: e for e in evaluations} for evaluations in runs.values()]
    common = sorted(set.intersection(*(set(steps) for steps in by_seed)))
    for step in common:
        entries = [steps[step] for steps in by_seed]
        opponents = set.intersection(*(set(e["results"]) for e in entries))
        scores = {o: [e["results"][o]["score"] for e in entries] for o in sorted(opponents)}
        yield step, [e["minutes"] for e in entries], scores


if __name__ == "__main__":
    sys.exit(main())
