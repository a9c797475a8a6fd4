"""A run's metrics log (`metrics.jsonl`, one record per iteration, written by the host loop):
reading it back, keeping it consistent with the checkpoint a run resumes from, and periodic
evaluations averaged over windows of training minutes."""

from __future__ import annotations

import json
import os
import pathlib

from hexjax.training.run_dir import RunDir


def read_records(path) -> list[dict]:
    """The records of a metrics.jsonl file, in the order written (none if it does not exist)."""
    path = pathlib.Path(path)
    if not path.exists():
        return []
    text = path.read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def set_aside_after(path, iteration: int, aside) -> int:
    """Move the records of iterations after `iteration` from the log at `path` to the end of
    `aside` (a run resumed from that iteration's checkpoint plays them again); returns how many
    moved. The log is rewritten whole, then renamed over the old one."""
    records = read_records(path)
    kept = [r for r in records if r["iteration"] <= iteration]
    moved = [r for r in records if r["iteration"] > iteration]
    if not moved:
        return 0
    with pathlib.Path(aside).open("a") as out:
        out.writelines(json.dumps(r) + "\n" for r in moved)
    path = pathlib.Path(path)
    fresh = path.with_name(path.name + ".tmp")
    fresh.write_text("".join(json.dumps(r) + "\n" for r in kept))
    os.replace(fresh, path)
    return len(moved)


def evaluations(records: list[dict]) -> list[dict]:
    """The run's periodic evaluations in evaluate.py's shape, oldest first:
    [{"step", "minutes", "results": {opponent: {"score", "low", "high"}}}]."""
    by_iteration = {r["iteration"]: r for r in records}  # the later record wins
    rows = []
    for iteration in sorted(by_iteration):
        record = by_iteration[iteration]
        names = [k[3:] for k in record if k.startswith("vs_") and not k.endswith(("_low", "_high"))]
        if names:
            results = {
                name: {
                    "score": record[f"vs_{name}"],
                    "low": record[f"vs_{name}_low"],
                    "high": record[f"vs_{name}_high"],
                }
                for name in names
            }
            minutes = round(record["elapsed_seconds"] / 60, 2)
            rows.append({"step": iteration, "minutes": minutes, "results": results})
    return rows


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


class MetricsLog:
    """metrics.jsonl and TensorBoard. A run resumed at iteration k first moves the records of
    iterations after k (played after that checkpoint, then lost) to metrics.superseded.jsonl,
    and TensorBoard drops its events after k, so the record matches the checkpoint."""

    def __init__(self, run_dir: RunDir, resumed_at: int | None = None):
        from tensorboardX import SummaryWriter

        self.path = run_dir.metrics
        self.superseded = 0
        purge = None
        if resumed_at is not None:
            aside = run_dir.superseded_metrics
            self.superseded = set_aside_after(self.path, resumed_at, aside)
            purge = resumed_at + 1
        self._writer = SummaryWriter(str(run_dir.tensorboard), purge_step=purge)

    def write(self, record: dict) -> None:
        with self.path.open("a") as out:
            out.write(json.dumps(record) + "\n")
        step = record["iteration"]
        for name, value in record.items():
            if isinstance(value, int | float) and name != "iteration":
                self._writer.add_scalar(name, value, step)
        self._writer.flush()

    def close(self) -> None:
        self._writer.close()
