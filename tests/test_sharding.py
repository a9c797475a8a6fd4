"""Data parallelism on 4 host CPU devices (a separate process: the device count is fixed when
JAX starts)."""

import json
import pathlib
import subprocess
import sys

import pytest


@pytest.fixture(scope="module")
def findings():
    script = pathlib.Path(__file__).with_name("multidevice_check.py")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_four_device_run_works(findings):
    assert findings["devices"] == 4
    assert findings["updates"] > 0 and findings["finite"]
    assert findings["games_split"] == 4 and findings["params_replicated"]


def test_steps_on_four_devices_equal_one_device(findings):
    assert findings["batch_split"] == 4
    assert findings["max_param_change"] > 1e-4  # the step did move the parameters
    assert findings["max_param_difference"] < 1e-6


def test_batch_sizes_must_divide_over_devices(findings):
    message = findings["indivisible_error"]
    assert message == "selfplay_games (6) must be a multiple of the device count (4)"
