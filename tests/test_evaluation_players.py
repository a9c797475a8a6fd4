"""Baseline players and the arena (the evaluation issue extends these)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hexjax
from hexjax.base import Entrant
from hexjax.evaluation import arena, matches, players
from hexjax.evaluation.greedy import greedy_player
from hexjax.evaluation.scores import summarize


def match(game, first, second, games=64, seed=0, opening_plies=2):
    play = jax.jit(lambda key: arena.arena(game, first, second, key, games, opening_plies))
    return np.asarray(play(jax.random.key(seed)))


def test_random_against_itself_is_even_and_the_interval_covers_half():
    game = hexjax.make("hex", size=5)
    scores = match(game, players.random_player(game), players.random_player(game), games=400)
    summary = summarize(scores)
    assert summary["games"] == 400 and summary["wins"] + summary["losses"] == 400  # no draws
    assert summary["low"] < 0.5 < summary["high"]


def test_colours_alternate_first_half_moves_first():
    """A player that always loses at once (an illegal move) loses every game, with either colour;
    its opponent therefore wins as Black in the first half and as White in the second."""
    game = hexjax.make("hex", size=4)

    def suicidal(key, states):
        del key
        return jax.numpy.full(states.current_player.shape, -1)  # out of range: loses

    scores = match(game, players.random_player(game), suicidal, games=8, opening_plies=0)
    assert (scores == 1).all()
    scores = match(game, suicidal, players.random_player(game), games=8, opening_plies=0)
    assert (scores == 0).all()


@pytest.mark.parametrize(
    ("name", "options", "least"),
    [("hex", {"size": 5}, 0.5), ("gomoku", {"size": 7, "win_length": 4}, 0.85)],
)
def test_greedy_beats_random(name, options, least):
    """The generic greedy (win now, else block, else random) matters most where games are
    decided by immediate threats; Othello's own greedy comes with the evaluation issue."""
    game = hexjax.make(name, **options)
    summary = summarize(
        match(game, players.greedy_player(game), players.random_player(game), games=128)
    )
    assert summary["score"] >= least


def test_rollout_mcts_beats_random():
    game = hexjax.make("hex", size=4)
    mcts = players.rollout_mcts_player(game, 64)
    summary = summarize(match(game, mcts, players.random_player(game), games=32))
    assert summary["score"] >= 0.9


def test_rollout_mcts_takes_an_immediate_win():
    game = hexjax.make("gomoku", size=5, win_length=4)
    state = game.from_moves("a1 e5 b1 e4 c1 e3")  # Black to move: d1 wins
    states = jax.tree.map(lambda x: jax.numpy.stack([x] * 4), state)
    action = jax.jit(players.rollout_mcts_player(game, 200))(jax.random.key(0), states)
    assert (np.asarray(action) == game.string_to_action("d1")).all()


def _wilson_by_quadratic(score, games, z=1.959964):
    """The reference: the p with (score - p)^2 = z^2 p (1 - p) / games, the two roots."""
    a = 1 + z * z / games
    b = -(2 * score + z * z / games)
    c = score * score
    root = np.sqrt(b * b - 4 * a * c)
    return (-b - root) / (2 * a), (-b + root) / (2 * a)


@pytest.mark.parametrize(
    ("scores", "low", "high"),
    [
        ([1] * 20, 0.8389, 1.0),  # 20/20: the normal approximation read [1, 1]
        ([0] * 20, 0.0, 0.1611),
        ([1] * 10 + [0] * 10, 0.2993, 0.7007),
        ([0.5] * 20, 0.2993, 0.7007),  # draws count half
    ],
)
def test_summary_interval_is_wilsons(scores, low, high):
    summary = summarize(scores)
    assert (summary["low"], summary["high"]) == (
        pytest.approx(low, abs=5e-5),
        pytest.approx(high, abs=5e-5),
    )
    reference = _wilson_by_quadratic(summary["score"], len(scores))
    assert (summary["low"], summary["high"]) == pytest.approx(reference, abs=1e-9)


def test_summary_counts_and_colours():
    summary = summarize([1, 1, 0, 0.5])
    low, high = _wilson_by_quadratic(0.625, 4)
    assert summary == {
        "games": 4,
        "wins": 2,
        "draws": 1,
        "losses": 1,
        "score": 0.625,
        "low": pytest.approx(low),
        "high": pytest.approx(high),
        "as_black": 1.0,  # the first half of an arena's games
        "as_white": 0.25,
        "black_low": pytest.approx(_wilson_by_quadratic(1.0, 2)[0]),
        "black_high": pytest.approx(_wilson_by_quadratic(1.0, 2)[1]),
        "white_low": pytest.approx(_wilson_by_quadratic(0.25, 2)[0]),
        "white_high": pytest.approx(_wilson_by_quadratic(0.25, 2)[1]),
        "colours_differ": False,  # two games a colour: the intervals overlap
    }
    assert 0 < low < 0.625 < high < 1


def test_colours_differ_when_their_intervals_are_apart():
    # 40 wins as Black and 10 of 40 as White: Wilson [91.2, 100] and [14.2, 40.2], apart.
    summary = summarize([1] * 40 + [1] * 10 + [0] * 30)
    assert summary["colours_differ"]
    assert summary["black_low"] > summary["white_high"]
    # 30 and 25 of 40: [59.8, 85.8] and [47.0, 75.8] overlap.
    assert not summarize([1] * 30 + [0] * 10 + [1] * 25 + [0] * 15)["colours_differ"]


def test_arena_records_replay_to_the_scores_and_openings_come_in_colour_pairs():
    game = hexjax.make("hex", size=4)
    random = players.random_player(game)
    games = jax.jit(lambda key: arena.arena_games(game, random, random, key, 16, 3))(
        jax.random.key(3)
    )
    moves, scores = np.asarray(games.moves), np.asarray(games.scores)
    assert (moves[:8, :3] == moves[8:, :3]).all()  # game i and i + 8 share their opening
    assert len({tuple(row[:3]) for row in moves[:8]}) > 1
    for i, row in enumerate(moves):
        state = game.from_moves([int(a) for a in row if a >= 0])
        first_colour = 0 if i < 8 else 1
        assert bool(state.terminated) and scores[i] == float(state.winner == first_colour)


def test_records_file_loads_with_from_moves(tmp_path):
    game = hexjax.make("gomoku", size=5, win_length=4)
    random = players.random_player(game)
    games = jax.jit(lambda key: arena.arena_games(game, random, random, key, 4, 0))(
        jax.random.key(0)
    )
    path = tmp_path / "records.txt"
    arena.write_records(game, games.moves, path)
    lines = path.read_text().splitlines()
    assert len(lines) == 4
    for line, row in zip(lines, np.asarray(games.moves), strict=True):
        assert game.parse_moves(line) == [int(a) for a in row if a >= 0]
        assert bool(game.from_moves(line).terminated)


def test_openings_file_is_played_in_order_with_each_colour(tmp_path):
    game = hexjax.make("hex", size=5)
    path = tmp_path / "openings.txt"
    path.write_text("# two-ply openings\na1 e5\n\nc3 b2  # the centre\ne1 a5\n")
    openings = arena.load_openings(game, path)
    assert openings.tolist() == [game.parse_moves(m) for m in ("a1 e5", "c3 b2", "e1 a5")]
    random = players.random_player(game)
    games = jax.jit(
        lambda key: arena.arena_games(game, random, random, key, 8, 0, openings=openings)
    )(jax.random.key(0))
    starts = np.asarray(games.moves)[:, :2].tolist()
    expected = [openings[i % 3].tolist() for i in range(4)]
    assert starts == expected + expected


@pytest.mark.parametrize(
    ("name", "kwargs", "expected"),
    [
        ("hex", {"size": 3}, ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]),
        ("othello", {"size": 8}, ["d3", "c4", "f5", "e6"]),
    ],
)
def test_first_move_openings_are_every_legal_first_move(name, kwargs, expected):
    game = hexjax.make(name, **kwargs)
    openings = arena.first_move_openings(game)
    assert openings.shape == (len(expected), 1) and openings.dtype == np.int32
    assert sorted(game.format_moves(row) for row in openings) == sorted(expected)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a1 a1\n", "line 1"),
        ("a1 b1\nc3\n", "line 2: 1 plies where the first opening has 2"),
        ("zz9\n", "line 1"),
        ("# nothing\n\n", "no openings"),
    ],
)
def test_bad_openings_file_names_the_line(tmp_path, text, message):
    game = hexjax.make("hex", size=5)
    path = tmp_path / "openings.txt"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        arena.load_openings(game, path)


def test_an_opening_that_ends_the_game_is_refused(tmp_path):
    game = hexjax.make("gomoku", size=5, win_length=3)
    path = tmp_path / "openings.txt"
    path.write_text("a1 e5 b1 e4 c1\n")
    with pytest.raises(ValueError, match="ends the game"):
        arena.load_openings(game, path)


def test_positions_of_games_are_every_live_prefix():
    game = hexjax.make("hex", size=3)
    moves = np.array([[4, 0, 1, 7, -1, -1, -1, -1, -1], [0, 1, 3, 2, 6, -1, -1, -1, -1]])
    states = arena.positions_of_games(game, moves)
    games = [[int(a) for a in row if a >= 0] for row in moves]
    expected = [game.from_moves(g[:t]) for t in range(max(map(len, games))) for g in games
                if t < len(g)]  # fmt: skip
    boards = np.asarray(states.board)
    assert len(boards) == len(expected) == 9
    for board, player, state in zip(boards, np.asarray(states.current_player), expected,
                                    strict=True):  # fmt: skip
        assert (board == np.asarray(state.board)).all() and player == int(state.current_player)


@pytest.mark.parametrize("openings", [None, "first-moves"])
def test_the_arena_in_chunks_plays_the_same_games_as_in_one_call(openings):
    game = hexjax.make("hex", size=4)
    random, mcts = players.random_player(game), players.rollout_mcts_player(game, 8)
    if openings is not None:
        openings = arena.first_move_openings(game)
    plies = 0 if openings is not None else 2
    whole = jax.jit(
        lambda key: arena.arena_games(game, random, mcts, key, 12, plies, openings=openings)
    )(jax.random.key(3))
    play = arena.arena_in_chunks(
        game, lambda _: random, lambda _: mcts, 12, plies, openings=openings, plies_per_call=2
    )
    reports = []
    chunked = play(None, None, jax.random.key(3), lambda *report: reports.append(report))
    np.testing.assert_array_equal(chunked.scores, whole.scores)
    np.testing.assert_array_equal(chunked.moves, whole.moves)
    assert len(reports) > 2 and reports[-1] == (12, 12)
    assert all(a[0] <= b[0] for a, b in zip(reports, reports[1:], strict=False))


def test_each_match_plays_every_opponent_with_its_own_key_in_order():
    """Each player gets its own parameters, and the n-th match plays the games `arena_games`
    plays with the n-th key split off the given one."""
    game = hexjax.make("hex", size=4)
    random, greedy = players.random_player(game), greedy_player(game)
    shapes = {"agent": set(), "random": set()}

    def factory(name, player):
        return lambda params: shapes[name].add(params.shape) or player

    opponents = {
        "greedy": Entrant.fixed("greedy", greedy),
        "random": Entrant("random", factory("random", random), jnp.ones(3)),
    }
    compiled = matches.matches(game, factory("agent", random), opponents, 8)
    played = list(matches.each_match(compiled, jax.random.key(5), jnp.zeros(2)))
    assert [name for name, _, _ in played] == ["greedy", "random"]
    assert shapes == {"agent": {(2,)}, "random": {(3,)}}
    key = jax.random.key(5)
    for (name, games, seconds), opponent in zip(played, (greedy, random), strict=True):
        key, match_key = jax.random.split(key)
        whole = jax.jit(lambda k, o=opponent: arena.arena_games(game, random, o, k, 8, 2))
        expected = whole(match_key)
        np.testing.assert_array_equal(games.moves, expected.moves, err_msg=name)
        np.testing.assert_array_equal(games.scores, expected.scores, err_msg=name)
        assert seconds >= 0
