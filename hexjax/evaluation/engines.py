"""External engines as opponents: a GTP engine for Hex (MoHex, KataHex, another hexjax) or
Othello (Edax), and a Gomocup brain for Gomoku and renju (Rapfi, Embryo, another hexjax), each a
process over pipes.

`engine_opponent(spec, game, setup)` makes one from `gtp:COMMAND` or `gomocup:COMMAND`. An
opponent plays games one at a time: `new_game(actions)` sets the position (an opening),
`tell(action)` passes on the other side's move, `ask()` returns the engine's move as an action
(or RESIGN), `verdict()` the winner by the engine's own judgement where its protocol has one.

Every move comes back in hexjax's notation, and legality is not checked here: the referee is
the match (`hexjax.evaluation.engine_match`), which plays with its own rules. What goes wrong
with the process raises EngineFailure naming it: the engine died, did not answer within the
timeout, answered something that is not a move, or refused a move or a setup command. After a
failure the process is killed; the next `new_game` starts a fresh one.
"""

from __future__ import annotations

import os
import shlex
import shutil
import time

from hexjax.evaluation._engine_process import EngineFailure, EngineProcess
from hexjax.games import Game

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "KINDS",
    "RESIGN",
    "EngineFailure",
    "EngineOpponent",
    "GomocupOpponent",
    "GtpOpponent",
    "check_spec",
    "engine_opponent",
    "is_engine",
]

KINDS = {"gtp": ("hex", "othello"), "gomocup": ("gomoku",)}  # protocol -> the games it plays
RESIGN = -1  # `ask`'s answer when the engine resigns
DEFAULT_TIMEOUT_S = 120.0  # the longest a move (or START, boardsize) may take
_START_TIMEOUT_S = 60.0  # the first answer of a new process (loading, compiling)
_RESET_TIMEOUT_S = 10.0  # a new game (RESTART) is instant, or the process is replaced
_SETTLE_S = 0.5  # how long an ABOUT after a Gomocup move is waited for before it is asked again


def is_engine(spec: str) -> bool:
    return spec.partition(":")[0] in KINDS


def check_spec(spec: str, game: Game) -> list[str]:
    """The engine's command line (argv) from `gtp:COMMAND` / `gomocup:COMMAND`; ValueError
    naming the problem: an empty or unparsable command, a program not found, a protocol for
    another game."""
    kind, _, command = spec.partition(":")
    if kind not in KINDS:
        raise ValueError(f"{spec!r} is not an engine: use gtp:COMMAND or gomocup:COMMAND")
    if game.name not in KINDS[kind]:
        games = " or ".join(KINDS[kind])
        raise ValueError(f"{kind} engines play {games}, not {game.name}: {spec!r}")
    if kind == "gomocup" and game.win_length != 5:
        raise ValueError(f"Gomocup engines play five in a row, not {game.win_length}: {spec!r}")
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise ValueError(f"cannot read the engine command {command!r}: {error}") from None
    if not argv:
        raise ValueError(f'{spec!r} names no command: e.g. {kind}:"path/to/engine --flag"')
    if shutil.which(argv[0]) is None:
        raise ValueError(f"engine program not found: {argv[0]!r} (from {spec!r})")
    return argv


def engine_opponent(spec: str, game: Game, setup=(), timeout_s: float = DEFAULT_TIMEOUT_S):
    """The opponent an engine spec names, not yet started (`new_game` starts it). `setup`:
    lines sent after each start (GTP commands, or Gomocup INFO lines)."""
    argv = check_spec(spec, game)
    cls = GtpOpponent if spec.startswith("gtp:") else GomocupOpponent
    return cls(argv, game, list(setup), timeout_s)


class EngineOpponent:
    """What both protocols share: the process's life, the position it has been told."""

    goodbye: str | None = None  # the command that ends a session

    def __init__(self, argv: list[str], game: Game, setup: list[str], timeout_s: float):
        self.argv, self.game, self.setup, self.timeout_s = argv, game, setup, timeout_s
        self.process: EngineProcess | None = None
        self.starts = 0  # processes started, restarts included
        self.messages: list[str] = []  # what the engine said beside its last answer
        # For messages: the program, or the script an interpreter runs.
        programs = [os.path.basename(a) for a in argv if not a.startswith("-")]
        self.name = next((p for p in programs if not p.startswith("python")), programs[0])

    def new_game(self, actions=()) -> None:
        """A new game from the position after `actions` (the opening). A process that cannot
        start a new game (seen: Rapfi hanging at a RESTART on a loaded machine) is replaced
        once before the failure counts."""
        if self.process is not None:
            try:
                self._reset(list(actions))
                return
            except EngineFailure as error:
                self.failed(EngineFailure("died", str(error)))
        self.process = EngineProcess(self.argv)
        self.starts += 1
        try:
            self._start()
            self._reset(list(actions))
        except EngineFailure as error:
            self.failed(error)
            self.close()
            raise

    def close(self) -> None:
        if self.process is not None:
            process, self.process = self.process, None
            process.close(self.goodbye)

    def failed(self, error: EngineFailure) -> None:
        """After an EngineFailure: a process that died or hangs is killed (the next game
        starts a fresh one); one that answered wrongly is reset by the next game."""
        if error.kind in ("died", "timeout") and self.process is not None:
            process, self.process = self.process, None
            process.close(goodbye=None)

    def verdict(self) -> int | None:
        """The winner (0 Black, 1 White) by the engine's own judgement, or None."""
        return None

    def _deadline(self, first: bool = False) -> float:
        return time.monotonic() + (max(self.timeout_s, _START_TIMEOUT_S) if first
                                   else self.timeout_s)  # fmt: skip

    def _start(self) -> None: ...

    def _reset(self, actions: list[int]) -> None: ...

    def tell(self, action: int) -> None: ...

    def ask(self) -> int: ...


class GtpOpponent(EngineOpponent):
    """Hex or Othello over GTP. Cells are hexjax's notation, HexGui's and Edax's: column
    letter, row from 1 at the top; Black moves first (in Hex joining top and bottom). Hex's swap
    is `swap-pieces`, Othello's pass `pass`. The verdict is `final_score` where the engine
    knows it."""

    goodbye = "quit"

    def _start(self) -> None:
        self._command("name", self._deadline(first=True))
        self.has_final_score = self._command("known_command final_score") == "true"
        for line in self.setup:
            self._command(line)
        self._command(f"boardsize {self.game.size}")

    def _reset(self, actions: list[int]) -> None:
        self._command("clear_board")
        self.to_play = 0
        for action in actions:
            self.tell(action)

    def tell(self, action: int) -> None:
        cell = self.game.protocol_move(action)
        try:
            self._command(f"play {'bw'[self.to_play]} {cell}")
        except EngineFailure as error:
            # Some Othello engines (GRhino) pass by themselves and refuse `play C pass`; every
            # later command names its colour, so the game goes on in step.
            if error.kind != "refused" or cell != "pass":
                raise
        self.to_play ^= 1

    def ask(self) -> int:
        answer = self._command(f"genmove {'bw'[self.to_play]}")
        if answer.lower() == "resign":
            return RESIGN
        try:
            action = self.game.parse_move(answer.lower())
        except ValueError as error:
            raise EngineFailure("bad answer", f"genmove answered {answer!r}: {error}") from None
        self.to_play ^= 1
        return action

    def verdict(self) -> int | None:
        if not self.has_final_score:
            return None
        answer = self._command("final_score").upper()
        return {"B": 0, "W": 1}.get(answer[:1]) if answer[1:2] == "+" else None

    def _command(self, command: str, deadline: float | None = None) -> str:
        """The answer to one GTP command ('= result'); EngineFailure 'refused' on '? message'."""
        self.process.send(command)
        deadline = deadline or self._deadline()
        lines = []
        while True:
            line = self.process.read(deadline, command)
            if not lines and not line.strip():
                continue  # blank lines before an answer
            if line.strip() == "" and lines:
                break
            lines.append(line)
        status, _, first = lines[0].partition(" ")
        text = "\n".join([first, *lines[1:]]).strip()
        if status.startswith("?"):
            raise EngineFailure("refused", f"{command!r} refused: {text or '(no message)'}")
        if not status.startswith("="):
            raise EngineFailure("bad answer", f"{command!r} answered {lines[0]!r}, not GTP")
        return text


class GomocupOpponent(EngineOpponent):
    """Gomoku and renju over the Gomocup protocol. Points are "x,y" from 0, x the column and y
    the row from the top. The engine first hears a game's position when it is to move (BEGIN,
    or BOARD with every stone so far), then each reply by TURN. The protocol has no verdict."""

    goodbye = "END"
    _RULES = {"freestyle": 0, "standard": 1, "renju": 4}

    def _start(self) -> None:
        self._expect_ok(f"START {self.game.size}", self._deadline(first=True))
        self.process.send(f"INFO rule {self._RULES[self.game.rule]}")
        for line in self.setup:
            self.process.send(line)
        self.fresh = True

    def _reset(self, actions: list[int]) -> None:
        if not self.fresh:
            self._expect_ok("RESTART", time.monotonic() + min(self.timeout_s, _RESET_TIMEOUT_S))
        self.fresh = False
        self.moves = list(actions)
        self.heard = False  # the engine has not been told this game's position yet

    def tell(self, action: int) -> None:
        self.moves.append(action)

    def ask(self) -> int:
        if not self.heard:
            if self.moves:
                mover = len(self.moves) % 2
                # Field 1 marks the brain's own stones, 2 the opponent's, in the order played.
                stones = [f"{self._point(a)},{1 if i % 2 == mover else 2}"
                          for i, a in enumerate(self.moves)]  # fmt: skip
                command = "BOARD\n" + "\n".join(stones) + "\nDONE"
            else:
                command = "BEGIN"
        else:
            command = f"TURN {self._point(self.moves[-1])}"
        self.process.send(command)
        self.heard = True
        answer = self._answer(command.split()[0], self._deadline())
        self._settle()
        try:
            x, y = (int(part) for part in answer.split(","))
        except ValueError:
            raise EngineFailure("bad answer", f"{command.split()[0]} answered {answer!r}") from None
        n = self.game.size
        if not (0 <= x < n and 0 <= y < n):
            raise EngineFailure("bad answer", f"{answer!r} is off the {n}x{n} board")
        self.moves.append(y * n + x)
        return y * n + x

    def _point(self, action: int) -> str:
        y, x = divmod(action, self.game.size)
        return f"{x},{y}"

    def _settle(self) -> None:
        """Wait until the engine reads commands again. Rapfi drops the first word of a command
        that comes just after its move (it still counts itself as thinking; about once in 900
        moves on a loaded machine): a TURN or RESTART lost that way is never answered. So ABOUT
        is asked, and asked again, until something answers it."""
        deadline = self._deadline()
        while True:
            self.process.send("ABOUT")
            try:
                self._answer("ABOUT", min(deadline, time.monotonic() + _SETTLE_S), about=True)
                return
            except EngineFailure as error:
                if error.kind != "timeout" or time.monotonic() >= deadline:
                    raise

    def _expect_ok(self, command: str, deadline: float) -> None:
        self.process.send(command)
        answer = self._answer(command.split()[0], deadline)
        if answer.upper() != "OK":
            raise EngineFailure("refused", f"{command!r} answered {answer!r}, not OK")

    def _answer(self, command: str, deadline: float, about: bool = False) -> str:
        """The first line that is not a MESSAGE, DEBUG or blank line, nor a late answer to
        ABOUT; the MESSAGE lines before it are kept in `messages` (an engine's evaluation, say).
        With `about`, whatever answers ABOUT (its name, or that it does not know it)."""
        if not about:
            self.messages = []
        while True:
            line = self.process.read(deadline, command).strip()
            word = line.split(maxsplit=1)[0].upper() if line else ""
            if about and word not in ("", "MESSAGE", "DEBUG"):
                return line
            if word == "MESSAGE":
                self.messages.append(line.partition(" ")[2])
            if word in ("", "MESSAGE", "DEBUG") or line.lower().startswith("name="):
                continue
            if word == "UNKNOWN" and "ABOUT" in line.upper():
                continue  # a brain without ABOUT, answering a late one
            if word in ("ERROR", "UNKNOWN"):
                raise EngineFailure("refused", f"{command} answered {line!r}")
            return line
