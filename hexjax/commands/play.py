"""Play against an agent: `python experiments/play.py --game hex --board 7` in the terminal,
`python experiments/play.py --web` in the browser (http://127.0.0.1:8000).

The agent is the shipped model for the game unless `--checkpoint` (a training run's --workdir)
or `--model` names another. `--simulations` sets its strength (search simulations a move).
"""

from __future__ import annotations

import argparse
import sys

from hexjax.alphazero.search import PLAY_SIMULATIONS
from hexjax.games import DEFAULT_SIZES, available_games, check_options
from hexjax.games.gomoku import RULES
from hexjax.play import compile_cache, interrupts
from hexjax.play.agent import Agent, add_agent_flags, positive_int, search_choices
from hexjax.play.terminal import TerminalGame
from hexjax.training import models
from hexjax.training.checkpoint import CheckpointError

# The flags that pick the terminal's game and side; the web page picks its own.
_GAME_FLAGS = {"game": None, "board": None, "rule": "rule", "swap": "swap"}
_TERMINAL_FLAGS = (*_GAME_FLAGS, "colour", "no_colour")


def parse(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sizes = ", ".join(f"{size} for {name}" for name, size in DEFAULT_SIZES.items())
    parser.add_argument("--game", choices=available_games(), help="default: hex")
    parser.add_argument("--board", type=positive_int, help=f"board size (default {sizes})")
    parser.add_argument("--rule", choices=RULES, help="gomoku rule (default: freestyle)")
    parser.add_argument("--swap", action="store_true", default=None, help="Hex: the swap rule")
    parser.add_argument("--colour", "--color", choices=("black", "white"),
                        help="the side you play (default: black, who moves first)")  # fmt: skip
    add_agent_flags(parser, simulations=PLAY_SIMULATIONS)
    parser.add_argument("--no-colour", "--no-color", action="store_true", default=None)
    parser.add_argument("--web", action="store_true", help="serve the web page instead")
    parser.add_argument("--host", help="with --web (default 127.0.0.1)")
    parser.add_argument("--port", type=positive_int, help="with --web (default 8000)")
    args = parser.parse_args(argv)
    _check_flags(parser, args)
    args.game_flags = {name: getattr(args, name) for name in _given(args, _GAME_FLAGS)}
    args.game = args.game or "hex"
    args.board = args.board or DEFAULT_SIZES[args.game]
    args.rule = args.rule or "freestyle"
    args.colour = args.colour or "black"
    args.host, args.port = args.host or "127.0.0.1", args.port or 8000
    return args


def _given(args, names) -> list[str]:
    return [name for name in names if getattr(args, name) is not None]


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _check_flags(parser, args) -> None:
    """Refuse, as argparse refuses a bad flag, what the chosen game or front end would ignore."""
    if args.web:
        for name in _given(args, _TERMINAL_FLAGS):
            parser.error(f"{_flag(name)} applies to the terminal game; the web page picks its own")
    else:
        for name in _given(args, ("host", "port")):
            parser.error(f"{_flag(name)} applies to --web only")
    if args.checkpoint is not None or args.model is not None:
        return  # the agent plays its own game: checked against it once loaded
    given = {_flag(name): _GAME_FLAGS[name] for name in _given(args, ("rule", "swap"))}
    try:
        check_options(args.game or "hex", given)
    except ValueError as error:
        parser.error(str(error))


def _check_agent_game(given: dict, agent: Agent) -> None:
    """The game flags given with --checkpoint or --model must name the game the agent plays."""
    game = agent.config.game
    check_options(game.name, {_flag(name): _GAME_FLAGS[name] for name in given})
    plays = game.canonical()
    values = {"game": plays.name, "board": plays.size, "rule": plays.rule, "swap": plays.swap}
    for name, value in given.items():
        if value != values[name]:
            shown = "" if isinstance(value, bool) else f" {value}"
            raise ValueError(
                f"{_flag(name)}{shown} does not match the {agent.source}: it plays {game.label}"
            )


def main(argv=None) -> int:
    """`hexjax-play`: the terminal game, or the web page with --web."""
    args = parse(argv)
    compile_cache.enable()
    interrupts.install()
    try:
        if args.web:
            from hexjax.play import web  # the web extra: starlette, uvicorn

            web.serve(args.host, args.port, checkpoint=args.checkpoint, model=args.model,
                      model_dir=args.model_dir, simulations=args.simulations,
                      **search_choices(args))  # fmt: skip
            return 0
        agent = Agent.load(args.game, args.board, args.rule, bool(args.swap),
                           checkpoint=args.checkpoint, model=args.model,
                           model_dir=args.model_dir, **search_choices(args))  # fmt: skip
        if args.checkpoint is not None or args.model is not None:
            _check_agent_game(args.game_flags, agent)
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
