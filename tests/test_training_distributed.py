"""`--distributed` with two real processes on this machine (CPU, gloo collectives), started by
hand as the docs say: the coordinator, process count and id from the environment or flags. A
half-given set is refused before anything connects."""

import json
import os
import pathlib
import socket
import subprocess
import sys

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
    env.update(PYTHONPATH=str(ROOT), JAX_PLATFORMS="cpu", XLA_FLAGS="", **variables)
    return env


def _start(process_id: int, port: int, workdir, extra=()) -> subprocess.Popen:
    env = _environ(JAX_COORDINATOR_ADDRESS=f"127.0.0.1:{port}", JAX_NUM_PROCESSES="2")
    argv = [sys.executable, str(ROOT / "experiments" / "train.py"), "--distributed"]
    argv += ["--preset", "tiny", "--board", "3", "--iterations", "2", "--eval-every", "0"]
    argv += ["--workdir", str(workdir), *extra]
    if process_id == 0:
        env["JAX_PROCESS_ID"] = "0"
    else:
        argv += ["--process-id", str(process_id)]  # the flag, for the other process
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _run_pair(workdir) -> list[tuple[int, str]]:
    port = _free_port()
    processes = [_start(i, port, workdir) for i in range(2)]
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


@pytest.mark.slow
def test_two_processes_train_one_run(tmp_path):
    workdir = tmp_path / "run"
    results = _run_pair(workdir)
    for process_id, (code, output) in enumerate(results):
        assert code == 0, f"process {process_id}:\n{output}"
    first, second = (output for _, output in results)
    assert "2 cpu device(s) in 2 processes" in first  # one mesh over both processes
    assert "device(s)" not in second  # only the first process prints and logs
    assert "done: iteration 2" in second
    records = [json.loads(line) for line in (workdir / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in records] == [1, 2]  # each iteration logged once
    assert restore.checkpoint_steps(workdir) == [2]
    _, config, state, meta = restore.restore_trained(workdir)  # readable on one device
    assert int(state.iteration) == 2 and meta["iteration"] == 2
    assert config.game.size == 3


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
