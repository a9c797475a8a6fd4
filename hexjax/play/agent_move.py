"""What an agent's search returns (`AgentMove`), the simulation counts it searches, and the error
a stopped search raises: shared by the agent and the lasting search that runs its moves."""

from __future__ import annotations

import dataclasses

import numpy as np

MAX_SIMULATIONS = 4096


def simulation_count(requested: int) -> int:
    """The count a search runs for `requested` simulations: the largest power of two not above
    it, at most MAX_SIMULATIONS; ValueError below 1."""
    if requested < 1:
        raise ValueError(f"simulations must be at least 1, got {requested}")
    return 1 << (min(int(requested), MAX_SIMULATIONS).bit_length() - 1)


class SearchStopped(RuntimeError):
    """A search ended early by `Agent.stop_searches` (a server shutting down)."""


@dataclasses.dataclass(frozen=True)
class AgentMove:
    action: int
    policy: np.ndarray  # float32[num_actions]: the search's policy, 0 on illegal actions
    value: float  # root value after search in [-1, 1], from the mover's view
    simulations: int = 0  # the simulations searched
    proven: bool = False  # an exact solver proved the move wins (no search)
    moves_to_win: int | None = None  # proven: the mover's moves to its win, where known

    @classmethod
    def of_proof(cls, proven, num_actions: int) -> AgentMove:
        """The move of a solver's proof (`root_solvers.Proven`): certain, won, not searched."""
        policy = np.zeros(num_actions, np.float32)
        policy[proven.move] = 1.0
        return cls(proven.move, policy, 1.0, 0, proven=True, moves_to_win=proven.moves_to_win)

    @property
    def win_probability(self) -> float:
        """The mover's chance to win as the value reads it (a draw counts half)."""
        return (self.value + 1) / 2

    def top(self, count: int = 5) -> list[tuple[int, float]]:
        """The `count` most likely actions with their probabilities, best first."""
        order = np.argsort(-self.policy, kind="stable")[:count]
        return [(int(a), float(self.policy[a])) for a in order if self.policy[a] > 0]
