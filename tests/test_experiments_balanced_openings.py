"""experiments/balanced_openings.py with a small Gomocup engine that reports a fixed
evaluation: openings are kept by the win rate it implies, once per symmetry class, in a file
the arena loads."""

import pathlib
import sys

from support.scripts import load_experiment

import hexjax
from hexjax.evaluation import arena

ROOT = pathlib.Path(__file__).resolve().parents[1]
FAKE = f"gomocup:{sys.executable} {ROOT / 'tests' / 'support' / 'fake_gomocup_engine.py'}"


def _script():
    return load_experiment("balanced_openings")


def test_even_openings_are_kept_in_a_file_the_arena_loads(tmp_path, capsys):
    script, out = _script(), tmp_path / "renju.txt"
    argv = ["--engine", f"{FAKE} --eval 30", "--rule", "renju", "--count", "6", "--area", "3",
            "--out", str(out)]  # fmt: skip
    assert script.main(argv) == 0
    game = hexjax.make("gomoku", size=15, rule="renju")
    openings = arena.load_openings(game, out)
    assert openings.shape == (6, 3)
    # Eval 30 for White (to move after three stones): Black's win rate sigmoid(-30 / 250).
    assert out.read_text().count("# Black 0.470") == 6
    assert "python experiments/balanced_openings.py --engine" in out.read_text()
    keys = {script.canonical(game, row) for row in openings.tolist()}
    assert len(keys) == 6  # no opening is another's mirror image
    assert all(6 <= a // 15 <= 8 and 6 <= a % 15 <= 8 for a in openings.reshape(-1))


def test_one_sided_openings_are_not_kept(tmp_path, capsys):
    script, out = _script(), tmp_path / "freestyle.txt"
    argv = ["--engine", f"{FAKE} --eval -400", "--count", "2", "--tries", "5", "--out", str(out)]
    assert script.main(argv) == 1  # fewer than asked
    assert "0 of 5 kept" in capsys.readouterr().out
    assert "0 balanced freestyle" in out.read_text()


def test_the_win_rate_is_blacks_whoever_is_to_move():
    script = _script()
    assert script.black_win_rate(["Speed 1K | Eval 200 | Node 9"], True, 200) > 0.73
    assert script.black_win_rate(["Eval 200"], False, 200) < 0.27
    assert script.black_win_rate(["thinking"], True, 200) is None


def test_the_shipped_openings_load_and_are_even_by_their_record():
    shipped = sorted((ROOT / "hexjax" / "data" / "openings").glob("*.txt"))
    assert {p.name for p in shipped} >= {"freestyle15.txt"}
    script = _script()
    for path in shipped:
        rule = path.stem.removesuffix("15")
        game = hexjax.make("gomoku", size=15, rule=rule)
        openings = arena.load_openings(game, path)
        assert openings.shape == (20, 3), path.name
        assert len({script.canonical(game, row) for row in openings.tolist()}) == 20
        rates = [float(line.split("# Black ")[1]) for line in path.read_text().splitlines()
                 if "# Black " in line]  # fmt: skip
        assert len(rates) == 20 and all(0.43 <= rate <= 0.57 for rate in rates), path.name
        assert "python experiments/balanced_openings.py" in path.read_text()  # how it was made
