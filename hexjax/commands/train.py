"""The training command line: `hexjax-train` / `python experiments/train.py` (AlphaZero),
`hexjax-train-dqn` / experiments/train_dqn.py and `hexjax-train-ppo` / experiments/train_ppo.py.

Shortcuts: --game, --board, --rule, --swap, --preset (tiny | cpu | accelerator), --simulations
(AlphaZero), --minutes, --iterations, --workdir, --resume, the evaluation and checkpoint
cadence, --cpu-devices, --distributed. Every leaf field of the algorithm's typed config is also a
flag (`--optimizer.learning_rate 3e-4`, `--selfplay_games 256`, `--n_step 3`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import pathlib
import sys

from hexjax import sharding
from hexjax.games import DEFAULT_SIZES, available_games, check_options
from hexjax.games.gomoku import RULES
from hexjax.training import algorithms, config_io, loop
from hexjax.training.checkpoint import CheckpointError
from hexjax.training.run_dir import RunDir

DESCRIPTIONS = {
    "alphazero": "Train an AlphaZero agent: `python experiments/train.py --board 7` "
    "(Hex 7x7, 5 minutes).",
    "dqn": "Train a DQN / Double DQN baseline by self-play: "
    "`python experiments/train_dqn.py --board 7`.",
    "ppo": "Train a PPO baseline by self-play: `python experiments/train_ppo.py --board 7`.",
}


def _cadence(args, workdir) -> dict:
    """Evaluation and checkpoint cadence: the flags given, else (on --resume) the run's own,
    else the defaults of RunOptions."""
    cadence = dict(loop.CADENCE)
    stored = RunDir(workdir).cadence
    if args.resume and stored.is_file():
        cadence.update({k: v for k, v in _run_file(stored).items() if k in cadence})
    given = {name: getattr(args, name) for name in loop.CADENCE if getattr(args, name) is not None}
    return {**cadence, **given}


def parse(argv=None, trainer: algorithms.Trainer = algorithms.ALPHAZERO, description: str = ""):
    """(config, workdir, RunOptions) from the command line, for `trainer`'s config."""
    parser = argparse.ArgumentParser(description=description or DESCRIPTIONS[trainer.name])
    _game_flags(parser, trainer)
    _budget_flags(parser, trainer)
    _cadence_flags(parser)
    _device_flags(parser)
    config_io.add_flags(parser, trainer.config_type, trainer.presets["cpu"], "in the cpu preset")
    args = parser.parse_args(argv)
    config, workdir, stored = _config(parser, args, trainer)
    config.game.make()  # a bad game option fails here, with the game's own message
    options = loop.RunOptions(
        minutes=args.minutes,
        iterations=args.iterations,
        resume=args.resume,
        step=args.step,
        quiet=args.quiet,
        **_cadence(args, workdir),
    )
    if args.cpu_devices is not None and args.cpu_devices < 1:
        raise ValueError(f"--cpu-devices must be at least 1, got {args.cpu_devices}")
    settings = (args.coordinator, args.num_processes, args.process_id)
    if not args.distributed and any(value is not None for value in settings):
        parser.error("--coordinator, --num-processes and --process-id go with --distributed")
    if args.distributed:
        sharding.initialize_distributed(*settings)
    else:  # a resumed run keeps its stored sizes and, unless told, its CPU split
        sized = config if stored is None else stored
        requested = args.cpu_devices or (_stored_cpu_devices(workdir) if args.resume else None)
        sharding.use_cpu_cores(trainer.batch_sizes(sized), requested)
    return config, workdir, options


def _suffix(trainer: algorithms.Trainer) -> str:
    """The default workdir's suffix: none for AlphaZero, -dqn, -ppo."""
    return "" if trainer is algorithms.ALPHAZERO else f"-{trainer.name}"


def _game_flags(parser: argparse.ArgumentParser, trainer: algorithms.Trainer) -> None:
    """The game and its board, the preset, and the search's shortcut."""
    sizes = ", ".join(f"{size} for {name}" for name, size in DEFAULT_SIZES.items())
    per_game = "".join(
        f"; {game} in the {preset} preset: "
        + ", ".join(f"--{name} {value}" for name, value in changes.items())
        for (preset, game), changes in trainer.game_defaults.items()
    )
    parser.add_argument("--game", choices=available_games(), help=f"default: hex{per_game}")
    parser.add_argument("--board", type=int, help=f"board size (default {sizes})")
    parser.add_argument("--rule", choices=RULES, help="gomoku rule")
    parser.add_argument("--swap", action="store_true", default=None, help="hex: the swap move")
    parser.add_argument("--preset", choices=sorted(trainer.presets), help="default: cpu")
    if trainer.searches:
        parser.add_argument("--simulations", type=int, help="search simulations per move")


def _budget_flags(parser: argparse.ArgumentParser, trainer: algorithms.Trainer) -> None:
    """How long, where, and from what: budget, workdir, resume, --init-from."""
    config_type = trainer.config_type
    parser.add_argument(
        "--minutes",
        type=float,
        help=f"wall-clock budget of this command, with --resume too (default "
        f"{loop.DEFAULT_MINUTES:g}; --resume: the rest of the run's own budget)",
    )
    parser.add_argument(
        "--iterations",
        type=int,
        help="iteration budget of this command (--resume: this many more; neither flag: to the "
        "run's own budget); a new run's learning rate then decays over exactly this budget "
        "unless --optimizer.decay_steps is given",
    )
    parser.add_argument(
        "--workdir", default=None, help=f"default: runs/<game><board>{_suffix(trainer)}"
    )
    parser.add_argument("--resume", action="store_true", help="continue the run in --workdir")
    if "init_from" in {field.name for field in dataclasses.fields(config_type)}:
        parser.add_argument("--init-from", dest="init_from", metavar="RUN",
                            help="start from RUN's newest network, or a shipped model's "
                            "(model:hex7; another board size needs --network.head pooled in "
                            "both); a fresh optimizer")  # fmt: skip
    parser.add_argument(
        "--step",
        type=int,
        help="with --resume: the checkpoint to continue from (default: the newest readable; "
        "later ones are moved to superseded-checkpoints/)",
    )


def _cadence_flags(parser: argparse.ArgumentParser) -> None:
    """Evaluation and checkpoint cadence."""
    # Defaults from RunOptions; a resumed run keeps the ones it was started with unless given.
    cadence = loop.CADENCE
    parser.add_argument(
        "--eval-every", type=int, help=f"iterations; 0: never (default {cadence['eval_every']})"
    )
    parser.add_argument("--eval-games", type=int, help=f"default {cadence['eval_games']}")
    parser.add_argument(
        "--checkpoint-every", type=int, help=f"iterations (default {cadence['checkpoint_every']})"
    )
    parser.add_argument(
        "--checkpoint-minutes", type=float, help=f"default {cadence['checkpoint_minutes']:g}"
    )
    parser.add_argument(
        "--keep-checkpoints",
        type=int,
        help="the newest N checkpoints are kept, e.g. for evaluate.py --all-steps "
        f"(default {cadence['keep_checkpoints']})",
    )


def _device_flags(parser: argparse.ArgumentParser) -> None:
    """Output, the CPU split, and several processes or hosts."""
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument(
        "--cpu-devices",
        type=int,
        help="split the CPU into this many XLA devices, the games shared out among them "
        "(default: one per core, as many as divide the game, batch and replay sizes; 1: off)",
    )
    parser.add_argument(
        "--distributed",
        action="store_true",
        help="several processes or hosts: call jax.distributed.initialize() first (run on "
        "every one; the settings below, else JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES, "
        "JAX_PROCESS_ID, else a cluster JAX detects: SLURM, Cloud TPU, Kubernetes)",
    )
    parser.add_argument("--coordinator", help="with --distributed: host:port of process 0")
    parser.add_argument("--num-processes", type=int, help="with --distributed: process count")
    parser.add_argument("--process-id", type=int, help="with --distributed: this process, from 0")


def _config(parser, args, trainer: algorithms.Trainer):
    """(config, workdir, the stored config of a resumed run or None): the preset with the
    flags' overrides, checked against the run it resumes."""
    config_type = trainer.config_type
    overrides = config_io.overrides_from_args(args, config_type)
    shortcuts = {
        "game.name": args.game,
        "game.size": args.board,
        "game.rule": args.rule,
        "game.swap": True if args.swap else None,
        "search.num_simulations": getattr(args, "simulations", None),
    }
    overrides.update({k: v for k, v in shortcuts.items() if v is not None})
    origin = overrides.get("init_from")
    if origin and not origin.startswith("model:"):  # a run: in config.json as its absolute path
        overrides["init_from"] = str(pathlib.Path(origin).resolve())
    given = dict(overrides)  # before the defaults that --game brings
    if args.game and args.board is None:
        overrides["game.size"] = DEFAULT_SIZES[args.game]
    config = trainer.config(args.preset or "cpu", overrides)
    if args.iterations is not None and args.minutes is None and not args.resume:
        config = _schedule_over(config, args.iterations, given)
    workdir = args.workdir or f"runs/{config.game.name}{config.game.size}{_suffix(trainer)}"
    stored = _stored_config(args, workdir, trainer)
    _check_game_flags(parser, args, config if stored is None else stored)
    if stored is not None:
        if args.preset:  # the stored config does not say which preset made it
            parser.error(
                f"--preset {args.preset}: a resumed run keeps its config, whichever preset made "
                "it; leave --preset out, or start a new run (another --workdir)"
            )
        _check_resume_flags(parser, given, stored)
    return config, workdir, stored


def _schedule_over(config, iterations: int, given: dict):
    """`config` with its learning-rate schedule decaying over `iterations` iterations (their
    optimizer steps), so that a run budgeted by count ends at the schedule's low rate (measured
    in docs/experiments/network-size.md); unchanged where --optimizer.decay_steps was given or the
    trainer does not count optimizer steps per iteration (PPO)."""
    steps = getattr(config, "steps_per_iteration", 0)  # PPO's follow from its epochs
    if "optimizer.decay_steps" in given or steps < 1:
        return config
    return config_io.replace(config, {"optimizer.decay_steps": iterations * steps})


def _stored_config(args, workdir, trainer: algorithms.Trainer):
    """With --resume, the config the run in `workdir` was started with (None if it has none)."""
    stored = RunDir(workdir).config
    if not (args.resume and stored.is_file()):
        return None
    saved = _run_file(stored, "it holds the run's config: restore it, or start a new run")
    try:
        return config_io.from_dict(trainer.config_type, saved)
    except (ValueError, TypeError) as error:
        raise ValueError(
            f"{workdir} holds a run that is not {trainer.name}'s ({error}); resume it "
            "with the trainer that started it"
        ) from None


def _run_file(path: pathlib.Path, hint: str = "delete it to resume with the defaults") -> dict:
    """A JSON file a run keeps beside its checkpoints, or an error naming it and what to do."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"{path} cannot be read ({error}); {hint}") from None


def _stored_cpu_devices(workdir) -> int | None:
    """The CPU device count a one-process CPU run in `workdir` last ran on (None if unknown)."""
    stored = RunDir(workdir).devices
    if not stored.is_file():
        return None
    devices = _run_file(stored)
    if devices.get("platform") != "cpu" or devices.get("processes", 1) != 1:
        return None
    count = devices.get("count")
    if not isinstance(count, int) or count < 1:
        raise ValueError(f"{stored} says the run ran on {count!r} devices; give --cpu-devices")
    return count


def _check_resume_flags(parser, given: dict, stored) -> None:
    """A resumed run keeps the config it was started with: refuse, as argparse refuses a bad
    flag, one that asks for another value (it would be ignored)."""
    for name, value in given.items():
        kept = config_io.value(stored, name)
        if json.loads(json.dumps(value)) != json.loads(json.dumps(kept)):
            parser.error(
                f"--{name} {value}: this run was started with {name} = {kept!r} and a resumed "
                "run keeps its config; start a new run (another --workdir) to change it"
            )


def _check_game_flags(parser, args, config) -> None:
    """Refuse, as argparse refuses a bad flag, a game option the game does not take (`--rule`
    on Othello): the game is the one the flags name, or a resumed run's own."""
    flags = {"--rule": "rule", "--game.rule": "rule", "--swap": "swap", "--game.swap": "swap"}
    given = {flag: option for flag, option in flags.items()
             if getattr(args, flag.removeprefix("--")) is not None}  # fmt: skip
    name = args.game or getattr(args, "game.name") or config.game.name
    try:
        check_options(name, given)
    except ValueError as error:
        parser.error(str(error))


def main(
    argv=None, trainer: algorithms.Trainer = algorithms.ALPHAZERO, description: str = ""
) -> int:
    """`hexjax-train`: parse, train, report; the exit status (2: bad input, 128 + signal:
    stopped and saved)."""
    description = description or DESCRIPTIONS[trainer.name]
    try:
        config, workdir, options = parse(argv, trainer, description)
        record = loop.run(config, workdir, options, trainer)
    except (ValueError, CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except loop.Stopped as stopped:
        print(f"{stopped}; continue with --workdir {workdir} --resume", file=sys.stderr)
        return 128 + stopped.signum  # the shell's convention for a signal, after a clean save
    parts = [f"iteration {record['iteration']}"] if "iteration" in record else []
    parts += [f"{k} {record[k]:.3g}" for k in ("vs_random", "vs_greedy") if k in record]
    print(f"done: {', '.join(parts)}; outputs in {workdir}")
    return 0


def main_dqn(argv=None) -> int:
    """`hexjax-train-dqn`: the DQN / Double DQN baseline."""
    return main(argv, algorithms.DQN)


def main_ppo(argv=None) -> int:
    """`hexjax-train-ppo`: the PPO baseline."""
    return main(argv, algorithms.PPO)
