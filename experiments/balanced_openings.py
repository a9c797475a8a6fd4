"""Balanced Gomoku and renju openings, judged by a strong engine: random openings of a few
stones near the centre, each evaluated by a Gomocup engine that reports its evaluation (Rapfi:
`MESSAGE ... Eval N ...`, a win rate of sigmoid(N / 250) with the classical config that
experiments/engines/build_engines.sh installs), kept where Black's win rate lies
within --tolerance of one half. One opening a line in hexjax's notation, with its value, for
`evaluate.py --openings FILE`: played with both colours, each gives each side the same chances.

    python experiments/balanced_openings.py --engine "gomocup:$HEXJAX_ENGINES/bin/pbrain-rapfi" \\
        --rule freestyle --count 20 --setup "INFO max_node 1000000" \\
        --out hexjax/data/openings/freestyle15.txt

Openings are drawn with `--stones` stones (Black, White, Black, ...) on the central
`--area` x `--area` square, one of each set of symmetric ones, and judged in turn until
`--count` are kept (or `--tries` are spent). The header of the file says how it was made.
"""

from __future__ import annotations

import argparse
import datetime
import math
import pathlib
import re
import shlex
import sys

import numpy as np

import hexjax
from hexjax.evaluation import engines

EVAL = re.compile(r"\bEval (-?\d+)\b")


def canonical(game, actions) -> tuple:
    """The same key for an opening and its mirror images (stones by colour, order aside)."""
    keys = []
    for symmetry in game.symmetries:
        mapped = [int(symmetry.action_map[a]) for a in actions]
        keys.append((tuple(sorted(mapped[0::2])), tuple(sorted(mapped[1::2]))))
    return min(keys)


def candidates(game, stones: int, area: int, rng):
    """Random openings on the central square, legal and still running, each once."""
    n, low = game.size, (game.size - area) // 2
    cells = [r * n + c for r in range(low, low + area) for c in range(low, low + area)]
    seen = set()
    while True:
        actions = [int(a) for a in rng.choice(cells, size=stones, replace=False)]
        key = canonical(game, actions)
        if key in seen:
            continue
        seen.add(key)
        try:
            state = game.from_moves(actions)
        except ValueError:  # a renju foul
            continue
        if not bool(state.terminated):
            yield actions


def black_win_rate(messages: list[str], black_to_move: bool, scaling: float) -> float | None:
    """Black's win rate from the engine's last reported evaluation (its side to move's view)."""
    values = [int(m.group(1)) for line in messages if (m := EVAL.search(line))]
    if not values:
        return None
    value = values[-1] if black_to_move else -values[-1]
    return 1 / (1 + math.exp(-value / scaling))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", required=True, help="gomocup:COMMAND (Rapfi)")
    parser.add_argument("--setup", action="append", default=[], help="INFO lines (repeatable)")
    parser.add_argument("--rule", default="freestyle", choices=("freestyle", "standard", "renju"))
    parser.add_argument("--size", type=int, default=15)
    parser.add_argument("--stones", type=int, default=3)
    parser.add_argument("--area", type=int, default=7, help="the central square's side")
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--tries", type=int, default=400)
    parser.add_argument("--tolerance", type=float, default=0.07, help="win rate 0.5 +- this")
    parser.add_argument("--scaling", type=float, default=250.0,
                        help="the engine's eval scale (Rapfi's classical config: 250)")  # fmt: skip
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per evaluation")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    game = hexjax.make("gomoku", size=args.size, rule=args.rule)
    if not 1 <= args.stones <= args.area * args.area or not 1 <= args.area <= args.size:
        parser.error("--stones must fit in the --area, and the --area on the board")
    try:
        engine = engines.engine_opponent(args.engine, game, args.setup, args.timeout)
    except ValueError as error:
        parser.error(str(error))
    rng = np.random.default_rng(args.seed)
    kept, judged = [], 0
    try:
        for actions in candidates(game, args.stones, args.area, rng):
            if len(kept) >= args.count or judged >= args.tries:
                break
            judged += 1
            engine.new_game(actions)
            reply = engine.ask()
            rate = black_win_rate(engine.messages, args.stones % 2 == 0, args.scaling)
            moves = game.format_moves(actions)
            shown = "no evaluation" if rate is None else f"Black {rate:.3f}"
            print(f"{judged:>4} {moves:<24} {shown}  (reply {game.action_to_string(reply)})")
            if rate is not None and abs(rate - 0.5) <= args.tolerance:
                kept.append((moves, rate))
    except engines.EngineFailure as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    finally:
        engine.close()
    header = [
        f"# {len(kept)} balanced {args.rule} {args.size}x{args.size} openings of {args.stones} "
        f"stones: Black's win rate within {args.tolerance} of 0.5 by the engine below,",
        f"# judged {judged} random openings on the central {args.area}x{args.area} square "
        f"({datetime.date.today()}). Made by:",
        "#   python experiments/balanced_openings.py "
        + shlex.join(sys.argv[1:] if argv is None else argv),  # fmt: skip
    ]
    lines = [f"{moves:<24} # Black {rate:.3f}" for moves, rate in kept]
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(header + lines) + "\n")
    print(f"{len(kept)} of {judged} kept: {out}")
    return 0 if len(kept) >= args.count else 1


if __name__ == "__main__":
    sys.exit(main())
