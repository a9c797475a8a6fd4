"""`--distributed` with two real processes on this machine (CPU, gloo collectives), started by
hand as the docs say: the coordinator, process count and id from the environment or flags. A
half-given set is refused before anything connects."""

import json
import os
import pathlib
import socket
import subprocess
import sys

import jax
import numpy as np
import pytest

from hexjax import sharding
from hexjax.commands import train
from hexjax.training import restore

ROOT = pathlib.Path(__file__).resolve().parents[1]
TIMEOUT = 600  # seconds: two processes compiling on a shared 2-core machine


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _environ(**variables) -> dict:
    """This environment without the distributed settings, plus `variables`."""
    env = {k: v for k, v in os.environ.items() if k not in sharding.DISTRIBUTED_ENV.values()}
    # One CPU device a process: two devices in all.
    # The suite's compile-speed flag stays (tests/conftest.py); no forced device count.
    flags = os.environ.get("XLA_FLAGS", "").split()
    kept = " ".join(f for f in flags if "device_count" not in f)
    env.update(PYTHONPATH=str(ROOT), JAX_PLATFORMS="cpu", XLA_FLAGS=kept, **variables)
    return env


SUPPORT = ROOT / "tests" / "support" / "distributed_train.py"
# One schedule for both runs: 2 + 1 resumed iterations and 3 straight would otherwise decay
# over different budgets (an iteration budget sizes a new run's schedule).
RUN = ["--preset", "tiny", "--board", "3", "--eval-every", "0", "--checkpoint-every", "1",
       "--optimizer.decay_steps", "100"]  # fmt: skip
RESUME = ["--resume", "--iterations", "1", "--eval-every", "0", "--checkpoint-every", "1"]


def _start(argv, env) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(SUPPORT), *argv], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip


def _finish(processes) -> list[tuple[int, str]]:
    results = []
    try:
        for process in processes:
            out, err = process.communicate(timeout=TIMEOUT)
            results.append((process.returncode, out.decode() + err.decode()))
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    return results


def _params(out, process: int, step: int) -> dict:
    with np.load(out / f"params-p{process}-s{step}.npz") as arrays:
        return dict(arrays)


def _same(first: dict, second: dict) -> bool:
    return first.keys() == second.keys() and all(
        np.array_equal(first[name], second[name]) for name in first
    )


def test_two_processes_train_one_run_as_one_process_on_two_devices_does(tmp_path):
    """Two processes (one CPU device each) train 2 iterations, then resume to 3; one process
    with two CPU devices trains 3 straight. Each process keeps its own copy of the parameters
    at every checkpoint (tests/support/distributed_train.py)."""
    workdir, out, reference = tmp_path / "run", tmp_path / "params", tmp_path / "reference"
    port = _free_port()
    pair = []
    for process_id in range(2):
        env = _environ(JAX_COORDINATOR_ADDRESS=f"127.0.0.1:{port}", JAX_NUM_PROCESSES="2")
        first = [*RUN, "--iterations", "2", "--workdir", str(workdir), "--distributed"]
        if process_id == 0:
            env["JAX_PROCESS_ID"] = "0"
        else:
            first += ["--process-id", "1"]  # the flag, for the other process
        then = [*RESUME, "--workdir", str(workdir), "--distributed"]
        pair.append(_start([str(out), *first, "--then", *then], env))
    alone = [*RUN, "--iterations", "3", "--cpu-devices", "2", "--workdir", str(tmp_path / "one")]
    single = _start([str(reference), *alone], _environ())
    results = _finish([*pair, single])
    for index, (code, output) in enumerate(results):
        assert code == 0, f"process {index}:\n{output}"
    first, second, one = (output for _, output in results)
    assert "2 cpu device(s) in 2 processes" in first  # one mesh over both processes
    assert "resuming from iteration 2" in first
    assert "2 cpu device(s)" in one
    # Only the first process prints, logs and plots.
    assert "device(s)" not in second and "resuming" not in second
    assert "done: iteration 3" in second
    records = [json.loads(line) for line in (workdir / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in records] == [1, 2, 3]  # each iteration logged once
    assert (workdir / "plots" / "loss.png").exists()
    # One checkpoint a step, through Orbax's multi-process path, readable on one device.
    assert restore.checkpoint_steps(workdir) == [1, 2, 3]
    _, config, state, meta = restore.restore_trained(workdir)
    assert int(state.iteration) == 3 and meta["iteration"] == 3
    assert config.game.size == 3
    for step in (1, 2, 3):
        mine, theirs = _params(out, 0, step), _params(out, 1, step)
        assert _same(mine, theirs), f"the processes' parameters differ at step {step}"
        # Two processes equal one process on two devices; steps 1-2 run, then resumed to 3.
        assert _same(mine, _params(reference, 0, step)), f"not the one-process run at {step}"
    saved = {jax.tree_util.keystr(path): np.asarray(leaf) for path, leaf in
             jax.tree_util.tree_flatten_with_path(state.params)[0]}  # fmt: skip
    assert _same(saved, _params(out, 0, 3))  # the checkpoint holds what the processes trained


@pytest.mark.parametrize(
    "environ, flags, missing",
    [
        ({"JAX_COORDINATOR_ADDRESS": "127.0.0.1:1"}, [], "JAX_NUM_PROCESSES"),
        ({}, ["--coordinator", "127.0.0.1:1", "--num-processes", "2"], "JAX_PROCESS_ID"),
    ],
)
def test_a_half_given_setup_names_what_is_missing(environ, flags, missing, tmp_path):
    # A fresh process: jax.distributed.initialize must come before JAX starts its backends.
    argv = [sys.executable, str(ROOT / "experiments" / "train.py"), "--distributed"]
    argv += ["--preset", "tiny", "--iterations", "1", "--workdir", str(tmp_path), *flags]
    env = {**_environ(), **environ}
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 2, done.stderr
    assert missing in done.stderr and "--distributed" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"num_processes": 2, "process_id": 2}, "below the process count 2"),
        ({"num_processes": 0, "process_id": 0}, "at least 1"),
        ({"environ": {"JAX_PROCESS_ID": "one"}}, "JAX_PROCESS_ID must be a whole number"),
    ],
)
def test_bad_settings_are_refused(settings, message):
    settings = {"coordinator": "127.0.0.1:1", "environ": {}, **settings}
    with pytest.raises(ValueError, match=message):
        sharding.initialize_distributed(**settings)


def test_the_settings_flags_need_distributed(capsys):
    with pytest.raises(SystemExit) as exit_info:
        train.parse(["--process-id", "1"])
    assert exit_info.value.code == 2
    assert "go with --distributed" in capsys.readouterr().err
