"""The host side of a training run: budget, progress, logs, evaluation, checkpoints, plots.

`run(config, workdir, ...)` jits the iteration once and calls it until the time or iteration
budget is spent. Between iterations it prints a progress line, appends metrics to
`workdir/metrics.jsonl` and TensorBoard (`workdir/tensorboard`), evaluates every few iterations
against the random and the greedy player, and checkpoints every N iterations or minutes, at the
end, and when stopped: Ctrl-C, SIGTERM (kill, a job scheduler) or SIGHUP ask the loop to stop after
the current iteration, save, and raise `Stopped` (a second Ctrl-C stops at once, still saving
the last finished iteration). A workdir that already holds checkpoints is never overwritten: pass
`resume=True` to continue it (with the config stored in it); every checkpoint records the budget
its run was given, so a resume given no budget of its own finishes that one. The same loop trains
every algorithm of `hexjax.training.algorithms` (AlphaZero by default, the DQN and PPO baselines);
checkpoints record which one, so a run is resumed, evaluated and played by the algorithm that
trained it (`hexjax.training.restore`).
"""

from __future__ import annotations

import json
import signal
import sys
import time

import jax
import numpy as np

from hexjax import sharding
from hexjax.evaluation import matches, plots
from hexjax.evaluation.scores import summarize
from hexjax.training import algorithms, config_io, restore
from hexjax.training import checkpoint as checkpoint_lib
from hexjax.training import metrics as metrics_log
from hexjax.training.metrics import MetricsLog
from hexjax.training.progress import RunProgress
from hexjax.training.run_dir import RunDir
from hexjax.training.run_options import (  # noqa: F401  (run()'s API: loop.RunOptions)
    CADENCE,
    CADENCE_FIELDS,
    DEFAULT_MINUTES,
    RunOptions,
)
from hexjax.training.stopping import Stopped, StopRequests

BLIND_WARNING = (
    "\nwarning: at iteration {}, the network's policy and value are the same for every "
    "position (output_spread 0): every unit between its trunk and a head has stopped "
    "passing a signal (dead ReLUs), and no gradient reaches them again, so this run will not "
    "learn. Start it again with another --seed, or with --network.head pooled (no ReLU "
    "between the trunk and the policy)."
)


def blind_network(record: dict) -> bool:
    """Whether a trained iteration's record says the network no longer sees the board."""
    trained = record.get("updates", 0) > 0
    return trained and record.get("output_spread", 1.0) < 1e-6


class _Evaluator:
    """Arena games of the current network (as it plays: AlphaZero with its deterministic
    search, the baselines by their best legal action) against the random and greedy players."""

    def __init__(self, trainer: algorithms.Trainer, config, game, games: int, mesh=None):
        agent = trainer.make_player(config, game, None)
        opponents = {name: restore.opponent(name, game) for name in ("random", "greedy")}
        self._matches = matches.matches(game, agent, opponents, games, mesh=mesh)

    def __call__(self, params, key) -> dict:
        played = matches.each_match(self._matches, key, params)
        return {name: summarize(np.asarray(games.scores)) for name, games, _ in played}


def run(
    config,
    workdir,
    options: RunOptions,
    trainer: algorithms.Trainer = algorithms.ALPHAZERO,
):
    """Train `config` (a `trainer.config_type`) with `trainer`; returns the last record written
    to metrics.jsonl."""
    run_dir = RunDir(workdir)
    run_dir.path.mkdir(parents=True, exist_ok=True)
    checkpoints = _open_checkpoints(run_dir, options)
    if options.resume:
        stored = checkpoints.restore_meta(options.step)
        restore.check_algorithm(stored, trainer, run_dir.path)
        config = config_io.from_dict(trainer.config_type, stored["config"])
        at = (stored.get("iteration", 0), float(stored.get("elapsed_seconds", 0.0)))
        options = options.budgeted(stored.get("budget"), *at)
    else:
        options = options.budgeted(None, 0, 0.0)
    training = _Training(config, run_dir, options, trainer, checkpoints)
    training.set_up()
    stop = StopRequests()
    try:
        with stop:
            training.iterate(stop)
    except KeyboardInterrupt:
        stop.signum = signal.SIGINT
        print("\ninterrupted: saving a checkpoint", file=sys.stderr)
    finally:
        training.close()
    training.plot()
    if stop.signum is not None:
        raise Stopped(stop.signum, int(training.state.iteration))
    return training.record


def _open_checkpoints(run_dir: RunDir, options: RunOptions) -> checkpoint_lib.Checkpointer:
    """The run's checkpoints; a directory that holds a run is continued only with `resume`."""
    checkpoints = checkpoint_lib.Checkpointer(run_dir.checkpoints, options.keep_checkpoints)
    if checkpoints.steps() and not options.resume:
        raise checkpoint_lib.CheckpointError(
            f"{run_dir} already holds a run (checkpoints {checkpoints.steps()}); "
            "pass --resume to continue it or choose another --workdir"
        )
    return checkpoints


class _Training:
    """One run from its set-up to its end: the state and keys, the jitted iteration, the
    evaluator, the logs and the clock. With several processes each runs this loop (the jitted
    calls are collective), but only the first (`primary`) writes the logs, plots and files
    beside the checkpoints, and prints."""

    def __init__(self, config, run_dir: RunDir, options: RunOptions, trainer, checkpoints):
        self.config, self.run_dir, self.options = config, run_dir, options
        self.trainer, self.checkpoints = trainer, checkpoints
        self.game = config.game.make()
        # Several devices (or hosts, after jax.distributed.initialize()): split games and batches.
        self.mesh = sharding.batch_mesh() if jax.device_count() > 1 else None
        self.primary = jax.process_index() == 0
        self.quiet = options.quiet or not self.primary
        self.elapsed_before = 0.0
        self.record: dict = {}
        self.evaluate = self.logs = self.progress = None
        self.warned_blind = False

    # --- set up -------------------------------------------------------------------------

    def set_up(self) -> None:
        """The first state (fresh, from `init_from`, or restored), the compiled iteration, the
        evaluator and logs, and the run's own files (config, cadence, devices)."""
        config, trainer, mesh = self.config, self.trainer, self.mesh
        if not self.quiet:
            devices = jax.devices()
            processes = f" in {jax.process_count()} processes" if jax.process_count() > 1 else ""
            print(f"{self.game}: {len(devices)} {devices[0].platform} device(s){processes}",
                  file=sys.stderr)  # fmt: skip
        init, iteration = trainer.make_iteration(config, self.game, mesh)
        key, init_key, eval_key = jax.random.split(jax.random.key(config.seed), 3)
        state = jax.jit(init)(init_key)
        if getattr(config, "init_from", "") and not self.options.resume:
            params, chain = restore.starting_params(config.init_from, state.params)
            state = state.replace(params=params)
            if self.primary:
                self.run_dir.origin.write_text(json.dumps(chain, indent=2))
        if mesh is not None:
            state = sharding.place(state, mesh, trainer.shardings)
            # On every device: with several processes a key on one device cannot be saved.
            key, eval_key = sharding.replicate((key, eval_key), mesh)
        else:
            # Committed to the device, as restored arrays are: a fresh run and a resumed one
            # compile the same iteration (one entry in a persistent compilation cache).
            state, key, eval_key = jax.device_put((state, key, eval_key), jax.devices()[0])
        resumed_at = None
        if self.options.resume:
            restored = self.checkpoints.restore(state, key, self.options.step)
            state, key = restored.state, restored.key
            self.elapsed_before = float(restored.meta.get("elapsed_seconds", 0.0))
            resumed_at = restored.step
            _set_aside(self.checkpoints, restored, self.run_dir, self.primary)
        self.state, self.key, self.eval_key = state, key, eval_key
        self.first = int(state.iteration)
        self.ends = self.options.ends(self.first, self.elapsed_before)
        self.iteration = sharding.jit_iteration(iteration, state, mesh, trainer.shardings)
        if self.options.eval_every:
            self.evaluate = _Evaluator(trainer, config, self.game, self.options.eval_games, mesh)
        if self.primary:
            self.logs = MetricsLog(self.run_dir, resumed_at)
            self._write_run_files()
        if resumed_at is not None and not self.quiet:
            superseded = ""
            if self.logs.superseded:
                superseded = f"; {self.logs.superseded} logged iterations after it moved to " + (
                    self.run_dir.superseded_metrics.name
                )
            print(f"resuming from iteration {resumed_at}{superseded}", file=sys.stderr)
        self.progress = None if self.quiet else RunProgress(self.options, trainer)
        self.start = self.last_save = time.monotonic()

    def _write_run_files(self) -> None:
        run_dir = self.run_dir
        run_dir.config.write_text(json.dumps(config_io.to_dict(self.config), indent=2))
        cadence = {k: getattr(self.options, k) for k in CADENCE_FIELDS}
        run_dir.cadence.write_text(json.dumps(cadence, indent=2))
        devices = {"platform": jax.devices()[0].platform, "count": jax.device_count()}
        devices["processes"] = jax.process_count()
        run_dir.devices.write_text(json.dumps(devices, indent=2))

    # --- iterate ------------------------------------------------------------------------

    def iterate(self, stop: StopRequests) -> None:
        """Iterations until the budget is spent or a stop is requested: each logged, evaluated
        and checkpointed at the run's cadence."""
        options = self.options
        done = self.first
        while self._budget_left(stop, done):
            tick = time.monotonic()
            next_key, iteration_key = jax.random.split(self.key)
            new_state, metrics = self.iteration(self.state, iteration_key)
            # Assigned together (Python runs signal handlers only at calls and jumps), so an
            # immediate stop never saves a state beside the next iteration's key.
            self.state, self.key = new_state, next_key
            metrics = {k: float(v) for k, v in jax.device_get(metrics).items()}
            done = int(self.state.iteration)
            seconds = time.monotonic() - tick
            self.record = record = {
                "iteration": done,
                "elapsed_seconds": round(self._elapsed(), 2),
                "positions_per_second": metrics["positions"] / max(seconds, 1e-9),
                **metrics,
            }
            if blind_network(record) and not self.quiet and not self.warned_blind:
                self.warned_blind = True
                print(BLIND_WARNING.format(done), file=sys.stderr)
            if self.evaluate and (
                done % options.eval_every == 0 or not self._budget_left(stop, done)
            ):
                record.update(self._evaluation())
            if self.logs is not None:
                self.logs.write(record)
            if self.progress is not None:
                self.progress.update(record, time.monotonic() - self.start, done - self.first)
            if (
                done % options.checkpoint_every == 0
                or time.monotonic() - self.last_save > options.checkpoint_minutes * 60
            ):
                self.save()
                self.last_save = time.monotonic()

    def _budget_left(self, stop: StopRequests, done: int) -> bool:
        options = self.options
        if stop.signum is not None:
            return False
        if options.iterations is not None and done - self.first >= options.iterations:
            return False
        return options.minutes is None or time.monotonic() - self.start < options.minutes * 60

    def _elapsed(self) -> float:
        return self.elapsed_before + time.monotonic() - self.start

    def _evaluation(self) -> dict:
        self.eval_key, match_key = jax.random.split(self.eval_key)
        record = {}
        for name, result in self.evaluate(self.state.params, match_key).items():
            record[f"vs_{name}"] = result["score"]
            record[f"vs_{name}_low"] = result["low"]
            record[f"vs_{name}_high"] = result["high"]
        return record

    # --- checkpoint and finish ----------------------------------------------------------

    def save(self) -> None:
        step = int(self.state.iteration)
        if step in self.checkpoints.steps():
            return  # already saved at this iteration
        meta = {
            "algorithm": self.trainer.name,
            "config": config_io.to_dict(self.config),
            "iteration": step,
            "elapsed_seconds": self._elapsed(),
            "budget": self.ends,
        }
        self.checkpoints.save(step, self.state, self.key, meta)

    def close(self) -> None:
        """The last checkpoint, then the files closed."""
        self.save()
        self.checkpoints.close()
        for part in (self.logs, self.progress):
            if part is not None:
                part.close()

    def plot(self) -> None:
        if self.logs is None:
            return
        records = metrics_log.read_records(self.logs.path)
        plots.loss_curves(records, self.run_dir.plots)
        if evaluations := metrics_log.evaluations(records):
            plots.score_curve(evaluations, self.run_dir.score_plot)


def _set_aside(checkpoints, restored, run_dir: RunDir, primary: bool = True) -> None:
    """Move out of checkpoints/ what a resumed run does not continue, saying so in a line each:
    the newer checkpoints that could not be read (to unreadable-checkpoints/) and, when an
    earlier --step was chosen, the later ones (to superseded-checkpoints/). Nothing is deleted,
    and the run's next saves cannot collide with them. With several processes the first moves
    them while the others wait, then read the directory again."""
    if primary:
        _move_aside(checkpoints, restored, run_dir)
    if jax.process_count() > 1:
        from jax.experimental import multihost_utils

        multihost_utils.sync_global_devices("hexjax: checkpoints set aside")
        checkpoints.reload()


def _move_aside(checkpoints, restored, run_dir: RunDir) -> None:
    for step, why in restored.skipped:
        where = checkpoints.set_aside(step, run_dir.unreadable_checkpoints)
        print(
            f"warning: checkpoint step {step} could not be read ({why}); moved to {where}, "
            f"resuming from step {restored.step}",
            file=sys.stderr,
        )
    later = [step for step in checkpoints.steps() if step > restored.step]
    for step in later:
        checkpoints.set_aside(step, run_dir.superseded_checkpoints)
    if later:
        print(
            f"resuming from step {restored.step}: the later checkpoints {later} moved to "
            f"{run_dir.superseded_checkpoints}",
            file=sys.stderr,
        )
