"""Play against an agent: `python experiments/play.py --game hex --board 7` in the terminal,
`python experiments/play.py --web` in the browser (http://127.0.0.1:8000).

The agent is the shipped model for the game unless `--checkpoint` (a training run's --workdir)
or `--model` names another. `--simulations` sets its strength (search simulations a move).
"""

from __future__ import annotations

import argparse
import sys

from hexjax.alphazero.search import PLAY_SIMULATIONS
from hexjax.games import DEFAULT_SIZES, available_games
from hexjax.games.gomoku import RULES
from hexjax.play import models
from hexjax.play.agent import Agent, add_agent_flags, positive_int
from hexjax.play.terminal import TerminalGame
from hexjax.training.checkpoint import CheckpointError


def parse(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sizes = ", ".join(f"{size} for {name}" for name, size in DEFAULT_SIZES.items())
    parser.add_argument("--game", choices=available_games(), default="hex")
    parser.add_argument("--board", type=positive_int, help=f"board size (default {sizes})")
    parser.add_argument("--rule", choices=RULES, default="freestyle")
    parser.add_argument("--swap", action="store_true", help="Hex: the swap rule")
    parser.add_argument("--colour", "--color", choices=("black", "white"), default="black",
                        help="the side you play (Black moves first)")  # fmt: skip
    add_agent_flags(parser, simulations=PLAY_SIMULATIONS)
    parser.add_argument("--no-colour", "--no-color", action="store_true")
    parser.add_argument("--web", action="store_true", help="serve the web page instead")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=positive_int, default=8000)
    args = parser.parse_args(argv)
    args.board = args.board or DEFAULT_SIZES[args.game]
    return args


def main(argv=None) -> int:
    """`hexjax-play`: the terminal game, or the web page with --web."""
    args = parse(argv)
    try:
        if args.web:
            from hexjax.play import web  # the web extra: starlette, uvicorn

            web.serve(args.host, args.port, checkpoint=args.checkpoint, model=args.model,
                      model_dir=args.model_dir, simulations=args.simulations)  # fmt: skip
            return 0
        agent = Agent.load(args.game, args.board, args.rule, args.swap, checkpoint=args.checkpoint,
                           model=args.model, model_dir=args.model_dir)  # fmt: skip
    except (models.ModelError, CheckpointError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    human = 0 if args.colour == "black" else 1
    colour = False if args.no_colour else None
    try:
        TerminalGame(agent, human, args.simulations, colour=colour).run()
    except KeyboardInterrupt:
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
