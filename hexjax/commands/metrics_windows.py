"""A run's periodic evaluations averaged over windows of training minutes:
`python experiments/metrics_windows.py --workdir runs/othello8 --minutes 6`.

Reads `metrics.jsonl` (one record per iteration; every `--eval-every` iterations the score
against the random and the greedy player) and prints, per window, the mean score of the
evaluations that fall in it, as a markdown table. A resumed run may log iterations twice
(those after its last checkpoint, played again); the later record of each iteration is kept.
"""

from __future__ import annotations

import argparse
import sys

from hexjax.training import metrics
from hexjax.training.run_dir import RunDir


def main(argv=None) -> int:
    """`python experiments/metrics_windows.py`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", required=True, help="a training run's --workdir")
    parser.add_argument("--minutes", type=float, default=6.0, help="window length")
    args = parser.parse_args(argv)
    path = RunDir(args.workdir).metrics
    if not path.is_file():
        print(f"error: {path} does not exist", file=sys.stderr)
        return 2
    if args.minutes <= 0:
        parser.error(f"--minutes must be positive, got {args.minutes}")
    rows = metrics.windows(metrics.read_records(path), args.minutes)
    if not rows:
        print(f"error: {path} holds no evaluations", file=sys.stderr)
        return 2
    names = list(rows[0][1])
    print("| minutes | " + " | ".join(f"vs {n}" for n in names) + " | evaluations |")
    print("|---" * (len(names) + 2) + "|")
    for start, means, count in rows:
        scores = " | ".join(f"{100 * means.get(n, float('nan')):.1f}%" for n in names)
        print(f"| {start:g}-{start + args.minutes:g} | {scores} | {count} |")
    return 0
