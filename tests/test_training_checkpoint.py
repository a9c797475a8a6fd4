"""Checkpoints: exact resume, and clear errors that never destroy good checkpoints."""

import dataclasses
import json
import logging
import pathlib

import chex
import jax
import numpy as np
import pytest

from hexjax.alphazero.config import PRESETS
from hexjax.alphazero.iteration import make_iteration
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


def test_two_plus_resume_plus_two_equals_four(tmp_path, caplog):
    loop.run(CONFIG, tmp_path / "split", options(2))
    with caplog.at_level(logging.DEBUG, logger="jax._src.compiler"):
        loop.run(CONFIG, tmp_path / "split", options(2, resume=True))
    # The resumed run's iteration is the fresh run's program: found in the compilation cache
    # (tests/conftest.py), not compiled again for restored arrays.
    assert "Persistent compilation cache hit for 'jit_iteration'" in caplog.text
    loop.run(CONFIG, tmp_path / "whole", options(4))
    split, whole = final_state(tmp_path / "split"), final_state(tmp_path / "whole")
    assert split.step == whole.step == 4
    assert int(split.state.updates) > 0  # the optimizer did run
    assert leaves_equal(split.state, whole.state)
    assert np.array_equal(jax.random.key_data(split.key), jax.random.key_data(whole.key))
    records = (tmp_path / "split" / "metrics.jsonl").read_text().splitlines()
    assert len(records) == 4  # the resumed run appends to the same log
    assert (tmp_path / "split" / "plots" / "loss.png").stat().st_size > 1000


def options_without_budget(**changes):
    return dataclasses.replace(options(1, resume=True), iterations=None, **changes)


def test_a_resume_given_no_budget_finishes_the_runs_own(tmp_path):
    """A run told 4 iterations, resumed from its checkpoint at 2 with no budget of its own,
    trains the 2 left (ending where the whole run ended), then refuses to go on unbudgeted."""
    loop.run(CONFIG, tmp_path / "whole", options(4, checkpoint_every=1))
    whole = final_state(tmp_path / "whole")
    loop.run(CONFIG, tmp_path / "whole", options_without_budget(step=2))
    resumed = final_state(tmp_path / "whole")
    assert resumed.step == 4
    assert leaves_equal(resumed.state, whole.state)
    with pytest.raises(ValueError, match="already spent its budget .*to iteration 4.*--iterations"):
        loop.run(CONFIG, tmp_path / "whole", options_without_budget())
    loop.run(CONFIG, tmp_path / "whole", options(1, resume=True))  # a budget given: one more
    assert final_state(tmp_path / "whole").step == 5


def test_a_checkpoint_records_the_point_its_budget_ends(tmp_path):
    timed = dataclasses.replace(options(2), minutes=30.0)
    loop.run(CONFIG, tmp_path, timed)
    meta = Checkpointer(tmp_path / "checkpoints").restore_meta()
    assert meta["budget"]["iteration"] == 2
    assert meta["budget"]["elapsed_seconds"] == pytest.approx(30 * 60)


@pytest.mark.parametrize(
    "ends, left",
    [
        (None, {"minutes": loop.DEFAULT_MINUTES, "iterations": None}),  # an older checkpoint
        ({"iteration": 10, "elapsed_seconds": None}, {"minutes": None, "iterations": 7}),
        ({"iteration": None, "elapsed_seconds": 600.0}, {"minutes": 8.0, "iterations": None}),
    ],
)
def test_the_rest_of_a_stored_budget(ends, left):
    budgeted = options_without_budget().budgeted(ends, iteration=3, elapsed_seconds=120.0)
    assert {"minutes": budgeted.minutes, "iterations": budgeted.iterations} == left
    assert options(5).budgeted(ends, 3, 120.0).iterations == 5  # a budget given wins


def test_a_workdir_with_a_run_is_not_overwritten(tmp_path):
    loop.run(CONFIG, tmp_path, options(1))
    with pytest.raises(CheckpointError, match="already holds a run.*--resume"):
        loop.run(CONFIG, tmp_path, options(1))
    assert Checkpointer(tmp_path / "checkpoints").steps() == [1]


def test_resume_without_a_checkpoint_is_a_clear_error(tmp_path):
    with pytest.raises(CheckpointError, match="no checkpoint in"):
        loop.run(CONFIG, tmp_path, options(1, resume=True))


def corrupt(step_directory: pathlib.Path) -> None:
    for data in (step_directory / "tree").rglob("*"):
        if data.is_file() and data.stat().st_size > 0 and "METADATA" not in data.name:
            data.write_bytes(b"garbage" * 3)


def template():
    init, _ = make_iteration(CONFIG)
    return init(jax.random.key(0)), jax.random.key(0)


def logged_iterations(path) -> list[int]:
    return [json.loads(line)["iteration"] for line in pathlib.Path(path).read_text().splitlines()]


def test_a_corrupt_latest_checkpoint_resumes_from_the_previous_one(tmp_path, capsys):
    loop.run(CONFIG, tmp_path, options(3, checkpoint_every=1))
    directory = tmp_path / "checkpoints"
    assert Checkpointer(directory).steps() == [1, 2, 3]
    corrupt(directory / "3")
    # Asked for by number, the bad step is an error naming it, short, and the earlier ones.
    with pytest.raises(
        CheckpointError, match=r"step 3 .* could not be read.*earlier.*\[1, 2\]"
    ) as bad:
        Checkpointer(directory).restore(*template(), step=3)
    assert len(str(bad.value)) < 400
    # Otherwise the newest readable one, with the skipped one listed.
    restored = final_state(tmp_path)
    assert restored.step == 2 and [step for step, _ in restored.skipped] == [3]
    assert Checkpointer(directory).steps() == [1, 2, 3]  # reading deletes nothing
    capsys.readouterr()
    loop.run(CONFIG, tmp_path, options(2, resume=True, checkpoint_every=1))
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "step 3" in warnings[0] and "step 2" in warnings[0]
    assert len(warnings[0]) < 400
    assert (tmp_path / "unreadable-checkpoints" / "3" / "tree").is_dir()  # kept, out of the way
    assert Checkpointer(directory).steps() == [1, 2, 3, 4]  # 3 and 4 trained again from 2
    assert logged_iterations(tmp_path / "metrics.jsonl") == [1, 2, 3, 4]
    assert logged_iterations(tmp_path / "metrics.superseded.jsonl") == [3]


def test_resuming_an_earlier_step_sets_the_later_ones_aside(tmp_path, capsys):
    loop.run(CONFIG, tmp_path, options(3, checkpoint_every=1))
    loop.run(CONFIG, tmp_path, dataclasses.replace(options(1, resume=True), step=1))
    assert "later checkpoints [2, 3]" in capsys.readouterr().err
    assert Checkpointer(tmp_path / "checkpoints").steps() == [1, 2]
    assert Checkpointer(tmp_path / "superseded-checkpoints").steps() == [2, 3]
    assert logged_iterations(tmp_path / "metrics.jsonl") == [1, 2]
    # Step 2 played again from step 1 is the step 2 set aside, bit for bit.
    again = Checkpointer(tmp_path / "checkpoints").restore(*template(), step=2)
    before = Checkpointer(tmp_path / "superseded-checkpoints").restore(*template(), step=2)
    assert leaves_equal(again.state, before.state)
    with pytest.raises(ValueError, match="--step .* --resume"):
        dataclasses.replace(options(1), step=1)
    with pytest.raises(CheckpointError, match="no checkpoint for step 7.*available"):
        loop.run(CONFIG, tmp_path, dataclasses.replace(options(1, resume=True), step=7))


def test_a_run_resumed_after_a_crash_logs_each_iteration_once(tmp_path, capsys):
    loop.run(CONFIG, tmp_path, options(2))
    # Killed after two more iterations: their records are logged, their checkpoint is not.
    log = tmp_path / "metrics.jsonl"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    lost = [{**records[-1], "iteration": i, "policy_loss": 99.0} for i in (3, 4)]
    log.write_text("".join(json.dumps(r) + "\n" for r in records + lost))
    capsys.readouterr()
    loop.run(CONFIG, tmp_path, dataclasses.replace(options(2, resume=True), quiet=False))
    err = capsys.readouterr().err
    assert "resuming from iteration 2; 2 logged iterations after it moved" in err
    assert logged_iterations(log) == [1, 2, 3, 4]
    assert all(json.loads(line)["policy_loss"] != 99.0 for line in log.read_text().splitlines())
    assert logged_iterations(tmp_path / "metrics.superseded.jsonl") == [3, 4]
    # Not a terminal: plain progress lines, no carriage returns.
    assert "\r" not in err
    progress = [line for line in err.splitlines() if line.startswith("[")]
    assert progress and "it 4 " in progress[-1]


def test_a_run_keeps_the_newest_checkpoints_it_is_told_to(tmp_path):
    kept = dataclasses.replace(options(3, checkpoint_every=1), keep_checkpoints=2)
    loop.run(CONFIG, tmp_path, kept)
    assert Checkpointer(tmp_path / "checkpoints").steps() == [2, 3]


def test_failed_reads_drop_only_their_own_asyncio_reports(caplog):
    from hexjax.training import checkpoint

    checkpoint._quiet_failed_reads()
    asyncio_log = logging.getLogger("asyncio")
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        for kind in ("Future", "Task", "_GatheringFuture"):  # a gather of failed reads too
            asyncio_log.error(f"{kind} exception was never retrieved\nfuture: <{kind} finished>")
        asyncio_log.error("Exception in callback Handle._run()")  # not a failed read's: kept
    assert [record.getMessage() for record in caplog.records] == [
        "Exception in callback Handle._run()"
    ]


@chex.dataclass(frozen=True)
class _Before:
    counts: jax.Array
    inner: dict


@chex.dataclass(frozen=True)
class _After:  # _Before with an optional field added since, unused by this run (None)
    counts: jax.Array
    inner: dict
    extra: jax.Array | None = None


def test_a_checkpoint_from_before_an_optional_field_existed_restores(tmp_path):
    """A state type that grew an optional field (None where unused) still reads the checkpoints
    written before it, the field left None; a field the template needs but the checkpoint
    lacks is still an error."""
    before = _Before(counts=np.arange(3), inner={"a": np.ones(2, np.float32), "b": None})
    writer = Checkpointer(tmp_path / "ckpt")
    writer.save(7, before, jax.random.key(1), {"step": 7})
    writer.close()
    reader = Checkpointer(tmp_path / "ckpt", create=False)
    template = _After(counts=np.zeros(3, np.int64), inner={"a": np.zeros(2, np.float32), "b": None})
    restored = reader.restore(template, jax.random.key(0), 7)
    assert isinstance(restored.state, _After) and restored.state.extra is None
    np.testing.assert_array_equal(restored.state.counts, np.arange(3))
    np.testing.assert_array_equal(restored.state.inner["a"], np.ones(2))
    assert restored.state.inner["b"] is None and restored.meta == {"step": 7}
    with pytest.raises(CheckpointError, match="step 7"):
        reader.restore(template.replace(extra=np.zeros(2, np.float32)), jax.random.key(0), 7)
