"""train_dqn.py / train_ppo.py conventions, exact resume, evaluation of their checkpoints, and
experiments/compare.py end to end on a tiny board."""

import json
import pathlib
import subprocess
import sys

import jax
import numpy as np
import pytest

from hexjax.commands import compare as compare_command
from hexjax.commands import evaluate as evaluate_command
from hexjax.commands import train as train_command
from hexjax.play.agent import Agent
from hexjax.training import algorithms, config_io, loop, restore
from hexjax.training.checkpoint import Checkpointer, CheckpointError

EXPERIMENTS = pathlib.Path(__file__).parents[1] / "experiments"


def tiny_argv(workdir, *more):
    return ["--preset", "tiny", "--board", "3", "--eval-every", "0", "--quiet",
            "--workdir", str(workdir), *more]  # fmt: skip


def test_flags_reach_the_baseline_configs():
    config, workdir, _ = train_command.parse(
        ["--game", "othello", "--n_step", "3", "--double_dqn", "false", "--opponent", "pool",
         "--shaping", "0.01", "--iterations", "2"], algorithms.DQN,
    )  # fmt: skip
    assert (config.game.name, config.game.size, config.n_step) == ("othello", 8, 3)
    assert not config.double_dqn and config.opponent == "pool" and config.shaping == 0.01
    assert workdir == "runs/othello8-dqn"
    config, workdir, _ = train_command.parse(
        ["--epochs", "2", "--gae_lambda", "0.9"], algorithms.PPO
    )
    assert (config.epochs, config.gae_lambda, workdir) == (2, 0.9, "runs/hex7-ppo")


@pytest.mark.parametrize(
    ("trainer", "argv", "message"),
    [
        (algorithms.DQN, ["--replay_capacity", "1000"], "must be a multiple of selfplay_games"),
        (algorithms.DQN, ["--opponent", "league"], "invalid choice: 'league'"),
        (algorithms.DQN, ["--simulations", "8"], "unrecognized arguments: --simulations"),
        (algorithms.PPO, ["--steps_per_iteration", "3"], "unrecognized arguments: --steps_per"),
        (algorithms.PPO, ["--optimizer.batch_size", "500"], "must be a multiple of optimizer"),
    ],
)
def test_bad_flags_get_a_message_and_exit_code_2(trainer, argv, message, capsys, tmp_path):
    try:
        code = train_command.main([*argv, "--workdir", str(tmp_path)], trainer)
    except SystemExit as exit_info:  # argparse's own refusals
        code = exit_info.code
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "checkpoints").exists()


@pytest.mark.parametrize("trainer", [algorithms.DQN, algorithms.PPO], ids=["dqn", "ppo"])
def test_a_flag_the_game_does_not_take_is_refused(trainer, capsys, tmp_path):
    argv = ["--game", "othello", "--board", "6", "--rule", "renju", "--workdir", str(tmp_path)]
    with pytest.raises(SystemExit) as exit_info:
        train_command.parse(argv, trainer)
    assert exit_info.value.code == 2
    assert "--rule applies to gomoku only (the game is othello)" in capsys.readouterr().err


def final_state(trainer, workdir):
    _, config, state, meta = restore.restore_trained(workdir)
    key = Checkpointer(pathlib.Path(workdir) / "checkpoints").restore(state, jax.random.key(0)).key
    return state, key


@pytest.mark.parametrize("name", ["dqn", "ppo"])
def test_two_plus_resume_plus_two_equals_four(name, tmp_path):
    trainer = algorithms.get(name)
    config = config_io.replace(trainer.presets["tiny"], {"game.size": 3})
    options = lambda n, resume=False: loop.RunOptions(  # noqa: E731
        iterations=n, eval_every=0, resume=resume, quiet=True
    )
    loop.run(config, tmp_path / "split", options(2), trainer)
    loop.run(config, tmp_path / "split", options(2, resume=True), trainer)
    loop.run(config, tmp_path / "whole", options(4), trainer)
    (split, split_key), (whole, whole_key) = (
        final_state(trainer, tmp_path / "split"),
        final_state(trainer, tmp_path / "whole"),
    )
    assert int(split.iteration) == 4 and int(split.updates) > 0
    same = jax.tree.map(lambda a, b: np.array_equal(np.asarray(a), np.asarray(b)), split, whole)
    assert all(jax.tree.leaves(same))
    assert np.array_equal(jax.random.key_data(split_key), jax.random.key_data(whole_key))


@pytest.fixture(scope="module")
def dqn_run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("dqn")
    argv = tiny_argv(workdir, "--iterations", "3", "--eval-every", "3", "--eval-games", "4")
    assert train_command.main(argv, algorithms.DQN) == 0
    return workdir


def test_a_dqn_run_logs_and_evaluates_like_alphazero(dqn_run, capsys):
    records = [json.loads(x) for x in (dqn_run / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in records] == [1, 2, 3]
    assert {"td_loss", "q_mean", "epsilon", "vs_random", "vs_greedy"} <= set(records[-1])
    assert (dqn_run / "plots" / "loss.png").stat().st_size > 1000
    out = dqn_run / "evaluation.json"
    argv = ["--checkpoint", str(dqn_run), "--opponent", "random", "--opponent", "mcts:4",
            "--games", "4", "--out", str(out)]  # fmt: skip
    assert evaluate_command.main(argv) == 0
    assert "dqn, best legal action" in capsys.readouterr().out
    results = json.loads(out.read_text())["results"]
    assert results["random"]["games"] == results["mcts:4"]["games"] == 4
    assert (dqn_run / "plots" / "first_move.png").stat().st_size > 1000


def test_simulations_are_refused_for_an_agent_that_does_not_search(dqn_run, capsys):
    argv = ["--checkpoint", str(dqn_run), "--simulations", "8", "--games", "2"]
    assert evaluate_command.main(argv) == 2
    assert "--simulations applies to agents that search; this dqn run" in capsys.readouterr().err


def test_another_algorithms_run_is_refused_with_its_name(dqn_run, capsys):
    assert train_command.main(tiny_argv(dqn_run, "--resume", "--iterations", "1")) == 2
    assert "not alphazero's" in capsys.readouterr().err  # found in config.json
    config = config_io.replace(algorithms.ALPHAZERO.presets["tiny"], {"game.size": 3})
    options = loop.RunOptions(iterations=1, eval_every=0, resume=True, quiet=True)
    with pytest.raises(CheckpointError, match="holds a dqn run, not alphazero's"):
        loop.run(config, dqn_run, options)  # found in the checkpoint
    with pytest.raises(CheckpointError, match="holds a dqn run"):
        Agent.from_checkpoint(dqn_run)
    assert Checkpointer(dqn_run / "checkpoints").steps() == [3]  # nothing lost


def test_the_scripts_run_from_the_command_line(tmp_path):
    for script in ("train_dqn.py", "train_ppo.py"):
        result = subprocess.run(
            [sys.executable, str(EXPERIMENTS / script), "--help"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0 and "--selfplay_games" in result.stdout


@pytest.mark.slow  # about 2.5 minutes: compare is train and evaluate, each tested on its own
def test_compare_trains_evaluates_and_tabulates(tmp_path, capsys):
    argv = ["--game", "hex:3", "--preset", "tiny", "--iterations", "2", "--eval-games", "4",
            "--mcts", "4", "--simulations", "2", "--workdir", str(tmp_path)]  # fmt: skip
    compare = compare_command
    assert compare.main(argv) == 0
    table = capsys.readouterr().out
    rows = [line for line in table.splitlines() if line.startswith("| Hex 3x3")]
    assert [row.split(" | ")[1] for row in rows] == ["alphazero", "dqn", "ppo"]
    record = json.loads((tmp_path / "comparison.json").read_text())
    (game,) = record["games"]
    for algorithm in ("alphazero", "dqn", "ppo"):
        assert game["runs"][algorithm]["iterations"] == 2
        assert set(game["baselines"][algorithm]) == {"random", "greedy", "mcts:4"}
        others = game["head_to_head"][algorithm]
        assert len(others) == 2 and all(0 <= score <= 1 for score in others.values())
    # Paired scores: each pair's two views add up to one.
    heads = game["head_to_head"]
    assert heads["dqn"]["ppo"] + heads["ppo"]["dqn"] == pytest.approx(1.0)
    assert compare.main(argv) == 2  # the runs are there: refused without --reuse
    assert "pass --reuse" in capsys.readouterr().err
    assert compare.main([*argv, "--reuse"]) == 0
