"""Play against an agent in the terminal: a board with colours, moves in the game's notation.

Commands besides a move: `hint` (the agent's top moves for you with their probabilities and
your win chance), `undo` (back to your previous turn), `sims N` (AI strength: a power of two up
to MAX_SIMULATIONS, others rounded down), `go` (the AI moves after its search was stopped),
`moves`, `new`, `resign`, `help`, `quit`. Hex with the swap rule takes `swap` as the second
move, Othello takes `pass` when it is the only move. A typo or an illegal move gets a message.

A search that runs longer than PROGRESS_AFTER_S shows its simulations as it goes, and Ctrl-C
stops it (the AI then waits for `go`); Ctrl-C at the prompt quits.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from hexjax.alphazero.search import PLAY_SIMULATIONS
from hexjax.games._base import shown
from hexjax.play.agent import Agent
from hexjax.play.agent_move import MAX_SIMULATIONS, AgentMove, simulation_count
from hexjax.play.match import Match, MoveError

HELP = (
    "commands: a move (e.g. {example}){extra}, hint, undo, sims N, go, moves, new, resign, "
    "help, quit"
)
PROGRESS_AFTER_S = 1.0  # searches shorter than this show no progress

_RESET = "\033[0m"
_ANSI = {"red": "\033[1;31m", "blue": "\033[1;34m", "black": "\033[1;33m", "white": "\033[1;37m"}


def draw(match: Match, colour: bool, hints: bool = True) -> str:
    """The board as text: Hex as an indented rhombus, the others as a grid; the last move in
    brackets; Othello's legal moves `*` and renju's points forbidden for Black `#` when the
    side to move may not (or may) play there."""
    game = match.game
    board = match.board()
    n = board.shape[0]
    last = match.actions[-1] if match.actions else None
    marks = game.hint_marks(match.state) if hints and not match.over else {}
    letters = "abcdefghijklmnopqrstuvwxyz"[:n]
    width = max(len(game.action_to_string(r * n)[1:]) for r in range(n))
    lines = []
    indent = game.hexagonal
    header = " " * (width + 2) + " ".join(letters)
    lines.append(header)
    for r in range(n):
        label = game.action_to_string(r * n)[1:].rjust(width)
        row = [" "] * (2 * n + 1)  # separators at even indices, cells at odd ones
        for c in range(n):
            action = r * n + c
            stone = int(board[r, c])
            text = ".XO"[stone] if stone else marks.get(action, ".")
            if colour and stone:
                text = _ANSI[game.stone_colours[stone - 1]] + text + _RESET
            row[2 * c + 1] = text
            if action == last:
                row[2 * c], row[2 * c + 2] = "[", "]"
        lines.append((" " * r if indent else "") + label + " " + "".join(row) + " " + label)
    lines.append((" " * (n - 1) if indent else "") + header)
    if game.tally(board):
        lines.append(game.tally(board))
    return "\n".join(lines)


class TerminalGame:
    """One person against the agent; `run` reads commands until `quit` or end of input."""

    def __init__(self, agent: Agent, human: int = 0, simulations: int = PLAY_SIMULATIONS,
                 colour=None, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout):  # fmt: skip
        self.agent = agent
        self.human = human
        self.simulations = simulation_count(simulations)
        self.stdin, self.stdout = stdin, stdout
        self.colour = stdout.isatty() if colour is None else colour
        self.match = Match(agent.game)
        self.paused = False  # the AI's search was stopped: it moves on `go`

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def run(self) -> None:
        game = self.agent.game
        self.say(f"{game} against {self.agent.source}, {self.simulations} simulations a move")
        self.say(f"you play {game.side_names[self.human]}. {self._help()}")
        shown = None  # the moves on the board last drawn: redraw only when they change
        while True:
            if not self.match.over and self.match.to_play != self.human and not self.paused:
                self._ai_move()
            if shown != self.match.actions:
                shown = list(self.match.actions)
                self.say(draw(self.match, self.colour))
                if self.match.over:
                    self.say(f"game over: {self._result()}. Type new, undo or quit.")
            print(self._prompt(), end="", file=self.stdout, flush=True)
            try:
                line = self.stdin.readline()
            except KeyboardInterrupt:  # Ctrl-C at the prompt
                line = ""
            if not line:  # end of input
                self.say()
                return
            if self._command(line.strip()) == "quit":
                return

    def _command(self, line: str) -> str | None:
        word, _, rest = line.partition(" ")
        word = word.lower()
        if not word:
            return None
        if word in ("q", "quit", "exit"):
            return "quit"
        if word in ("help", "?"):
            self.say(self._help())
        elif word == "hint":
            self._hint()
        elif word == "undo":
            self._undo()
        elif word == "moves":
            self.say(" ".join(self.match.moves()) or "no moves yet")
        elif word == "new":
            self._new_game()
        elif word == "resign":
            if self.match.over:
                self.say("the game is already over")
            else:
                self.say(f"you resign: {self._side(1 - self.human)} wins")
                self._new_game()
        elif word == "sims":
            self._set_simulations(rest)
        elif word == "go":
            if self.match.over or self.match.to_play == self.human:
                self.say("it is not the AI's turn")
            self.paused = False
        elif self.match.over:
            self.say(f"the game is over ({self._result()}); type new, undo or quit")
        elif self.match.to_play != self.human:
            self.say("it is the AI's turn: type go (or undo)")
        else:
            try:
                self.match.play(line)
            except MoveError as error:
                self.say(f"{error}. Type help for the commands.")
        return None

    def _prompt(self) -> str:
        if self.match.over:
            return "> "
        if self.match.to_play != self.human:
            return "AI to move (go): "
        return f"your move ({self._side()}): "

    def _new_game(self) -> None:
        self.match = Match(self.agent.game)
        self.paused = False
        self.say("new game")

    def _ai_move(self) -> None:
        reply = self._search("the AI's search")
        if reply is None:
            self.paused = True
            self.say("type go for the AI to move (sims N to change its strength), or undo")
            return
        self.match.play(reply.action)
        move = self.agent.game.action_to_string(reply.action)
        self.say(f"AI plays {move} (it gives itself {reply.win_probability:.0%})")

    def _hint(self) -> None:
        if self.match.over:
            self.say("the game is over")
            return
        advice = self._search("the hint")
        if advice is None:
            return
        shown = [(a, p) for a, p in advice.top(5) if round(p * 100) >= 1] or advice.top(1)
        tops = ", ".join(f"{self.agent.game.action_to_string(a)} {p:.0%}" for a, p in shown)
        self.say(f"hint: {tops}; your win chance {advice.win_probability:.0%}")

    def _search(self, what: str) -> AgentMove | None:
        """The agent's search of the position, with progress when it is long; None if Ctrl-C
        stopped it."""
        started = time.monotonic()
        shown = False

        def progress(done: int, total: int) -> None:
            nonlocal shown
            if time.monotonic() - started >= PROGRESS_AFTER_S:
                end = "\r" if self.stdout.isatty() else "\n"
                print(f"searching: {done}/{total} simulations (Ctrl-C stops)", end=end,
                      file=self.stdout, flush=True)  # fmt: skip
                shown = True

        try:
            return self.agent.move(self.match.state, self.simulations, progress)
        except KeyboardInterrupt:
            self.say(("\n" if shown and self.stdout.isatty() else "") + f"{what} was stopped")
            return None
        finally:
            if shown and self.stdout.isatty():
                print(" " * 60, end="\r", file=self.stdout, flush=True)

    def _undo(self) -> None:
        """Back to the human's previous turn: take back moves until one of theirs is gone."""
        self.paused = False
        taken = self.match.undo_turn(self.human)
        if taken == 0:
            self.say("none of your moves to take back")
        else:
            self.say(f"took back {taken} move{'s' * (taken > 1)}")

    def _set_simulations(self, text: str) -> None:
        try:
            value = int(text)
            if value < 1:
                raise ValueError
        except ValueError:
            self.say(f"sims takes a positive whole number, got {shown(text.strip())}")
            return
        self.simulations = simulation_count(value)
        note = ""
        if self.simulations != value:
            note = f" (searches come in powers of two up to {MAX_SIMULATIONS})"
        self.say(f"the AI now searches {self.simulations} simulations a move{note}")

    def _side(self, player: int | None = None) -> str:
        player = self.match.to_play if player is None else player
        return self.agent.game.side_names[player]

    def _result(self) -> str:
        if self.match.winner < 0:
            return "a draw"
        who = "you win" if self.match.winner == self.human else "the AI wins"
        return f"{self._side(self.match.winner)} wins: {who}"

    def _help(self) -> str:
        game = self.agent.game
        extra = "".join(f", {extra.word} ({extra.when})" for extra in game.extra_actions)
        return HELP.format(example=game.action_to_string(game.num_cells // 2), extra=extra)
