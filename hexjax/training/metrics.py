"""Reading a run's metrics log (`metrics.jsonl`, one record per iteration, written by the host
loop) back: the records with a replayed iteration's later record kept, and periodic
evaluations averaged over windows of training minutes."""

from __future__ import annotations

import json
import pathlib


def read_records(path) -> list[dict]:
    """The records of a metrics.jsonl file, in the order written (none if it does not exist)."""
    path = pathlib.Path(path)
    if not path.exists():
        return []
    text = path.read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def windows(records: list[dict], minutes: float) -> list[tuple[float, dict[str, float], int]]:
    """(window start in minutes, {opponent: mean score}, evaluations) per non-empty window."""
    by_iteration = {r["iteration"]: r for r in records}  # the later record wins
    evaluations = [r for r in by_iteration.values() if "vs_random" in r]
    rows = []
    start = 0.0
    while evaluations and start * 60 <= max(r["elapsed_seconds"] for r in evaluations):
        inside = [
            r for r in evaluations if start * 60 <= r["elapsed_seconds"] < (start + minutes) * 60
        ]
        if inside:
            names = [
                k for k in inside[0] if k.startswith("vs_") and not k.endswith(("_low", "_high"))
            ]
            means = {k[3:]: sum(r[k] for r in inside) / len(inside) for k in names}
            rows.append((start, means, len(inside)))
        start += minutes
    return rows
