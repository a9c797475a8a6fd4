"""Orbax checkpoints of a training run, for an exact resume.

A checkpoint holds the whole `TrainState` (parameters, optimizer state, replay buffer, games in
flight with their pending positions, counters), the run's random key, and a JSON record of the
config, so `--resume` continues bit for bit. Orbax writes each step to a temporary directory and
renames it when complete, so an interrupted save never damages the earlier ones; the manager
keeps the last `keep` steps. Nothing here deletes a directory on start or on a failed restore.
"""

from __future__ import annotations

import dataclasses
import pathlib

import jax
import orbax.checkpoint as ocp


class CheckpointError(RuntimeError):
    """A checkpoint that is missing, unreadable or from another configuration."""


@dataclasses.dataclass
class Restored:
    state: object  # TrainState
    key: jax.Array
    meta: dict  # "config", "iteration", "elapsed_seconds", ...
    step: int


class Checkpointer:
    def __init__(self, directory: str | pathlib.Path, keep: int = 5, create: bool = True):
        """`create=False` for readers: a missing directory is an error, not made."""
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
        tree = {"state": state, "key": jax.random.key_data(key)}
        self._manager.save(
            step,
            args=ocp.args.Composite(tree=ocp.args.StandardSave(tree), meta=ocp.args.JsonSave(meta)),
            force=True,
        )
        self._manager.wait_until_finished()

    def restore_meta(self, step: int | None = None) -> dict:
        """The JSON record (config, counters) of `step` (default: the latest)."""
        step = self._checked_step(step)
        try:
            restored = self._manager.restore(
                step, args=ocp.args.Composite(meta=ocp.args.JsonRestore())
            )
        except Exception as error:
            raise self._unreadable(step, error) from error
        return dict(restored["meta"])

    def _checked_step(self, step: int | None) -> int:
        steps = self.steps()
        if not steps:
            raise CheckpointError(f"no checkpoint in {self.directory}")
        step = steps[-1] if step is None else step
        if step not in steps:
            raise CheckpointError(
                f"no checkpoint for step {step} in {self.directory}; available: {steps}"
            )
        return step

    def _unreadable(self, step: int, error: Exception) -> CheckpointError:
        earlier = [s for s in self.steps() if s < step]
        hint = f"; earlier checkpoints: {earlier}" if earlier else ""
        return CheckpointError(
            f"checkpoint step {step} in {self.directory} could not be read "
            f"({type(error).__name__}: {error}){hint}"
        )

    def restore(self, template_state, template_key: jax.Array, step: int | None = None):
        """The checkpoint at `step` (default: the latest), shaped like the templates."""
        step = self._checked_step(step)
        template = {"state": template_state, "key": jax.random.key_data(template_key)}
        try:
            restored = self._manager.restore(
                step,
                args=ocp.args.Composite(
                    tree=ocp.args.StandardRestore(template), meta=ocp.args.JsonRestore()
                ),
            )
        except Exception as error:  # Orbax raises many kinds; name the step for the user
            raise self._unreadable(step, error) from error
        tree, meta = restored["tree"], restored["meta"]
        key = jax.random.wrap_key_data(tree["key"])
        return Restored(state=tree["state"], key=key, meta=dict(meta), step=step)

    def close(self) -> None:
        self._manager.wait_until_finished()
        self._manager.close()
