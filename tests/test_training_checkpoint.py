"""Checkpoints: exact resume, and clear errors that never destroy good checkpoints."""

import dataclasses
import pathlib

import jax
import numpy as np
import pytest

from hexjax.alphazero.iteration import PRESETS, make_iteration
from hexjax.games import GameConfig
from hexjax.training import loop
from hexjax.training.checkpoint import Checkpointer, CheckpointError

# Hex 4x4 games end within 16 plies, so the optimizer runs within four iterations.
CONFIG = dataclasses.replace(
    PRESETS["tiny"], game=GameConfig(name="hex", size=4), plies_per_iteration=6
)


def options(iterations, resume=False, checkpoint_every=50):
    return loop.RunOptions(
        iterations=iterations,
        eval_every=0,
        resume=resume,
        quiet=True,
        checkpoint_every=checkpoint_every,
    )


def final_state(workdir):
    init, _ = make_iteration(CONFIG)
    template = init(jax.random.key(0))
    return Checkpointer(pathlib.Path(workdir) / "checkpoints").restore(template, jax.random.key(0))


def leaves_equal(a, b) -> bool:
    same = jax.tree.map(lambda x, y: np.array_equal(np.asarray(x), np.asarray(y)), a, b)
    return all(jax.tree.leaves(same))


def test_two_plus_resume_plus_two_equals_four(tmp_path):
    loop.run(CONFIG, tmp_path / "split", options(2))
    loop.run(CONFIG, tmp_path / "split", options(2, resume=True))
    loop.run(CONFIG, tmp_path / "whole", options(4))
    split, whole = final_state(tmp_path / "split"), final_state(tmp_path / "whole")
    assert split.step == whole.step == 4
    assert int(split.state.updates) > 0  # the optimizer did run
    assert leaves_equal(split.state, whole.state)
    assert np.array_equal(jax.random.key_data(split.key), jax.random.key_data(whole.key))
    records = (tmp_path / "split" / "metrics.jsonl").read_text().splitlines()
    assert len(records) == 4  # the resumed run appends to the same log
    assert (tmp_path / "split" / "plots" / "loss.png").stat().st_size > 1000


def test_a_workdir_with_a_run_is_not_overwritten(tmp_path):
    loop.run(CONFIG, tmp_path, options(1))
    with pytest.raises(CheckpointError, match="already holds a run.*--resume"):
        loop.run(CONFIG, tmp_path, options(1))
    assert Checkpointer(tmp_path / "checkpoints").steps() == [1]


def test_resume_without_a_checkpoint_is_a_clear_error(tmp_path):
    with pytest.raises(CheckpointError, match="no checkpoint in"):
        loop.run(CONFIG, tmp_path, options(1, resume=True))


def test_a_corrupt_checkpoint_names_itself_and_keeps_the_others(tmp_path):
    loop.run(CONFIG, tmp_path, options(3, checkpoint_every=1))
    directory = tmp_path / "checkpoints"
    assert Checkpointer(directory).steps() == [1, 2, 3]
    for data in (directory / "3" / "tree").rglob("*"):
        if data.is_file() and data.stat().st_size > 0 and "METADATA" not in data.name:
            data.write_bytes(b"garbage" * 3)
    with pytest.raises(CheckpointError, match=r"step 3 .* could not be read.*earlier.*\[1, 2\]"):
        final_state(tmp_path)
    with pytest.raises(CheckpointError):
        loop.run(CONFIG, tmp_path, options(1, resume=True))
    assert Checkpointer(directory).steps() == [1, 2, 3]  # nothing was deleted
    init, _ = make_iteration(CONFIG)
    earlier = Checkpointer(directory).restore(init(jax.random.key(0)), jax.random.key(0), step=2)
    assert int(earlier.state.iteration) == 2
