"""PNG plots of a run's metrics.jsonl: losses and evaluation scores against time."""

from __future__ import annotations

import json
import pathlib


def _records(path: pathlib.Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _finish(plt, figure, axis, ylabel: str, path: pathlib.Path) -> pathlib.Path:
    """Label against minutes, save as PNG, close."""
    axis.set_xlabel("minutes")
    axis.set_ylabel(ylabel)
    axis.legend()
    axis.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def training_curves(metrics_path, out_dir) -> list[pathlib.Path]:
    """Write loss.png and evaluation.png into `out_dir`; returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = _records(pathlib.Path(metrics_path))
    if not records:
        return []
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    minutes = [r["elapsed_seconds"] / 60 for r in records]
    written = []

    figure, axis = plt.subplots(figsize=(7, 4))
    for name in ("policy_loss", "value_loss"):
        axis.plot(minutes, [r[name] for r in records], label=name.replace("_", " "))
    written.append(_finish(plt, figure, axis, "loss", out_dir / "loss.png"))

    evaluated = [r for r in records if any(k.startswith("vs_") for k in r)]
    if evaluated:
        figure, axis = plt.subplots(figsize=(7, 4))
        names = sorted({k[3:] for r in evaluated for k in r if k.startswith("vs_")} - {""})
        names = [n for n in names if not n.endswith(("_low", "_high"))]
        for name in names:
            rows = [r for r in evaluated if f"vs_{name}" in r]
            x = [r["elapsed_seconds"] / 60 for r in rows]
            axis.plot(x, [100 * r[f"vs_{name}"] for r in rows], marker="o", label=f"vs {name}")
            axis.fill_between(
                x,
                [100 * r[f"vs_{name}_low"] for r in rows],
                [100 * r[f"vs_{name}_high"] for r in rows],
                alpha=0.2,
            )
        axis.set_ylim(0, 100)
        written.append(_finish(plt, figure, axis, "score %", out_dir / "evaluation.png"))
    return written


def score_curve(evaluations: list[dict], path) -> pathlib.Path:
    """Score against training minutes, one line per opponent with its 95% band.
    evaluations: [{"minutes": float, "results": {opponent: summary}}] (evaluate.py's)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure, axis = plt.subplots(figsize=(7, 4))
    names = sorted({name for e in evaluations for name in e["results"]})
    for name in names:
        rows = [(e["minutes"], e["results"][name]) for e in evaluations if name in e["results"]]
        x = [minutes for minutes, _ in rows]
        axis.plot(x, [100 * r["score"] for _, r in rows], marker="o", label=f"vs {name}")
        axis.fill_between(
            x, [100 * r["low"] for _, r in rows], [100 * r["high"] for _, r in rows], alpha=0.2
        )
    axis.set_ylim(0, 100)
    return _finish(plt, figure, axis, "score %", path)
