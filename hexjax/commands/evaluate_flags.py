"""The flags of `evaluate.py` and their checks: which agent, which opponents (engines with their
setup lines), the matches, and the evaluation mode; every bad combination refused by name. The
parsed flags come out as an `evaluate_options.Evaluation`."""

from __future__ import annotations

import argparse
import pathlib

from hexjax.alphazero.search import PLAY_SIMULATIONS
from hexjax.commands.evaluate_options import (
    MATCHES,
    AgentChoice,
    Evaluation,
    Games,
    MoveClock,
    Opponents,
)
from hexjax.evaluation import engines, hex_solver, puzzles, sgf, solved_openings
from hexjax.games import applies_only
from hexjax.play import clock
from hexjax.play.agent import search_choices
from hexjax.training import models

DEFAULT_GAMES = 200
# The flags of the arena games, which the fixed positions (puzzles, solved openings) do not play.
ARENA_FLAGS = ("games", "opening_plies", "openings", "records")
MODES = ("all_steps", "elo", "solver_accuracy", "puzzles", "solved_openings")


def parse(argv, description: str = "") -> Evaluation:
    parser = argparse.ArgumentParser(description=description)
    _source_flags(parser)
    _opponent_flags(parser)
    _match_flags(parser)
    _mode_flags(parser)
    args = parser.parse_args(argv)
    _check(args)
    return _evaluation(args)


def _evaluation(args: argparse.Namespace) -> Evaluation:
    modes = [mode for mode in MODES if getattr(args, mode)]
    return Evaluation(
        agent=AgentChoice(
            args.checkpoint, args.model, args.model_dir, args.simulations,
            args.simulations_given, args.considered_actions, args.search, args.tactics,
            args.contempt,
        ),
        opponents=Opponents(
            tuple(args.opponent or ["random"]), args.opponent_setup, args.opponent_timeout,
            args.engine_jobs,
        ),
        games=Games(args.games, args.opening_plies, args.openings, args.seed),
        clock=MoveClock(args.move_time, args.timed_search, not args.no_solver, not args.no_prune),
        mode=modes[0] if modes else MATCHES,
        step=args.step,
        records=args.records,
        sgf=args.sgf,
        positions=tuple(args.position),
        out=args.out,
        workdir=args.workdir,
        cpu_devices=args.cpu_devices,
    )  # fmt: skip


def _source_flags(parser: argparse.ArgumentParser) -> None:
    """The agent: a run's checkpoint(s) or a model."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--checkpoint", help="a run's workdir")
    source.add_argument(
        "--model", help="a shipped model by name (hex7, gomoku9, ...); output in evaluations/NAME"
    )
    parser.add_argument(
        "--model-dir",
        default=str(models.MODELS_DIR),
        help="where --model is (default: the shipped models; e.g. an earlier one taken from git)",
    )
    parser.add_argument("--step", type=int, help="checkpoint step (default: the newest readable)")
    parser.add_argument(
        "--all-steps", action="store_true", help="every kept checkpoint, and the curve"
    )


def _opponent_flags(parser: argparse.ArgumentParser) -> None:
    """Who the agent plays: players by spec, engines with their setup, the engines' clock."""
    parser.add_argument("--opponent", action="append", help="repeatable; default: random")
    parser.add_argument(
        "--opponent-setup",
        action=SetupAction,
        metavar="LINE",
        help="a line sent to the engine of the --opponent before it (repeatable): a GTP "
        "command, or a Gomocup INFO line",
    )
    parser.add_argument(
        "--opponent-timeout",
        type=float,
        default=engines.DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help="an engine that takes longer over a move loses the game "
        f"(default {engines.DEFAULT_TIMEOUT_S:.0f})",
    )
    parser.add_argument(
        "--engine-jobs",
        type=int,
        default=1,
        metavar="N",
        help="engine processes playing at once, a share of the games each (default 1)",
    )
    parser.add_argument(
        "--move-time",
        type=float,
        metavar="SECONDS",
        help="against engines: the agent gets this many seconds a move and searches what fits "
        "(up to --simulations, default 4096), as hexjax-gtp and hexjax-gomocup do under a clock; "
        "with --puzzles, a row more: the agent so timed",
    )
    parser.add_argument(
        "--timed-search",
        choices=clock.TIMED_SEARCHES,
        default="kept",
        help="with --move-time: one tree grown until the time is spent and kept from move to "
        "move (default), a new tree each move (fresh), or the largest compiled simulation count "
        "that fits half the time (counts)",
    )
    parser.add_argument(
        "--no-prune",
        action="store_true",
        help="with --move-time: search every legal move at the root (by default Hex leaves out "
        "dead and captured cells, as the engines do)",
    )
    parser.add_argument(
        "--no-solver",
        action="store_true",
        help="with --move-time: no exact solver (by default Hex up to 7x7 tries to prove a win, "
        "Gomoku a win by threats, renju by fours: beside the search, or first in a quarter of "
        "the move's time with one core)",
    )


def _match_flags(parser: argparse.ArgumentParser) -> None:
    """The agent's search and the arena's games."""
    parser.add_argument("--games", type=int, help=f"a match (default {DEFAULT_GAMES})")
    parser.add_argument(
        "--simulations", type=int, help=f"the agent's search (default {PLAY_SIMULATIONS})"
    )
    parser.add_argument(
        "--considered-actions",
        type=int,
        help="Gumbel: root actions the agent considers (default: grows with --simulations)",
    )
    parser.add_argument(
        "--search",
        choices=("gumbel", "puct"),
        help="the agent's search (default: the one it trained with)",
    )
    parser.add_argument(
        "--tactics",
        action=argparse.BooleanOptionalAction,
        help="the agent's search reads the game's forced results (Gomoku: fives and open "
        "fours, a few plies ahead) where the network would guess (default: as it trained)",
    )
    parser.add_argument(
        "--contempt",
        type=float,
        help="a draw costs the agent this much in its search (0 to 1; the draw head's chance "
        "of a draw moves every value), so that it plays for the win against a weaker player; "
        "needs a network trained with --network.draw_head true (default 0)",
    )
    parser.add_argument(
        "--opening-plies",
        type=int,
        help="uniformly random plies before the players take over "
        "(default: 2, or 0 after --openings)",
    )
    parser.add_argument(
        "--openings",
        help="a file of openings, one move list a line, `first-moves`: every legal first move, "
        "or `first-moves:K`: K of them spread over the board",
    )


def _mode_flags(parser: argparse.ArgumentParser) -> None:
    """Records, the evaluation modes, drawings and output."""
    parser.add_argument("--records", action="store_true", help="keep every game's moves")
    parser.add_argument("--sgf", metavar="DIR", help="write every game as SGF (Hex, Gomoku)")
    parser.add_argument(
        "--elo", action="store_true", help="round robin of every kept checkpoint and opponent"
    )
    parser.add_argument(
        "--solver-accuracy",
        action="store_true",
        help="hex up to 7x7: how often each player picks a winning move (exact solver)",
    )
    parser.add_argument(
        "--puzzles",
        action="store_true",
        help="the Gomoku tactics suite: solved share per category",
    )
    parser.add_argument(
        "--solved-openings",
        action="store_true",
        help="hex 7x7: the value's sign on the 49 first moves against the published solution",
    )
    parser.add_argument(
        "--position", action="append", default=[], help="moves of a position to draw; repeatable"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="JSON output (default: <checkpoint>/evaluation.json)")
    parser.add_argument(
        "--cpu-devices",
        type=int,
        help="split the CPU into this many XLA devices, the games shared out among them "
        "(default: one per core, as many as divide half the games; 1: off)",
    )


def _check(args) -> None:
    """Values and combinations; fills the defaults that depend on other flags."""
    _check_mode_flags(args)
    args.simulations_given = args.simulations is not None
    args.games = DEFAULT_GAMES if args.games is None else args.games
    if args.simulations is None:
        args.simulations = clock.default_simulations(timed=bool(args.move_time))
    if args.games < 2 or args.games % 2:
        raise ValueError(f"--games must be even and at least 2, got {args.games}")
    if args.cpu_devices is not None and args.cpu_devices < 1:
        raise ValueError(f"--cpu-devices must be at least 1, got {args.cpu_devices}")
    if args.move_time is not None and not args.move_time > 0:
        raise ValueError(f"--move-time must be positive, got {args.move_time}")
    if args.opponent_timeout <= 0 or args.engine_jobs < 1:
        raise ValueError("--opponent-timeout must be positive and --engine-jobs at least 1")
    args.opponent_setup = args.opponent_setup or {}
    modes = [getattr(args, mode) for mode in MODES]
    if sum(modes) > 1:
        raise ValueError(
            "--all-steps, --elo, --solver-accuracy, --puzzles and --solved-openings are separate "
            "evaluations"
        )
    if (args.all_steps or args.elo) and args.step is not None:
        raise ValueError("give --step, or --all-steps / --elo (every kept checkpoint), not both")
    if args.model and (args.all_steps or args.elo or args.step is not None):
        raise ValueError("--step, --all-steps and --elo read a run's checkpoints, not a --model")
    if args.contempt is not None and not 0 <= args.contempt < 1:
        raise ValueError(f"--contempt must be in [0, 1), got {args.contempt}")
    if args.considered_actions is not None and args.considered_actions < 1:
        raise ValueError(f"--considered-actions must be at least 1, got {args.considered_actions}")
    search_choices(args)  # the search flags together, checked as the play commands check them
    # Where the JSON, plots and records go: the run's folder, or one for the model.
    default_dir = pathlib.Path("evaluations") / args.model if args.model else args.checkpoint
    args.workdir = pathlib.Path(args.out).parent if args.out and args.model else default_dir
    args.workdir = pathlib.Path(args.workdir)
    if args.opening_plies is None:
        args.opening_plies = 0 if args.openings else 2
    if args.opening_plies < 0 or args.simulations < 1:
        raise ValueError("--opening-plies must not be negative and --simulations positive")


def _check_mode_flags(args) -> None:
    """Refuse flags the chosen evaluation would ignore."""
    fixed = "--puzzles" if args.puzzles else "--solved-openings" if args.solved_openings else None
    if fixed:
        for name in ARENA_FLAGS:
            if getattr(args, name) not in (None, False):
                flag = "--" + name.replace("_", "-")
                raise ValueError(f"{flag} applies to arena games, not to {fixed}")
    if args.records and (args.elo or args.solver_accuracy):
        mode = "--elo" if args.elo else "--solver-accuracy"
        raise ValueError(f"--records applies to the matches against --opponent, not to {mode}")
    if args.sgf and (args.elo or args.solver_accuracy or args.puzzles):
        raise ValueError("--sgf writes the matches against --opponent, not other evaluations")


class SetupAction(argparse.Action):
    """--opponent-setup LINE: a line for the engine named by the last --opponent."""

    def __call__(self, parser, namespace, value, option_string=None):
        opponents = namespace.opponent or []
        if not opponents or not engines.is_engine(opponents[-1]):
            parser.error(
                f"{option_string} {value!r} must follow the --opponent gtp:COMMAND or "
                "gomocup:COMMAND it sets up"
            )
        setups = dict(namespace.opponent_setup or {})
        setups[len(opponents) - 1] = [*setups.get(len(opponents) - 1, []), value]
        namespace.opponent_setup = setups


def searches(spec: str) -> bool:
    return spec.startswith(("checkpoint:", "model:"))


def check_game_flags(evaluation: Evaluation, agent) -> None:
    """Refuse flags that the agent's game, or an agent without search, would ignore, and
    combinations of opponents and modes that do not go together."""
    game, mode, specs = agent.game, evaluation.mode, evaluation.opponents.specs
    if mode == "solver_accuracy" and not hex_solver.solves(game):
        size = hex_solver.MAX_SIZE
        raise ValueError(applies_only("--solver-accuracy", [f"hex up to {size}x{size}"], game))
    if mode == "puzzles" and not puzzles.applies(game):
        raise ValueError(applies_only("--puzzles", ["gomoku"], game))
    if mode == "solved_openings" and not solved_openings.applies(game):
        raise ValueError(applies_only("--solved-openings", ["hex 7x7 without swap"], game))
    if evaluation.sgf:
        sgf.check_writable(game)
    choice = evaluation.agent
    searching_opponent = any(searches(spec) for spec in specs)
    search_flags = [
        flag
        for flag, given in (
            ("--simulations", choice.simulations_given),
            ("--considered-actions", choice.considered_actions is not None),
            ("--search", choice.search is not None),
        )
        if given
    ]
    if search_flags and not agent.algorithm.searches and not searching_opponent:
        raise ValueError(
            f"{search_flags[0]} applies to agents that search; this {agent.algorithm.name} run "
            "plays its network's best move"
        )
    if mode == "puzzles" and searching_opponent:
        raise ValueError("--puzzles takes baseline opponents only (random, greedy, mcts:N)")
    engine_given = any(engines.is_engine(spec) for spec in specs)
    if engine_given and mode in ("elo", "solver_accuracy", "puzzles"):
        raise ValueError(
            "engines (gtp:, gomocup:) play matches; --elo, --solver-accuracy and --puzzles "
            "take hexjax's own opponents"
        )
    timed = evaluation.clock.seconds is not None
    if timed and mode != "puzzles" and not all(map(engines.is_engine, specs)):
        raise ValueError(
            "--move-time applies to matches against engines (gtp:, gomocup:) and to "
            "--puzzles; hexjax's own opponents play batched games by --simulations"
        )
    if timed and not agent.algorithm.searches:
        raise ValueError(f"--move-time applies to agents that search, not to {agent.source}")
