"""hexjax-plan: the iteration compiled ahead of time, its memory and work, on a tiny config."""

import subprocess
import sys

import pytest

from hexjax.alphazero.config import PRESETS
from hexjax.commands import plan as plan_command
from hexjax.games import GameConfig
from hexjax.training import plan as plan_lib

TINY = ["--preset", "tiny", "--board", "3"]


def test_the_plan_counts_the_work_of_an_iteration():
    import dataclasses

    config = dataclasses.replace(PRESETS["tiny"], game=GameConfig("hex", 3))
    plan = plan_lib.plan(config)
    # The tiny preset: 16 games x 4 plies; each position searched evaluates its root and one
    # leaf for each of 4 simulations; 2 optimizer steps of 32 samples, three forwards each.
    assert plan.positions_per_iteration == 64 and plan.evaluations_per_iteration == 320
    assert plan.flops_per_iteration == pytest.approx(plan.forward_flops * (320 + 3 * 32 * 2))
    assert plan.forward_flops > 0 and plan.temp_bytes >= 0
    # The state in holds at least the replay's boards (2,000 positions of 9 cells).
    assert plan.argument_bytes > config.replay_capacity * 9 and plan.output_bytes > 0
    assert plan.positions_per_second(100e12, 0.5) == pytest.approx(64 * 0.5 * 100e12 / (
        plan.flops_per_iteration))  # fmt: skip


def test_the_command_prints_memory_work_and_a_table(capsys):
    assert plan_command.main(TINY) == 0
    out = capsys.readouterr().out
    assert "Hex(size=3" in out and "preset tiny, 1 cpu device(s)" in out
    assert "fits a 16 GiB chip" in out and "an iteration: 64 positions, 320" in out
    assert all(f"| {chip} |" in out for chip in plan_lib.PEAK_FLOPS)


@pytest.mark.slow  # two processes compiling an iteration; sharding has its own tests
def test_two_devices_split_the_state():
    one = subprocess.run([sys.executable, "-m", "hexjax.commands.plan", *TINY],
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    two = subprocess.run([sys.executable, "-m", "hexjax.commands.plan", *TINY, "--devices", "2"],
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    assert "2 cpu device(s)" in two.stdout

    def state_bytes(out: str) -> float:
        number, unit = out.split("(state in ")[1].split(",")[0].split()
        return float(number) * {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}[unit]

    assert state_bytes(two.stdout) < state_bytes(one.stdout)  # the replay and games are split


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--rule", "renju"], "--rule applies to gomoku only (the game is hex)"),
        (["--devices", "3"], "--devices 3 must divide the games, replay and batch"),
        (["--fraction", "0"], "--fraction must be in (0, 1]"),
        (["--game", "othello", "--board", "5"], "even"),
    ],
)
def test_bad_flags_are_refused(capsys, flags, message):
    with pytest.raises(SystemExit) as stopped:
        plan_command.parse([*TINY, *flags])
    assert stopped.value.code == 2 and message in capsys.readouterr().err
