"""A timed search's rate, in simulations a second: measured over its recent chunks, and
remembered for a later start on this machine (`compile_cache.remember`), so that an engine's
START need not measure it again (two short searches of each model: most of a warm START)."""

from __future__ import annotations

import collections
import os
import time

from hexjax.play import compile_cache

RECENT_CHUNKS = 16  # the rate is measured over this many recent chunks
REMEMBER_CHANGE = 0.1  # a rate is remembered again when it moved by more than this share


class SearchRate:
    """The rate of one compiled search on the clock `now`; remembered only on the wall clock
    (a test's fake clock's rate means nothing to another process)."""

    def __init__(self, now=time.monotonic):
        self.now = now
        self.key: str | None = None  # what the rate is remembered under (`recall` sets it)
        self._chunks: collections.deque = collections.deque(maxlen=RECENT_CHUNKS)  # (sims, s)
        self._remembered: float | None = None

    @property
    def value(self) -> float:
        """Simulations a second over the recent chunks (host dispatch included)."""
        chunks = list(self._chunks)
        return sum(n for n, _ in chunks) / max(sum(s for _, s in chunks), 1e-9)

    def add(self, simulations: int, seconds: float) -> None:
        self._chunks.append((simulations, seconds))

    def clear(self) -> None:
        self._chunks.clear()

    def recall(self, search_key: str, weight_s: float) -> bool:
        """Start from the rate remembered for the search kept under `search_key` and the cores
        this thread may use, weighed as `weight_s` seconds of chunks (one chunk's: a move's own
        chunks soon outweigh it); False where none is remembered, or on another clock than the
        wall's."""
        if self.now is not time.monotonic:
            return False
        self.key = f"{search_key} cores={len(os.sched_getaffinity(0))}"
        self._remembered = compile_cache.recall("rate", self.key)
        if self._remembered is None:
            return False
        self._chunks.append((self._remembered * weight_s, weight_s))
        return True

    def remember(self) -> None:
        """Keep the rate for a later start, when it moved by more than REMEMBER_CHANGE."""
        rate, before = self.value, self._remembered
        if self.key is None or (
            before is not None and abs(rate - before) <= REMEMBER_CHANGE * before
        ):
            return
        compile_cache.remember("rate", self.key, rate)
        self._remembered = rate


def measured_rates(search, simulations: int, positions: int, seed: int) -> list[float]:
    """A lasting search's rate (simulations a second, host dispatch included) on each of
    `positions` positions: the empty board, then two random legal moves further each time
    (seeded), for the benchmarks that compare one search's settings."""
    import jax.numpy as jnp
    import numpy as np

    game, rng = search.agent.game, np.random.default_rng(seed)
    state, rates = game.new_state(), []
    for _ in range(positions):
        began = time.perf_counter()
        search.move(state, None, simulations=simulations)
        rates.append(simulations / (time.perf_counter() - began))
        for _ in range(2):
            after = game.step(state, jnp.int32(rng.choice(game.legal_actions(state))))
            if bool(after.terminated):
                break
            state = after
    return rates
