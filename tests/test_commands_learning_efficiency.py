"""The learning-efficiency benchmark: every recipe trained once a seed and evaluated at each kept
checkpoint, the seeds' medians tabled and drawn; complete runs reused, stopped ones resumed."""

import json

import pytest

from hexjax.commands import learning_efficiency as efficiency
from hexjax.training import loop, restore

TINY = ["--preset", "tiny", "--board", "3", "--quiet"]


def test_two_seeds_trained_evaluated_tabled_then_reused(tmp_path, capsys, monkeypatch):
    argv = ["--recipe", "plain=", "--seeds", "0", "1", "--iterations", "2", "--points", "2",
            "--opponent", "random", "--games", "2", "--simulations", "2",
            "--out", str(tmp_path), "--", *TINY]  # fmt: skip
    assert efficiency.main(argv) == 0
    printed = capsys.readouterr().out
    for seed in (0, 1):
        record = json.loads((tmp_path / f"plain-s{seed}" / efficiency.RECORD).read_text())
        assert [e["step"] for e in record["evaluations"]] == [1, 2]
        config = json.loads((tmp_path / f"plain-s{seed}" / "config.json").read_text())
        assert config["seed"] == seed and config["network"]["preset"] == "tiny"
    rows = [line for line in printed.splitlines() if line.startswith("| 1 |") or
            line.startswith("| 2 |")]  # fmt: skip
    assert len(rows) == 2 and all(row.count("/") == 1 for row in rows)  # two seeds' scores
    assert (tmp_path / "efficiency.png").stat().st_size > 0

    def refuse(argv):
        raise AssertionError(f"ran again: {argv}")

    monkeypatch.setattr(efficiency.train, "main", refuse)
    monkeypatch.setattr(efficiency.evaluate, "main", refuse)
    assert efficiency.main(argv) == 0  # complete runs and their evaluations are kept
    assert [r for r in capsys.readouterr().out.splitlines() if r.startswith("| ")][1:] == rows
    evaluated = []
    monkeypatch.setattr(efficiency.evaluate, "main", lambda argv: evaluated.append(argv) or 3)
    dashes = argv.index("--")
    again = [*argv[:dashes], "--games", "4", *argv[dashes:]]  # another evaluation: played
    assert efficiency.main(again) == 3
    assert "--games" in evaluated[0] and evaluated[0][evaluated[0].index("--games") + 1] == "4"


def test_a_long_run_keeps_its_evenly_spaced_checkpoints(tmp_path, monkeypatch):
    """train.py also saves every few minutes; a benchmark run longer than that must still keep
    the steps it evaluates (here every iteration seems to take an hour)."""
    hours = iter(range(0, 10**6, 3600))

    class SlowClock:
        @staticmethod
        def monotonic():
            return next(hours)

    monkeypatch.setattr(loop, "time", SlowClock)
    monkeypatch.setattr(efficiency.evaluate, "main", lambda argv: 0)
    argv = ["--recipe", "plain=", "--seeds", "0", "--iterations", "4", "--points", "2",
            "--out", str(tmp_path), "--", *TINY]  # fmt: skip
    efficiency._train(efficiency.parse(argv)[0], TINY, 0, tmp_path / "plain-s0")
    assert restore.checkpoint_steps(tmp_path / "plain-s0") == [2, 4]


def test_a_run_stopped_part_way_is_resumed_for_the_rest(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(efficiency, "_last_step", lambda workdir: 3)
    monkeypatch.setattr(efficiency.train, "main", lambda argv: calls.append(argv) or 1)
    argv = ["--recipe", "a=--search.num_simulations 4", "--seeds", "5", "--iterations", "8",
            "--out", str(tmp_path)]  # fmt: skip
    assert efficiency.main(argv) == 1  # the training's failure is the benchmark's
    assert calls == [["--iterations", "5", "--workdir", str(tmp_path / "a-s5"), "--resume"]]


def test_the_seeds_median_and_band():
    def run(minutes, scores):
        return [{"step": s, "minutes": m, "results": {"greedy": {"score": x}}}
                for s, m, x in zip((10, 20), minutes, scores, strict=True)]  # fmt: skip

    runs = {0: run((1.0, 2.0), (0.5, 0.6)), 1: run((3.0, 4.0), (0.7, 0.9)),
            2: run((2.0, 9.0), (0.9, 0.8))}  # fmt: skip
    curve = efficiency.median_curve(runs)
    assert [c["minutes"] for c in curve] == [2.0, 4.0]
    assert curve[0]["results"]["greedy"] == {"score": 0.7, "low": 0.5, "high": 0.9}
    assert curve[1]["results"]["greedy"] == {"score": 0.8, "low": 0.6, "high": 0.9}
    table = efficiency.table("x", runs)
    assert "| 10 | 2.0 | 70.0% (50.0 / 70.0 / 90.0) |" in table
    assert "| 20 | 4.0 | 80.0% (60.0 / 90.0 / 80.0) |" in table


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--recipe", "plain"], "NAME=FLAGS"),
        (["--recipe", "a=", "--recipe", "a=--seed 1"], "given twice"),
        (["--recipe", "a=--seed 3"], "--seed: the benchmark sets"),
        (["--recipe", "a=", "--", "--workdir", "x"], "--workdir: the benchmark sets"),
        (["--recipe", "a=", "--points", "9"], "--points between 1 and --iterations"),
        (["--recipe", "a=", "--seeds", "1", "1"], "--seeds must differ"),
    ],
)
def test_bad_flags_are_refused_by_name(argv, message, capsys, tmp_path):
    base = ["--iterations", "4", "--out", str(tmp_path)]
    with pytest.raises(SystemExit):
        efficiency.main(base + argv if "--" not in argv else argv[:2] + base + argv[2:])
    assert message in capsys.readouterr().err
