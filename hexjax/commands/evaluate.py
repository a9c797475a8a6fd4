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

import json
import pathlib
import sys
import time

import jax
import numpy as np

from hexjax import sharding
from hexjax.base import Entrant
from hexjax.commands import evaluate_flags
from hexjax.commands.evaluate_modes import (
    at_step,
    load_agent,
    one_position,
    run_elo,
    run_puzzles,
    run_solved_openings,
    run_solver_accuracy,
    settings,
    timed_moves,
)
from hexjax.evaluation import (
    arena,
    engine_match,
    engines,
    plots,
    sgf,
    solved_openings,
)
from hexjax.evaluation.scores import summarize
from hexjax.play.agent import search_choices
from hexjax.training import models, restore
from hexjax.training.checkpoint import CheckpointError
from hexjax.training.progress import ProgressLine
from hexjax.training.restore import Trained
from hexjax.training.run_dir import RunDir


def _parse(argv):
    return evaluate_flags.parse(argv, __doc__.splitlines()[0])


FIRST_MOVES = "first-moves"  # --openings: every legal first move


def _engine_label(spec: str, setup: list[str]) -> str:
    return spec + (f" [{'; '.join(setup)}]" if setup else "")


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
    search = search_choices(args)
    return restore.opponent(spec, game, args.simulations, restore.from_model, **search)


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
        latest = load_agent(args, steps[-1])
        game = latest.game
        specs = args.opponent or ["random"]
        opponents = _opponents(specs, game, args)
        openings = _openings(args, game)
        positions = [game.from_moves(moves) for moves in args.position]
        evaluate_flags.check_game_flags(args, latest, specs)
        if args.puzzles and any(evaluate_flags.searches(spec) for spec in specs):
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
            record = run_elo(args, latest, steps, opponents, openings, mesh)
        elif args.solver_accuracy:
            record = run_solver_accuracy(args, latest, opponents, openings, mesh)
        elif args.puzzles:
            record = run_puzzles(args, latest, specs)
        elif args.solved_openings:
            record = run_solved_openings(args, latest)
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
        RunDir(out_dir).plots,
        q_values=latest.algorithm.q_values,
    )
    out = pathlib.Path(args.out or RunDir(out_dir).evaluation)
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


def _matches(args, latest: Trained, steps, opponents, openings, mesh) -> dict:
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
        agent = at_step(args, latest, steps, step)
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
            summary = summarize(np.asarray(games.scores))
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
                records = RunDir(args.workdir).records(name)
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
        plots.score_curve(evaluations, RunDir(args.workdir).curve_plot)
        return {**settings(args, game), "evaluations": evaluations}
    return {**settings(args, game), **evaluations[0]}


def _engine_match(args, game, start_engine, openings):
    """A function (agent, key, report) -> [EngineGame] playing the agent against an engine,
    on the --openings or on random ones (the same for every checkpoint with --all-steps)."""
    starts = ((),) if openings is None else np.asarray(openings).tolist()
    rows = engine_match.random_openings(game, args.games // 2, args.opening_plies, args.seed,
                                        starts)  # fmt: skip

    def play(agent: Trained, key, report):
        if args.move_time:
            agent_move = timed_moves(agent, args.move_time, args.timed_search, not args.no_solver)
        else:
            move = one_position(agent)
            move(game.from_moves(rows[0]), key)  # compiled before any move is timed
            agent_move = lambda state: move(state, key)  # noqa: E731
        return engine_match.play_engine_match(
            game, agent_move, start_engine, rows, args.games, jobs=args.engine_jobs, report=report
        )

    return play


def _as_arena_games(games, game) -> arena.ArenaGames:
    """The arena's form of an engine match's games: scores, and moves padded with -1."""
    moves = np.full((len(games), game.max_plies), -1, np.int32)
    for row, played in zip(moves, games, strict=True):
        row[: len(played.actions)] = played.actions
    return arena.ArenaGames(np.asarray([g.score for g in games], np.float32), moves)


def _file_name(spec: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in spec)


if __name__ == "__main__":
    sys.exit(main())
