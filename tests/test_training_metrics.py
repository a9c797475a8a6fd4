"""hexjax.training.metrics and its command (experiments/metrics_windows.py): periodic
evaluations averaged by training minutes."""

import json

from hexjax.commands import metrics_windows
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
