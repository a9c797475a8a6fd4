"""hexjax.training.metrics and its command (experiments/metrics_windows.py): periodic
evaluations averaged by training minutes."""

import json

from hexjax.commands import curves, metrics_windows
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


def _write_run(directory, records):
    directory.mkdir()
    (directory / "metrics.jsonl").write_text("\n".join(json.dumps(r) for r in records))
    return directory


def test_periodic_evaluations_read_in_evaluate_shape_with_a_replayed_iterations_later_record():
    records = [
        {"iteration": 1, "elapsed_seconds": 10},
        {"iteration": 2, "elapsed_seconds": 30, "vs_greedy": 0.5, "vs_greedy_low": 0.25,
         "vs_greedy_high": 0.75},
        {"iteration": 2, "elapsed_seconds": 33, "vs_greedy": 0.25, "vs_greedy_low": 0.1,
         "vs_greedy_high": 0.5},
    ]  # fmt: skip
    assert metrics.evaluations(records) == [
        {
            "step": 2,
            "minutes": 0.55,
            "results": {"greedy": {"score": 0.25, "low": 0.1, "high": 0.5}},
        }
    ]


def test_curves_tabulate_and_plot_two_runs_and_refuse_bad_runs(tmp_path, capsys):
    run = _write_run(tmp_path / "scratch", [
        {"iteration": 5, "elapsed_seconds": 120, "vs_greedy": 0.5, "vs_greedy_low": 0.375,
         "vs_greedy_high": 0.625},
    ])  # fmt: skip
    arena = {"score": 0.75, "low": 0.7, "high": 0.8, "as_black": 0.875, "as_white": 0.625}
    full = tmp_path / "warm.json"
    full.write_text(json.dumps({"evaluations": [
        {"step": 9, "minutes": 3.0, "results": {"greedy": arena}},
        {"step": 4, "minutes": 1.0, "results": {"greedy": {**arena, "score": 0.5}}},
    ]}))  # fmt: skip
    out = tmp_path / "curves.png"
    assert curves.main(["--run", f"scratch={run}", "--run", f"warm={full}", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| 2.0 | 5 | 50.0% [37.5, 62.5] |" in printed
    # sorted by minutes; the colours where the arena knows them
    assert printed.index("| 1.0 | 4 | 50.0%") < printed.index(
        "| 3.0 | 9 | 75.0% [70.0, 80.0] (87.5 / 62.5) |"
    )
    assert out.read_bytes().startswith(b"\x89PNG")

    not_a_curve = tmp_path / "single.json"
    not_a_curve.write_text(json.dumps({"results": {"greedy": arena}}))
    empty = _write_run(tmp_path / "empty", [{"iteration": 1, "elapsed_seconds": 1}])
    for spec, message in [
        ("scratch", "LABEL=PATH"),
        (f"x={tmp_path / 'missing.json'}", "cannot read"),
        (f"x={not_a_curve}", "--all-steps"),
        (f"x={empty}", "holds no evaluations"),
    ]:
        assert curves.main(["--run", spec, "--out", str(out)]) == 2
        assert message in capsys.readouterr().err
    only = ["--run", f"a={run}", "--opponent", "greedy", "--out", str(out)]
    assert curves.main(only) == 0 and "vs greedy" in capsys.readouterr().out
    assert curves.main([*only[:2], "--opponent", "mcts:1000", "--out", str(out)]) == 2
    assert "no run was evaluated against mcts:1000" in capsys.readouterr().err
    twice = ["--run", f"a={run}", "--run", f"a={full}", "--out", str(out)]
    assert curves.main(twice) == 2 and "share a label" in capsys.readouterr().err
