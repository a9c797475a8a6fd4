"""Moves within a time limit, for the engines (Gomocup, GTP).

By default (search "kept", or "fresh" for a new tree each move) a move with a budget is the
agent's `lasting.LastingSearch`: one tree grown until USE of the budget is spent. The rest of
this module is the "counts" search, the engines' clock before the lasting search: each
simulation count compiles its own search, which takes seconds: an engine that picked
counts on the fly would pay that inside a move and lose on time. So `SearchClock.prepare(agent)`
compiles the smallest count and times it before it returns (at START or boardsize, before any
move's clock runs), then compiles the others on a background thread, smallest first, timing
each on the empty board while that is cheap. The counts are the powers of four below `most`,
and `most`: few compiles, since a tournament manager suspends a brain between its turns and
background work competes with the brain's own moves.

A move with a budget searches the largest compiled count whose predicted time fits SAFETY of
the budget: the slowest of that count's last few timed searches, else the time of the largest
timed count below, scaled linearly, for at most GROWTH times that count (a search's cost per
simulation grows with its tree, so extrapolation stays short).
"""

from __future__ import annotations

import atexit
import collections
import sys
import threading
import time
import weakref

from hexjax.games import State
from hexjax.play import cores
from hexjax.play.agent import Agent, AgentMove, simulation_count
from hexjax.play.lasting import LastingSearch
from hexjax.play.match import Match

SAFETY = 0.5  # the part of a move's budget the search may use (host work, jitter, contention)
MOVES_AHEAD = 20  # a main time is shared among this many more moves
MOVES_AHEAD_AT_LEAST = 8  # an unsure move may take up to this share of a main time
GROWTH = 4  # the most a count may exceed the largest measured one
MEASURE_LIMIT_S = 1.0  # counts predicted to take longer are timed by real moves only
RECENT = 3  # moves remembered per count
EXIT_WAIT_S = 120.0  # the longest the interpreter's exit waits for a background compile
# How a move with a budget searches: one tree grown until the time is spent and kept from move
# to move (`lasting.LastingSearch`); the same with a new tree each move; or the largest compiled
# power-of-four count whose measured time fits SAFETY of the budget.
TIMED_SEARCHES = ("kept", "fresh", "counts")


_CLOCKS: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    """At exit, stop the background compiles and wait for the one under way: a thread killed
    inside XLA aborts the interpreter. Bounded, so that a stuck thread cannot hang the exit."""
    for clock in list(_CLOCKS):
        clock.stop()
        clock.wait(timeout_s=EXIT_WAIT_S)


class SearchClock:
    """Picks and times the simulations of each move; one per engine, for all its agents."""

    def __init__(self, most: int, now=time.monotonic, search: str = "kept", solve: bool = True):
        if search not in TIMED_SEARCHES:
            raise ValueError(f"timed search must be one of {', '.join(TIMED_SEARCHES)}, "
                             f"got {search!r}")  # fmt: skip
        self.now = now  # seconds; tests pass a fake clock
        self.search = search
        self.solve = solve  # the lasting search tries the game's exact solver first
        self.most = simulation_count(most)
        self._lasting: dict[int, LastingSearch] = {}  # by agent
        self.counts = [4**k for k in range(8) if 4**k < self.most] + [self.most]
        self._seconds: dict[tuple[int, int], collections.deque] = {}  # (agent, count) -> times
        self._lock = threading.Lock()
        self._stop = threading.Event()  # the background compiles' current stop flag
        self._threads: list[threading.Thread] = []  # background compiles, running or stopping
        self._compiling: int | None = None  # the agent whose compiles the last thread runs
        self._prepared: set[int] = set()  # the agents prepared, by id
        _CLOCKS.add(self)

    def prepare(self, agent: Agent) -> None:
        """Once per agent: compile and time the smallest count now, and play its move once (a
        move's first `Match.play` compiles the game's step). Then the agent's other counts
        compile in the background (those of a previously prepared agent stop; preparing that
        one again picks up where it stopped). A lasting search compiles its steps instead, and
        a move is played once."""
        if id(agent) not in self._prepared:
            self._prepared.add(id(agent))
            start = agent.game.new_state()
            if self.search == "counts":
                action = self._timed(agent, start, self.counts[0]).action
            else:
                self.lasting(agent).prepare()
                action = agent.game.legal_actions(start)[0]
            Match(agent.game).play(action)
        if self.search != "counts":
            return
        if self._compiling == id(agent) and self._threads and self._threads[-1].is_alive():
            return  # its compiles are under way (engines call this before every move)
        self.stop()
        if all(agent.is_prepared(count) for count in self.counts):
            return
        self._stop = threading.Event()
        thread = threading.Thread(
            target=self._compile_rest, args=(agent, self._stop), name="compile", daemon=True
        )
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        self._compiling = id(agent)
        thread.start()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Wait for the background compiles, a stopped agent's last one included (a thread
        killed inside XLA at exit aborts the interpreter); True when they are done."""
        end = None if timeout_s is None else time.monotonic() + timeout_s
        for thread in self._threads:
            thread.join(None if end is None else max(0.0, end - time.monotonic()))
        self._threads = [thread for thread in self._threads if thread.is_alive()]
        return not self._threads

    def move(self, agent: Agent, state: State, budget_s: float | None,
             most_s: float | None = None) -> AgentMove:  # fmt: skip
        """The agent's move in `state` within `budget_s` seconds (None: `most` simulations,
        compiled now if need be); the lasting search may take up to `most_s` on a move it is
        unsure of."""
        if budget_s is not None and self.search != "counts":
            return self.lasting(agent).move(state, budget_s, most_s=most_s)
        return self._timed(agent, state, self.simulations(agent, budget_s))

    def ponder(self, agent: Agent, state: State, stop) -> int:
        """On the opponent's time, grow the agent's kept tree at `state` until `stop()` (the
        kept lasting search only); the simulations grown."""
        if self.search != "kept":
            return 0
        return self.lasting(agent).ponder(state, stop)

    def lasting(self, agent: Agent) -> LastingSearch:
        """The agent's lasting search (made on first use)."""
        with self._lock:
            if id(agent) not in self._lasting:
                keep = self.search == "kept"
                self._lasting[id(agent)] = LastingSearch(
                    agent, self.most, keep, self.now, self.solve
                )
            return self._lasting[id(agent)]

    def simulations(self, agent: Agent, budget_s: float | None) -> int:
        if budget_s is None:
            return self.most
        allowed = SAFETY * budget_s
        ready = [c for c in self.counts if agent.is_prepared(c)] or self.counts[:1]
        fitting = [c for c in ready if self.predicted(agent, c) <= allowed]
        return max(fitting, default=ready[0])

    def predicted(self, agent: Agent, count: int) -> float:
        """Seconds a search of `count` simulations is expected to take (inf when unknown)."""
        with self._lock:
            measured = {c: max(t) for (a, c), t in self._seconds.items() if a == id(agent)}
        if count in measured:
            return measured[count]
        below = [c for c in measured if c < count]
        if not below or count > GROWTH * max(measured):
            return float("inf")
        base = max(below)
        return measured[base] * count / base

    def stop(self) -> None:
        """Stop compiling in the background (after the compile under way)."""
        self._stop.set()
        self._compiling = None

    def _timed(self, agent: Agent, state: State, count: int) -> AgentMove:
        agent.prepare(count)  # a compile is not the search's time
        started = self.now()
        reply = agent.move(state, count)
        self._record(agent, count, self.now() - started)
        return reply

    def _record(self, agent: Agent, count: int, seconds: float) -> None:
        with self._lock:
            recent = self._seconds.setdefault((id(agent), count), collections.deque(maxlen=RECENT))
            recent.append(seconds)

    def _compile_rest(self, agent: Agent, stop: threading.Event) -> None:
        start = agent.game.new_state()
        for count in self.counts[1:]:
            for attempt in range(2):
                if stop.is_set():
                    return
                try:
                    agent.prepare(count)
                    break
                except Exception as error:  # JAX tracing the same game in two threads can race
                    if attempt:
                        reason = f"{type(error).__name__}: {str(error)[:200]}"
                        print(f"hexjax: no {count}-simulation search ({reason}); moves use "
                              "the others", file=sys.stderr)  # fmt: skip
                        return
            if self.predicted(agent, count) <= MEASURE_LIMIT_S:
                self._timed(agent, start, count)


def add_clock_flags(parser, no_solver_help: str) -> None:
    """The engines' flags for play under a time limit: --timed-search, --no-solver (its help
    says what the game's solver tries), --search-cores and --ponder."""
    parser.add_argument("--timed-search", choices=TIMED_SEARCHES, default="kept",
                        help="under a time limit: one tree grown until the time is spent and "
                        "kept from move to move (default), a new tree each move (fresh), or the "
                        "largest compiled count that fits (counts)")  # fmt: skip
    parser.add_argument("--no-solver", action="store_true", help=no_solver_help)
    cores.add_cores_flag(parser)
    parser.add_argument("--ponder", action="store_true",
                        help="think on the opponent's time: grow the kept tree after each move "
                        "until the next command arrives (with --timed-search kept)")  # fmt: skip


def less_taken(taken_s: float, *limits: float | None) -> tuple[float | None, ...]:
    """Each of a move's limits (seconds; None: no limit) less `taken_s`, what its command took
    before the search (a manager or controller times the whole command), never below zero."""
    return tuple(None if limit is None else max(0.0, limit - taken_s) for limit in limits)


def split_main_time(seconds_left: float) -> float:
    """A move's share of a main time that must last the game."""
    return max(seconds_left, 0.0) / MOVES_AHEAD


def most_of_main_time(seconds_left: float) -> float:
    """The most one unsure move may take of a main time that must last the game."""
    return max(seconds_left, 0.0) / MOVES_AHEAD_AT_LEAST
