"""hexjax.training.metrics and its command (experiments/metrics_windows.py): periodic
evaluations averaged by training minutes."""

import json

from hexjax.commands import metrics_windows
from hexjax.evaluation import plots
from hexjax.training import metrics


def test_windows_average_the_evaluations_and_keep_a_replayed_iterations_later_record(
    tmp_path, capsys
):
    records = [
        {"iteration": 1, "elapsed_seconds": 10},  # no evaluation
        {"iteration": 2, "elapsed_seconds": 30, "vs_random": 0.5, "vs_random_low": 0.1},
        {"iteration": 4, "elapsed_seconds": 50, "vs_random": 1.0},  # lost: not checkpointed
        {"iteration": 4, "elapsed_seconds": 55, "vs_random": 0.0},  # played again on resume
        {"iteration": 6, "elapsed_seconds": 200, "vs_random": 0.75},
    ]
    (tmp_path / "metrics.jsonl").write_text("\n".join(json.dumps(r) for r in records))
    assert metrics.windows(records, minutes=1) == [
        (0.0, {"random": 0.25}, 2),
        (3.0, {"random": 0.75}, 1),
    ]
    assert metrics_windows.main(["--workdir", str(tmp_path), "--minutes", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "| minutes | vs random | evaluations |"
    assert out[2] == "| 0-1 | 25.0% | 2 |" and out[3] == "| 3-4 | 75.0% | 1 |"
    assert metrics_windows.main(["--workdir", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_records_after_a_checkpoint_are_set_aside(tmp_path):
    log, aside = tmp_path / "metrics.jsonl", tmp_path / "metrics.superseded.jsonl"
    log.write_text("".join(json.dumps({"iteration": i}) + "\n" for i in (1, 2, 3, 4, 3)))
    assert metrics.set_aside_after(log, 2, aside) == 3
    assert metrics.read_records(log) == [{"iteration": 1}, {"iteration": 2}]
    assert [r["iteration"] for r in metrics.read_records(aside)] == [3, 4, 3]
    assert metrics.set_aside_after(log, 2, aside) == 0  # nothing more to move
    assert metrics.read_records(tmp_path / "missing.jsonl") == []


def test_the_loss_curve_starts_at_the_first_optimizer_step():
    records = [
        {"iteration": 1, "updates": 0, "policy_loss": 0.0},
        {"iteration": 2, "updates": 8, "policy_loss": 2.1},
        {"iteration": 3, "td_loss": 0.4},  # a log without the counter keeps its records
    ]
    assert [r["iteration"] for r in plots.loss_records(records)] == [2, 3]
