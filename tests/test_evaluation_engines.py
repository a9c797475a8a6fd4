"""Matches against external engines over their real protocols (GTP for Hex, Gomocup for Gomoku
and renju), with small engines written in tests/support that misbehave on request: hexjax
referees every game, an engine's illegal move, foul, crash, timeout or nonsense loses it that
game and is reported, a dead engine is restarted and the match goes on."""

import pathlib
import shlex
import sys

import numpy as np
import pytest

import hexjax
from hexjax.evaluation import arena, engine_match, engines, sgf
from hexjax.evaluation.engine_match import RULES
from hexjax.evaluation.scores import summarize

SUPPORT = pathlib.Path(__file__).parent / "support"
GTP = f"gtp:{shlex.quote(sys.executable)} {SUPPORT / 'fake_gtp_engine.py'}"
GOMOCUP = f"gomocup:{shlex.quote(sys.executable)} {SUPPORT / 'fake_gomocup_engine.py'}"


def last_legal(state) -> int:
    """An agent that plays the last legal action: from the bottom right, away from the fake
    engines' first empty cells (they play from the top left)."""
    return int(np.flatnonzero(np.asarray(state.legal_action_mask))[-1])


def match(game, spec, games=2, openings=((),), setup=(), timeout_s=20.0, agent=last_legal):
    def start():
        return engines.engine_opponent(spec, game, setup, timeout_s)

    return engine_match.play_engine_match(game, agent, start, [list(o) for o in openings], games)


def test_hex_games_are_refereed_by_hexjax_and_checked_against_the_engines_verdict():
    game = hexjax.make("hex", size=5)
    games = match(game, GTP, games=4, openings=[[], ["c3"]])
    assert [g.agent_black for g in games] == [True, True, False, False]
    # Each opening with both colours: from the empty board the agent opens at e5 (its last
    # legal cell) as Black, the fake engine at a1; after c3 the other side goes on.
    assert [g.actions[:1] for g in games] == [[24], [12], [0], [12]]
    for played in games:
        state = game.from_moves(played.actions)  # every game legal to its end
        assert bool(state.terminated) and played.ended == RULES
        agent = 0 if played.agent_black else 1
        assert played.score == float(int(state.winner) == agent)
        assert played.verdict == int(state.winner)  # the engine's final_score agrees
        assert not played.verdict_differs and played.agent_seconds and played.engine_seconds
    summary = engine_match.summary(games)
    assert summary["verdicts_asked"] == 4 and summary["verdicts_differ"] == []
    assert summary["endings"] == {RULES: 4}


def test_a_verdict_that_differs_from_the_rules_is_reported():
    game = hexjax.make("hex", size=4)
    games = match(game, GTP + " --wrong-verdict")
    assert all(g.verdict_differs for g in games)
    assert engine_match.summary(games)["verdicts_differ"] == [1, 2]


def test_an_engine_without_a_verdict_is_not_asked():
    games = match(hexjax.make("hex", size=4), GTP + " --no-final-score")
    assert [g.verdict for g in games] == [None, None]


@pytest.mark.parametrize(
    ("flag", "ended", "detail"),
    [
        ("--illegal-at 2", "illegal move", "already occupied"),
        ("--swap-at 1", "bad answer", "swap is not enabled"),
        ("--garbage-at 2", "bad answer", "'somewhere nice'"),
        ("--resign-at 2", "resigned", "resigned"),
        ("--crash-at 2", "died", "crashing as asked"),
    ],
)
def test_an_engine_that_misbehaves_loses_that_game_and_the_match_goes_on(flag, ended, detail):
    game = hexjax.make("hex", size=5)
    games = match(game, f"{GTP} {flag}", games=4)
    # Its second move comes in the first game: that game is the engine's loss, as reported.
    assert games[0].ended == ended and detail in games[0].detail and games[0].score == 1.0
    if flag.startswith("--crash"):  # a fresh process for each game: it crashes again
        assert all(g.ended == "died" for g in games)
    else:  # the same process (reset by the next game): its count is past N
        assert all(g.ended == RULES for g in games[1:])
    summary = engine_match.summary(games)
    failures = [f["game"] for f in summary["engine_failures"]]
    assert failures == ([] if ended == "resigned" else [1, 2, 3, 4] if ended == "died" else [1])


def test_a_slow_engine_loses_on_time_and_is_replaced():
    game = hexjax.make("hex", size=4)
    games = match(game, GTP + " --slow-at 2", games=4, timeout_s=1.0)
    assert games[0].ended == "timeout" and games[0].sgf_result() == "B+T"  # the agent's win
    assert games[0].score == 1.0 and "in time" in games[0].detail
    # The slow process was killed: the next one starts its count again, and is slow again.
    assert [g.ended for g in games] == ["timeout"] * 4


def test_an_engine_that_cannot_start_stops_the_match_with_its_reason():
    game = hexjax.make("hex", size=4)
    with pytest.raises(engines.EngineFailure, match="giving up at once"):
        match(game, GTP + " --die-at-start")
    with pytest.raises(engines.EngineFailure, match="unknown command param_mohex"):
        match(game, GTP, setup=["param_mohex max_games 10"])


def test_engine_specs_are_checked_before_anything_starts():
    hex5, gomoku = hexjax.make("hex", size=5), hexjax.make("gomoku", size=9)
    with pytest.raises(ValueError, match="gtp engines play hex or othello, not gomoku"):
        engines.check_spec(GTP, gomoku)
    with pytest.raises(ValueError, match="gomocup engines play gomoku, not hex"):
        engines.check_spec(GOMOCUP, hex5)
    with pytest.raises(ValueError, match="Gomocup engines play five in a row, not 4"):
        engines.check_spec(GOMOCUP, hexjax.make("gomoku", size=7, win_length=4))
    with pytest.raises(ValueError, match="engine program not found: 'no-such-engine'"):
        engines.check_spec("gtp:no-such-engine --flag", hex5)
    with pytest.raises(ValueError, match="names no command"):
        engines.check_spec("gtp:", hex5)
    with pytest.raises(ValueError, match="cannot read the engine command"):
        engines.check_spec('gtp:mohex "unclosed', hex5)


def test_gomoku_games_tell_the_engine_its_position_once_then_each_reply(tmp_path):
    game = hexjax.make("gomoku", size=9)
    log = tmp_path / "commands.txt"
    opening = ["e5", "d4"]  # Black, White; Black (the agent in game 1) to move
    games = match(game, f"{GOMOCUP} --log {log}", openings=[opening])
    for played in games:
        assert bool(game.from_moves(played.actions).terminated) and played.ended == RULES
        assert played.actions[:2] == game.parse_moves(opening) and played.verdict is None
    sent = log.read_text().splitlines()
    assert engines.engine_opponent(GOMOCUP, game).messages == []  # nothing heard yet
    assert sent[:2] == ["START 9", "INFO rule 0"]
    # Game 1: the engine is White and first moves after the agent's move: the whole board,
    # its own stone (d4, White) field 1, Black's 2. Game 2 starts with RESTART.
    first_board = sent.index("BOARD")
    e5, d4 = (game.parse_move(m) for m in opening)
    assert sent[first_board + 1 : first_board + 3] == [
        f"{e5 % 9},{e5 // 9},2",
        f"{d4 % 9},{d4 // 9},1",
    ]
    assert sent.count("RESTART") == 1 and sent[-1] == "END"
    assert any(line.startswith("TURN ") for line in sent)


def test_a_renju_foul_loses_the_game_for_the_engine():
    game = hexjax.make("gomoku", size=15, rule="renju")
    # Black's h10 h9 and f8 g8 leave h8 a double three: forbidden for Black.
    opening = ["h10", "a1", "h9", "a15", "f8", "o1", "g8", "o15"]
    foul = game.parse_move("h8")
    games = match(game, f"{GOMOCUP} --moves {foul % 15},{foul // 15}", openings=[opening])
    engine_black = games[1]
    assert not engine_black.agent_black and engine_black.ended == "illegal move"
    assert "h8" in engine_black.detail and "forbidden" in engine_black.detail
    assert engine_black.score == 1.0 and engine_black.sgf_result() == "W+F"


def test_engine_games_as_sgf_say_how_they_ended(tmp_path):
    game = hexjax.make("hex", size=5)
    games = match(game, GTP + " --illegal-at 2", games=2)
    engine_match.write_sgf(game, games, tmp_path, "fake", "agent", "fake engine")
    first = (tmp_path / "fake-1.sgf").read_text()
    assert "RE[B+F]" in first and "PB[agent]" in first and "already occupied" in first
    record = sgf.read_sgf(first)
    assert record.actions == games[0].actions
    second = sgf.read_sgf((tmp_path / "fake-2.sgf").read_text())
    assert second.black == "fake engine" and second.actions == games[1].actions


def test_several_engine_processes_share_the_games():
    game = hexjax.make("hex", size=4)
    one = match(game, GTP, games=4, openings=[[0], [5]])

    def start():
        return engines.engine_opponent(GTP, game, (), 20.0)

    two = engine_match.play_engine_match(game, last_legal, start, [[0], [5]], 4, jobs=2)
    assert [g.actions for g in two] == [g.actions for g in one]  # deterministic players
    assert summarize([g.score for g in two])["games"] == 4


def test_random_openings_extend_the_given_ones_and_leave_the_game_running():
    game = hexjax.make("hex", size=4)
    rows = engine_match.random_openings(game, 5, 2, seed=0, starts=[[0], [15]])
    assert [r[0] for r in rows] == [0, 15, 0, 15, 0] and {len(r) for r in rows} == {3}
    assert rows == engine_match.random_openings(game, 5, 2, seed=0, starts=[[0], [15]])
    assert not any(bool(game.from_moves(r).terminated) for r in rows)


def test_a_spread_of_first_moves_covers_every_row_of_the_board():
    game = hexjax.make("hex", size=11)
    moves = arena.first_move_openings(game, 20)[:, 0]
    assert len(set(moves.tolist())) == 20 and moves[0] == 0 and moves[-1] == 120
    assert {int(a) // 11 for a in moves} == set(range(11))  # every row
    assert (arena.first_move_openings(game, 121) == arena.first_move_openings(game)).all()
    with pytest.raises(ValueError, match="122 first moves asked, 121 exist"):
        arena.first_move_openings(game, 122)


def test_an_engine_that_hangs_at_a_new_game_is_replaced_before_anything_counts():
    game = hexjax.make("gomoku", size=9)
    made = []

    def start():
        made.append(engines.engine_opponent(GOMOCUP + " --silent-restart", game, (), 1.0))
        return made[-1]

    games = engine_match.play_engine_match(game, last_legal, start, [[]], 4)
    assert [g.ended for g in games] == [RULES] * 4  # no game lost to the hang
    assert made[0].starts == 4  # a fresh process for every game after the first


def test_a_command_lost_just_after_an_engines_move_is_asked_again(tmp_path):
    """Rapfi may drop the command that follows its move: ABOUT goes first, and again."""
    game, log = hexjax.make("gomoku", size=9), tmp_path / "commands.txt"
    games = match(game, f"{GOMOCUP} --deaf-after 2 --log {log}")
    assert [g.ended for g in games] == [RULES, RULES]
    sent = log.read_text().splitlines()
    second_move = [i for i, line in enumerate(sent) if line.startswith("TURN")][0]
    assert sent[second_move + 1 : second_move + 3] == ["ABOUT", "ABOUT"]  # the first was lost


OTHELLO_GTP = f"gtp:{shlex.quote(sys.executable)} {SUPPORT / 'fake_othello_gtp_engine.py'}"


@pytest.mark.parametrize("flags", ["", " --refuse-pass"])
def test_othello_games_over_gtp_pass_when_a_side_must_and_end_as_the_rules_say(flags):
    """With --refuse-pass the engine, as GRhino does, refuses to be told a pass and passes by
    itself: the games go on in step all the same."""
    game = hexjax.make("othello", size=8)
    games = match(game, OTHELLO_GTP + flags, games=4, openings=[[], ["d3"]])
    agent_passes = 0
    for played in games:
        state = game.from_moves(played.actions)  # every move legal, passes included
        assert bool(state.terminated) and played.ended == RULES
        assert played.verdict == int(state.winner)  # its disc count agrees (no draws here)
        state = game.new_state()
        for action in played.actions:
            mover_is_agent = int(state.current_player) == (0 if played.agent_black else 1)
            agent_passes += mover_is_agent and action == game.pass_action
            state = game.host_step(state, action)
    assert agent_passes >= 1, "the agent never passed: telling a pass would go unchecked"


def test_an_illegal_othello_move_loses_the_game():
    game = hexjax.make("othello", size=8)
    games = match(game, OTHELLO_GTP + " --illegal-at 1")
    assert games[0].ended == "illegal move" and "a1" in games[0].detail
    with pytest.raises(ValueError, match="gtp engines play hex or othello, not gomoku"):
        engines.check_spec(OTHELLO_GTP, hexjax.make("gomoku", size=9))
