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

from hexjax import sharding
from hexjax.commands import evaluate_flags, evaluate_matches
from hexjax.commands.evaluate_modes import (
    run_elo,
    run_puzzles,
    run_solved_openings,
    run_solver_accuracy,
)
from hexjax.commands.evaluate_options import Evaluation
from hexjax.evaluation import arena, engine_match, engines, plots, sgf
from hexjax.training import models, restore
from hexjax.training.checkpoint import CheckpointError
from hexjax.training.progress import ProgressLine
from hexjax.training.restore import Trained
from hexjax.training.run_dir import RunDir


def _parse(argv) -> Evaluation:
    return evaluate_flags.parse(argv, __doc__.splitlines()[0])


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
        evaluation = _parse(argv)
        sharding.use_cpu_cores([evaluation.games.games // 2], evaluation.cpu_devices)
        mesh = sharding.batch_mesh() if jax.device_count() > 1 else None
        checkpoint = evaluation.agent.checkpoint
        steps = restore.checkpoint_steps(checkpoint) if evaluation.every_step else [evaluation.step]
        if not steps:
            raise CheckpointError(f"no checkpoint in {checkpoint}")
        latest = evaluation.agent.load(steps[-1])
        game = latest.game
        opponents = evaluate_matches.opponents(evaluation, game)
        openings = evaluate_matches.openings(evaluation, game)
        positions = [game.from_moves(moves) for moves in evaluation.positions]
        evaluate_flags.check_game_flags(evaluation, latest)
    except (ValueError, CheckpointError, models.ModelError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    out_dir = evaluation.workdir
    out_dir.mkdir(parents=True, exist_ok=True)
    print(f"{game!r}, agent: {checkpoint or latest.source} ({latest.label})")
    if latest.search is not None:
        search = latest.search
        considered = (
            "" if search.policy == "puct" else f", {search.max_considered_actions} considered"
        )
        print(f"search: {search.policy}, {search.num_simulations} simulations{considered}")
    try:
        mode = evaluation.mode
        if mode == "elo":
            record = run_elo(evaluation, latest, steps, opponents, openings, mesh)
        elif mode == "solver_accuracy":
            record = run_solver_accuracy(evaluation, latest, opponents, openings, mesh)
        elif mode == "puzzles":
            record = run_puzzles(evaluation, latest)
        elif mode == "solved_openings":
            record = run_solved_openings(evaluation, latest)
        else:
            record = _matches(evaluation, latest, steps, opponents, openings, mesh)
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
    out = pathlib.Path(evaluation.out or RunDir(out_dir).evaluation)
    out.parent.mkdir(parents=True, exist_ok=True)  # --out may name a folder not made yet
    out.write_text(json.dumps(record, indent=2))
    return 0


def _matches(evaluation: Evaluation, latest: Trained, steps, opponents, openings, mesh) -> dict:
    """Play and print the matches, write their records; the JSON record."""
    game, all_steps = latest.game, evaluation.mode == "all_steps"
    header = f"{'opponent':<34} {'games':>5} {'W':>4} {'D':>4} {'L':>4} {'score':>7}"
    print(f"{header}  95% interval   Black   White  secs")
    progress = ProgressLine(every=5.0)
    started = {}

    def report(label, finished, total):
        seconds = time.monotonic() - started.setdefault(label, time.monotonic())
        progress.update(f"{label}: {finished}/{total} games over, {seconds:.0f} s")

    evaluations = {}
    played = evaluate_matches.play(evaluation, latest, steps, opponents, openings, mesh, report)
    for match in played:
        progress.close(clear=True)
        started.clear()
        agent = match.agent
        label = match.label if not all_steps else f"{match.label} @ {agent.minutes:.1f} min"
        _print_row(label, match.summary, game)
        stem = _file_name(match.label) + (f"@{match.step}" if all_steps else "")
        _write_games(evaluation, match, stem)
        entry = {"step": match.step, "minutes": round(agent.minutes, 2), "results": {}}
        evaluations.setdefault(match.step, entry)["results"][match.label] = match.summary
    evaluations = list(evaluations.values())
    if all_steps:
        plots.score_curve(evaluations, RunDir(evaluation.workdir).curve_plot)
        return {**evaluation.settings(game), "evaluations": evaluations}
    return {**evaluation.settings(game), **evaluations[0]}


def _write_games(evaluation: Evaluation, match: evaluate_matches.Played, stem: str) -> None:
    """--records and --sgf: the match's games as move lists and as SGF files."""
    game = match.agent.game
    if evaluation.records:
        records = RunDir(evaluation.workdir).records(stem)
        records.parent.mkdir(parents=True, exist_ok=True)
        arena.write_records(game, match.games.moves, records)
    if evaluation.sgf:
        who = evaluation.agent.checkpoint or match.agent.source
        name = f"{who} ({match.agent.label})" + (f" step {match.step}" if match.step else "")
        folder, opponent = evaluation.sgf, match.label
        if match.engine_games is not None:
            engine_match.write_sgf(game, match.engine_games, folder, stem, name, opponent)
        else:
            sgf.write_arena_games(game, match.games.moves, folder, stem, name, opponent)


def _file_name(spec: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in spec)


if __name__ == "__main__":
    sys.exit(main())
