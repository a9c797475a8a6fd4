"""A GTP engine for Hex, enough for HexGui: `hexjax-gtp [--size 7] [--swap]`
(or `python -m hexjax.play.gtp`).

Commands (GTP 2): protocol_version, name, version, known_command, list_commands, boardsize,
clear_board, play, genmove, undo, showboard, final_score, quit. Moves are HexGui's: column
letter, row number from 1 at the top ("a1" is top-left), "swap-pieces" (or "swap") for the swap
rule. Black (b) connects the top and bottom rows and moves first; White (w) left and right.

`play` and `genmove` must name the side to move: HexGui may play out of turn, hexjax does not,
and answers why. Every failure (unknown command, missing or bad argument, occupied cell, game
over, no model for a board size) answers `? message` and leaves the game as it was.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TextIO

import hexjax
from hexjax.play import models
from hexjax.play.agent import Agents, add_agent_flags
from hexjax.play.match import Match, MoveError
from hexjax.training.checkpoint import CheckpointError

_COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}
_COLOUR_NAMES = ("Black", "White")
_SWAP_WORDS = ("swap", "swap-pieces")


class GtpError(Exception):
    """A command that fails; its message is the answer after `?`."""


class GtpEngine:
    """Hex over GTP: `run(input, output)` answers commands read from `input` until `quit` or
    the end of the input; `answer(line)` answers one line."""

    def __init__(self, agents: Agents, size: int, swap: bool = False, simulations=None):
        self.agents = agents
        self.swap = swap
        self.simulations = simulations  # None: the agent's default
        self.agent = agents.get("hex", size, swap=swap)  # ModelError if there is none
        self.match = Match(self.agent.game)
        self.quit = False
        self.commands: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": lambda args: "2",
            "name": lambda args: "hexjax",
            "version": lambda args: hexjax.__version__,
            "known_command": self.known_command,
            "list_commands": lambda args: "\n".join(self.commands),
            "boardsize": self.boardsize,
            "clear_board": self.clear_board,
            "play": self.play,
            "genmove": self.genmove,
            "undo": self.undo,
            "showboard": lambda args: "\n" + self.agent.game.render(self.match.state),
            "final_score": self.final_score,
            "quit": self.stop,
        }

    def run(self, input: TextIO, output: TextIO) -> None:
        for line in iter(input.readline, ""):
            response = self.answer(line)
            if response is not None:
                output.write(response)
                output.flush()
            if self.quit:
                return

    def answer(self, line: str) -> str | None:
        """The response to one line (`=[id] result` or `?[id] message`, then a blank line);
        None for blank lines and comments."""
        # GTP: drop control characters but tab and newline, tabs count as spaces, '#' comments.
        line = "".join(c for c in line if c >= " " or c in "\t\n").replace("\t", " ")
        words = line.split("#", 1)[0].split()
        if not words:
            return None
        number = words.pop(0) if words[0].isdigit() else ""  # the optional command id
        if not words:
            return f"?{number} no command after the id\n\n"
        name, args = words[0].lower(), words[1:]
        try:
            if name not in self.commands:
                raise GtpError(f"unknown command: {words[0]}")
            return f"={number} {self.commands[name](args)}\n\n"
        except GtpError as error:
            message = str(error)
        except Exception as error:  # a bug must not end the session the controller holds
            message = f"internal error: {type(error).__name__}: {error}"
        return f"?{number} {' '.join(message.split())}\n\n"  # one line

    # --- commands --------------------------------------------------------------------------

    def known_command(self, args: list[str]) -> str:
        _arguments(args, 1, "known_command NAME")
        return "true" if args[0].lower() in self.commands else "false"

    def boardsize(self, args: list[str]) -> str:
        """`boardsize N` or HexGui's `boardsize N N`; loads the agent for that size (a new,
        empty board) or keeps everything as it was when there is none."""
        if len(args) not in (1, 2) or not all(a.isdigit() for a in args):
            raise GtpError("boardsize needs a size: boardsize N (or boardsize N N)")
        if len(set(map(int, args))) != 1:
            raise GtpError(f"only square boards are played, not {args[0]}x{args[1]}")
        try:
            agent = self.agents.get("hex", int(args[0]), swap=self.swap)
        except (models.ModelError, CheckpointError, ValueError) as error:
            raise GtpError(str(error)) from None
        self.agent, self.match = agent, Match(agent.game)
        return ""

    def clear_board(self, args: list[str]) -> str:
        self.match = Match(self.agent.game)
        return ""

    def play(self, args: list[str]) -> str:
        _arguments(args, 2, "play COLOUR MOVE, e.g. play b a1")
        self._check_turn(args[0])
        move = args[1].lower()
        if move in ("pass", "resign"):
            raise GtpError(f"{move} is not a Hex move (Hex has no pass; start again: clear_board)")
        if move == "swap-sides":
            raise GtpError("swap-sides is not supported; the swap rule here is swap-pieces")
        if move in _SWAP_WORDS and not self.swap:
            raise GtpError("the swap rule is off (start the engine with --swap)")
        try:
            self.match.play(move)
        except MoveError as error:
            raise GtpError(str(error)) from None
        return ""

    def genmove(self, args: list[str]) -> str:
        _arguments(args, 1, "genmove COLOUR, e.g. genmove b")
        self._check_turn(args[0])
        reply = self.agent.move(self.match.state, self.simulations)
        self.match.play(reply.action)
        if reply.action == self.agent.game.num_cells:  # the swap action
            return "swap-pieces"
        return self.agent.game.action_to_string(reply.action)

    def undo(self, args: list[str]) -> str:
        if self.match.undo() == 0:
            raise GtpError("cannot undo: no move has been played")
        return ""

    def final_score(self, args: list[str]) -> str:
        if not self.match.over:
            raise GtpError("the game is not over")
        return "BW"[self.match.winner] + "+"

    def stop(self, args: list[str]) -> str:
        self.quit = True
        return ""

    def _check_turn(self, colour: str) -> None:
        """GtpError unless `colour` names the side to move in a game that goes on."""
        if colour.lower() not in _COLOURS:
            raise GtpError(f"unknown colour {colour!r}: use b, black, w or white")
        if self.match.over:
            raise GtpError(f"the game is over: {self.match.result()}")
        if _COLOURS[colour.lower()] != self.match.to_play:
            to_play = _COLOUR_NAMES[self.match.to_play]
            raise GtpError(f"it is {to_play}'s turn: hexjax plays moves in turn only")


def _arguments(args: list[str], count: int, usage: str) -> None:
    if len(args) != count:
        raise GtpError(f"expected {count} argument{'s' * (count > 1)}: {usage}")


def default_size(agents: Agents, swap: bool) -> int:
    """The board to start on: the one agent's, else the smallest Hex model's, else 11."""
    if agents.only is not None:
        return agents.only.config.game.size
    sizes = [m.config.game.size for m in agents.available()
             if m.config.game.name == "hex" and m.config.game.swap == swap]  # fmt: skip
    return min(sizes, default=11)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_agent_flags(parser)
    parser.add_argument("--size", type=int, help="first board size (HexGui sets its own)")
    parser.add_argument("--swap", action="store_true", help="play with the swap rule")
    args = parser.parse_args(argv)
    try:
        agents = Agents(args.checkpoint, args.model, args.model_dir)
        swap = args.swap or agents.only is not None and agents.only.config.game.swap
        size = args.size or default_size(agents, swap)
        engine = GtpEngine(agents, size, swap, args.simulations)
    except (models.ModelError, CheckpointError, ValueError) as error:
        print(f"hexjax-gtp: {error}", file=sys.stderr)
        return 2
    engine.run(sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
