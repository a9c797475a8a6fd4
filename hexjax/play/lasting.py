"""A timed move that spends its time and keeps its tree: how the engines search under a clock.

`LastingSearch(agent, most)` compiles the growing search's steps (`alphazero/growing.py`) once,
for one game at a time. `move(state, budget_s)` moves the tree it kept to `state` (the subtree
of the node holding that position, else a new tree), plans as many simulations as the measured
rate fits in USE of the budget (at most `most`), grows the tree a short chunk at a time until
they are done or the time is up, and plays the best move. Between chunks it sees Ctrl-C and
`Agent.stop_searches`, so no host callback runs inside the compiled steps, and they can be kept
on disk (`compile_cache`). Where the game has a root solver (`evaluation/root_solvers.py`: Hex
up to 7x7 solved outright, five in a row's wins by continuous threats), a timed move asks it and
plays a proven win. With a core to spare (`play/cores.py`) the solver runs beside the search in
a process of its own (`solver_process`), as long as the search may (a proof stops the search
between chunks); with one core it goes first, for SOLVER_SHARE of the time, and the search gets
the rest. In five in a row the searched move is then screened in the last SCREEN_SHARE of the
time: one that lets the opponent win by continuous fours (or threats, where they are found in
time) gives way to the most likely searched move that does not (in the solver's process when it
runs beside, so that its reading is compiled there rather than at START).

The rate a move plans by is measured on the moves' own chunks (`search_rate.py`); a start reads
the one an earlier start on this machine remembered, else measures it on the empty board.

With `keep=False` every move starts a new tree (the measure of what keeping it is worth).
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from hexjax.alphazero import growing
from hexjax.evaluation import root_solvers
from hexjax.games import State
from hexjax.play import compile_cache, cores, solver_process
from hexjax.play.agent_move import MAX_SIMULATIONS, AgentMove, SearchStopped
from hexjax.play.search_rate import SearchRate

_log = logging.getLogger(__name__)

USE = 0.8  # the part of a move's budget the search may use (protocol, host work, jitter)
CHUNK_S = 0.03  # a chunk's target time: the time's end is met within about this much
SOLVER_SHARE = 0.25  # of the time a move may use, what the exact solver may take first
SCREEN_SHARE = 0.2  # of the time a move may use, kept for screening the searched move
GRACE_S = 0.01  # how long past its deadline a solver beside the search is waited for
SCREENED = 8  # the most likely moves screened, at most, before the search's choice stands
# Time by the position: where the clock allows, an unsure search goes on up to EXTEND times the
# move's budget: its two likeliest moves within CLOSE of each other, or its value down by
# VALUE_DROP or more since the last move.
EXTEND = 2.0
CLOSE = 0.75
VALUE_DROP = 0.2
SMALLEST_CHUNK = 8  # simulations: a smaller chunk is mostly dispatch
MEASURED = 64  # simulations of the search that measures the rate when preparing


class LastingSearch:
    """One agent's timed search, its tree kept between moves (one tree for each thread, so that
    parallel matches each keep their own). `agent` is a `play/agent.py` Agent (not imported:
    the agent makes its own counted search with this module)."""

    def __init__(self, agent, most: int, keep: bool = True, now=time.monotonic,
                 solve: bool = True, beside: bool | None = None,
                 make_solver: Callable = root_solvers.root_solver,
                 timed: bool = True):  # fmt: skip
        self.agent = agent
        self.timed = timed  # moves may have a budget: `prepare` measures the rate
        # A root solver for the game, asked in a timed move: beside the search (by default when
        # a core is spare; in a process of its own) or before it. `make_solver(game)` makes it
        # (a module's function: the solver's process imports it by name).
        self.solves = solve and root_solvers.has_root_solver(agent.game)
        self.beside = bool(cores.spare()) if beside is None else beside
        self.make_solver = make_solver
        self.screens = solve and root_solvers.has_move_screen(agent.game)
        self.most = most
        self.keep = keep
        self.now = now
        # Room for a full search beside what the previous moves left.
        self.capacity = 2 * most + 1 if keep else most + 1
        self._config = agent.search_config(most)
        self._steps = None
        self._empty = None  # a tree of no node, the re-root's start
        self._compile_lock = threading.Lock()
        self._local = threading.local()
        # Made now (in the solver's process, or for this thread: other threads make their own
        # on their first move), so that what they compile (renju's reading) is compiled before
        # any move is timed.
        if self.solves and self.beside:
            solver_process.prepare(make_solver, agent.config.game)
        elif self.solves:
            self._solver()
        if self.screens and self.beside:
            solver_process.prepare(root_solvers.move_screen, agent.config.game)
        elif self.screens:
            self._local.screen = root_solvers.move_screen(agent.game)
        self._rate = SearchRate(now)
        self._chunk_index = 0  # each chunk's key: the search is deterministic, keys feed mctx
        self._key: str | None = None  # what the compiled steps are kept under (`_compile`)

    @property
    def rate(self) -> float:
        """Simulations a second over the recent chunks (host dispatch included)."""
        return self._rate.value

    @property
    def prepared(self) -> bool:
        return self._steps is not None

    def prepare(self) -> None:
        """Compile the steps (once) and, for timed moves, find the rate: the one an earlier
        start on this machine remembered (`search_rate.py`), else measured on a short
        search of the empty board (most of a warm START's time when measured).
        The solver's process starts beside without being waited for (seconds: an engine's
        START would wait too); until it is up, a timed move's solve waits in its queue."""
        with self._compile_lock:
            if self._steps is not None:
                return
            self._steps = self._compile()
        if not self.timed:
            return  # moves counted in simulations need no rate
        if self._rate.recall(self._key, CHUNK_S):
            return
        state = self.agent.game.new_state()
        for _ in range(2):  # the first run's chunks are slow (caches, allocation): measured again
            self._rate.clear()
            self.move(state, None, simulations=MEASURED)
        self._local.tree = self._local.value = None
        self._rate.remember()

    def wait_for_solver(self) -> None:
        """Wait until the solver's process is up with this game's solver and screen: a
        measurement wants every timed move to have them (an engine's START does not wait)."""
        game = self.agent.config.game
        if self.solves and self.beside:
            solver_process.prepare(self.make_solver, game).result()
        if self.screens and self.beside:
            solver_process.prepare(root_solvers.move_screen, game).result()

    @property
    def kept(self) -> int:
        """Nodes this thread's last move kept from the tree before it (0: a new tree)."""
        return getattr(self._local, "kept", 0)

    @classmethod
    def counted(cls, agent) -> LastingSearch:
        """The search of the front ends that count simulations rather than time (`Agent.move`:
        the web page, the terminal, the Python API): up to MAX_SIMULATIONS, a new tree each
        move, no solver (they ask their own). Its steps call nothing on the host, so the
        compilation cache keeps them and a later start's first reply reads them back rather
        than compiling a search."""
        return cls(agent, MAX_SIMULATIONS, keep=False, solve=False, timed=False)

    def move(self, state: State, budget_s: float | None, simulations: int | None = None,
             most_s: float | None = None,
             progress: Callable[[int, int], None] | None = None) -> AgentMove:  # fmt: skip
        """The move in `state` (not over) within `budget_s` seconds (None: `simulations`, else
        `most`, whatever they take). Up to `most_s` (at most EXTEND times the budget) when the
        search is unsure after the budget: its two best moves close, or its value fallen since
        this thread's last move. `progress(done, planned)` is called after each chunk."""
        if bool(state.terminated):
            raise ValueError("the game is over: there is no move to search")
        if budget_s is not None and not self.timed:
            raise ValueError("this search counts simulations (timed=False): it has no rate to "
                             "spend a budget by")  # fmt: skip
        self.prepare()
        started = self.now()
        proving = None  # the solver's answer to come, when it runs beside the search
        if budget_s is not None and self.solves and self.beside:
            solver_end = self._search_end(started, budget_s)
            board, mover = np.asarray(state.board), int(state.current_player)
            game = self.agent.config.game
            proving = solver_process.solve(self.make_solver, game, board, mover, solver_end)
        elif budget_s is not None and self.solves:
            proof = self._proof(state, started + SOLVER_SHARE * USE * budget_s)
            if proof is not None:
                return self._proven(proof)
        steps, params = self._steps, self.agent.params
        batched = _one_game(state)
        tree = getattr(self._local, "tree", None)
        if not self.keep or tree is None:
            tree = self._empty  # no node: the re-root starts a new tree
        us = np.asarray(batched.current_player, np.int32)  # contempt is for the side to move
        tree, kept = steps["reroot"](params, tree, batched, us)
        planned = self.most if simulations is None else simulations
        end = None if budget_s is None else self._search_end(started, budget_s)
        if end is not None:
            planned = min(planned, int(self.rate * (end - self.now())))
        if self.capacity - _size(tree) < max(0, planned):
            # What was kept leaves too little room for this move's search: a new tree.
            tree, kept = steps["reroot"](params, self._empty, batched, us)
        self._local.kept = int(np.asarray(kept)[0])
        # Between chunks: a proof has come (a failed solve is reported once, below).
        proved = None if proving is None else lambda: (
            proving.done() and proving.exception() is None and proving.result() is not None
        )  # fmt: skip
        tree, done = self._grow(tree, planned, end, proved, progress)
        if proving is not None:
            # At the search's end the solver stops too; a search that ended early waits for it
            # no longer than the solver going first would have taken.
            share_end = started + SOLVER_SHARE * USE * budget_s
            proof = self._answer(proving, min(solver_end, max(share_end, self.now())) + GRACE_S)
            if proof is not None:
                return self._proven(proof)
        action, policy, value = self._choice(tree)
        seconds = budget_s
        extendable = budget_s is not None and most_s is not None and most_s > budget_s
        if extendable and self._unsure(policy, value):
            seconds = min(most_s, EXTEND * budget_s)
            end = self._search_end(started, seconds)
            more = min(self.most - done, int(self.rate * (end - self.now())))
            tree, extra = self._grow(tree, more, end)
            done += extra
            action, policy, value = self._choice(tree)
        self._local.tree, self._local.value = tree, value
        if budget_s is not None:
            self._rate.remember()  # the rate of real moves, for the next start
        if budget_s is not None and self.screens:
            action = self._screened(state, action, policy, started + USE * seconds)
        return AgentMove(action, policy, value, done)

    def ponder(self, state: State, stop: Callable[[], bool]) -> int:
        """On the opponent's time: grow this thread's kept tree at `state` (the opponent to
        move) until `stop()` says so, `most` simulations are done, or the tree has only a full
        move's room left; the next move keeps the subtree of the reply played. Returns the
        simulations grown (0 without a kept tree, or when the game is over)."""
        if not self.keep or bool(state.terminated):
            return 0
        self.prepare()
        steps, params = self._steps, self.agent.params
        tree = getattr(self._local, "tree", None)
        batched = _one_game(state)
        us = 1 - np.asarray(batched.current_player, np.int32)  # ours is the move to come
        tree, _ = steps["reroot"](params, self._empty if tree is None else tree, batched, us)
        room = self.capacity - self.most - _size(tree)
        tree, done = self._grow(tree, min(self.most, room), None, stop)
        self._local.tree = tree
        return done

    def _search_end(self, started: float, seconds: float) -> float:
        """When the search must stop, for a move of `seconds` begun at `started` (the screen's
        share after it)."""
        return started + USE * seconds * (1 - SCREEN_SHARE * self.screens)

    def _grow(self, tree, planned: int, deadline: float | None, stop: Callable | None = None,
              progress: Callable[[int, int], None] | None = None):  # fmt: skip
        """(tree, simulations done): `planned` more simulations, planned as one halving, grown a
        chunk at a time until they are done, the tree is full, `deadline` passes or `stop()`
        says so (the solver beside has proved a move, the opponent has moved); `progress(done,
        planned)` after each chunk."""
        planned = max(0, min(planned, self.capacity - _size(tree)))
        steps, params = self._steps, self.agent.params
        considered = self.agent.search_config(max(planned, 1)).max_considered_actions
        counts = np.asarray([planned], np.int32), np.asarray([considered], np.int32)
        tree = steps["plan"](tree, *counts)
        done = 0
        while done < planned:
            if self.agent.stopping:
                raise SearchStopped("the search was stopped")
            if stop is not None and stop():
                break
            chunk = min(planned - done, max(SMALLEST_CHUNK, int(self.rate * CHUNK_S)))
            if deadline is not None:
                chunk = min(chunk, int(self.rate * (deadline - self.now())))
                if chunk < 1:
                    break
            began = self.now()
            self._chunk_index += 1
            tree = steps["grow"](params, tree, np.int32(chunk), np.int32(self._chunk_index))
            tree.node_visits.block_until_ready()
            self._rate.add(chunk, self.now() - began)
            done += chunk
            if progress is not None:
                progress(done, planned)
        return tree, done

    def _choice(self, tree) -> tuple[int, np.ndarray, float]:
        action, policy, value = jax.device_get(self._steps["choose"](tree))
        return int(action[0]), np.asarray(policy[0], np.float32), float(value[0])

    def _unsure(self, policy: np.ndarray, value: float) -> bool:
        """The two likeliest moves within CLOSE of each other, or the value down by VALUE_DROP
        or more since this thread's last move."""
        first, second = np.sort(policy)[-2:][::-1] if policy.size > 1 else (1.0, 0.0)
        before = getattr(self._local, "value", None)
        return second >= CLOSE * first or (before is not None and before - value >= VALUE_DROP)

    def _proof(self, state: State, deadline: float) -> root_solvers.Proven | None:
        """A winning move if the exact solver, here, proves one before `deadline` (a
        time.monotonic() time), else None. The solver is this thread's: its tables last."""
        return self._solver()(np.asarray(state.board), int(state.current_player), deadline)

    def _solver(self):
        """The calling thread's root solver (made on its first call)."""
        solver = getattr(self._local, "solver", None)
        if solver is None:
            solver = self._local.solver = self.make_solver(self.agent.game)
        return solver

    @staticmethod
    def _answer(proving: concurrent.futures.Future, wait_until: float):
        """The solver's proof, or None: it proved nothing, or had not answered by `wait_until`
        after a search that ended early (it goes on to its own deadline, its answer unused; the
        next solve waits behind it)."""
        try:
            return proving.result(timeout=max(0.0, wait_until - time.monotonic()))
        except concurrent.futures.TimeoutError:
            return None
        except concurrent.futures.BrokenExecutor as error:  # the search plays
            _log.warning("the solver's process died (%s); it starts again next move", error)
            return None

    def _proven(self, proof: root_solvers.Proven) -> AgentMove:
        """The proven move, played without a search: the kept tree is dropped."""
        self._local.tree, self._local.kept, self._local.value = None, 0, None
        return AgentMove.of_proof(proof, self.agent.game.num_actions)

    def _screened(self, state: State, action: int, policy: np.ndarray, deadline: float) -> int:
        """`action`, unless it lets the opponent win (by fours, or threats found in time) and one
        of the next most likely moves does not (out of time, or all of them losing: `action`).
        Screened in the solver's process where it runs beside (its reading compiled there, not
        in START), else here."""
        board, mover = np.asarray(state.board), int(state.current_player)
        likely = [int(a) for a in np.argsort(-policy, kind="stable") if policy[a] > 0]
        moves = [action, *[a for a in likely if a != action]][:SCREENED]
        if self.beside:
            game = self.agent.config.game
            asked = solver_process.screen(root_solvers.move_screen, game, board, mover, moves,
                                          deadline)  # fmt: skip
            safe = self._answer(asked, deadline + GRACE_S)
        else:
            loses = getattr(self._local, "screen", None)
            if loses is None:
                loses = self._local.screen = root_solvers.move_screen(self.agent.game)
            safe = root_solvers.first_safe(loses, board, mover, moves, deadline)
        return action if safe is None else safe

    def _compile(self) -> dict:
        game, net, config = self.agent.game, self.agent.network, self._config
        grow = growing.make_grow(game, net, config)

        def reroot(params, tree, states, us):
            # The kept subtree is found by the whole state, so the root's moves are pruned after.
            tree, kept = growing.reroot(game, net, params, tree, states, config, us)
            searched = self.agent.searched_root(states).legal_action_mask
            return tree.replace(root_invalid_actions=~searched), kept

        def grow_chunk(params, tree, count, index):
            return grow(params, jax.random.fold_in(jax.random.key(0), index), tree, count)

        def choose(tree):
            action, policy, value = growing.choose(tree, config.policy)
            return action, jnp.where(tree.root_invalid_actions, 0.0, policy), value

        example = _one_game(game.new_state())
        self._empty = _EMPTY(example, game.num_actions, self.capacity)
        tree, params, one = self._empty, self.agent.params, np.ones(1, np.int32)
        key = f"{self.agent.config} {config} {self.capacity} {self.agent.prune}"  # baked in
        self._key = key
        return {
            "reroot": compile_cache.compiled(
                "reroot", reroot, (params, tree, example, one), key=key
            ),
            "plan": compile_cache.compiled("plan", growing.plan, (tree, one, one), key=key),
            "grow": compile_cache.compiled(
                "grow", grow_chunk, (params, tree, one[0], one[0]), donate=(1,), key=key
            ),  # fmt: skip
            "choose": compile_cache.compiled("choose", choose, (tree,), key=key),
        }


# One small program rather than an operation at a time (each compiles on its own), traced once
# a process for every search of the same game and capacity.
_EMPTY = jax.jit(growing.empty, static_argnums=(1, 2))


def _one_game(state: State) -> State:
    """`state` as a batch of one, on the host: each operation on JAX arrays here would compile
    a program of its own at an engine's start (a few milliseconds each, from the cache)."""
    return jax.tree.map(lambda x: np.asarray(x)[None], state)


def _size(tree) -> int:
    """The nodes in use in a tree of one game (read on the host, as `_one_game` says why)."""
    return int(np.asarray(tree.extra_data.size)[0])
