"""Data parallelism on 4 host CPU devices (a separate process: the device count is fixed when
JAX starts)."""

import json
import pathlib
import subprocess
import sys

import pytest


@pytest.fixture(scope="module")
def findings():
    script = pathlib.Path(__file__).parent / "support" / "multidevice_check.py"
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_four_device_run_works(findings):
    assert findings["devices"] == 4
    assert findings["updates"] > 0 and findings["finite"]
    assert findings["games_split"] == 4 and findings["params_replicated"]


@pytest.mark.parametrize("name", ["dqn", "ppo"])
def test_the_baselines_run_on_four_devices(findings, name):
    baseline = findings[name]
    assert baseline["updates"] > 0 and baseline["finite"]
    assert baseline["games_split"] == 4 and baseline["params_replicated"]
    assert baseline.get("replay_split", 4) == 4


def test_steps_on_four_devices_equal_one_device(findings):
    assert findings["batch_split"] == 4
    assert findings["max_param_change"] > 1e-4  # the step did move the parameters
    assert findings["max_param_difference"] < 1e-6


def test_batch_sizes_must_divide_over_devices(findings):
    message = findings["indivisible_error"]
    assert message == "selfplay_games (6) must be a multiple of the device count (4)"


def test_the_arena_splits_over_devices_and_alternates_colours_on_each(findings):
    """Each device plays 4 games, `first` Black in 2; Black forfeits at once. The scores keep
    the one-device layout: `first` Black in the first half."""
    assert findings["arena_scores"] == [0.0] * 8 + [1.0] * 8
    assert findings["arena_split"] == 4
    message = findings["arena_indivisible_error"]
    assert message == "half the arena's games (6) must be a multiple of the device count (4)"


def test_the_arena_in_chunks_plays_the_same_games_on_devices(findings):
    assert findings["arena_chunks_equal"] and findings["arena_chunk_reports"] > 1


def test_fitting_device_count():
    from hexjax import sharding

    assert sharding.fitting_count([256, 256, 20_000], 2) == 2
    assert sharding.fitting_count([256, 256, 20_000], 6) == 4
    assert sharding.fitting_count([7], 16) == 7
    assert sharding.fitting_count([9, 6], 16) == 3
    assert sharding.fitting_count([5], 1) == 1
