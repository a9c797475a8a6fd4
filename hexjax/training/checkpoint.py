"""Orbax checkpoints of a training run, for an exact resume.

A checkpoint holds the whole `TrainState` (parameters, optimizer state, replay buffer, games in
flight with their pending positions, counters), the run's random key, and a JSON record of the
config, so `--resume` continues bit for bit. Orbax writes each step to a temporary directory and
renames it when complete, so an interrupted save never damages the earlier ones; the manager
keeps the last `keep` steps. Nothing here deletes a directory on start or on a failed restore:
`restore` without a step falls back to the newest readable checkpoint and lists the ones it
skipped, and `set_aside` moves a step's directory out of the way (a resumed run's unreadable or
superseded checkpoints), never removing it.
"""

from __future__ import annotations

import dataclasses
import logging
import pathlib
import shutil
import sys
import warnings

import jax


class CheckpointError(RuntimeError):
    """A checkpoint that is missing, unreadable or from another configuration; `reason` is the
    short cause of an unreadable one."""

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        self.reason = reason or message


@dataclasses.dataclass
class Restored:
    state: object  # TrainState
    key: jax.Array
    meta: dict  # "config", "iteration", "elapsed_seconds", ...
    step: int
    skipped: list[tuple[int, str]] = dataclasses.field(default_factory=list)  # newer, unreadable

    def warning(self, directory) -> str | None:
        """One line naming the checkpoints skipped to reach this one, or None."""
        if not self.skipped:
            return None
        bad = "; ".join(f"step {step} ({why})" for step, why in self.skipped)
        return f"warning: unreadable checkpoint in {directory}: {bad}; using step {self.step}"


def _quiet_failed_reads() -> None:
    """When a restore fails, TensorStore still completes the reads Orbax started: each one
    either calls back into the asyncio loop Orbax has already closed ("Event loop is closed",
    reported as unraisable), leaves a failed task or future nobody awaits (asyncio logs "Task /
    Future exception was never retrieved") or a coroutine never awaited (a RuntimeWarning):
    kilobytes of identical tracebacks around a one-line error, some printed before the restore
    even raises. Installed before every restore, once per process; those reports, and only
    those, are dropped (hexjax itself runs no asyncio code)."""
    previous = sys.unraisablehook
    if getattr(previous, "drops_closed_loop_callbacks", False):
        return

    def hook(unraisable):
        error = unraisable.exc_value
        if not (isinstance(error, RuntimeError) and str(error) == "Event loop is closed"):
            previous(unraisable)

    hook.drops_closed_loop_callbacks = True
    sys.unraisablehook = hook
    # "Future", "Task" or "_GatheringFuture exception was never retrieved": the class varies.
    logging.getLogger("asyncio").addFilter(
        lambda record: (
            not record.getMessage().partition("\n")[0].endswith("exception was never retrieved")
        )
    )
    warnings.filterwarnings("ignore", r"coroutine '.*' was never awaited", RuntimeWarning)


def _reason(error: Exception, limit: int = 120) -> str:
    """The first line of an error, short: Orbax's messages can carry kilobytes of spec."""
    first = (str(error).strip().splitlines() or [""])[0]
    if len(first) > limit:
        first = first[: limit - 3] + "..."
    return f"{type(error).__name__}: {first}" if first else type(error).__name__


def _orbax():
    """Orbax, imported on first use: the front ends that play shipped models never need it, and
    its import is a noticeable part of their start."""
    import orbax.checkpoint

    return orbax.checkpoint


class Checkpointer:
    def __init__(self, directory: str | pathlib.Path, keep: int = 5, create: bool = True):
        """`create=False` for readers: a missing directory is an error, not made."""
        ocp = _orbax()
        self.directory = pathlib.Path(directory).absolute()
        if not create and not self.directory.is_dir():
            raise CheckpointError(f"no checkpoint in {self.directory} (no such directory)")
        options = ocp.CheckpointManagerOptions(max_to_keep=keep, create=create)
        self._manager = ocp.CheckpointManager(self.directory, options=options)

    def steps(self) -> list[int]:
        return sorted(self._manager.all_steps())

    def latest_step(self) -> int | None:
        return self._manager.latest_step()

    def save(self, step: int, state, key: jax.Array, meta: dict) -> None:
        """Write step `step` and wait until it is on disk."""
        ocp = _orbax()
        tree = {"state": state, "key": jax.random.key_data(key)}
        self._manager.save(
            step,
            args=ocp.args.Composite(tree=ocp.args.PyTreeSave(tree), meta=ocp.args.JsonSave(meta)),
            force=True,
        )
        self._manager.wait_until_finished()

    def restore_meta(self, step: int | None = None) -> dict:
        """The JSON record (config, counters) of `step` (default: the newest readable)."""
        return self._fall_back(step, self._restore_meta)[0]

    def _restore_meta(self, step: int) -> dict:
        ocp = _orbax()
        _quiet_failed_reads()
        try:
            restored = self._manager.restore(
                step, args=ocp.args.Composite(meta=ocp.args.JsonRestore())
            )
        except Exception as error:
            raise self._unreadable(step, error) from error
        return dict(restored["meta"])

    def _fall_back(self, step: int | None, read):
        """(read(step), skipped): `step` itself, or else the newest step `read` succeeds on,
        with the newer ones it could not read; CheckpointError when none can be read."""
        if step is not None:
            return read(self._checked_step(step)), []
        skipped = []
        for candidate in reversed(self._steps_or_error()):
            try:
                return read(candidate), skipped
            except CheckpointError as error:
                skipped.append((candidate, error.reason))
        bad = "; ".join(f"step {s} ({why})" for s, why in skipped)
        raise CheckpointError(f"no readable checkpoint in {self.directory}: {bad}")

    def _steps_or_error(self) -> list[int]:
        steps = self.steps()
        if not steps:
            raise CheckpointError(f"no checkpoint in {self.directory}")
        return steps

    def _checked_step(self, step: int | None) -> int:
        steps = self._steps_or_error()
        step = steps[-1] if step is None else step
        if step not in steps:
            raise CheckpointError(
                f"no checkpoint for step {step} in {self.directory}; available: {steps}"
            )
        return step

    def _unreadable(self, step: int, error: Exception) -> CheckpointError:
        earlier = [s for s in self.steps() if s < step]
        hint = f"; earlier checkpoints: {earlier}" if earlier else ""
        reason = _reason(error)
        return CheckpointError(
            f"checkpoint step {step} in {self.directory} could not be read ({reason}){hint}",
            reason,
        )

    def restore(self, template_state, template_key: jax.Array, step: int | None = None):
        """The checkpoint at `step`, shaped like the templates; by default the newest that can
        be read (the newer, unreadable ones listed in `Restored.skipped`)."""
        restored, skipped = self._fall_back(
            step, lambda s: self._restore_step(template_state, template_key, s)
        )
        restored.skipped = skipped
        return restored

    def _restore_step(self, template_state, template_key: jax.Array, step: int) -> Restored:
        ocp = _orbax()
        # The template's arrays alone: a field that is None (an option the run does not use)
        # holds nothing to read, and a checkpoint written before that field existed has no
        # entry for it, which Orbax would call a mismatch. Every array must still be there.
        arrays = _arrays_only({"state": template_state, "key": jax.random.key_data(template_key)})
        tree_args = ocp.args.PyTreeRestore(
            arrays,
            restore_args=ocp.checkpoint_utils.construct_restore_args(arrays),
            partial_restore=True,
        )
        _quiet_failed_reads()
        try:
            missing = _missing(arrays, self._stored_tree(step))
            if missing:
                raise ValueError(f"it holds no {', '.join(missing[:3])}")
            restored = self._manager.restore(
                step, args=ocp.args.Composite(tree=tree_args, meta=ocp.args.JsonRestore())
            )
        except Exception as error:  # Orbax raises many kinds; name the step for the user
            raise self._unreadable(step, error) from error
        tree, meta = restored["tree"], restored["meta"]
        key = jax.random.wrap_key_data(tree["key"])
        state = _refill(template_state, tree["state"])
        return Restored(state=state, key=key, meta=dict(meta), step=step)

    def _stored_tree(self, step: int) -> dict:
        """The nested names of what step `step` holds (its arrays' metadata; None entries)."""
        ocp = _orbax()
        absl = logging.getLogger("absl")
        level = absl.level
        absl.setLevel(logging.ERROR)  # "no _CHECKPOINT_METADATA" for an item: expected
        try:
            metadata = ocp.PyTreeCheckpointer().metadata(self.directory / str(step) / "tree")
        finally:
            absl.setLevel(level)
        return metadata.item_metadata.tree

    def set_aside(self, step: int, destination: pathlib.Path) -> pathlib.Path:
        """Move step `step`'s directory to `destination/<step>` (a new name if that exists) and
        forget it here; returns where it went."""
        self._manager.wait_until_finished()
        destination = pathlib.Path(destination)
        destination.mkdir(parents=True, exist_ok=True)
        target, copy = destination / str(step), 1
        while target.exists():
            target, copy = destination / f"{step}.{copy}", copy + 1
        shutil.move(str(self.directory / str(step)), str(target))
        self._manager.reload()
        return target

    def reload(self) -> None:
        """Read the directory again (another process changed it)."""
        self._manager.reload()

    def close(self) -> None:
        self._manager.wait_until_finished()
        self._manager.close()


def _arrays_only(tree):
    """`tree` (dataclasses, dicts, arrays) as nested dicts of its arrays, None fields left out."""
    if dataclasses.is_dataclass(tree) and not isinstance(tree, type):
        tree = {field.name: getattr(tree, field.name) for field in dataclasses.fields(tree)}
    if isinstance(tree, dict):
        return {name: _arrays_only(value) for name, value in tree.items() if value is not None}
    return tree


def _missing(arrays: dict, stored: dict, prefix: str = "") -> list[str]:
    """The dotted names of `arrays`' leaves (nested dicts) that `stored` has no entry for."""
    missing = []
    for name, value in arrays.items():
        where = f"{prefix}{name}"
        if not isinstance(stored, dict) or name not in stored:
            missing.append(where)
        elif isinstance(value, dict):
            missing += _missing(value, stored[name], f"{where}.")
    return missing


def _refill(template, restored):
    """`template`'s structure (dataclasses, dicts) holding `restored`'s arrays (`_arrays_only`'s
    nested dicts); its None fields stay None."""
    if dataclasses.is_dataclass(template) and not isinstance(template, type):
        return dataclasses.replace(template, **{
            field.name: _refill(getattr(template, field.name), restored[field.name])
            for field in dataclasses.fields(template)
            if getattr(template, field.name) is not None
        })  # fmt: skip
    if isinstance(template, dict):
        return {name: _refill(value, restored[name]) if value is not None else None
                for name, value in template.items()}  # fmt: skip
    return restored
