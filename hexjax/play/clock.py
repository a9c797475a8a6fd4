"""Moves within a time limit, for the engines (Gomocup, GTP).

By default (search "kept", or "fresh" for a new tree each move) a move with a budget is the
agent's `lasting.LastingSearch`: one tree grown until USE of the budget is spent. The rest of
this module is the "counts" search, the engines' clock before the lasting search, kept as the
measure of what the lasting search is worth: each move searches a power-of-four count (and
`most`), the largest whose predicted time fits SAFETY of the budget. `SearchClock.prepare(agent)`
compiles the agent's search (at START or boardsize, before any move's clock runs) and times the
counts on the empty board, smallest first, while one is predicted to take under
MEASURE_LIMIT_S; real moves time them again. A count's predicted time is the slowest of its last
few timed searches, else the time of the largest timed count below, scaled linearly, for at most
GROWTH times that count (a search's cost per simulation grows with its tree, so extrapolation
stays short).
"""

from __future__ import annotations

import collections
import threading
import time

from hexjax.alphazero.search import PLAY_SIMULATIONS
from hexjax.games import State
from hexjax.play import cores
from hexjax.play.agent import Agent
from hexjax.play.agent_move import MAX_SIMULATIONS, AgentMove, simulation_count
from hexjax.play.lasting import LastingSearch
from hexjax.play.match import Match

SAFETY = 0.5  # the part of a move's budget the search may use (host work, jitter, contention)
MOVES_AHEAD = 20  # a main time is shared among this many more moves
MOVES_AHEAD_AT_LEAST = 8  # an unsure move may take up to this share of a main time
GROWTH = 4  # the most a count may exceed the largest measured one
MEASURE_LIMIT_S = 1.0  # counts predicted to take longer are timed by real moves only
RECENT = 3  # moves remembered per count
# How a move with a budget searches: one tree grown until the time is spent and kept from move
# to move (`lasting.LastingSearch`); the same with a new tree each move; or the largest
# power-of-four count whose measured time fits SAFETY of the budget.
TIMED_SEARCHES = ("kept", "fresh", "counts")


class SearchClock:
    """Picks and times the simulations of each move; one per engine, for all its agents."""

    def __init__(self, most: int, now=time.monotonic, search: str = "kept", solve: bool = True,
                 untimed: int | None = None):  # fmt: skip
        if search not in TIMED_SEARCHES:
            raise ValueError(f"timed search must be one of {', '.join(TIMED_SEARCHES)}, "
                             f"got {search!r}")  # fmt: skip
        self.now = now  # seconds; tests pass a fake clock
        self.search = search
        self.solve = solve  # the lasting search tries the game's exact solver first
        self.most = simulation_count(most)  # the most a move searches, with a time limit
        self.untimed = simulation_count(untimed) if untimed else self.most  # and without one
        self._lasting: dict[int, LastingSearch] = {}  # by agent
        self.counts = [4**k for k in range(8) if 4**k < self.most] + [self.most]
        self._seconds: dict[tuple[int, int], collections.deque] = {}  # (agent, count) -> times
        self._lock = threading.Lock()
        self._prepared: set[int] = set()  # the agents prepared, by id

    def prepare(self, agent: Agent) -> None:
        """Once per agent: compile its search and play a move once (a move's first
        `Match.play` compiles the game's step); for counts, time them (above)."""
        if id(agent) in self._prepared:
            return
        self._prepared.add(id(agent))
        start = agent.game.new_state()
        if self.search == "counts":
            agent.prepare()  # a compile is not a search's time
            action = self._timed(agent, start, self.counts[0]).action
            for count in self.counts[1:]:
                if self.predicted(agent, count) > MEASURE_LIMIT_S:
                    break
                self._timed(agent, start, count)
        else:
            self.lasting(agent).prepare()
            action = agent.game.legal_actions(start)[0]
        Match(agent.game).play(action)

    def move(self, agent: Agent, state: State, budget_s: float | None,
             most_s: float | None = None) -> AgentMove:  # fmt: skip
        """The agent's move in `state` within `budget_s` seconds (None: `most` simulations);
        the lasting search may take up to `most_s` on a move it is unsure of."""
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
            return self.untimed
        allowed = SAFETY * budget_s
        fitting = [c for c in self.counts if self.predicted(agent, c) <= allowed]
        return max(fitting, default=self.counts[0])

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

    def _timed(self, agent: Agent, state: State, count: int) -> AgentMove:
        started = self.now()
        reply = agent.move(state, count)
        self._record(agent, count, self.now() - started)
        return reply

    def _record(self, agent: Agent, count: int, seconds: float) -> None:
        with self._lock:
            recent = self._seconds.setdefault((id(agent), count), collections.deque(maxlen=RECENT))
            recent.append(seconds)


def default_simulations(timed: bool) -> int:
    """The most a move searches when no count is given: PLAY_SIMULATIONS without a time limit,
    and with one what fits its time, up to MAX_SIMULATIONS (a cap of 64 there would leave most
    of a generous clock unspent). The engines and evaluate's timed agent both go by it."""
    return MAX_SIMULATIONS if timed else PLAY_SIMULATIONS


def engine_clock(simulations: int | None, search: str = "kept", solve: bool = True) -> SearchClock:
    """The engines' clock: `simulations` (their --simulations) the most a move searches, with a
    time limit or without; not given, `default_simulations` of each."""
    return SearchClock(
        simulations or default_simulations(timed=True), search=search, solve=solve,
        untimed=simulations or default_simulations(timed=False),
    )  # fmt: skip


# The engines' --simulations, as `engine_clock` reads it.
ENGINE_SIMULATIONS_HELP = (
    f"the most a move searches (default: {PLAY_SIMULATIONS} without a time limit; with one, what "
    f"fits its time, up to {MAX_SIMULATIONS})"
)


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
