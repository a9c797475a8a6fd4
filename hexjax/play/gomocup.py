"""A Gomocup (Piskvork) brain for Gomoku: `hexjax-gomocup` (or
`python -m hexjax.play.gomocup`).

The "new protocol" (https://plastovicka.github.io/protocl2en.htm): START N, BEGIN, TURN x,y,
BOARD ... DONE, INFO key value, TAKEBACK x,y, RESTART, END, ABOUT (RECTSTART answers ERROR).
Points are "x,y" from 0, x the column and y the row from the top: action = y * n + x.

Decisions the protocol leaves open:
- INFO rule (a bit mask) picks the game: 4 renju, else 1 "standard" (exactly five), else
  freestyle; 2 (a continuous game) is ignored. A change of rule starts a new, empty game.
- BOARD gives stones as own (1) and the opponent's (2); the brain is to move. Black moves first,
  so with equal counts the brain is Black, otherwise White. Field 3 (continuous games) is not
  supported.
- Time: INFO timeout_turn and time_left (spread over the moves still to come) give a budget per
  move, and `clock.SearchClock` spends it: by default one search tree grown until the time is
  spent and kept from move to move (`lasting.py`, compiled by START before it answers;
  --timed-search), with a search for a win by continuous threats beside it (first, in a
  quarter of the time, with one core: `evaluation/root_solvers.py`, --no-solver). Without a
  limit a move searches the most allowed (--simulations).
  max_memory, game_type, evaluate and folder are stored and not used.
- Errors answer `ERROR message` and leave the game as it was; unknown commands `UNKNOWN ...`.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TextIO

import numpy as np

import hexjax
from hexjax.games import Gomoku
from hexjax.play import clock, compile_cache, cores, interrupts, pondering
from hexjax.play.agent import Agent, Agents, add_agent_flags, search_choices
from hexjax.play.match import Match, MoveError
from hexjax.training import models
from hexjax.training.checkpoint import CheckpointError

UNLIMITED_MS = 2147483647  # time_left when the match has no time limit
ABOUT = f'name="hexjax", version="{hexjax.__version__}", author="hexjax", country="-"'


class ProtocolError(Exception):
    """A command that fails; its message follows ERROR."""


def rule_name(bits: int) -> str:
    """The Gomoku rule of Gomocup's INFO rule bit mask."""
    if bits & 4:
        return "renju"
    return "standard" if bits & 1 else "freestyle"


class GomocupEngine:
    """Gomoku over the Gomocup protocol: `run(input, output)` answers the commands read from
    `input` until END or the end of the input; `answer(line, lines)` answers one command
    (BOARD reads its stones from `lines`)."""

    def __init__(self, agents: Agents, simulations: int | None = None, rule="freestyle",
                 timed_search: str = "kept", solve: bool = True, ponder: bool = False):  # fmt: skip
        self.agents = agents
        self.ponder = ponder  # think on the opponent's time, after each move of the brain
        self.pondered = 0  # simulations grown on the opponent's time
        self._after_own_move = None  # (agent, position) to ponder, after the brain's move
        self.clock = clock.engine_clock(simulations, timed_search, solve)
        self.rule = rule
        self.size: int | None = None  # set by START
        self.match: Match | None = None  # None: a new game starts at the next command
        self.info: dict[str, str] = {}
        self.ended = False
        self._received: float | None = None  # when the command being answered was taken up
        self.commands = {
            "START": self.start,
            "RECTSTART": self.rectstart,
            "RESTART": self.restart,
            "BEGIN": lambda argument: self._reply(self._current()),
            "TURN": self.turn,
            "TAKEBACK": self.takeback,
            "INFO": self.info_command,
            "ABOUT": lambda argument: ABOUT,
            "END": self.end,
        }

    def run(self, input: TextIO, output: TextIO) -> None:
        lines = pondering.CommandLines(input) if self.ponder else iter(input.readline, "")
        for line in lines:
            answer = self.answer(line, lines)
            if answer is not None:
                output.write(answer + "\n")
                output.flush()
            if self.ended:
                return
            after, self._after_own_move = self._after_own_move, None
            if self.ponder and after is not None:
                self.pondered += self.clock.ponder(*after, lines.waiting)

    def answer(self, line: str, lines=()) -> str | None:
        """The answer to one command line; None for commands answered by silence (INFO, END)
        and blank lines."""
        words = line.strip().split(maxsplit=1)
        if not words:
            return None
        command, argument = words[0].upper(), words[1] if len(words) > 1 else ""
        self._received = self.clock.now()
        try:
            if command == "BOARD":
                return self.board(_until_done(lines))
            if command not in self.commands:
                return f"UNKNOWN command {words[0]!r}"
            return self.commands[command](argument)
        except ProtocolError as error:
            return f"ERROR {error}"
        except Exception as error:  # a bug must not end the match the manager runs
            return f"ERROR internal error: {type(error).__name__}: {error}"

    # --- commands --------------------------------------------------------------------------

    def start(self, argument: str) -> str:
        self.size, self.match = _integer(argument, "START N, e.g. START 15"), None
        self._current()  # ERROR now if there is no model for this board
        # A manager sends INFO rule after START: ready the other rules' models too, or the
        # first move under them would pay their compiles. The current rule's goes last, so
        # that its larger searches are the ones compiling in the background.
        for rule in self._other_rules():
            with contextlib.suppress(models.ModelError, CheckpointError, ValueError):
                self.clock.prepare(self.agents.get("gomoku", self.size, rule))
        self.clock.prepare(self._agent())  # before the first move's clock runs
        return "OK"

    def rectstart(self, argument: str) -> str:
        raise ProtocolError("rectangular boards are not supported; use START N")

    def restart(self, argument: str) -> str:
        self.match = None
        self._current()
        return "OK"

    def turn(self, argument: str) -> str:
        match = _live(self._current())
        try:
            match.play(_point(argument, self.size))
        except MoveError as error:
            raise ProtocolError(str(error)) from None
        return self._reply(match)

    def board(self, rows: list[str]) -> str:
        """A whole position; the brain, to move, answers its move."""
        game = self._current().game
        fields = np.zeros((self.size, self.size), np.int8)  # 1 own stone, 2 the opponent's
        for row in rows:
            x, y, field = _numbers(row, 3, "BOARD lines are x,y,field")
            action = _action(x, y, self.size)
            if field not in (1, 2):
                raise ProtocolError(f"BOARD field {field} in {row!r}: only 1 and 2 are supported")
            if fields.flat[action]:
                raise ProtocolError(f"BOARD names the point {x},{y} twice")
            fields.flat[action] = field
        # Black moves first: equal counts leave Black to move, else White (normally one short).
        to_play = 0 if (fields == 1).sum() == (fields == 2).sum() else 1
        colours = np.array([0, 1 + to_play, 2 - to_play], np.int8)  # own stones: the mover's
        try:
            state = game.from_board(colours[fields], to_play)
        except ValueError as error:
            raise ProtocolError(str(error)) from None
        position = Match(game, start=state)
        answer = self._reply(position)
        self.match = position
        return answer

    def takeback(self, argument: str) -> str:
        match = self._current()
        action = _point(argument, self.size)
        colour = int(match.board().flat[action])
        if colour == 0:
            raise ProtocolError(f"no stone at {argument.strip()} to take back")
        if match.actions and match.actions[-1] == action:
            match.undo()
        else:  # not the last move played here (a BOARD stone): rebuild without it
            board = match.board().copy()
            board.flat[action] = 0
            self.match = Match(match.game, start=match.game.from_board(board, colour - 1))
        return "OK"

    def info_command(self, argument: str) -> None:
        key, _, value = argument.strip().partition(" ")
        self.info[key.lower()] = value.strip()
        bits = _optional_integer(value)
        if key.lower() == "rule" and bits is not None and rule_name(bits) != self.rule:
            self.rule, self.match = rule_name(bits), None  # a new game under the new rule
            if self.size is not None:
                # INFO has no answer: without a model, the next move says so.
                with contextlib.suppress(ProtocolError):
                    self.clock.prepare(self._agent())

    def end(self, argument: str) -> None:
        self.ended = True

    # --- the game and the brain's moves ----------------------------------------------------

    def _agent(self) -> Agent:
        try:
            return self.agents.get("gomoku", self.size, self.rule)
        except (models.ModelError, CheckpointError, ValueError) as error:
            raise ProtocolError(str(error)) from None

    def _other_rules(self) -> list[str]:
        """The rules besides the current one that a model plays on this board."""
        return [r for r in self.agents.available_rules("gomoku", self.size) if r != self.rule]

    def _current(self) -> Match:
        """The game in progress; a new one after START, RESTART or a change of rule."""
        if self.size is None:
            raise ProtocolError("no board yet: START N first")
        if self.match is None:
            self.match = Match(self._agent().game)
        return self.match

    def _reply(self, match: Match) -> str:
        """The brain's move in `match`, played there, as "x,y"."""
        _live(match)
        agent = self._agent()
        self.clock.prepare(agent)
        # The manager times the whole command: what it took before the search (the opponent's
        # move or BOARD's position set up, a rule's model readied) comes off the move's time.
        taken = 0.0 if self._received is None else self.clock.now() - self._received
        budget, most = clock.less_taken(taken, self.budget(), self.most())
        action = self.clock.move(agent, match.state, budget, most).action
        match.play(action)
        if budget is not None:  # a timed move: the lasting search, whose tree pondering grows
            self._after_own_move = agent, match.state
        y, x = divmod(action, self.size)
        return f"{x},{y}"

    def budget(self) -> float | None:
        """Seconds for this move by INFO timeout_turn and time_left; None if unlimited."""
        return self._limit(clock.split_main_time)

    def most(self) -> float | None:
        """The most a move the search is unsure of may take: timeout_turn, and a larger share
        of time_left than the budget's; None if unlimited."""
        return self._limit(clock.most_of_main_time)

    def _limit(self, share_of_time_left) -> float | None:
        """timeout_turn, and `share_of_time_left(seconds left)`: the smaller, in seconds."""
        limits = []
        turn = _optional_integer(self.info.get("timeout_turn", ""))
        if turn is not None:  # 0: play as fast as possible
            limits.append(max(turn, 0) / 1000)
        left = _optional_integer(self.info.get("time_left", ""))
        if left is not None and left < UNLIMITED_MS:  # may be negative when time is up
            limits.append(share_of_time_left(left / 1000))
        return min(limits, default=None)


def _live(match: Match) -> Match:
    if match.over:
        raise ProtocolError(f"the game is over: {match.result()}")
    return match


def _until_done(lines) -> list[str]:
    """BOARD's stone lines, read up to DONE (blank lines skipped)."""
    rows = []
    for line in lines:
        if line.strip().upper() == "DONE":
            return rows
        if line.strip():
            rows.append(line.strip())
    raise ProtocolError("BOARD ended without DONE")


def _optional_integer(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


def _integer(text: str, usage: str) -> int:
    value = _optional_integer(text)
    if value is None:
        raise ProtocolError(f"expected {usage}, got {text.strip()!r}")
    return value


def _numbers(text: str, count: int, usage: str) -> list[int]:
    parts = text.split(",")
    values = [_optional_integer(part) for part in parts]
    if len(parts) != count or None in values:
        raise ProtocolError(f"{usage}, got {text.strip()!r}")
    return values


def _point(text: str, size: int) -> int:
    """The action of a point "x,y"; ProtocolError if malformed or off the board."""
    return _action(*_numbers(text, 2, "expected a point x,y"), size)


def _action(x: int, y: int, size: int) -> int:
    if not (0 <= x < size and 0 <= y < size):
        raise ProtocolError(f"the point {x},{y} is off the {size}x{size} board")
    return y * size + x


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_agent_flags(parser, simulations_help=clock.ENGINE_SIMULATIONS_HELP)
    clock.add_clock_flags(parser, "under a time limit, no search for a win by continuous threats "
                          "(beside the search, or first in a quarter of the move when it has one "
                          "core) and no screen of the searched move")  # fmt: skip
    args = parser.parse_args(argv)
    compile_cache.enable()
    interrupts.install()
    cores.pin_search(args.search_cores)  # before JAX starts its threads
    try:
        agents = Agents(args.checkpoint, args.model, args.model_dir, **search_choices(args))
        if agents.only is not None and not isinstance(agents.only.game, Gomoku):
            raise ValueError(
                f"the engine plays gomoku; this {agents.only.source} plays "
                f"{agents.only.config.game.label}"
            )
    except (models.ModelError, CheckpointError, ValueError) as error:
        print(f"hexjax-gomocup: {error}", file=sys.stderr)
        return 2
    # One model plays its own rule until INFO rule says otherwise.
    rule = agents.only.config.game.rule if agents.only is not None else "freestyle"
    try:
        engine = GomocupEngine(
            agents, args.simulations, rule, args.timed_search, not args.no_solver, args.ponder
        )
        engine.run(sys.stdin, sys.stdout)
    except KeyboardInterrupt:  # Ctrl-C: a search in flight has stopped; no traceback
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
