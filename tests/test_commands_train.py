"""experiments/train.py: flags from the typed config, clear errors for bad input."""

import argparse
import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from hexjax.alphazero.config import TrainConfig
from hexjax.alphazero.network import NetworkConfig
from hexjax.commands import train as train_command
from hexjax.training import algorithms, config_io, restore
from hexjax.training.run_dir import RunDir

SCRIPT = pathlib.Path(__file__).parents[1] / "experiments" / "train.py"


def load_cli():
    return train_command


def test_flags_reach_the_config():
    config, workdir, options = load_cli().parse(
        ["--game", "gomoku", "--rule", "renju", "--board", "11", "--simulations", "8",
         "--search.policy", "puct", "--optimizer.learning_rate", "3e-4", "--selfplay_games",
         "64", "--network.compute_dtype", "bfloat16", "--iterations", "3"]
    )  # fmt: skip
    assert (config.game.name, config.game.size, config.game.rule) == ("gomoku", 11, "renju")
    assert config.search.num_simulations == 8 and config.search.policy == "puct"
    assert config.optimizer.learning_rate == 3e-4 and config.selfplay_games == 64
    assert config.network.compute_dtype == "bfloat16"
    assert workdir == "runs/gomoku11" and options.iterations == 3 and options.minutes is None


def test_an_iteration_budget_sizes_the_learning_rate_schedule(tmp_path):
    cli = load_cli()
    counted, _, _ = cli.parse(["--game", "gomoku", "--board", "9", "--iterations", "1158"])
    assert counted.optimizer.decay_steps == 9264  # 1158 iterations of 8 optimizer steps
    tiny, _, _ = cli.parse(["--preset", "tiny", "--iterations", "10"])
    assert tiny.optimizer.decay_steps == 20  # the tiny preset takes 2 steps an iteration
    told, _, _ = cli.parse(["--iterations", "1158", "--optimizer.decay_steps", "12000"])
    assert told.optimizer.decay_steps == 12000  # the flag wins
    for argv in (["--minutes", "20"], [], ["--minutes", "20", "--iterations", "1158"]):
        timed, _, _ = cli.parse(argv)  # a clock budget (or either budget) cannot be sized
        assert timed.optimizer.decay_steps == 12000
    ppo, _, _ = cli.parse(["--iterations", "50"], trainer=algorithms.PPO)
    assert ppo.optimizer.decay_steps == 12000  # PPO counts epochs, not steps per iteration
    # A resumed run keeps its own schedule ("this many more" is not the run's budget), and the
    # sizing is no flag that a resumed run would refuse as a change to its config.
    (tmp_path / "config.json").write_text(json.dumps(config_io.to_dict(counted)))
    cli.parse(["--game", "gomoku", "--workdir", str(tmp_path), "--resume", "--iterations", "5"])


def test_othello_on_a_cpu_gets_the_network_and_openings_measured_for_it(tmp_path):
    cli = load_cli()
    othello, _, _ = cli.parse(["--game", "othello"])
    assert othello.network.shape == (64, 2) and othello.opening_plies == 8
    told, _, _ = cli.parse(
        ["--game", "othello", "--network.channels", "32", "--opening_plies", "2"]
    )
    assert told.network.shape == (32, 2) and told.opening_plies == 2  # flags win
    hex7, _, _ = cli.parse([])
    assert hex7.network.shape == (32, 2) and hex7.opening_plies == 2
    tiny, _, _ = cli.parse(["--game", "othello", "--preset", "tiny"])
    assert tiny.network.shape == (8, 1) and tiny.opening_plies == 2
    # A run started before (32 channels) resumes with --game othello: the defaults are not flags.
    (tmp_path / "config.json").write_text(json.dumps(config_io.to_dict(told)))
    cli.parse(["--game", "othello", "--workdir", str(tmp_path), "--resume"])


def test_a_resumed_run_keeps_its_cadence_unless_given_again(tmp_path):
    cli = load_cli()
    _, _, fresh = cli.parse(["--workdir", str(tmp_path)])
    assert (fresh.checkpoint_every, fresh.eval_every) == (50, 25)  # the defaults
    stored = {
        "eval_every": 0,
        "eval_games": 8,
        "checkpoint_every": 100000,
        "checkpoint_minutes": 12,
        "keep_checkpoints": 20,
    }
    RunDir(tmp_path).cadence.write_text(json.dumps(stored))
    _, _, resumed = cli.parse(["--workdir", str(tmp_path), "--resume"])
    assert {k: getattr(resumed, k) for k in stored} == stored
    _, _, changed = cli.parse(["--workdir", str(tmp_path), "--resume", "--checkpoint-every", "9"])
    assert changed.checkpoint_every == 9 and changed.checkpoint_minutes == 12
    _, _, new_run = cli.parse(["--workdir", str(tmp_path)])  # not resuming: the defaults
    assert new_run.checkpoint_every == 50


def test_defaults_are_hex_seven_for_five_minutes():
    config, workdir, options = load_cli().parse([])
    assert (config.game.name, config.game.size) == ("hex", 7)
    assert options.budgeted(None, 0, 0.0).minutes == 5.0 and workdir == "runs/hex7"
    assert config.opening_plies == 2  # self-play from random openings (docs/training.md)


def test_a_config_stored_before_openings_existed_reads_as_without_them():
    """Runs and models stored before `opening_plies` existed played every game from the empty
    board: reading their config must not switch openings on (a resume would change course)."""
    from hexjax.alphazero.config import TrainConfig

    stored = config_io.to_dict(TrainConfig(opening_plies=3))
    assert config_io.from_dict(TrainConfig, stored).opening_plies == 3
    del stored["opening_plies"]
    assert config_io.from_dict(TrainConfig, stored).opening_plies == 0
    assert TrainConfig().opening_plies == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--board", "1"], "hex size must be"),
        (["--game", "gomoku", "--board", "30"], "gomoku size must be"),
        (["--search.num_simulations", "0"], "num_simulations must be at least 1"),
        (["--minutes", "-1"], "--minutes must be positive"),
        (["--keep-checkpoints", "0"], "--keep-checkpoints must be at least 1"),
        (["--network.preset", "huge"], "network preset must be one of"),
        (["--cpu-devices", "0"], "--cpu-devices must be at least 1"),
        (["--search.draw_value", "-1"], "draw_value must be in (-1, 1), got -1"),
    ],
)
def test_bad_values_get_a_message_and_exit_code_2(argv, message, capsys, tmp_path):
    code = load_cli().main([*argv, "--workdir", str(tmp_path)])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "checkpoints").exists() or not any((tmp_path / "checkpoints").iterdir())


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--search.simulations", "3"], "unrecognized arguments"),
        (["--optimizer.name", "rmsprop"], "invalid choice: 'rmsprop'"),
        (["--game.swap", "maybe"], "expected true or false"),
        # The config field has one flag, the command's own spelling.
        (["--init_from", "runs/hex5"], "unrecognized arguments: --init_from"),
    ],
)
def test_flags_argparse_rejects(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        load_cli().parse(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rule", "renju"], "--rule applies to gomoku only (the game is hex)"),
        (["--game", "gomoku", "--swap"], "--swap applies to hex only (the game is gomoku)"),
        (["--game.name", "othello", "--game.rule", "standard"], "--game.rule applies to gomoku"),
        (["--game", "othello", "--game.swap", "false"], "--game.swap applies to hex only"),
    ],
)
def test_a_flag_the_game_does_not_take_is_refused(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        load_cli().parse(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_the_issues_othello_run_with_a_renju_rule_does_not_start(tmp_path):
    argv = [sys.executable, str(SCRIPT), "--game", "othello", "--board", "6", "--rule", "renju",
            "--preset", "tiny", "--iterations", "1", "--eval-every", "0", "--quiet",
            "--workdir", str(tmp_path)]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert done.returncode == 2, done.stderr
    assert "--rule applies to gomoku only (the game is othello)" in done.stderr
    assert not (tmp_path / "checkpoints").exists()


def test_a_resumed_run_is_checked_against_its_own_game(tmp_path):
    gomoku, _, _ = load_cli().parse(["--game", "gomoku", "--workdir", str(tmp_path)])
    (tmp_path / "config.json").write_text(json.dumps(config_io.to_dict(gomoku)))
    resumed, _, _ = load_cli().parse(
        ["--workdir", str(tmp_path), "--resume", "--rule", "freestyle"]
    )
    assert resumed.game.rule == "freestyle"  # the run's own rule, given again: fine
    with pytest.raises(SystemExit):
        load_cli().parse(["--workdir", str(tmp_path), "--resume", "--swap"])


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--rule", "renju"],
            "--game.rule renju: this run was started with game.rule = 'freestyle'",
        ),
        (["--board", "11"], "--game.size 11: this run was started with game.size = 9"),
        (["--optimizer.learning_rate", "0.5"], "--optimizer.learning_rate 0.5: this run was"),
        (["--preset", "cpu"], "--preset cpu: a resumed run keeps its config"),
    ],
)
def test_a_resumed_run_refuses_flags_that_would_change_its_config(tmp_path, capsys, flags, message):
    """A resumed run keeps its stored config: a flag asking for another value would be ignored,
    so it is refused (exit 2), naming the flag and the run's value."""
    gomoku, _, _ = load_cli().parse(["--game", "gomoku", "--workdir", str(tmp_path)])
    (tmp_path / "config.json").write_text(json.dumps(config_io.to_dict(gomoku)))
    with pytest.raises(SystemExit) as stopped:
        load_cli().parse(["--workdir", str(tmp_path), "--resume", *flags])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "a resumed run keeps its config" in err
    same = ["--board", "9", "--game", "gomoku", "--optimizer.learning_rate",
            str(gomoku.optimizer.learning_rate)]  # fmt: skip
    load_cli().parse(["--workdir", str(tmp_path), "--resume", *same])  # its own values: fine


def test_a_tiny_run_writes_its_outputs(tmp_path, capsys):
    argv = ["--preset", "tiny", "--board", "4", "--iterations", "4", "--eval-every", "2",
            "--eval-games", "8", "--workdir", str(tmp_path)]  # fmt: skip
    assert load_cli().main(argv) == 0
    assert "done: iteration 4" in capsys.readouterr().out
    records = [json.loads(x) for x in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in records] == [1, 2, 3, 4]
    assert 0 <= records[-1]["vs_random"] <= 1 and "vs_greedy_low" in records[-1]
    assert list((tmp_path / "tensorboard").iterdir())
    assert (tmp_path / "plots" / "evaluation.png").exists()
    assert json.loads((tmp_path / "config.json").read_text())["game"]["size"] == 4
    assert json.loads(RunDir(tmp_path).cadence.read_text())["eval_every"] == 2
    devices = {"platform": "cpu", "count": 1, "processes": 1}  # the tests' one CPU device
    assert json.loads(RunDir(tmp_path).devices.read_text()) == devices


def _start_run(workdir, logs, ignore_sigint: bool) -> subprocess.Popen:
    argv = [sys.executable, str(SCRIPT), "--preset", "tiny", "--board", "4",
            "--iterations", "100000", "--eval-every", "0", "--checkpoint-every", "1000",
            "--workdir", str(workdir)]  # fmt: skip
    if ignore_sigint:  # as a shell starts `cmd &`: the run must still save when asked to stop
        argv = ["sh", "-c", 'trap "" INT; exec "$@"', "sh", *argv]
    # Output to files, not pipes nobody reads while the test waits (a full pipe would stall
    # the run); faulthandler so that a run that hangs can be made to show where (SIGABRT).
    env = {**os.environ, "PYTHONFAULTHANDLER": "1"}
    with open(logs / "run.out", "w") as out, open(logs / "run.err", "w") as err:
        return subprocess.Popen(argv, stdout=out, stderr=err, text=True, env=env)


def _stack_of_a_stuck_run(process: subprocess.Popen, logs) -> str:
    process.send_signal(signal.SIGABRT)
    process.wait(timeout=60)
    return (logs / "run.err").read_text()[-6000:]


@pytest.mark.parametrize(
    "signum, ignore_sigint", [(signal.SIGTERM, False), (signal.SIGINT, True)], ids=["term", "int"]
)
def test_a_signal_stops_the_run_with_its_checkpoint(signum, ignore_sigint, tmp_path):
    workdir = tmp_path / "run"
    process = _start_run(workdir, tmp_path, ignore_sigint)
    metrics = workdir / "metrics.jsonl"
    deadline = time.monotonic() + 300
    while not (metrics.exists() and len(metrics.read_text().splitlines()) >= 3):
        assert process.poll() is None, (tmp_path / "run.err").read_text()
        if time.monotonic() > deadline:
            pytest.fail(
                "the run wrote no metrics in 5 minutes:\n"
                + _stack_of_a_stuck_run(process, tmp_path)
            )
        time.sleep(0.2)
    process.send_signal(signum)
    try:
        process.wait(timeout=300)
    except subprocess.TimeoutExpired:
        pytest.fail(
            "the run did not stop in 5 minutes:\n" + _stack_of_a_stuck_run(process, tmp_path)
        )
    err = (tmp_path / "run.err").read_text()
    assert process.returncode == 128 + signum, err
    name = signal.Signals(signum).name
    assert f"stopped by {name}" in err and "--resume" in err
    last = json.loads(metrics.read_text().splitlines()[-1])["iteration"]
    # The checkpoint holds the last iteration logged, far before the 1000-iteration period.
    assert last >= 3
    assert restore.checkpoint_steps(workdir) == [last]


def test_a_resumed_cpu_run_keeps_its_device_split_unless_given_again(tmp_path, monkeypatch):
    requested = []
    monkeypatch.setattr(train_command.sharding, "use_cpu_cores", lambda _, n: requested.append(n))
    devices = {"platform": "cpu", "count": 2, "processes": 1}
    RunDir(tmp_path).devices.write_text(json.dumps(devices))
    cli = load_cli()
    cli.parse(["--workdir", str(tmp_path), "--resume"])
    cli.parse(["--workdir", str(tmp_path), "--resume", "--cpu-devices", "1"])
    cli.parse(["--workdir", str(tmp_path)])  # a new run: one device per core, as always
    RunDir(tmp_path).devices.write_text(json.dumps({**devices, "platform": "gpu"}))
    cli.parse(["--workdir", str(tmp_path), "--resume"])  # a GPU run's count says nothing here
    assert requested == [2, 1, None, None]
    RunDir(tmp_path).devices.write_text("{")
    with pytest.raises(ValueError, match="devices.json cannot be read"):
        cli.parse(["--workdir", str(tmp_path), "--resume"])


def test_a_damaged_config_json_is_named_not_taken_for_another_trainers_run(tmp_path):
    (tmp_path / "config.json").write_text('{"game": {"name": "hex", ')  # cut off mid-write
    with pytest.raises(ValueError, match="config.json cannot be read") as caught:
        load_cli().parse(["--workdir", str(tmp_path), "--resume"])
    assert "not alphazero's" not in str(caught.value)
    assert (tmp_path / "config.json").read_text() == '{"game": {"name": "hex", '  # kept as it was


def test_configs_stored_by_older_versions_read_in_today_s_words():
    """Before `channels` and `blocks` could be None, configs said 0 and -1 for "the preset's",
    and the accelerator's network preset was "large": such a config reads back as the same
    network, and is written back in the new words."""
    stored = config_io.to_dict(TrainConfig())
    stored["network"].update(preset="large", channels=0, blocks=-1)
    config = config_io.from_dict(TrainConfig, stored)
    assert config.network == NetworkConfig(preset="accelerator")
    assert config.network.shape == (128, 10)
    assert config_io.to_dict(config)["network"]["channels"] is None
    stored["network"].update(preset="cpu", channels=64, blocks=3)
    assert config_io.from_dict(TrainConfig, stored).network.shape == (64, 3)
    parser = argparse.ArgumentParser()
    config_io.add_flags(parser, TrainConfig)
    args = parser.parse_args(["--network.channels", "48"])
    assert config_io.overrides_from_args(args, TrainConfig) == {"network.channels": 48}
    with pytest.raises(ValueError, match="channels must be at least 1"):
        NetworkConfig(channels=0)
