"""Evaluate a trained agent in the arena: `python experiments/evaluate.py --checkpoint runs/hex7
--opponent mcts:1000 --games 200` (or `--model hex7`: a shipped model).

Opponents by spec: `random`, `greedy`, `mcts:N` (UCT with random playouts, N simulations per move),
`checkpoint:PATH[@STEP]` (another run's agent, as it plays), `model:NAME` (a shipped model);
either with `:N` searches N simulations its own default way, whatever the agent's search flags
(`--model hex7 --simulations 1024 --opponent model:hex7:64`: what more search buys). External
engines: `gtp:"COMMAND ARGS"` (Hex: MoHex, another hexjax-gtp; Othello: Edax) and
`gomocup:"COMMAND ARGS"` (Gomoku, renju: Rapfi, another hexjax-gomocup), each set up by the
`--opponent-setup LINE`s that follow it (GTP commands, or Gomocup INFO lines: `param_mohex
max_games 1000`, `INFO max_node 10000`); hexjax referees their games (an illegal move, a foul,
a crash or a timeout loses the game and is reported; docs/engines.md); `--move-time S` gives the
agent S seconds a move against them, searching what fits as the engine front ends do under a
clock. `--model-dir DIR` reads --model from DIR (an earlier model, say). An AlphaZero agent
searches `--simulations` per move deterministically (Gumbel without noise, its considered
actions growing with the count unless `--considered-actions N`; `--search puct` for PUCT); a DQN
or PPO run's agent (train_dqn.py, train_ppo.py) plays its network's best legal action, without
search. Games alternate
colours, and each opening (`--opening-plies` random plies, the lines of an `--openings` file, or
`--openings first-moves`: every legal first move, `first-moves:K`: K of them spread over the
board) is played once with each colour. Prints a
table and writes JSON (default: <checkpoint>/evaluation.json); `--records` keeps every game's moves
(<checkpoint>/records/<opponent>.txt, loadable with `game.from_moves`), `--sgf DIR` each game as
an SGF file (DIR/<opponent>-N.sgf; Hex and Gomoku). `--all-steps` evaluates
every kept checkpoint of the run and draws the score against training minutes
(<checkpoint>/plots/curve.png). `--elo` plays a round robin between every kept checkpoint and the
opponents and fits Elo ratings, random = 0 (<checkpoint>/plots/elo.png). `--solved-openings`
(Hex 7x7): on how many of the 49 first moves the value's sign agrees with the published
solution. Every evaluation also draws the agent's policy and value on the first move
(plots/first_move.png) and on each `--position MOVES` (plots/position_K.png).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

from hexjax import sharding
from hexjax.alphazero import network as network_lib
from hexjax.alphazero import search as search_lib
from hexjax.alphazero.search import PLAY_SIMULATIONS
from hexjax.base import Entrant
from hexjax.evaluation import (
    arena,
    elo,
    engine_match,
    engines,
    hex_solver,
    players,
    plots,
    puzzles,
    sgf,
    solved_openings,
    tournament,
)
from hexjax.games import applies_only
from hexjax.play import agent as play_agent
from hexjax.play import clock, models
from hexjax.training import restore
from hexjax.training.checkpoint import CheckpointError
from hexjax.training.progress import ProgressLine
from hexjax.training.restore import TrainedAgent

FIRST_MOVES = "first-moves"  # --openings: every legal first move
DEFAULT_GAMES = 200
TIMED_SIMULATIONS = 4096  # the most a move may search under --move-time
# The flags of the arena games, which the fixed positions (puzzles, solved openings) do not play.
_ARENA_FLAGS = ("games", "opening_plies", "openings", "records")


def _at_step(args, latest: TrainedAgent, steps, step) -> TrainedAgent:
    """The agent at a kept step; the latest one is restored once, in `main`."""
    if step == steps[-1]:
        return latest
    return _load(args, step)


def _search_options(args) -> dict:
    return {"considered_actions": args.considered_actions, "search_policy": args.search}


def _load(args, step) -> TrainedAgent:
    """The agent to evaluate: a run's checkpoint at `step`, or the shipped model --model."""
    if args.model:
        return models.trained_agent(
            args.model, args.simulations, args.model_dir, **_search_options(args)
        )
    return restore.load_agent(args.checkpoint, step, args.simulations, **_search_options(args))


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
    parser.add_argument("--opponent", action="append", help="repeatable; default: random")
    parser.add_argument(
        "--opponent-setup",
        action=_SetupAction,
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
        "that fits half the time (counts, the engines' clock before December 2026)",
    )
    parser.add_argument(
        "--no-solver",
        action="store_true",
        help="with --move-time: no solver before the search (by default, in a quarter of the "
        "move's time, Hex up to 7x7 tries to prove a win, Gomoku and renju a win by fours)",
    )
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
    args = parser.parse_args(argv)
    _check_mode_flags(args)
    args.simulations_given = args.simulations is not None
    args.games = DEFAULT_GAMES if args.games is None else args.games
    default_simulations = TIMED_SIMULATIONS if args.move_time else PLAY_SIMULATIONS
    args.simulations = default_simulations if args.simulations is None else args.simulations
    if args.games < 2 or args.games % 2:
        raise ValueError(f"--games must be even and at least 2, got {args.games}")
    if args.cpu_devices is not None and args.cpu_devices < 1:
        raise ValueError(f"--cpu-devices must be at least 1, got {args.cpu_devices}")
    if args.move_time is not None and not args.move_time > 0:
        raise ValueError(f"--move-time must be positive, got {args.move_time}")
    if args.opponent_timeout <= 0 or args.engine_jobs < 1:
        raise ValueError("--opponent-timeout must be positive and --engine-jobs at least 1")
    args.opponent_setup = args.opponent_setup or {}
    modes = (args.all_steps, args.elo, args.solver_accuracy, args.puzzles, args.solved_openings)
    if sum(modes) > 1:
        raise ValueError(
            "--all-steps, --elo, --solver-accuracy, --puzzles and --solved-openings are separate "
            "evaluations"
        )
    if (args.all_steps or args.elo) and args.step is not None:
        raise ValueError("give --step, or --all-steps / --elo (every kept checkpoint), not both")
    if args.model and (args.all_steps or args.elo or args.step is not None):
        raise ValueError("--step, --all-steps and --elo read a run's checkpoints, not a --model")
    if args.considered_actions is not None and args.considered_actions < 1:
        raise ValueError(f"--considered-actions must be at least 1, got {args.considered_actions}")
    if args.considered_actions is not None and args.search == "puct":
        raise ValueError("--considered-actions applies to the Gumbel search, not to --search puct")
    # Where the JSON, plots and records go: the run's folder, or one for the model.
    default_dir = pathlib.Path("evaluations") / args.model if args.model else args.checkpoint
    args.workdir = pathlib.Path(args.out).parent if args.out and args.model else default_dir
    args.workdir = pathlib.Path(args.workdir)
    if args.opening_plies is None:
        args.opening_plies = 0 if args.openings else 2
    if args.opening_plies < 0 or args.simulations < 1:
        raise ValueError("--opening-plies must not be negative and --simulations positive")
    return args


class _SetupAction(argparse.Action):
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


def _engine_label(spec: str, setup: list[str]) -> str:
    return spec + (f" [{'; '.join(setup)}]" if setup else "")


def _check_mode_flags(args) -> None:
    """Refuse flags the chosen evaluation would ignore."""
    fixed = "--puzzles" if args.puzzles else "--solved-openings" if args.solved_openings else None
    if fixed:
        for name in _ARENA_FLAGS:
            if getattr(args, name) not in (None, False):
                flag = "--" + name.replace("_", "-")
                raise ValueError(f"{flag} applies to arena games, not to {fixed}")
    if args.records and (args.elo or args.solver_accuracy):
        mode = "--elo" if args.elo else "--solver-accuracy"
        raise ValueError(f"--records applies to the matches against --opponent, not to {mode}")
    if args.sgf and (args.elo or args.solver_accuracy or args.puzzles):
        raise ValueError("--sgf writes the matches against --opponent, not other evaluations")


def _searches(spec: str) -> bool:
    return spec.startswith(("checkpoint:", "model:"))


def _opponents(specs, game, args) -> dict:
    """Every opponent by its label: an Entrant, or for an engine the function that starts
    one (with its setup lines)."""
    opponents = {}
    for index, spec in enumerate(specs):
        if engines.is_engine(spec):
            setup = args.opponent_setup.get(index, [])
            label = _engine_label(spec, setup)
            engines.check_spec(spec, game)  # ValueError now, not after the agent's compile

            def start(spec=spec, setup=setup):
                return engines.engine_opponent(spec, game, setup, args.opponent_timeout)

            opponent = start
        else:
            label, opponent = spec, _opponent(spec, game, args)
        if label in opponents:
            raise ValueError(f"the opponent {label!r} is named twice")
        opponents[label] = opponent
    return opponents


def _opponent(spec: str, game, args) -> Entrant:
    """`restore.opponent`, shipped models (`model:NAME[:N]`) included: they belong to the play
    layer, above restore, so their loader comes from here."""
    search = _search_options(args)
    return restore.opponent(spec, game, args.simulations, models.trained_agent, **search)


def _check_game_flags(args, agent: TrainedAgent, specs) -> None:
    """Refuse flags that the agent's game, or an agent without search, would ignore."""
    game = agent.game
    if args.solver_accuracy and (game.name != "hex" or game.size > hex_solver.MAX_SIZE):
        size = hex_solver.MAX_SIZE
        raise ValueError(applies_only("--solver-accuracy", [f"hex up to {size}x{size}"], game))
    if args.puzzles and game.name != "gomoku":
        raise ValueError(applies_only("--puzzles", ["gomoku"], game))
    if args.solved_openings and not solved_openings.applies(game):
        raise ValueError(applies_only("--solved-openings", ["hex 7x7 without swap"], game))
    if args.sgf:
        sgf.check_writable(game)
    searching_opponent = any(_searches(spec) for spec in specs)
    search_flags = [
        flag
        for flag, given in (
            ("--simulations", args.simulations_given),
            ("--considered-actions", args.considered_actions is not None),
            ("--search", args.search is not None),
        )
        if given
    ]
    if search_flags and not agent.algorithm.searches and not searching_opponent:
        raise ValueError(
            f"{search_flags[0]} applies to agents that search; this {agent.algorithm.name} run "
            "plays its network's best move"
        )


def _print_row(label: str, summary: dict, game=None) -> None:
    print(
        f"{label:<34} {summary['games']:>5} {summary['wins']:>4} {summary['draws']:>4} "
        f"{summary['losses']:>4} {100 * summary['score']:>6.1f}%  "
        f"[{100 * summary['low']:.1f}, {100 * summary['high']:.1f}]  "
        f"{100 * summary['as_black']:>6.1f}% {100 * summary['as_white']:>6.1f}%  "
        f"{summary['seconds']}"
    )
    if summary.get("colours_differ"):
        print(f"  {colour_headline(summary)}")
    if "solved_first_moves" in summary:
        print(f"  {solved_line(summary['solved_first_moves'], game)}")
    if "engine" in summary:
        print(f"  {engine_line(summary['engine'])}")
        for failure in summary["engine"]["engine_failures"]:
            print(f"  game {failure['game']}: {failure['ended']}: {failure['detail']}")


def _from_solved_first_moves(args, game) -> bool:
    """Games from the solved Hex 7x7 first moves, each played with both colours."""
    every_move = args.openings == FIRST_MOVES and args.opening_plies == 0
    return every_move and solved_openings.applies(game) and args.games % (2 * game.num_cells) == 0


def solved_line(kept: dict, game) -> str:
    """Of the positions each side held as a win (by the solved first moves), those it lost."""

    def lost(side):
        parts = [
            f"as {colour.capitalize()}: {' '.join(map(game.action_to_string, cells))}"
            for colour in ("black", "white")
            if (cells := side[f"lost_as_{colour}"])
        ]
        listed = f" ({'; '.join(parts)})" if parts else ""
        return f"{side['lost']} of its {side['won_positions']} won positions{listed}"

    return (
        f"from the solved first moves: the agent lost {lost(kept['agent'])}; the opponent "
        f"lost {lost(kept['opponent'])}"
    )


def engine_line(engine: dict) -> str:
    """How an engine match's games ended, the engine's verdicts, seconds a move."""
    endings = ", ".join(f"{kind} {count}" for kind, count in sorted(engine["endings"].items()))
    differ = engine["verdicts_differ"]
    verdicts = (
        f"the engine's verdict asked {engine['verdicts_asked']}, differs in "
        f"{len(differ)}{' (games ' + ', '.join(map(str, differ)) + ')' if differ else ''}"
        if engine["verdicts_asked"]
        else "no verdict asked"
    )
    return (
        f"ended: {endings}; {verdicts}; seconds a move: agent {engine['agent_seconds_per_move']}, "
        f"engine {engine['engine_seconds_per_move']}; {engine['plies']} plies a game"
    )


def colour_headline(summary: dict) -> str:
    """The weaker colour first, for a match whose two colours' 95% intervals are apart: one
    score would hide that the agent is weak on one side."""
    colours = [
        (summary[f"as_{c}"], c.capitalize(), summary[f"{c}_low"], summary[f"{c}_high"])
        for c in ("black", "white")
    ]
    (weak, weak_name, weak_low, weak_high), (strong, strong_name, low, high) = sorted(colours)
    return (
        f"as {weak_name} only {100 * weak:.1f}% [{100 * weak_low:.1f}, {100 * weak_high:.1f}], "
        f"as {strong_name} {100 * strong:.1f}% [{100 * low:.1f}, {100 * high:.1f}]: "
        "the colours differ beyond their 95% intervals"
    )


def main(argv=None) -> int:
    try:
        args = _parse(argv)
        sharding.use_cpu_cores([args.games // 2], args.cpu_devices)
        mesh = sharding.batch_mesh() if jax.device_count() > 1 else None
        every_step = args.all_steps or args.elo
        steps = restore.checkpoint_steps(args.checkpoint) if every_step else [args.step]
        if not steps:
            raise CheckpointError(f"no checkpoint in {args.checkpoint}")
        latest = _load(args, steps[-1])
        game = latest.game
        specs = args.opponent or ["random"]
        opponents = _opponents(specs, game, args)
        openings = _openings(args, game)
        positions = [game.from_moves(moves) for moves in args.position]
        _check_game_flags(args, latest, specs)
        if args.puzzles and any(_searches(spec) for spec in specs):
            raise ValueError("--puzzles takes baseline opponents only (random, greedy, mcts:N)")
        engine_given = any(engines.is_engine(spec) for spec in specs)
        if engine_given and (args.elo or args.solver_accuracy or args.puzzles):
            raise ValueError(
                "engines (gtp:, gomocup:) play matches; --elo, --solver-accuracy and --puzzles "
                "take hexjax's own opponents"
            )
        if args.move_time and not args.puzzles and not all(map(engines.is_engine, specs)):
            raise ValueError(
                "--move-time applies to matches against engines (gtp:, gomocup:) and to "
                "--puzzles; hexjax's own opponents play batched games by --simulations"
            )
        if args.move_time and not latest.algorithm.searches:
            raise ValueError(f"--move-time applies to agents that search, not to {latest.source}")
    except (ValueError, CheckpointError, models.ModelError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    out_dir = args.workdir
    out_dir.mkdir(parents=True, exist_ok=True)
    print(f"{game!r}, agent: {args.checkpoint or latest.source} ({latest.label})")
    if latest.search is not None:
        search = latest.search
        considered = (
            "" if search.policy == "puct" else f", {search.max_considered_actions} considered"
        )
        print(f"search: {search.policy}, {search.num_simulations} simulations{considered}")
    try:
        if args.elo:
            record = _elo(args, latest, steps, opponents, openings, mesh)
        elif args.solver_accuracy:
            record = _solver_accuracy(args, latest, opponents, openings, mesh)
        elif args.puzzles:
            record = _puzzles(args, latest, specs)
        elif args.solved_openings:
            record = _solved_openings(args, latest)
        else:
            record = _matches(args, latest, steps, opponents, openings, mesh)
    except (CheckpointError, engines.EngineFailure) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    plots.agent_heatmaps(
        game,
        latest.net,
        latest.params,
        latest.search,
        [game.new_state(), *positions],
        out_dir / "plots",
        q_values=latest.algorithm.name == "dqn",
    )
    out = pathlib.Path(args.out or out_dir / "evaluation.json")
    out.parent.mkdir(parents=True, exist_ok=True)  # --out may name a folder not made yet
    out.write_text(json.dumps(record, indent=2))
    return 0


def _openings(args, game):
    """The --openings move lists (int32[M, L]) or None; warns when the games do not play each
    one equally often."""
    if not args.openings:
        return None
    if args.openings == FIRST_MOVES:
        openings = arena.first_move_openings(game)
    elif args.openings.startswith(FIRST_MOVES + ":"):
        count = args.openings.partition(":")[2]
        if not count.isdigit():
            raise ValueError(f"--openings {args.openings}: expected first-moves:K, K a number")
        openings = arena.first_move_openings(game, int(count))
    else:
        openings = arena.load_openings(game, args.openings)
    if (args.games // 2) % len(openings):
        print(
            f"note: {len(openings)} openings do not divide {args.games // 2} games a colour; "
            f"some are played once more than others (--games {2 * len(openings)} plays each "
            "once with each colour)",
            file=sys.stderr,
        )
    return openings


def _settings(args, game) -> dict:
    return {
        "checkpoint": args.checkpoint,
        "model": args.model,
        "model_dir": args.model_dir if args.model else None,
        "game": repr(game),
        "simulations": args.simulations,
        "move_time": args.move_time,
        "timed_search": args.timed_search if args.move_time else None,
        "solver": not args.no_solver if args.move_time else None,
        "considered_actions": args.considered_actions,
        "search": args.search,
        "opening_plies": args.opening_plies,
        "openings": args.openings,
        "games": args.games,
    }


def _matches(args, latest: TrainedAgent, steps, opponents, openings, mesh) -> dict:
    """The agent (each kept checkpoint with --all-steps) against every opponent."""
    game = latest.game
    matches = {
        spec: _engine_match(args, game, opponent, openings)
        if engines.is_engine(spec)
        else arena.arena_in_chunks(
            game,
            latest.make_player,
            opponent.make_player,
            args.games,
            args.opening_plies,
            openings=openings,
            mesh=mesh,
        )
        for spec, opponent in opponents.items()
    }
    header = f"{'opponent':<34} {'games':>5} {'W':>4} {'D':>4} {'L':>4} {'score':>7}"
    print(f"{header}  95% interval   Black   White  secs")
    progress = ProgressLine(every=5.0)
    evaluations = []
    for step in steps:
        agent = _at_step(args, latest, steps, step)
        key = jax.random.key(args.seed)  # the same openings for every checkpoint
        results = {}
        for spec, play in matches.items():
            key, match_key = jax.random.split(key)
            label = spec if not args.all_steps else f"{spec} @ {agent.minutes:.1f} min"
            start = time.monotonic()

            def report(finished, total, label=label, start=start):
                seconds = time.monotonic() - start
                progress.update(f"{label}: {finished}/{total} games over, {seconds:.0f} s")

            if engines.is_engine(spec):
                games = play(agent, match_key, report)
                engine_games, games = games, _as_arena_games(games, game)
            else:
                games = play(agent.params, opponents[spec].params, match_key, report)
            progress.close(clear=True)
            summary = arena.summarize(np.asarray(games.scores))
            summary["seconds"] = round(time.monotonic() - start, 1)
            if engines.is_engine(spec):
                summary["engine"] = engine_match.summary(engine_games)
            if _from_solved_first_moves(args, game):
                summary["solved_first_moves"] = solved_openings.won_positions_lost(
                    np.asarray(games.moves)[:, 0],
                    np.arange(args.games) < args.games // 2,
                    np.asarray(games.scores),
                )
            results[spec] = summary
            _print_row(label, summary, game)
            if args.records:
                name = f"{_file_name(spec)}" + (f"@{step}" if args.all_steps else "")
                records = args.workdir / "records" / f"{name}.txt"
                records.parent.mkdir(parents=True, exist_ok=True)
                arena.write_records(game, games.moves, records)
            if args.sgf:
                stem = f"{_file_name(spec)}" + (f"@{step}" if args.all_steps else "")
                who = args.checkpoint or agent.source
                name = f"{who} ({agent.label})" + (f" step {step}" if step else "")
                if engines.is_engine(spec):
                    engine_match.write_sgf(game, engine_games, args.sgf, stem, name, spec)
                else:
                    sgf.write_arena_games(game, games.moves, args.sgf, stem, name, spec)
        evaluations.append({"step": step, "minutes": round(agent.minutes, 2), "results": results})
    if args.all_steps:
        plots.score_curve(evaluations, args.workdir / "plots" / "curve.png")
        return {**_settings(args, game), "evaluations": evaluations}
    return {**_settings(args, game), **evaluations[0]}


def _engine_match(args, game, start_engine, openings):
    """A function (agent, key, report) -> [EngineGame] playing the agent against an engine,
    on the --openings or on random ones (the same for every checkpoint with --all-steps)."""
    starts = ((),) if openings is None else np.asarray(openings).tolist()
    rows = engine_match.random_openings(game, args.games // 2, args.opening_plies, args.seed,
                                        starts)  # fmt: skip

    def play(agent: TrainedAgent, key, report):
        if args.move_time:
            agent_move = _timed_moves(agent, args.move_time, args.timed_search, not args.no_solver)
        else:
            move = _one_position(agent)
            move(game.from_moves(rows[0]), key)  # compiled before any move is timed
            agent_move = lambda state: move(state, key)  # noqa: E731
        return engine_match.play_engine_match(
            game, agent_move, start_engine, rows, args.games, jobs=args.engine_jobs, report=report
        )

    return play


def _one_position(agent: TrainedAgent):
    """(state, key) -> the agent's action in one position, compiled once."""
    player = agent.make_player(agent.params)

    @jax.jit
    def choose(state, key):
        batch = jax.tree.map(lambda x: x[None], state)
        return player(jax.random.fold_in(key, state.step_count), batch)[0]

    return lambda state, key: int(choose(state, key))


def _timed_moves(agent: TrainedAgent, seconds: float, search: str = "kept", solve: bool = True):
    """state -> the agent's action within `seconds`, as the engine front ends play under a
    clock (`SearchClock` with `search`: kept, fresh or counts; up to the agent's --simulations),
    everything compiled before the first move."""
    player = play_agent.Agent(
        agent.config, agent.params, agent.source, agent.simulations,
        considered_actions=agent.considered_actions, search_policy=agent.search_policy,
    )  # fmt: skip
    timer = clock.SearchClock(agent.simulations, search=search, solve=solve)
    timer.prepare(player)
    timer.wait()
    return lambda state: timer.move(player, state, seconds).action


def _as_arena_games(games, game) -> arena.ArenaGames:
    """The arena's form of an engine match's games: scores, and moves padded with -1."""
    moves = np.full((len(games), game.max_plies), -1, np.int32)
    for row, played in zip(moves, games, strict=True):
        row[: len(played.actions)] = played.actions
    return arena.ArenaGames(np.asarray([g.score for g in games], np.float32), moves)


def _elo(args, latest: TrainedAgent, steps, opponents, openings, mesh) -> dict:
    """Round robin between every kept checkpoint and the opponents; Elo with random = 0."""
    game = latest.game
    entrants, minutes = {}, {}
    for step in steps:
        agent = _at_step(args, latest, steps, step)
        name = f"step {step}"
        entrants[name] = agent.entrant()
        minutes[name] = agent.minutes
    if "random" not in opponents:
        opponents = {"random": restore.opponent("random", game), **opponents}
    entrants.update(opponents)
    print(f"round robin: {len(entrants)} entrants, {args.games} games a pair")

    def report(match: elo.Match) -> None:
        print(f"  {match.first:>14} vs {match.second:<14} {100 * match.score / match.games:6.1f}%")

    matches = tournament.round_robin(
        game,
        entrants,
        jax.random.key(args.seed),
        args.games,
        args.opening_plies,
        openings=openings,
        mesh=mesh,
        report=report,
    )
    ratings = elo.fit(matches, anchor="random")
    print(f"{'entrant':<34} {'Elo':>7} {'± 2 s.e.':>9}  training minutes")
    for name in sorted(entrants, key=lambda n: ratings.elo[n]):
        trained = f"{minutes[name]:.1f}" if name in minutes else "-"
        print(f"{name:<34} {ratings.elo[name]:7.0f} {2 * ratings.stderr[name]:9.0f}  {trained}")
    plots.elo_curve(
        [
            {"minutes": minutes[n], "elo": ratings.elo[n], "stderr": ratings.stderr[n]}
            for n in minutes
        ],
        {n: ratings.elo[n] for n in opponents},
        args.workdir / "plots" / "elo.png",
    )
    return {
        **_settings(args, game),
        "elo": ratings.elo,
        "stderr": ratings.stderr,
        "minutes": minutes,
        "matches": [m._asdict() for m in matches],
    }


_SOLVER_MAX_EMPTY = 25  # every position of a 5x5 game


def _solver_accuracy(args, latest: TrainedAgent, opponents, openings, mesh) -> dict:
    """Positions from the agent's games against itself (varied by the openings); at each, does
    a player pick a winning move when one exists? The exact solver knows the answer."""
    game = latest.game
    agent = latest.make_player(latest.params)
    # The arena plays each opening with both colours: between two copies of one deterministic
    # agent those games are the same, so play twice as many and keep the first half.
    games = jax.jit(
        lambda k: arena.arena_games(
            game, agent, agent, k, 2 * args.games, args.opening_plies, openings=openings, mesh=mesh
        )
    )(jax.random.key(args.seed))
    states = arena.positions_of_games(game, games.moves[: args.games])
    # The solver's time grows steeply with the empty cells: 5x5 positions take well under a
    # second, early 7x7 ones minutes each. So on bigger boards only late positions are solved.
    solvable = (np.asarray(states.board) == 0).sum(axis=(1, 2)) <= _SOLVER_MAX_EMPTY
    states = jax.tree.map(lambda x: x[jnp.asarray(solvable)], states)
    boards = np.asarray(states.board)
    to_plays = np.asarray(states.current_player)
    contenders = {
        f"agent ({latest.label})": latest.entrant(),
        "agent's network alone": Entrant(
            "network", players.make_network_player(game, latest.net), latest.params
        ),
        **opponents,
    }
    solver = hex_solver.HexSolver(game.size)
    print(
        f"{len(boards)} positions with at most {_SOLVER_MAX_EMPTY} empty cells from "
        f"{args.games} games of the agent against itself"
    )
    print(f"{'player':<34} {'positions':>9} {'correct':>8} {'accuracy':>9}  secs")
    results = {}
    for name, contender in contenders.items():
        start = time.monotonic()
        choose = jax.jit(lambda p, k, c=contender: c.make_player(p)(k, states))
        actions = np.asarray(choose(contender.params, jax.random.key(args.seed + 1)))
        result = hex_solver.accuracy(solver, boards, to_plays, actions)
        result["seconds"] = round(time.monotonic() - start, 1)
        results[name] = result
        print(
            f"{name:<34} {result['positions']:>9} {result['correct']:>8} "
            f"{100 * result['accuracy']:>8.1f}%  {result['seconds']}"
        )
    return {**_settings(args, game), "positions": len(boards), "solver_accuracy": results}


def _puzzles(args, latest: TrainedAgent, specs) -> dict:
    """The share of the tactics suite each player solves, per category. The agent plays the
    puzzles of its own board and rule; baselines (rebuilt for each board) play all of them."""
    suite = puzzles.load_puzzles()
    own = (latest.game.size, latest.game.rule)

    def agent(make_player):
        return lambda game: make_player(latest.params) if (game.size, game.rule) == own else None

    contenders = {
        f"agent ({latest.label})": agent(latest.make_player),
        "agent's network alone": agent(players.make_network_player(latest.game, latest.net)),
    }
    for spec in specs:
        contenders[spec] = lambda game, s=spec: restore.opponent(s, game).make_player(None)
    played = {name: puzzles.solved(suite, player) for name, player in contenders.items()}
    if args.move_time:  # one position at a time, as the engines play under a clock
        move = _timed_moves(latest, args.move_time, args.timed_search, not args.no_solver)
        played[f"agent, {args.move_time:g} s a move"] = puzzles.solved_one_at_a_time(
            suite, lambda game: move if (game.size, game.rule) == own else None
        )
    categories = list(puzzles.CATEGORIES)
    print(f"{'player':<34} " + " ".join(f"{c:>13}" for c in categories))
    results, by_board = {}, {}
    for name, hits in played.items():
        rates = puzzles.solve_rates(suite, None, hits)
        results[name] = rates
        by_board[name] = puzzles.board_rates(suite, hits)
        cells = [
            f"{rates[c]['solved']:>5}/{rates[c]['puzzles']:<3}" if c in rates else "-"
            for c in categories
        ]
        print(f"{name:<34} " + " ".join(f"{cell:>13}" for cell in cells))
    # Per board and rule: win in one + forced block, and the wins by continuous fours (vcf3,
    # four_three, vcf5; renju traps under their goal), the figures the targets are set in.
    groups = [*puzzles.GROUPS, "all"]
    print(f"\n{'player':<34} {'board':<16} " + " ".join(f"{g:>18}" for g in groups))
    for name, boards in by_board.items():
        for board, rates in boards.items():
            cells = [
                f"{r['solved']}/{r['puzzles']} {100 * r['accuracy']:5.1f}%" if r["puzzles"] else "-"
                for r in (rates[g] for g in groups)
            ]
            print(f"{name:<34} {board:<16} " + " ".join(f"{cell:>18}" for cell in cells))
    return {**_settings(args, latest.game), "puzzles": results, "puzzles_by_board": by_board}


def _solved_openings(args, latest: TrainedAgent) -> dict:
    """Hex 7x7: after each of the 49 first moves, does the value's sign (the network's, and the
    agent's search's) say who wins as the published solution does?"""
    game = latest.game
    first_moves = jnp.arange(game.num_actions, dtype=jnp.int32)
    states = jax.vmap(lambda a: game.step(game.new_state(), a))(first_moves)
    _, network_values = jax.jit(network_lib.apply, static_argnums=0)(
        latest.net, latest.params, jax.vmap(game.observe)(states)
    )
    values = {"network alone": network_values}
    if latest.search is not None:
        search = search_lib.make_search(game, latest.net, latest.search)
        result = jax.jit(search)(latest.params, jax.random.key(args.seed), states)
        values[f"agent ({latest.label})"] = result.value
    print(f"{'value':<34} {'openings':>8} {'correct':>8} {'winning':>8}  wrong")
    results = {}
    for name, value in values.items():
        result = solved_openings.score(np.asarray(value))
        results[name] = result
        wrong = " ".join(game.action_to_string(a) for a in result["wrong"]) or "-"
        print(
            f"{name:<34} {result['openings']:>8} {result['correct']:>8} "
            f"{result['correct_winning']:>4}/{result['winning']:<3}  {wrong}"
        )
    for name, result in results.items():
        print(f"\n{name}: the second player's value after each first move (! its sign is wrong)")
        print("\n".join(solved_openings.board(result["values"], result["wrong"])))
    return {**_settings(args, game), "solved_openings": results}


def _file_name(spec: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in spec)


if __name__ == "__main__":
    sys.exit(main())
