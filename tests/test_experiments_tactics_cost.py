"""experiments/tactics_cost.py runs end to end on a shipped model and prints its row."""

import importlib.util
import pathlib

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "experiments" / "tactics_cost.py"


def test_prints_both_rates_and_their_ratio(capsys):
    spec = importlib.util.spec_from_file_location("tactics_cost", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    argv = ["--models", "gomoku9", "--rounds", "1", "--positions", "2", "--simulations", "8"]
    assert module.main(argv) == 0
    row = capsys.readouterr().out.splitlines()[-1].split()
    assert row[0] == "gomoku9" and min(map(float, row[1:4])) > 0
