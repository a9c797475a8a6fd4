"""experiments/selfplay_openings.py runs end to end on the shipped hex7 and refuses other games."""

import importlib.util
import pathlib

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "experiments" / "selfplay_openings.py"


def _script():
    spec = importlib.util.spec_from_file_location("selfplay_openings", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_prints_the_shares_and_the_first_moves_against_the_solved_value(capsys):
    assert _script().main(["--model", "hex7", "--games", "2", "--simulations", "2"]) == 0
    out = capsys.readouterr().out
    heading = "2 self-play games from each first move, gumbel search, 2 simulations, 8 considered"
    assert heading in out
    counted = next(line for line in out.splitlines() if line.startswith("first moves whose"))
    count = int(counted.split(": ")[1].split()[0])
    board = out.split("(! against the solved value)\n")[1].splitlines()
    assert len(board) == 8 and sum(row.count("!") for row in board[1:]) == count


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--model", "gomoku9"],
            "model gomoku9 plays gomoku 9x9 freestyle: the solved table is 7x7 Hex's",
        ),
        (["--model", "hex7", "--step", "3"], "--step picks a checkpoint of --checkpoint's run"),
        (["--model", "hex7", "--games", "0"], "--games, --simulations and --considered-actions"),
        (["--model", "hex7", "--gumbel-scale", "-1"], "--gumbel-scale must not be negative"),
    ],
)
def test_bad_input_is_named(argv, message, capsys):
    with pytest.raises(SystemExit):
        _script().main(argv)
    assert message in capsys.readouterr().err
