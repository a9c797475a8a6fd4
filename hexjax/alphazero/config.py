"""AlphaZero's training config: its fields and their checks, the presets (tiny, cpu,
accelerator) and what a preset changes for one game. `iteration.py` builds the iteration from it.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from hexjax.alphazero import network as network_lib
from hexjax.alphazero import search as search_lib
from hexjax.alphazero.optimizer import OptimizerConfig, lift_steps
from hexjax.games import GameConfig

OWNERSHIP_TARGETS = ("owners", "winning_line")


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    game: GameConfig = GameConfig()
    network: network_lib.NetworkConfig = network_lib.NetworkConfig()
    search: search_lib.SearchConfig = search_lib.SearchConfig()
    optimizer: OptimizerConfig = OptimizerConfig()
    selfplay_games: int = 256
    plies_per_iteration: int = 4
    steps_per_iteration: int = 8  # optimizer steps on replayed minibatches per iteration
    # Each new self-play game first plays k ~ U{0..opening_plies} uniformly random plies
    # (unrecorded), so both colours' won and lost positions keep reaching the replay.
    opening_plies: int = 2
    replay_capacity: int = 20_000
    min_replay: int = 512  # no training until the buffer holds this many positions
    seed: int = 0
    init_from: str = ""  # a run whose newest network starts this one (not its optimizer state)
    # The share of each position's value target taken from its search's root value, the rest
    # from the game's outcome (KataGo's lower-noise targets; 0: the outcome alone).
    root_value_share: float = 0.0
    # Playout cap randomization (KataGo): below 1, only this share of each ply's games get the
    # full search (`search.num_simulations`), whose policy is a training target; the others get
    # a cheap one of `cheap_simulations`, played and value-trained but not policy-trained.
    full_search_share: float = 1.0
    cheap_simulations: int = 8
    # Simulations that grow over training, "ITERATION:SIMULATIONS,...", e.g. "0:8,400:16,800:32"
    # (from iteration 400 on, 16): early networks gain little from a deep search of their own
    # guesses. Empty: `search.num_simulations` throughout. Every stage compiles with the
    # iteration; each iteration runs only its own.
    simulation_schedule: str = ""
    # What the ownership head (`network.ownership_head`) learns: "owners", each cell's owner
    # when the game ended (`Game.final_owners`); "winning_line", the cells of the winner's
    # line (`Game.winning_line`, Gomoku's five), from each position's mover's view.
    ownership_target: str = "owners"
    # Policy surprise weighting (KataGo's methods doc): this share of the minibatches' draws
    # favours positions in proportion to how far their search's policy moved from the network's
    # prior (KL), the rest uniform (KataGo: 0.5). 0: every position alike.
    surprise_share: float = 0.0

    # What runs stored before a field existed ran with (config_io.from_dict reads them).
    STORED_BEFORE: ClassVar[dict] = {"opening_plies": 0}
    from_stored = staticmethod(lift_steps)

    def __post_init__(self):
        if self.selfplay_games < 1 or self.plies_per_iteration < 1:
            raise ValueError("selfplay_games and plies_per_iteration must be at least 1")
        if self.steps_per_iteration < 0:
            raise ValueError(
                f"steps_per_iteration must be at least 0, got {self.steps_per_iteration}"
            )
        if self.opening_plies < 0:
            raise ValueError(f"opening_plies must be at least 0, got {self.opening_plies}")
        if not 0.0 <= self.root_value_share <= 1.0:
            raise ValueError(f"root_value_share must be in [0, 1], got {self.root_value_share}")
        if not 0.0 <= self.surprise_share < 1.0:  # 1 would never replay an unsurprising row
            raise ValueError(f"surprise_share must be in [0, 1), got {self.surprise_share}")
        if not 0.0 < self.full_search_share <= 1.0:
            raise ValueError(f"full_search_share must be in (0, 1], got {self.full_search_share}")
        if self.capped:
            search_lib.full_search_count(self.full_search_share, self.selfplay_games)
            if self.cheap_simulations < 1:
                raise ValueError(
                    f"cheap_simulations must be at least 1, got {self.cheap_simulations}"
                )

        if self.ownership_target not in OWNERSHIP_TARGETS:
            raise ValueError(
                f"ownership_target must be one of {', '.join(OWNERSHIP_TARGETS)}, "
                f"got {self.ownership_target!r}"
            )
        if self.ownership_target == "winning_line" and (
            self.game.name != "gomoku" or not self.network.ownership_head
        ):
            raise ValueError(
                "ownership_target winning_line is the target of the ownership head on Gomoku: "
                "give it with --game gomoku and --network.ownership_head true"
            )
        if self.search.contempt:  # each side would count its draws against itself
            raise ValueError(
                "search.contempt is for play against another player (evaluate.py --contempt); "
                "self-play keeps a draw worth the same to both sides"
            )
        self.simulation_stages  # noqa: B018 (parses the schedule: a bad one fails here)

    @property
    def simulation_stages(self) -> tuple[tuple[int, int], ...]:
        """((first iteration, simulations), ...) of `simulation_schedule`, from iteration 0."""
        if not self.simulation_schedule:
            return ((0, self.search.num_simulations),)
        stages = []
        for part in self.simulation_schedule.split(","):
            start, sep, count = part.strip().partition(":")
            if not (sep and start.isdigit() and count.isdigit() and int(count) >= 1):
                raise ValueError(
                    "simulation_schedule must be ITERATION:SIMULATIONS pairs separated by "
                    f"commas, e.g. 0:8,400:16, got {self.simulation_schedule!r}"
                )
            stages.append((int(start), int(count)))
        starts = [start for start, _ in stages]
        if starts[0] != 0 or starts != sorted(set(starts)):
            raise ValueError(
                "simulation_schedule's iterations must start at 0 and increase, got "
                f"{self.simulation_schedule!r}"
            )
        return tuple(stages)

    @property
    def simulations_per_position(self) -> float:
        """Simulations an average self-play position gets at the schedule's last stage (with
        playout caps, the full and cheap searches' mix)."""
        full = self.simulation_stages[-1][1]
        if not self.capped:
            return float(full)
        return self.full_search_share * full + (1 - self.full_search_share) * self.cheap_simulations

    @property
    def capped(self) -> bool:
        """Whether self-play randomizes its playout cap (`full_search_share` below 1)."""
        return self.full_search_share < 1.0


PRESETS = {
    # Tests and smoke runs: compiles in seconds, learns little.
    "tiny": TrainConfig(
        network=network_lib.NetworkConfig(preset="tiny"),
        search=search_lib.SearchConfig(num_simulations=4, max_considered_actions=4),
        optimizer=OptimizerConfig(batch_size=32, warmup_steps=1),
        steps_per_iteration=2,
        selfplay_games=16,
        plies_per_iteration=4,
        replay_capacity=2_000,
        min_replay=32,
    ),
    # A laptop CPU (the default).
    "cpu": TrainConfig(),
    # A GPU or TPU: many more games in flight, a bigger network in bfloat16.
    "accelerator": TrainConfig(
        network=network_lib.NetworkConfig(preset="accelerator", compute_dtype="bfloat16"),
        search=search_lib.SearchConfig(num_simulations=64, max_considered_actions=16),
        optimizer=OptimizerConfig(batch_size=1024),
        steps_per_iteration=16,
        selfplay_games=2048,
        plies_per_iteration=16,
        replay_capacity=1_000_000,
        min_replay=20_000,
    ),
}

# What a preset changes for one game (dotted config names; the caller's flags win), each
# measured in docs/experiments/network-size.md: on a CPU, Othello gains more from a 64-channel
# network and 8-ply random openings in the same hour than from more iterations of the 32-channel
# one.
GAME_DEFAULTS = {
    ("cpu", "othello"): {"network.channels": 64, "opening_plies": 8},
}
