"""AlphaZero, DQN and PPO for the same wall-clock budget: `python experiments/compare.py`.

For each game (default Hex 7x7 and Othello 8x8) each algorithm trains for `--minutes` (the same
host loop, the `--preset` config of each, periodic evaluation off so the whole budget trains),
then plays `--eval-games` arena games (colours alternated, paired random openings) against the
random player, the greedy player and rollout MCTS with `--mcts` simulations, and a head-to-head
round robin against the other two algorithms. AlphaZero searches `--simulations` per move; DQN
and PPO play their network's best legal action. Prints a Markdown table and writes it with the
raw results to <workdir>/comparison.md and comparison.json. Runs are kept in
<workdir>/<game><size>/<algorithm>; `--reuse` evaluates runs already there instead of training.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

import jax
import numpy as np

from hexjax import sharding
from hexjax.alphazero.search import PLAY_SIMULATIONS
from hexjax.base import Entrant
from hexjax.evaluation import matches, tournament
from hexjax.evaluation.scores import summarize
from hexjax.games import available_games
from hexjax.training import algorithms, config_io, loop, restore
from hexjax.training.checkpoint import CheckpointError

ALGORITHMS = ("alphazero", "dqn", "ppo")


def _game_spec(text: str) -> tuple[str, int]:
    name, _, size = text.partition(":")
    if name not in available_games() or not size.isdigit():
        raise argparse.ArgumentTypeError(f"expected GAME:SIZE such as hex:7, got {text!r}")
    return name, int(size)


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--game", type=_game_spec, action="append", help="GAME:SIZE, repeatable "
        "(default: hex:7 and othello:8)"
    )  # fmt: skip
    parser.add_argument(
        "--minutes", type=float, default=loop.DEFAULT_MINUTES, help="training budget each"
    )
    parser.add_argument("--iterations", type=int, help="or an iteration budget each")
    parser.add_argument("--preset", choices=["tiny", "cpu", "accelerator"], default="cpu")
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--mcts", type=int, default=1000, help="rollout MCTS simulations")
    parser.add_argument(
        "--simulations", type=int, default=PLAY_SIMULATIONS, help="AlphaZero's search"
    )
    parser.add_argument("--workdir", default="runs/compare")
    parser.add_argument("--reuse", action="store_true", help="evaluate the runs already there")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    args.game = args.game or [("hex", 7), ("othello", 8)]
    if args.eval_games < 2 or args.eval_games % 2:
        raise ValueError(f"--eval-games must be even and at least 2, got {args.eval_games}")
    if args.mcts < 1 or args.simulations < 1:
        raise ValueError("--mcts and --simulations must be positive")
    return args


def _config(algorithm: str, preset: str, game: str, size: int):
    trainer = algorithms.get(algorithm)
    return trainer, config_io.replace(
        trainer.presets[preset], {"game.name": game, "game.size": size}
    )


def _train(args, trainer, config, workdir: pathlib.Path) -> None:
    options = loop.RunOptions(
        minutes=None if args.iterations else args.minutes,
        iterations=args.iterations,
        eval_every=0,  # the whole budget trains; the arena below evaluates
        checkpoint_every=10**9,
        checkpoint_minutes=10**9,  # one checkpoint, at the end
        quiet=True,
    )
    print(f"training {trainer.name} on {config.game.make()!r} in {workdir}", file=sys.stderr)
    loop.run(config, workdir, options, trainer)


def _trained(workdir: pathlib.Path) -> bool:
    try:
        return bool(restore.checkpoint_steps(workdir))
    except CheckpointError:  # no checkpoint directory yet
        return False


def _entrant(args, workdir: pathlib.Path) -> tuple[Entrant, dict]:
    agent = restore.load_trained(workdir, simulations=args.simulations)
    facts = {"iterations": agent.iteration, "minutes": round(agent.minutes, 2)}
    return agent.entrant(agent.algorithm.name), facts


def _versus_baselines(args, game, entrant, key, mesh) -> dict:
    specs = ("random", "greedy", f"mcts:{args.mcts}")
    opponents = {name: restore.opponent(name, game) for name in specs}
    played = matches.each_match(
        matches.matches(game, entrant.make_player, opponents, args.eval_games, mesh=mesh),
        key,
        entrant.params,
    )
    results = {}
    for name, games, seconds in played:
        results[name] = {**summarize(np.asarray(games.scores)), "seconds": seconds}
    return results


def _compare_game(args, name: str, size: int, mesh) -> dict:
    entrants, facts, results = {}, {}, {}
    for algorithm in ALGORITHMS:
        trainer, config = _config(algorithm, args.preset, name, size)
        workdir = pathlib.Path(args.workdir) / f"{name}{size}" / algorithm
        if not _trained(workdir):
            _train(args, trainer, config, workdir)
        elif not args.reuse:
            raise ValueError(
                f"{workdir} already holds a run: pass --reuse to evaluate it, or choose "
                "another --workdir"
            )
        entrants[algorithm], facts[algorithm] = _entrant(args, workdir)
    game = _config("alphazero", args.preset, name, size)[1].game.make()
    key = jax.random.key(args.seed)
    for algorithm, entrant in entrants.items():
        print(f"evaluating {algorithm} on {game!r}", file=sys.stderr)
        results[algorithm] = _versus_baselines(args, game, entrant, key, mesh)
    head_key = jax.random.fold_in(key, 1)
    pairs = tournament.round_robin(game, entrants, head_key, args.eval_games, 2, mesh=mesh)
    head_to_head = {a: {} for a in entrants}
    for match in pairs:
        head_to_head[match.first][match.second] = match.score / match.games
        head_to_head[match.second][match.first] = 1 - match.score / match.games
    label = f"{name.capitalize()} {size}x{size}"
    return {
        "game": repr(game),
        "label": label,
        "runs": facts,
        "baselines": results,
        "head_to_head": head_to_head,
    }


def _table(args, comparisons: list[dict]) -> str:
    mcts = f"mcts:{args.mcts}"
    header = (
        f"| game | algorithm | iterations | vs random | vs greedy | vs MCTS-{args.mcts} | "
        + " | ".join(f"vs {a}" for a in ALGORITHMS)
        + " |"
    )
    lines = [header, "|" + "---|" * (6 + len(ALGORITHMS))]
    for comparison in comparisons:
        for algorithm in ALGORITHMS:
            scores = comparison["baselines"][algorithm]
            cells = [f"{100 * scores[n]['score']:.1f}%" for n in ("random", "greedy", mcts)]
            versus = comparison["head_to_head"][algorithm]
            heads = [
                "-" if other == algorithm else f"{100 * versus[other]:.1f}%" for other in ALGORITHMS
            ]
            iterations = comparison["runs"][algorithm]["iterations"]
            row = [comparison["label"], algorithm, str(iterations), *cells, *heads]
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    try:
        args = _parse(argv)
        sizes = set()
        for name, size in args.game:
            for algorithm in ALGORITHMS:
                trainer, config = _config(algorithm, args.preset, name, size)
                config.game.make()  # a bad board size fails here, with the game's message
                sizes.update(trainer.batch_sizes(config))
        sharding.use_cpu_cores(sorted(sizes | {args.eval_games // 2}))
        mesh = sharding.batch_mesh() if jax.device_count() > 1 else None
        comparisons = [_compare_game(args, name, size, mesh) for name, size in args.game]
    except (ValueError, CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    table = _table(args, comparisons)
    print(table)
    out = pathlib.Path(args.workdir)
    out.mkdir(parents=True, exist_ok=True)
    settings = {k: v for k, v in vars(args).items() if k != "game"}
    (out / "comparison.md").write_text(table + "\n")
    record = {"settings": settings, "games": comparisons}
    (out / "comparison.json").write_text(json.dumps(record, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
