"""experiments/accelerator_check.py, the prepared accelerator run: it refuses a CPU unless told,
and (slow tier) every part runs end to end at toy sizes."""

import json
import pathlib

import pytest
from support.scripts import load_experiment

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _script():
    return load_experiment("accelerator_check")


def test_a_cpu_is_refused_without_allow_cpu(tmp_path, capsys):
    assert _script().main(["--out", str(tmp_path)]) == 2
    assert "no GPU or TPU here" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing written


def test_evaluate_alone_needs_a_run(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        _script().parse(["--parts", "evaluate", "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    assert "needs a run" in capsys.readouterr().err


@pytest.mark.slow
def test_every_part_at_toy_sizes(tmp_path):
    flags = "--preset tiny --board 3 --iterations 2 --eval-every 0"
    argv = ["--out", str(tmp_path), "--allow-cpu", "--batches", "8", "--simulations", "2",
            "--plies", "2", "--repeats", "1", "--train-flags", flags, "--opponent", "mcts:8",
            "--games", "4"]  # fmt: skip
    assert _script().main(argv) == 0
    rows = json.loads((tmp_path / "selfplay-8.json").read_text())["rows"]
    assert {row["engine"] for row in rows} >= {"hexjax", "pgx+mctx"}
    assert json.loads((tmp_path / "device.json").read_text())["platform"] == "cpu"
    assert (tmp_path / "run" / "metrics.jsonl").exists()
    assert (tmp_path / "evaluation.json").exists()
