"""experiments/renju_reading.py on a few boards: the table of tiers and timings."""

from support.scripts import load_experiment


def test_each_board_is_settled_by_one_reading_and_timed(capsys):
    script = load_experiment("renju_reading")
    assert script.main(["--boards", "3", "--repeats", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = [dict(zip(header, (c.strip() for c in line.strip("|").split("|")), strict=True))
            for line in lines[2:]]  # fmt: skip
    assert [row["boards"] for row in rows] == ["stress_boards", "random games"]
    for row in rows:
        settled = int(row["settled by the bounded reading"])
        assert settled + int(row["left to the unbounded reading"]) == int(row["count"]) > 0
        assert float(row["mask ms/board"]) > 0
        # A bounded reading is wrong only where it overflowed, never where it settled a board.
        assert int(row["bounded answer wrong"]) <= int(row["left to the unbounded reading"])
