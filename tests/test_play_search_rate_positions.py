"""`search_rate.measured_rates`: the benchmarks' positions are reached by legal moves."""

import types

import numpy as np

from hexjax.games import GameConfig
from hexjax.play.search_rate import measured_rates


class RecordingSearch:
    """Stands in for a LastingSearch: keeps the positions it is asked to search."""

    def __init__(self, game):
        self.agent = types.SimpleNamespace(game=game)
        self.states = []

    def move(self, state, clock, simulations):
        self.states.append(state)


def test_each_position_is_two_legal_moves_past_the_last():
    game = GameConfig(name="gomoku", size=15).make()
    search = RecordingSearch(game)
    rates = measured_rates(search, simulations=8, positions=40, seed=3)
    assert len(rates) == len(search.states) == 40 and min(rates) > 0
    boards = [np.asarray(s.board) for s in search.states]
    # Each two more stones than the last, none moved or taken.
    for before, after in zip(boards, boards[1:], strict=False):
        assert np.count_nonzero(after) == np.count_nonzero(before) + 2
        assert np.array_equal(after[before != 0], before[before != 0])
    assert not any(bool(s.terminated) for s in search.states)
