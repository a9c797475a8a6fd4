"""Evaluate a trained agent in the arena: `python experiments/evaluate.py --checkpoint runs/hex7
--opponent mcts:1000 --games 200`.

Opponents by spec: `random`, `greedy`, `mcts:N` (UCT with random playouts, N simulations per move),
`checkpoint:PATH[@STEP]` (another run's agent, as it plays). An AlphaZero agent searches
`--simulations` per move deterministically (Gumbel without noise); a DQN or PPO run's agent
(train_dqn.py, train_ppo.py) plays its network's best legal action, without search. Games alternate
colours, and each opening (`--opening-plies` random plies, the lines of an `--openings` file, or
`--openings first-moves`: every legal first move) is played once with each colour. Prints a
table and writes JSON (default: <checkpoint>/evaluation.json); `--records` keeps every game's moves
(<checkpoint>/records/<opponent>.txt, loadable with `game.from_moves`), `--sgf DIR` each game as
an SGF file (DIR/<opponent>-N.sgf; Hex and Gomoku). `--all-steps` evaluates
every kept checkpoint of the run and draws the score against training minutes
(<checkpoint>/plots/curve.png). `--elo` plays a round robin between every kept checkpoint and the
opponents and fits Elo ratings, random = 0 (<checkpoint>/plots/elo.png). Every evaluation also
draws the agent's policy and value on the first move (plots/first_move.png) and on each `--position
MOVES` (plots/position_K.png).
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
from hexjax.alphazero.search import PLAY_SIMULATIONS
from hexjax.base import Entrant
from hexjax.evaluation import arena, elo, hex_solver, players, plots, puzzles, sgf, tournament
from hexjax.games import applies_only
from hexjax.training import restore
from hexjax.training.checkpoint import CheckpointError
from hexjax.training.progress import ProgressLine
from hexjax.training.restore import TrainedAgent

FIRST_MOVES = "first-moves"  # --openings: every legal first move
DEFAULT_GAMES = 200
# The flags of the arena games, which the puzzles (fixed positions, no games) do not play.
_ARENA_FLAGS = ("games", "opening_plies", "openings", "records")


def _at_step(args, latest: TrainedAgent, steps, step) -> TrainedAgent:
    """The agent at a kept step; the latest one is restored once, in `main`."""
    if step == steps[-1]:
        return latest
    return restore.load_agent(args.checkpoint, step, args.simulations)


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", required=True, help="a run's workdir")
    parser.add_argument("--step", type=int, help="checkpoint step (default: the newest readable)")
    parser.add_argument(
        "--all-steps", action="store_true", help="every kept checkpoint, and the curve"
    )
    parser.add_argument("--opponent", action="append", help="repeatable; default: random")
    parser.add_argument("--games", type=int, help=f"a match (default {DEFAULT_GAMES})")
    parser.add_argument(
        "--simulations", type=int, help=f"the agent's search (default {PLAY_SIMULATIONS})"
    )
    parser.add_argument(
        "--opening-plies",
        type=int,
        help="uniformly random plies before the players take over "
        "(default: 2, or 0 after --openings)",
    )
    parser.add_argument(
        "--openings",
        help="a file of openings, one move list a line, or `first-moves`: every legal first move",
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
    args.simulations = PLAY_SIMULATIONS if args.simulations is None else args.simulations
    if args.games < 2 or args.games % 2:
        raise ValueError(f"--games must be even and at least 2, got {args.games}")
    if args.cpu_devices is not None and args.cpu_devices < 1:
        raise ValueError(f"--cpu-devices must be at least 1, got {args.cpu_devices}")
    if sum((args.all_steps, args.elo, args.solver_accuracy, args.puzzles)) > 1:
        raise ValueError(
            "--all-steps, --elo, --solver-accuracy and --puzzles are separate evaluations"
        )
    if (args.all_steps or args.elo) and args.step is not None:
        raise ValueError("give --step, or --all-steps / --elo (every kept checkpoint), not both")
    if args.opening_plies is None:
        args.opening_plies = 0 if args.openings else 2
    if args.opening_plies < 0 or args.simulations < 1:
        raise ValueError("--opening-plies must not be negative and --simulations positive")
    return args


def _check_mode_flags(args) -> None:
    """Refuse flags the chosen evaluation would ignore."""
    if args.puzzles:
        for name in _ARENA_FLAGS:
            if getattr(args, name) not in (None, False):
                flag = "--" + name.replace("_", "-")
                raise ValueError(f"{flag} applies to arena games, not to --puzzles")
    if args.records and (args.elo or args.solver_accuracy):
        mode = "--elo" if args.elo else "--solver-accuracy"
        raise ValueError(f"--records applies to the matches against --opponent, not to {mode}")
    if args.sgf and (args.elo or args.solver_accuracy or args.puzzles):
        raise ValueError("--sgf writes the matches against --opponent, not other evaluations")


def _check_game_flags(args, agent: TrainedAgent, specs) -> None:
    """Refuse flags that the agent's game, or an agent without search, would ignore."""
    game = agent.game
    if args.solver_accuracy and (game.name != "hex" or game.size > hex_solver.MAX_SIZE):
        size = hex_solver.MAX_SIZE
        raise ValueError(applies_only("--solver-accuracy", [f"hex up to {size}x{size}"], game))
    if args.puzzles and game.name != "gomoku":
        raise ValueError(applies_only("--puzzles", ["gomoku"], game))
    if args.sgf:
        sgf.check_writable(game)
    searching_opponent = any(spec.startswith("checkpoint:") for spec in specs)
    if args.simulations_given and not agent.algorithm.searches and not searching_opponent:
        raise ValueError(
            f"--simulations applies to agents that search; this {agent.algorithm.name} run "
            "plays its network's best move"
        )


def _print_row(label: str, summary: dict) -> None:
    print(
        f"{label:<34} {summary['games']:>5} {summary['wins']:>4} {summary['draws']:>4} "
        f"{summary['losses']:>4} {100 * summary['score']:>6.1f}%  "
        f"[{100 * summary['low']:.1f}, {100 * summary['high']:.1f}]  "
        f"{100 * summary['as_black']:>6.1f}% {100 * summary['as_white']:>6.1f}%  "
        f"{summary['seconds']}"
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
        latest = restore.load_agent(args.checkpoint, steps[-1], args.simulations)
        game = latest.game
        specs = args.opponent or ["random"]
        opponents = {spec: restore.opponent(spec, game, args.simulations) for spec in specs}
        openings = _openings(args, game)
        positions = [game.from_moves(moves) for moves in args.position]
        _check_game_flags(args, latest, specs)
        if args.puzzles and any(spec.startswith("checkpoint:") for spec in specs):
            raise ValueError("--puzzles takes baseline opponents only (random, greedy, mcts:N)")
    except (ValueError, CheckpointError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    out_dir = pathlib.Path(args.checkpoint)
    print(f"{game!r}, agent: {args.checkpoint} ({latest.label})")
    try:
        if args.elo:
            record = _elo(args, latest, steps, opponents, openings, mesh)
        elif args.solver_accuracy:
            record = _solver_accuracy(args, latest, opponents, openings, mesh)
        elif args.puzzles:
            record = _puzzles(args, latest, specs)
        else:
            record = _matches(args, latest, steps, opponents, openings, mesh)
    except CheckpointError as error:
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
    out.write_text(json.dumps(record, indent=2))
    return 0


def _openings(args, game):
    """The --openings move lists (int32[M, L]) or None; warns when the games do not play each
    one equally often."""
    if not args.openings:
        return None
    if args.openings == FIRST_MOVES:
        openings = arena.first_move_openings(game)
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
        "game": repr(game),
        "simulations": args.simulations,
        "opening_plies": args.opening_plies,
        "openings": args.openings,
        "games": args.games,
    }


def _matches(args, latest: TrainedAgent, steps, opponents, openings, mesh) -> dict:
    """The agent (each kept checkpoint with --all-steps) against every opponent."""
    game = latest.game
    matches = {
        spec: arena.arena_in_chunks(
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

            games = play(agent.params, opponents[spec].params, match_key, report)
            progress.close(clear=True)
            summary = arena.summarize(np.asarray(games.scores))
            summary["seconds"] = round(time.monotonic() - start, 1)
            results[spec] = summary
            _print_row(label, summary)
            if args.records:
                name = f"{_file_name(spec)}" + (f"@{step}" if args.all_steps else "")
                records = pathlib.Path(args.checkpoint) / "records" / f"{name}.txt"
                records.parent.mkdir(parents=True, exist_ok=True)
                arena.write_records(game, games.moves, records)
            if args.sgf:
                stem = f"{_file_name(spec)}" + (f"@{step}" if args.all_steps else "")
                name = f"{args.checkpoint} ({agent.label})" + (f" step {step}" if step else "")
                sgf.write_arena_games(game, games.moves, args.sgf, stem, name, spec)
        evaluations.append({"step": step, "minutes": round(agent.minutes, 2), "results": results})
    if args.all_steps:
        plots.score_curve(evaluations, pathlib.Path(args.checkpoint) / "plots" / "curve.png")
        return {**_settings(args, game), "evaluations": evaluations}
    return {**_settings(args, game), **evaluations[0]}


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
        pathlib.Path(args.checkpoint) / "plots" / "elo.png",
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
    categories = list(puzzles.CATEGORIES)
    print(f"{'player':<34} " + " ".join(f"{c:>13}" for c in categories))
    results = {}
    for name, player_for in contenders.items():
        rates = puzzles.solve_rates(suite, player_for)
        results[name] = rates
        cells = [
            f"{rates[c]['solved']:>5}/{rates[c]['puzzles']:<3}" if c in rates else "-"
            for c in categories
        ]
        print(f"{name:<34} " + " ".join(f"{cell:>13}" for cell in cells))
    return {**_settings(args, latest.game), "puzzles": results}


def _file_name(spec: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in spec)


if __name__ == "__main__":
    sys.exit(main())
