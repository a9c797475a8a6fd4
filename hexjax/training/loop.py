"""The host side of a training run: budget, progress, logs, evaluation, checkpoints, plots.

`run(config, workdir, ...)` jits the iteration once and calls it until the time or iteration
budget is spent. Between iterations it prints a progress line, appends metrics to
`workdir/metrics.jsonl` and TensorBoard (`workdir/tensorboard`), evaluates every few iterations
against the random and the greedy player, and checkpoints every N iterations or minutes, at the
end, and when stopped: Ctrl-C, SIGTERM (kill, a job scheduler) or SIGHUP ask the loop to stop after
the current iteration, save, and raise `Stopped` (a second Ctrl-C stops at once, still saving
the last finished iteration). A workdir that already holds checkpoints is never overwritten: pass
`resume=True` to continue it (with the config stored in it). The same loop trains every
algorithm of `hexjax.training.algorithms` (AlphaZero by default, the DQN and PPO baselines);
checkpoints record which one, so a run is resumed, evaluated and played by the algorithm that
trained it (`hexjax.training.restore`).
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import signal
import sys
import threading
import time
from collections.abc import Callable

import jax
import numpy as np

from hexjax import sharding
from hexjax.evaluation import plots
from hexjax.evaluation.arena import arena, summarize
from hexjax.training import algorithms, config_io, restore
from hexjax.training import checkpoint as checkpoint_lib
from hexjax.training import metrics as metrics_log
from hexjax.training.progress import ProgressLine

CADENCE_FILE = "cadence.json"  # the run's evaluation and checkpoint cadence, kept on --resume
CADENCE_FIELDS = (
    "eval_every",
    "eval_games",
    "checkpoint_every",
    "checkpoint_minutes",
    "keep_checkpoints",
)
# The devices the run last ran on: a resumed CPU run splits the CPU the same way unless told
# otherwise (another split may reduce in another order: not bit for bit the same run).
DEVICES_FILE = "devices.json"


class Stopped(Exception):
    """The run was stopped by a signal after saving its checkpoint; `signum` names the signal."""

    def __init__(self, signum: int, iteration: int):
        self.signum = signum
        self.iteration = iteration
        name = signal.Signals(signum).name
        super().__init__(f"stopped by {name}; saved a checkpoint at iteration {iteration}")


class _StopRequests:
    """Turns SIGINT, SIGTERM and SIGHUP into a request to stop between iterations.

    Installed even where the signal was ignored: a trainer started with `cmd &` from a script
    inherits an ignored SIGINT and would otherwise never save on Ctrl-C or `kill -INT`. SIGHUP
    stays ignored under nohup. A second SIGINT raises KeyboardInterrupt for an immediate stop.
    """

    def __init__(self):
        self.signum: int | None = None
        self._previous: dict[int, object] = {}

    def __enter__(self):
        if threading.current_thread() is not threading.main_thread():
            return self  # signal handlers can only be set from the main thread
        for signum in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)):
            if signum is None:
                continue
            previous = signal.getsignal(signum)
            if signum == getattr(signal, "SIGHUP", None) and previous == signal.SIG_IGN:
                continue
            self._previous[signum] = previous
            signal.signal(signum, self._request)
        return self

    def __exit__(self, *exc):
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)

    def _request(self, signum, frame):
        if self.signum is not None and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.signum = self.signum or signum
        name = signal.Signals(signum).name
        print(f"\n{name}: stopping after this iteration to save a checkpoint", file=sys.stderr)


@dataclasses.dataclass(frozen=True)
class RunOptions:
    minutes: float | None = None  # wall-clock budget, compilation included
    iterations: int | None = None  # or a number of iterations (both: whichever ends first)
    checkpoint_every: int = 50  # iterations
    checkpoint_minutes: float = 5.0
    keep_checkpoints: int = 5  # the newest ones; older ones are deleted
    eval_every: int = 25  # iterations; 0: never
    eval_games: int = 64
    resume: bool = False
    step: int | None = None  # with resume: the checkpoint to continue (default: newest readable)
    quiet: bool = False

    def __post_init__(self):
        if self.minutes is None and self.iterations is None:
            raise ValueError("give a budget: --minutes or --iterations")
        if self.minutes is not None and self.minutes <= 0:
            raise ValueError(f"--minutes must be positive, got {self.minutes}")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError(f"--iterations must be at least 1, got {self.iterations}")
        if self.eval_games < 2 or self.eval_games % 2:
            raise ValueError(f"eval games must be even and at least 2, got {self.eval_games}")
        if self.keep_checkpoints < 1:
            raise ValueError(f"--keep-checkpoints must be at least 1, got {self.keep_checkpoints}")
        if self.step is not None and not self.resume:
            raise ValueError("--step picks the checkpoint to resume: give it with --resume")


# The cadence defaults, as RunOptions declares them.
CADENCE = {f.name: f.default for f in dataclasses.fields(RunOptions) if f.name in CADENCE_FIELDS}


class _Evaluator:
    """Arena games of the current network (as it plays: AlphaZero with its deterministic
    search, the baselines by their best legal action) against the random and greedy players."""

    def __init__(self, trainer: algorithms.Trainer, config, game, games: int, mesh=None):
        agent = trainer.make_player(config, game, None)
        opponents = {name: restore.opponent(name, game) for name in ("random", "greedy")}

        if mesh is not None and (games // 2) % mesh.devices.size:
            mesh = None  # halves that do not split evenly play on one device

        def match(params, key, opponent):
            player = opponent.make_player(None)
            return arena(game, agent(params), player, key, games, 2, mesh=mesh)

        self._matches = {
            name: jax.jit(lambda params, key, o=opponent: match(params, key, o))
            for name, opponent in opponents.items()
        }

    def __call__(self, params, key) -> dict:
        results = {}
        for name, match in self._matches.items():
            key, match_key = jax.random.split(key)
            results[name] = summarize(np.asarray(match(params, match_key)))
        return results


class _Logs:
    """metrics.jsonl and TensorBoard. A run resumed at iteration k first moves the records of
    iterations after k (played after that checkpoint, then lost) to metrics.superseded.jsonl,
    and TensorBoard drops its events after k, so the record matches the checkpoint."""

    def __init__(self, workdir: pathlib.Path, resumed_at: int | None = None):
        from tensorboardX import SummaryWriter

        self.path = workdir / "metrics.jsonl"
        self.superseded = 0
        purge = None
        if resumed_at is not None:
            aside = workdir / "metrics.superseded.jsonl"
            self.superseded = metrics_log.set_aside_after(self.path, resumed_at, aside)
            purge = resumed_at + 1
        self._writer = SummaryWriter(str(workdir / "tensorboard"), purge_step=purge)

    def write(self, record: dict) -> None:
        with self.path.open("a") as out:
            out.write(json.dumps(record) + "\n")
        step = record["iteration"]
        for name, value in record.items():
            if isinstance(value, int | float) and name != "iteration":
                self._writer.add_scalar(name, value, step)
        self._writer.flush()

    def close(self) -> None:
        self._writer.close()


def _format_seconds(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    return f"{seconds // 60}:{seconds % 60:02d}"


def run(
    config,
    workdir,
    options: RunOptions,
    trainer: algorithms.Trainer = algorithms.ALPHAZERO,
    load_model: Callable[[str], restore.TrainedAgent] | None = None,
):
    """Train `config` (a `trainer.config_type`) with `trainer`; returns the last record written
    to metrics.jsonl. `load_model(name)` reads the shipped models that `init_from` may name
    (`model:NAME`): they belong to the play layer above this one."""
    workdir = pathlib.Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    checkpoints = checkpoint_lib.Checkpointer(workdir / "checkpoints", options.keep_checkpoints)
    if checkpoints.steps() and not options.resume:
        raise checkpoint_lib.CheckpointError(
            f"{workdir} already holds a run (checkpoints {checkpoints.steps()}); "
            "pass --resume to continue it or choose another --workdir"
        )
    if options.resume:
        stored = checkpoints.restore_meta(options.step)
        restore.check_algorithm(stored, trainer, workdir)
        config = config_io.from_dict(trainer.config_type, stored["config"])
    game = config.game.make()
    # Several devices (or hosts, after jax.distributed.initialize()): split games and batches.
    mesh = sharding.batch_mesh() if jax.device_count() > 1 else None
    # With several processes each runs this loop (the jitted calls are collective), but only
    # the first writes the logs, plots and files beside the checkpoints, and prints.
    primary = jax.process_index() == 0
    quiet = options.quiet or not primary
    if not quiet:
        devices = jax.devices()
        processes = f" in {jax.process_count()} processes" if jax.process_count() > 1 else ""
        print(f"{game}: {len(devices)} {devices[0].platform} device(s){processes}", file=sys.stderr)
    init, iteration = trainer.make_iteration(config, game, mesh)
    key = jax.random.key(config.seed)
    key, init_key, eval_key = jax.random.split(key, 3)
    state = jax.jit(init)(init_key)
    if getattr(config, "init_from", "") and not options.resume:
        params, chain = restore.starting_params(config.init_from, state.params, load_model)
        state = state.replace(params=params)
        if primary:
            (workdir / restore.ORIGIN_FILE).write_text(json.dumps(chain, indent=2))
    if mesh is not None:
        state = sharding.place(state, mesh, trainer.shardings)
        # On every device: with several processes a key on one device cannot be saved.
        key, eval_key = sharding.replicate((key, eval_key), mesh)
    else:
        # Committed to the device, as restored arrays are: a fresh run and a resumed one
        # compile the same iteration (one entry in a persistent compilation cache).
        state, key, eval_key = jax.device_put((state, key, eval_key), jax.devices()[0])
    elapsed_before = 0.0
    resumed_at = None
    if options.resume:
        restored = checkpoints.restore(state, key, options.step)
        state, key = restored.state, restored.key
        elapsed_before = float(restored.meta.get("elapsed_seconds", 0.0))
        resumed_at = restored.step
        _set_aside(checkpoints, restored, workdir, primary)
    iteration = sharding.jit_iteration(iteration, state, mesh, trainer.shardings)
    evaluate = None
    if options.eval_every:
        evaluate = _Evaluator(trainer, config, game, options.eval_games, mesh)
    logs = _Logs(workdir, resumed_at) if primary else None
    if resumed_at is not None and not quiet:
        superseded = ""
        if logs.superseded:
            superseded = (
                f"; {logs.superseded} logged iterations after it moved to metrics.superseded.jsonl"
            )
        print(f"resuming from iteration {resumed_at}{superseded}", file=sys.stderr)
    if primary:
        (workdir / "config.json").write_text(json.dumps(config_io.to_dict(config), indent=2))
        cadence = {k: getattr(options, k) for k in CADENCE_FIELDS}
        (workdir / CADENCE_FILE).write_text(json.dumps(cadence, indent=2))
        devices = {"platform": jax.devices()[0].platform, "count": jax.device_count()}
        devices["processes"] = jax.process_count()
        (workdir / DEVICES_FILE).write_text(json.dumps(devices, indent=2))

    start = time.monotonic()
    last_save = start
    done = int(state.iteration)
    first = done
    record: dict = {}

    def elapsed() -> float:
        return elapsed_before + time.monotonic() - start

    def save() -> None:
        if int(state.iteration) in checkpoints.steps():
            return  # already saved at this iteration
        meta = {
            "algorithm": trainer.name,
            "config": config_io.to_dict(config),
            "iteration": int(state.iteration),
            "elapsed_seconds": elapsed(),
        }
        checkpoints.save(int(state.iteration), state, key, meta)

    def budget_left() -> bool:
        if stop.signum is not None:
            return False
        if options.iterations is not None and done - first >= options.iterations:
            return False
        return options.minutes is None or time.monotonic() - start < options.minutes * 60

    progress = None if quiet else _Progress(options, trainer)
    stop = _StopRequests()
    try:
        stop.__enter__()
        while budget_left():
            tick = time.monotonic()
            next_key, iteration_key = jax.random.split(key)
            new_state, metrics = iteration(state, iteration_key)
            # Assigned together (Python runs signal handlers only at calls and jumps), so an
            # immediate stop never saves a state beside the next iteration's key.
            state, key = new_state, next_key
            metrics = {k: float(v) for k, v in jax.device_get(metrics).items()}
            done = int(state.iteration)
            seconds = time.monotonic() - tick
            record = {
                "iteration": done,
                "elapsed_seconds": round(elapsed(), 2),
                "positions_per_second": metrics["positions"] / max(seconds, 1e-9),
                **metrics,
            }
            if evaluate and (done % options.eval_every == 0 or not budget_left()):
                eval_key, match_key = jax.random.split(eval_key)
                for name, result in evaluate(state.params, match_key).items():
                    record[f"vs_{name}"] = result["score"]
                    record[f"vs_{name}_low"] = result["low"]
                    record[f"vs_{name}_high"] = result["high"]
            if logs is not None:
                logs.write(record)
            if progress is not None:
                progress.update(record, time.monotonic() - start, done - first)
            if (
                done % options.checkpoint_every == 0
                or time.monotonic() - last_save > options.checkpoint_minutes * 60
            ):
                save()
                last_save = time.monotonic()
    except KeyboardInterrupt:
        stop.signum = signal.SIGINT
        print("\ninterrupted: saving a checkpoint", file=sys.stderr)
    finally:
        stop.__exit__()
        save()
        checkpoints.close()
        if logs is not None:
            logs.close()
        if progress is not None:
            progress.close()
    if logs is not None:
        records = metrics_log.read_records(logs.path)
        plots.loss_curves(records, workdir / "plots")
        if evaluations := metrics_log.evaluations(records):
            plots.score_curve(evaluations, workdir / "plots" / "evaluation.png")
    if stop.signum is not None:
        raise Stopped(stop.signum, int(state.iteration))
    return record


def _set_aside(checkpoints, restored, workdir: pathlib.Path, primary: bool = True) -> None:
    """Move out of checkpoints/ what a resumed run does not continue, saying so in a line each:
    the newer checkpoints that could not be read (to unreadable-checkpoints/) and, when an
    earlier --step was chosen, the later ones (to superseded-checkpoints/). Nothing is deleted,
    and the run's next saves cannot collide with them. With several processes the first moves
    them while the others wait, then read the directory again."""
    if primary:
        _move_aside(checkpoints, restored, workdir)
    if jax.process_count() > 1:
        from jax.experimental import multihost_utils

        multihost_utils.sync_global_devices("hexjax: checkpoints set aside")
        checkpoints.reload()


def _move_aside(checkpoints, restored, workdir: pathlib.Path) -> None:
    for step, why in restored.skipped:
        where = checkpoints.set_aside(step, workdir / "unreadable-checkpoints")
        print(
            f"warning: checkpoint step {step} could not be read ({why}); moved to {where}, "
            f"resuming from step {restored.step}",
            file=sys.stderr,
        )
    later = [step for step in checkpoints.steps() if step > restored.step]
    for step in later:
        checkpoints.set_aside(step, workdir / "superseded-checkpoints")
    if later:
        print(
            f"resuming from step {restored.step}: the later checkpoints {later} moved to "
            f"{workdir / 'superseded-checkpoints'}",
            file=sys.stderr,
        )


class _Progress:
    """The run's progress line (`ProgressLine`: in place on a terminal, plain lines elsewhere)."""

    def __init__(self, options: RunOptions, trainer: algorithms.Trainer, every: float = 10.0):
        self.options, self.trainer = options, trainer
        self.line = ProgressLine(every)

    def update(self, record: dict, seconds: float, iterations: int) -> None:
        self.line.update(_progress_line(record, self.options, seconds, iterations, self.trainer))

    def close(self) -> None:
        self.line.close()


def _progress_line(record, options: RunOptions, seconds, iterations, trainer) -> str:
    if options.minutes is not None:
        fraction = seconds / (options.minutes * 60)
    else:
        fraction = iterations / options.iterations
    if options.iterations is not None and options.minutes is not None:
        fraction = max(fraction, iterations / options.iterations)
    eta = seconds / max(fraction, 1e-9) - seconds
    width = 20
    bar = "#" * int(width * min(fraction, 1)) + "-" * (width - int(width * min(fraction, 1)))
    line = (
        f"[{bar}] it {record['iteration']} {_format_seconds(seconds)} "
        f"ETA {_format_seconds(eta)} | {record['positions_per_second']:.0f} pos/s |"
    )
    line += " ".join(f" {label} {record[name]:.2f}" for name, label in trainer.progress)
    for name in ("random", "greedy"):
        if f"vs_{name}" in record:
            line += f" | vs {name} {100 * record[f'vs_{name}']:.0f}%"
    return line
