"""The evaluations of `evaluate.py` other than its matches, each run and printed as a table:
Elo round robin, solver accuracy, puzzles, solved openings; and what they share with the matches
(the agent at each kept step, the agent one move at a time, by simulations or by a clock). Each
takes the checked flags (`evaluate_options.Evaluation`) and returns its JSON record."""

from __future__ import annotations

import jax

from hexjax.base import Entrant
from hexjax.commands.evaluate_options import Evaluation, Games, MoveClock
from hexjax.evaluation import (
    elo,
    players,
    plots,
    puzzles,
    solved_openings,
    solver_accuracy,
    tournament,
)
from hexjax.play import agent as play_agent
from hexjax.play import clock
from hexjax.training import restore
from hexjax.training.restore import Trained
from hexjax.training.run_dir import RunDir


def at_step(evaluation: Evaluation, latest: Trained, steps, step) -> Trained:
    """The agent at a kept step; the latest one is restored once, in `main`."""
    return latest if step == steps[-1] else evaluation.agent.load(step)


def one_position(agent: Trained):
    """(state, key) -> the agent's action in one position, compiled once."""
    player = agent.make_player(agent.params)

    @jax.jit
    def choose(state, key):
        batch = jax.tree.map(lambda x: x[None], state)
        return player(jax.random.fold_in(key, state.step_count), batch)[0]

    return lambda state, key: int(choose(state, key))


def timed_moves(agent: Trained, timing: MoveClock):
    """state -> the agent's action within `timing.seconds`, as the engine front ends play under
    a clock (`SearchClock` with its search: kept, fresh or counts; up to the agent's
    --simulations), everything compiled before the first move."""
    player = play_agent.Agent(agent, agent.simulations, prune=timing.prune)
    timer = clock.SearchClock(agent.simulations, search=timing.search, solve=timing.solve)
    timer.prepare(player)
    if timing.search != "counts":
        timer.lasting(player).wait_for_solver()
    return lambda state: timer.move(player, state, timing.seconds).action


def run_elo(evaluation: Evaluation, latest: Trained, steps, opponents, openings, mesh) -> dict:
    """Round robin between every kept checkpoint and the opponents; Elo with random = 0."""
    game = latest.game
    entrants, minutes = {}, {}
    for step in steps:
        agent = at_step(evaluation, latest, steps, step)
        name = f"step {step}"
        entrants[name] = agent.entrant()
        minutes[name] = agent.minutes
    if "random" not in opponents:
        opponents = {"random": restore.opponent("random", game), **opponents}
    entrants.update(opponents)
    games: Games = evaluation.games
    print(f"round robin: {len(entrants)} entrants, {games.games} games a pair")

    def report(match: elo.Match) -> None:
        print(f"  {match.first:>14} vs {match.second:<14} {100 * match.score / match.games:6.1f}%")

    matches = tournament.round_robin(
        game,
        entrants,
        jax.random.key(games.seed),
        games.games,
        games.opening_plies,
        openings=openings,
        mesh=mesh,
        report=report,
    )
    ratings = elo.fit(matches, anchor="random")
    print(f"{'entrant':<34} {'Elo':>7} {'± 2 s.e.':>9}  training minutes")
    for name in sorted(entrants, key=lambda n: ratings.elo[n]):
        trained = f"{minutes[name]:.1f}" if name in minutes else "-"
        print(f"{name:<34} {ratings.elo[name]:7.0f} {2 * ratings.stderr[name]:9.0f}  {trained}")
    plots.elo_curve(
        [
            {"minutes": minutes[n], "elo": ratings.elo[n], "stderr": ratings.stderr[n]}
            for n in minutes
        ],
        {n: ratings.elo[n] for n in opponents},
        RunDir(evaluation.workdir).elo_plot,
    )
    return {
        **evaluation.settings(game),
        "elo": ratings.elo,
        "stderr": ratings.stderr,
        "minutes": minutes,
        "matches": [m._asdict() for m in matches],
    }


def run_solver_accuracy(evaluation: Evaluation, latest: Trained, opponents, openings, mesh) -> dict:
    """Positions from the agent's games against itself (varied by the openings); at each, does
    a player pick a winning move when one exists? The exact solver knows the answer."""
    game = latest.game
    games = evaluation.games
    options = solver_accuracy.Options(games.games, games.opening_plies, games.seed)
    states = solver_accuracy.self_play_positions(game, latest.entrant(), options, openings, mesh)
    contenders = {
        f"agent ({latest.label})": latest.entrant(),
        "agent's network alone": Entrant(
            "network", players.make_network_player(game, latest.net), latest.params
        ),
        **opponents,
    }
    positions = int(states.board.shape[0])
    print(
        f"{positions} positions with at most {options.max_empty} empty cells from "
        f"{games.games} games of the agent against itself"
    )
    print(f"{'player':<34} {'positions':>9} {'correct':>8} {'accuracy':>9}  secs")
    results = {}
    for name, result in solver_accuracy.scores(game, contenders, states, games.seed):
        results[name] = result
        print(
            f"{name:<34} {result['positions']:>9} {result['correct']:>8} "
            f"{100 * result['accuracy']:>8.1f}%  {result['seconds']}"
        )
    return {**evaluation.settings(game), "positions": positions, "solver_accuracy": results}


def run_puzzles(evaluation: Evaluation, latest: Trained) -> dict:
    """The share of the tactics suite each player solves, per category. The agent plays the
    puzzles of its own board and rule; baselines (rebuilt for each board) play all of them."""
    suite = puzzles.load_puzzles()
    own = (latest.game.size, latest.game.rule)

    def agent(make_player):
        return lambda game: make_player(latest.params) if (game.size, game.rule) == own else None

    contenders = {
        f"agent ({latest.label})": agent(latest.make_player),
        "agent's network alone": agent(players.make_network_player(latest.game, latest.net)),
    }
    for spec in evaluation.opponents.specs:
        contenders[spec] = lambda game, s=spec: restore.opponent(s, game).make_player(None)
    played = {name: puzzles.solved(suite, player) for name, player in contenders.items()}
    timing = evaluation.clock
    if timing.seconds is not None:  # one position at a time, as the engines play under a clock
        move = timed_moves(latest, timing)
        played[f"agent, {timing.seconds:g} s a move"] = puzzles.solved_one_at_a_time(
            suite, lambda game: move if (game.size, game.rule) == own else None
        )
    categories = list(puzzles.CATEGORIES)
    print(f"{'player':<34} " + " ".join(f"{c:>13}" for c in categories))
    results, by_board = {}, {}
    for name, hits in played.items():
        rates = puzzles.solve_rates(suite, None, hits)
        results[name] = rates
        by_board[name] = puzzles.board_rates(suite, hits)
        cells = [
            f"{rates[c]['solved']:>5}/{rates[c]['puzzles']:<3}" if c in rates else "-"
            for c in categories
        ]
        print(f"{name:<34} " + " ".join(f"{cell:>13}" for cell in cells))
    # Per board and rule: win in one + forced block, and the wins by continuous fours (vcf3,
    # four_three, vcf5; renju traps under their goal), the figures the targets are set in.
    groups = [*puzzles.GROUPS, "all"]
    print(f"\n{'player':<34} {'board':<16} " + " ".join(f"{g:>18}" for g in groups))
    for name, boards in by_board.items():
        for board, rates in boards.items():
            cells = [
                f"{r['solved']}/{r['puzzles']} {100 * r['accuracy']:5.1f}%" if r["puzzles"] else "-"
                for r in (rates[g] for g in groups)
            ]
            print(f"{name:<34} {board:<16} " + " ".join(f"{cell:>18}" for cell in cells))
    found = {"puzzles": results, "puzzles_by_board": by_board}
    return {**evaluation.settings(latest.game), **found}


def run_solved_openings(evaluation: Evaluation, latest: Trained) -> dict:
    """Hex 7x7: after each of the 49 first moves, does the value's sign (the network's, and the
    agent's search's) say who wins as the published solution does?"""
    game = latest.game
    values = solved_openings.first_move_values(
        game, latest.net, latest.params, latest.search, evaluation.games.seed
    )
    if "search" in values:
        values[f"agent ({latest.label})"] = values.pop("search")
    print(f"{'value':<34} {'openings':>8} {'correct':>8} {'winning':>8}  wrong")
    results = {}
    for name, value in values.items():
        result = solved_openings.score(value)
        results[name] = result
        wrong = " ".join(game.action_to_string(a) for a in result["wrong"]) or "-"
        print(
            f"{name:<34} {result['openings']:>8} {result['correct']:>8} "
            f"{result['correct_winning']:>4}/{result['winning']:<3}  {wrong}"
        )
    for name, result in results.items():
        print(f"\n{name}: the second player's value after each first move (! its sign is wrong)")
        print("\n".join(solved_openings.board(result["values"], result["wrong"])))
    return {**evaluation.settings(game), "solved_openings": results}
