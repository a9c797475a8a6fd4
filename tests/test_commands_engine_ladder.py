"""experiments/engine_ladder.py: one evaluate run with the engine at every level, the table,
and the budget where the agent scores 50%."""

import json
import math
import pathlib
import sys

import pytest

from hexjax.commands import engine_ladder

FAKE_GTP = f"{sys.executable} {pathlib.Path(__file__).parent / 'support' / 'fake_gtp_engine.py'}"


def test_the_even_budget_is_interpolated_in_the_logarithm_of_the_budget():
    # 75% at 100, 25% at 10,000: halfway in log between them is 1,000.
    assert math.isclose(engine_ladder.even_budget([(10_000, 0.25), (100, 0.75)]), 1000.0)
    # 60% at 10, 20% at 1,000: a quarter of the way, 10 ** 1.5.
    assert math.isclose(engine_ladder.even_budget([(10, 0.6), (1000, 0.2)]), 10**1.5)
    assert engine_ladder.even_budget([(10, 0.6), (100, 0.55)]) is None
    assert "at every level up to 100" in engine_ladder.even_budget_line([(10, 0.6), (100, 0.5)])
    assert "below 50% at every level from 10" in engine_ladder.even_budget_line([(10, 0.4)])


def test_a_ladder_against_a_gtp_engine_at_two_levels(tmp_path, capsys):
    out = tmp_path / "ladder.json"
    argv = ["--engine", f"gtp:{FAKE_GTP}", "--setup", "known_command {level}",
            "--levels", "1000", "10", "--out", str(out), "--",
            "--model", "hex7", "--simulations", "2", "--games", "2"]  # fmt: skip
    assert engine_ladder.main(argv) == 0
    printed = capsys.readouterr().out
    results = json.loads(out.read_text())["results"]
    assert list(results) == [f"gtp:{FAKE_GTP} [known_command 10]",
                             f"gtp:{FAKE_GTP} [known_command 1000]"]  # fmt: skip
    rows = [line for line in printed.splitlines() if line.startswith("| 10")]
    assert [row.split("|")[1].strip() for row in rows] == ["10", "1000"]
    assert "--opponent-setup 'known_command 1000'" in printed  # the command, to rerun it
    assert "at every level up to 1,000" in printed  # the fake engine loses every game


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--engine", "gtp:x", "--setup", "name", "--levels", "1"], "no --setup line has {level}"),
        (["--engine", "gtp:x", "--setup", "{level}", "--levels", "0"], "must be positive"),
        (
            ["--engine", "gtp:x", "--setup", "{level}", "--levels", "1", "--", "--out", "x"],
            "give --out before --",
        ),  # fmt: skip
    ],
)
def test_bad_ladders_are_refused(argv, message, capsys):
    with pytest.raises(SystemExit):
        engine_ladder.main(argv)
    assert message in capsys.readouterr().err
