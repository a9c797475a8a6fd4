"""The matches of `evaluate.py`: the agent (each kept checkpoint with --all-steps) against each
opponent, hexjax's own players in the batched arena and engines one game at a time, each match
summarised; `evaluate.py` prints the rows and writes the records."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import NamedTuple

import jax
import numpy as np

from hexjax.base import Entrant
from hexjax.commands.evaluate_modes import at_step, one_position, timed_moves
from hexjax.commands.evaluate_options import Evaluation
from hexjax.evaluation import arena, engine_match, engines, matches, solved_openings
from hexjax.evaluation.scores import summarize
from hexjax.training import restore
from hexjax.training.restore import Trained

FIRST_MOVES = "first-moves"  # --openings: every legal first move


class Played(NamedTuple):
    """One match of one checkpoint: its summary and its games."""

    step: int | None
    agent: Trained
    label: str  # the opponent's spec, or its engine label with setup lines
    summary: dict
    games: arena.ArenaGames
    engine_games: list | None  # an engine match's games, as engine_match plays them


def engine_label(spec: str, setup: list[str]) -> str:
    return spec + (f" [{'; '.join(setup)}]" if setup else "")


def opponents(evaluation: Evaluation, game) -> dict:
    """Every opponent by its label: an Entrant, or for an engine the function that starts
    one (with its setup lines)."""
    found = {}
    chosen = evaluation.opponents
    for index, spec in enumerate(chosen.specs):
        if engines.is_engine(spec):
            setup = chosen.setup.get(index, [])
            label = engine_label(spec, setup)
            engines.check_spec(spec, game)  # ValueError now, not after the agent's compile

            def start(spec=spec, setup=setup):
                return engines.engine_opponent(spec, game, setup, chosen.timeout)

            opponent = start
        else:
            # Shipped models (`model:NAME[:N]`) belong to the play layer, above restore, so
            # their loader comes from here.
            agent = evaluation.agent
            search = {**agent.search_choices, "contempt": None}  # the agent's alone
            opponent = restore.opponent(spec, game, agent.simulations, restore.from_model, **search)
            label = spec
        if label in found:
            raise ValueError(f"the opponent {label!r} is named twice")
        found[label] = opponent
    return found


def openings(evaluation: Evaluation, game):
    """The --openings move lists (int32[M, L]) or None; warns when the games do not play each
    one equally often."""
    chosen = evaluation.games
    if not chosen.openings:
        return None
    if chosen.openings == FIRST_MOVES:
        lines = arena.first_move_openings(game)
    elif chosen.openings.startswith(FIRST_MOVES + ":"):
        count = chosen.openings.partition(":")[2]
        if not count.isdigit():
            raise ValueError(f"--openings {chosen.openings}: expected first-moves:K, K a number")
        lines = arena.first_move_openings(game, int(count))
    else:
        lines = arena.load_openings(game, chosen.openings)
    if (chosen.games // 2) % len(lines):
        print(
            f"note: {len(lines)} openings do not divide {chosen.games // 2} games a colour; "
            f"some are played once more than others (--games {2 * len(lines)} plays each "
            "once with each colour)",
            file=sys.stderr,
        )
    return lines


def play(
    evaluation: Evaluation,
    latest: Trained,
    steps: list,
    opponents: dict,
    lines,
    mesh,
    report: Callable[[str, int, int], None] | None = None,
) -> Iterator[Played]:
    """Every kept step's agent against every opponent, the same openings for every step;
    `report(label, finished, total)` hears each match's progress."""
    game, chosen = latest.game, evaluation.games
    entrants = {label: o for label, o in opponents.items() if isinstance(o, Entrant)}
    in_arena = matches.matches(
        game, latest.make_player, entrants, chosen.games, chosen.opening_plies, lines, mesh,
        plies_per_call=4,
    )  # fmt: skip
    every = {  # each: (agent, key, report) -> (ArenaGames, the engine's games or None)
        label: _arena_match(in_arena[label])
        if label in in_arena
        else _engine_match(evaluation, game, start, lines)
        for label, start in opponents.items()
    }
    solved_first_moves = _from_solved_first_moves(evaluation, game)
    for step in steps:
        agent = at_step(evaluation, latest, steps, step)
        key = jax.random.key(chosen.seed)  # the same openings for every checkpoint
        played = matches.each_match(every, key, agent, report=report)
        for label, (games, engine_games), seconds in played:
            summary = {**summarize(np.asarray(games.scores)), "seconds": seconds}
            if engine_games is not None:
                summary["engine"] = engine_match.summary(engine_games)
            if solved_first_moves:
                summary["solved_first_moves"] = solved_openings.won_positions_lost(
                    np.asarray(games.moves)[:, 0],
                    np.arange(chosen.games) < chosen.games // 2,
                    np.asarray(games.scores),
                )
            yield Played(step, agent, label, summary, games, engine_games)


def _from_solved_first_moves(evaluation: Evaluation, game) -> bool:
    """Games from the solved Hex 7x7 first moves, each played with both colours."""
    chosen = evaluation.games
    every_move = chosen.openings == FIRST_MOVES and chosen.opening_plies == 0
    return every_move and solved_openings.applies(game) and chosen.games % (2 * game.num_cells) == 0


def _arena_match(match: matches.Match):
    return lambda agent, key, report: (match(agent.params, key, report), None)


def _engine_match(evaluation: Evaluation, game, start_engine, lines):
    """A match (agent, key, report) -> (ArenaGames, [EngineGame]) against an engine, on the
    --openings or on random ones (the same for every checkpoint with --all-steps)."""
    chosen = evaluation.games
    starts = ((),) if lines is None else np.asarray(lines).tolist()
    rows = engine_match.random_openings(game, chosen.games // 2, chosen.opening_plies,
                                        chosen.seed, starts)  # fmt: skip

    def play_match(agent: Trained, key, report):
        if evaluation.clock.seconds is not None:
            agent_move = timed_moves(agent, evaluation.clock)
        else:
            move = one_position(agent)
            move(game.from_moves(rows[0]), key)  # compiled before any move is timed
            agent_move = lambda state: move(state, key)  # noqa: E731
        games = engine_match.play_engine_match(
            game, agent_move, start_engine, rows, chosen.games,
            jobs=evaluation.opponents.engine_jobs, report=report,
        )  # fmt: skip
        return _as_arena_games(games, game), games

    return play_match


def _as_arena_games(games, game) -> arena.ArenaGames:
    """The arena's form of an engine match's games: scores, and moves padded with -1."""
    moves = np.full((len(games), game.max_plies), -1, np.int32)
    for row, played in zip(moves, games, strict=True):
        row[: len(played.actions)] = played.actions
    return arena.ArenaGames(np.asarray([g.score for g in games], np.float32), moves)
