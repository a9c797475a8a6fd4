"""Several runs' score curves on one plot, e.g. a run from scratch against one warm-started
from a smaller board: `python experiments/curves.py --run scratch=runs/g15 --run warm=runs/g15w
--out docs/figures/transfer-gomoku15.png`.

Each PATH is either a training run's workdir, whose periodic evaluations (`--eval-every`:
`--eval-games` games against random and greedy, the agent searching as in self-play) make the
curve, or the JSON that `evaluate.py --checkpoint RUN --all-steps --out FILE` wrote (every kept
checkpoint in full arena matches). Prints one markdown table a run (minutes, step, the score
with its 95% interval per opponent, and each colour's where known) and draws every curve on one
plot against training minutes.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

from hexjax.evaluation import plots
from hexjax.training import metrics
from hexjax.training.run_dir import RunDir


class CurveError(ValueError):
    """A --run that is malformed, missing or not an `evaluate.py --all-steps` record."""


def read_curve(spec: str) -> tuple[str, list[dict]]:
    """(label, evaluations) of a `LABEL=PATH` spec."""
    label, sep, where = spec.partition("=")
    if not sep or not label or not where:
        raise CurveError(f"--run must be LABEL=PATH, got {spec!r}")
    path = pathlib.Path(where)
    if path.is_dir():
        log = RunDir(path).metrics
        evaluations = metrics.evaluations(metrics.read_records(log))
        if not evaluations:
            raise CurveError(f"--run {label}: {log} holds no evaluations")
        return label, evaluations
    try:
        record = json.loads(path.read_text())
    except OSError as error:
        raise CurveError(f"--run {label}: cannot read {path}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise CurveError(f"--run {label}: {path} is not JSON ({error.msg})") from None
    evaluations = record.get("evaluations") if isinstance(record, dict) else None
    if not evaluations:
        raise CurveError(
            f"--run {label}: {path} holds no curve; write one with "
            f"`evaluate.py --checkpoint RUN --all-steps --out {path}`"
        )
    return label, sorted(evaluations, key=lambda e: e["minutes"])


def table(label: str, evaluations: list[dict]) -> str:
    """A markdown table of one run's curve."""
    names = sorted({name for e in evaluations for name in e["results"]})
    lines = [
        f"{label}:",
        "",
        "| minutes | step | " + " | ".join(f"vs {n}" for n in names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for e in evaluations:
        cells = []
        for name in names:
            r = e["results"].get(name)
            cells.append("" if r is None else _score(r))
        lines.append(f"| {e['minutes']:.1f} | {e['step']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _only(evaluations: list[dict], opponents: list[str]) -> list[dict]:
    """The evaluations restricted to `opponents` (those with none of them dropped)."""
    kept = [
        {**e, "results": {n: r for n, r in e["results"].items() if n in opponents}}
        for e in evaluations
    ]
    return [e for e in kept if e["results"]]


def _score(r: dict) -> str:
    """ "62.5% [50.2, 73.3]", then " (Black / White)" where the colours are known."""
    text = f"{100 * r['score']:.1f}% [{100 * r['low']:.1f}, {100 * r['high']:.1f}]"
    if "as_black" in r:
        text += f" ({100 * r['as_black']:.1f} / {100 * r['as_white']:.1f})"
    return text


def main(argv=None) -> int:
    """`python experiments/curves.py`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", action="append", required=True, help="LABEL=PATH, repeatable")
    parser.add_argument("--out", required=True, help="the PNG to write")
    parser.add_argument("--opponent", action="append", help="only these opponents, repeatable")
    args = parser.parse_args(argv)
    try:
        curves = dict(read_curve(spec) for spec in args.run)
    except CurveError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if len(curves) != len(args.run):
        print("error: two --run share a label", file=sys.stderr)
        return 2
    if args.opponent:
        curves = {label: _only(evaluations, args.opponent) for label, evaluations in curves.items()}
        if not any(curves.values()):
            wanted = ", ".join(args.opponent)
            print(f"error: no run was evaluated against {wanted}", file=sys.stderr)
            return 2
    for label, evaluations in curves.items():
        print(table(label, evaluations) + "\n")
    print(f"wrote {plots.score_curves(curves, args.out)}")
    return 0
