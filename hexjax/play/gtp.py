"""A GTP engine for Hex, enough for HexGui: `hexjax-gtp [--size 7] [--swap]`
(or `python -m hexjax.play.gtp`).

Commands (GTP 2): protocol_version, name, version, known_command, list_commands, boardsize,
clear_board, play, genmove, undo, showboard, final_score, time_settings, time_left,
kgs-time_settings, quit. Moves are HexGui's: column letter, row number from 1 at the top ("a1"
is top-left), "swap-pieces" (or "swap") for the swap rule. Black (b) connects the top and
bottom rows and moves first; White (w) left and right.

`play` and `genmove` take either colour, as controllers setting up a position do: a stone out
of turn is placed and the other side is to move; `genmove` for the side not to move searches as
if it were. Time: time_settings / kgs-time_settings and time_left give each move a budget (a
byo-yomi period's time over its stones, else the main time over the moves still to come), and
`clock.SearchClock` spends it: by default one search tree grown until the time is spent and
kept from move to move (`lasting.py`, compiled before boardsize answers; --timed-search). Every
failure (unknown command, missing or bad argument, occupied cell, game over, no model for a
board size) answers `? message` and leaves the game as it was.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable
from typing import TextIO

import hexjax
from hexjax.games import GameConfig
from hexjax.play import clock, compile_cache, cores, interrupts, pondering
from hexjax.play.agent import Agents, add_agent_flags, search_choices
from hexjax.play.match import Match, MoveError
from hexjax.training import models
from hexjax.training.checkpoint import CheckpointError

_COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}
_COLOUR_NAMES = ("Black", "White")
_SWAP_WORDS = ("swap", "swap-pieces")


class GtpError(Exception):
    """A command that fails; its message is the answer after `?`."""


class GtpEngine:
    """Hex over GTP: `run(input, output)` answers commands read from `input` until `quit` or
    the end of the input; `answer(line)` answers one line."""

    def __init__(self, agents: Agents, size: int, swap: bool = False, simulations=None,
                 timed_search: str = "kept", solve: bool = True, ponder: bool = False):  # fmt: skip
        self.agents = agents
        self.swap = swap
        self.ponder = ponder  # think on the opponent's time, after each genmove
        self.pondered = 0  # simulations grown on the opponent's time
        self._after_own_move = None  # the position to ponder, after a genmove
        self.clock = clock.engine_clock(simulations, timed_search, solve)
        self.agent = agents.get("hex", size, swap=swap)  # ModelError if there is none
        self.match = Match(self.agent.game)
        self.time = TimeControl()
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
            "time_settings": self.time_settings,
            "time_left": self.time_left,
            "kgs-time_settings": self.kgs_time_settings,
            "quit": self.stop,
        }

    def run(self, input: TextIO, output: TextIO) -> None:
        lines = pondering.CommandLines(input) if self.ponder else iter(input.readline, "")
        for line in lines:
            response = self.answer(line)
            if response is not None:
                output.write(response)
                output.flush()
            if self.quit:
                return
            state, self._after_own_move = self._after_own_move, None
            if self.ponder and state is not None:
                self.pondered += self.clock.ponder(self.agent, state, lines.waiting)

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
        self.prepare()
        return ""

    def clear_board(self, args: list[str]) -> str:
        self.match = Match(self.agent.game)
        return ""

    def play(self, args: list[str]) -> str:
        _arguments(args, 2, "play COLOUR MOVE, e.g. play b a1")
        player = self._player(args[0])
        move = args[1].lower()
        if move in ("pass", "resign"):
            raise GtpError(f"{move} is not a Hex move (Hex has no pass; start again: clear_board)")
        if move == "swap-sides":
            raise GtpError("swap-sides is not supported; the swap rule here is swap-pieces")
        if move in _SWAP_WORDS and not self.swap:
            raise GtpError("the swap rule is off (start the engine with --swap)")
        try:
            self.match.play_as(player, move)
        except MoveError as error:
            raise GtpError(str(error)) from None
        return ""

    def genmove(self, args: list[str]) -> str:
        _arguments(args, 1, "genmove COLOUR, e.g. genmove b")
        player = self._player(args[0])
        received = self.clock.now()
        self.prepare()
        state = self.match.state_for(player)
        budget, most = clock.less_taken(
            self.clock.now() - received, self.time.budget(player), self.time.most(player)
        )
        reply = self.clock.move(self.agent, state, budget, most)
        self.match.play_as(player, reply.action)
        if budget is not None:  # a timed move: the lasting search, whose tree pondering grows
            self._after_own_move = self.match.state
        return self.agent.game.protocol_move(reply.action)

    def time_settings(self, args: list[str]) -> str:
        _arguments(args, 3, "time_settings MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES")
        main, byo_yomi, stones = _numbers(args, "time_settings")
        no_limit = byo_yomi > 0 and stones == 0  # GTP's way to say "no time limit"
        self.time = TimeControl(main, byo_yomi, int(stones), limited=not no_limit)
        return ""

    def kgs_time_settings(self, args: list[str]) -> str:
        counts = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}  # numbers after each
        kind = args[0].lower() if args else ""
        if kind not in counts or len(args) != 1 + counts[kind]:
            raise GtpError(
                "expected kgs-time_settings none | absolute MAIN | byoyomi MAIN PERIOD PERIODS"
                " | canadian MAIN TIME STONES"
            )
        values = _numbers(args[1:], "kgs-time_settings")
        if kind == "none":
            self.time = TimeControl(limited=False)
        elif kind == "absolute":
            self.time = TimeControl(values[0], limited=True)
        elif kind == "byoyomi":  # each period is one move's time
            self.time = TimeControl(values[0], values[1], 1, limited=True)
        else:
            self.time = TimeControl(values[0], values[1], int(values[2]), limited=True)
        return ""

    def time_left(self, args: list[str]) -> str:
        _arguments(args, 3, "time_left COLOUR TIME STONES, e.g. time_left b 120 0")
        player = self._player(args[0], turn=False)
        seconds, stones = _numbers(args[1:], "time_left")
        self.time.left[player] = (seconds, int(stones))
        return ""

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

    def _player(self, colour: str, turn: bool = True) -> int:
        """The player a colour names; GtpError if unknown or (with `turn`) the game is over."""
        if colour.lower() not in _COLOURS:
            raise GtpError(f"unknown colour {colour!r}: use b, black, w or white")
        if turn and self.match.over:
            raise GtpError(f"the game is over: {self.match.result()}")
        return _COLOURS[colour.lower()]

    def prepare(self) -> None:
        """Ready the agent's search for the clock (`SearchClock.prepare`), once per agent."""
        self.clock.prepare(self.agent)


@dataclasses.dataclass
class TimeControl:
    """GTP's time: a main time, then byo-yomi periods of `byo_yomi` seconds for `stones`
    stones; `left[player]` what time_left last said (seconds, stones: 0 in main time)."""

    main: float = 0.0
    byo_yomi: float = 0.0
    stones: int = 0
    limited: bool = False
    left: dict[int, tuple[float, int]] = dataclasses.field(default_factory=dict)

    def budget(self, player: int) -> float | None:
        """Seconds for `player`'s move; None without a limit."""
        if not self.limited:
            return None
        seconds, stones = self.left.get(player, (self.main, 0))
        if stones > 0:  # in byo-yomi: the period's time for its stones
            return max(seconds, 0.0) / stones
        if seconds <= 0 and self.stones > 0:  # main time over (or none): a fresh period
            return self.byo_yomi / self.stones
        return clock.split_main_time(seconds)

    def most(self, player: int) -> float | None:
        """The most a move the search is unsure of may take: in main time a larger share of
        it than the budget's; in byo-yomi the budget."""
        seconds, stones = self.left.get(player, (self.main, 0))
        if not self.limited or stones > 0 or seconds <= 0:
            return self.budget(player)
        return clock.most_of_main_time(seconds)


def _numbers(args: list[str], command: str) -> list[float]:
    try:
        values = [float(a) for a in args]
    except ValueError:
        raise GtpError(f"{command} takes numbers, got {' '.join(args)}") from None
    if any(v < 0 or v != v for v in values):
        raise GtpError(f"{command} takes numbers of at least 0, got {' '.join(args)}")
    return values


def _arguments(args: list[str], count: int, usage: str) -> None:
    if len(args) != count:
        raise GtpError(f"expected {count} argument{'s' * (count > 1)}: {usage}")


def default_size(agents: Agents, swap: bool) -> int:
    """The board to start on: the one agent's, else the smallest Hex model's, else 11."""
    if agents.only is not None:
        return agents.only.config.game.size
    sizes = [m.config.game.size for m in agents.available()
             if m.config.game.as_played() == _hex(m.config.game.size, swap)]  # fmt: skip
    return min(sizes, default=11)


def _hex(size: int, swap: bool) -> GameConfig:
    """The game this engine plays, as models are matched by (`GameConfig.as_played`)."""
    return GameConfig("hex", size, swap=swap).as_played()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_agent_flags(parser, simulations_help=clock.ENGINE_SIMULATIONS_HELP)
    parser.add_argument("--size", type=int, help="first board size (HexGui sets its own)")
    parser.add_argument("--swap", action="store_true", help="play with the swap rule")
    clock.add_clock_flags(parser, "under a time limit, no exact solver (Hex up to 7x7 tries to "
                          "prove a win beside the search, or first in a quarter of the move's "
                          "time when it has one core)")  # fmt: skip
    args = parser.parse_args(argv)
    compile_cache.enable()
    interrupts.install()
    cores.pin_search(args.search_cores)  # before JAX starts its threads
    try:
        agents = Agents(args.checkpoint, args.model, args.model_dir, **search_choices(args))
        swap = args.swap or agents.only is not None and agents.only.config.game.swap
        size = args.size or default_size(agents, swap)
        engine = GtpEngine(
            agents, size, swap, args.simulations, args.timed_search, not args.no_solver,
            args.ponder,
        )  # fmt: skip
        engine.prepare()
    except (models.ModelError, CheckpointError, ValueError) as error:
        print(f"hexjax-gtp: {error}", file=sys.stderr)
        return 2
    try:
        engine.run(sys.stdin, sys.stdout)
    except KeyboardInterrupt:  # Ctrl-C: a search in flight has stopped; no traceback
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
