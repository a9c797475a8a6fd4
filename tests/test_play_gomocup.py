"""The Gomocup brain: every command over text streams, a whole game, positions from BOARD (renju
included), takebacks, time limits, errors that change nothing, and once over stdin/stdout."""

import functools
import io
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import PRODUCT_XLA_FLAGS
from support.play_models import (
    FakeTimeAgent,
    OnlyAgent,
    SlowInput,
    engine_process,
    make_tiny_model,
)

import hexjax
from hexjax.play import Agents, gomocup
from hexjax.play.clock import SearchClock
from hexjax.play.gomocup import GomocupEngine, rule_name
from hexjax.play.match import Match

ABOUT = 'name="hexjax", version="0.1.0", author="hexjax", country="-"'


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("models")
    make_tiny_model(directory, "gomoku9", "gomoku", 9)
    make_tiny_model(directory, "renju9", "gomoku", 9, rule="renju")
    return directory


@pytest.fixture(scope="module")
def agents(model_dir):
    return Agents(model_dir=model_dir)  # shared, so each search compiles once per file


def talk(engine: GomocupEngine, script: str) -> list[str]:
    output = io.StringIO()
    engine.run(io.StringIO(script), output)
    return output.getvalue().splitlines()


def point(answer: str) -> tuple[int, int]:
    """(row, column) of an answer "x,y" (x the column, y the row from the top)."""
    x, y = map(int, answer.split(","))
    return y, x


def board_lines(own, opponent) -> str:
    """BOARD's lines for stones given as (row, column): field 1 the brain's, 2 the opponent's."""
    stones = [(r, c, 1) for r, c in own] + [(r, c, 2) for r, c in opponent]
    return "".join(f"{c},{r},{field}\n" for r, c, field in stones)


def five(board: np.ndarray, colour: int) -> bool:
    """Five or more of `colour` in a row (freestyle), counted here, not by hexjax."""
    n = len(board)
    for r in range(n):
        for c in range(n):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + i * dr, c + i * dc) for i in range(5)]
                if all(0 <= y < n and 0 <= x < n and board[y, x] == colour for y, x in cells):
                    return True
    return False


@functools.cache
def renju(size: int):
    return hexjax.make("gomoku", size=size, rule="renju")  # one, so it compiles once


def forbidden(board: np.ndarray) -> np.ndarray:
    """bool[n, n]: Black's forbidden points on `board` (1 Black, 2 White), by hexjax's renju."""
    game = renju(len(board))
    return game.forbidden_mask(game.from_board(board, 0))


def test_commands_and_errors(agents):
    engine = GomocupEngine(agents, simulations=4)
    script = """ABOUT
BEGIN
START 10
START x
RECTSTART 9,9
FROBNICATE
start 9
INFO timeout_turn 5000
INFO time_left lots
INFO rule 1
BEGIN
INFO rule 0
TURN 9,0
TURN 4
TAKEBACK 0,0
END
ABOUT
"""
    answers = talk(engine, script)
    assert answers[0] == ABOUT
    assert answers[1] == "ERROR no board yet: START N first"
    assert answers[2].startswith("ERROR no shipped model for gomoku 10x10 freestyle")
    assert answers[3] == "ERROR expected START N, e.g. START 15, got 'x'"
    assert answers[4].startswith("ERROR rectangular boards are not supported")
    assert answers[5] == "UNKNOWN command 'FROBNICATE'"
    assert answers[6] == "OK"  # INFO is answered by silence
    assert answers[7].startswith("ERROR no shipped model for gomoku 9x9 standard")  # rule 1
    assert answers[8] == "ERROR the point 9,0 is off the 9x9 board"
    assert answers[9] == "ERROR expected a point x,y, got '4'"
    assert answers[10] == "ERROR no stone at 0,0 to take back"
    assert len(answers) == 11 and engine.ended  # nothing read after END
    assert engine.rule == "freestyle" and engine.match.board().sum() == 0


def test_a_whole_game_to_five_in_a_row(agents):
    engine = GomocupEngine(agents, simulations=4)
    assert talk(engine, "START 9\n") == ["OK"]
    n = 9
    board = np.zeros((n, n), np.int8)  # 1 the brain (Black: it begins), 2 the test
    command = "BEGIN"
    for _ in range(n * n):
        [answer] = talk(engine, command + "\n")
        assert board[point(answer)] == 0, f"{answer} is taken"
        board[point(answer)] = 1
        if five(board, 1) or board.all():
            result = "Black wins" if five(board, 1) else "draw"
            assert talk(engine, "TURN 0,0\n") == [f"ERROR the game is over: {result}"]
            break
        # The test fills the board from the top row down: five in a row unless blocked.
        r, c = np.argwhere(board == 0)[0]
        board[r, c] = 2
        command = f"TURN {c},{r}"
        if five(board, 2) or board.all():
            result = "White wins" if five(board, 2) else "draw"
            assert talk(engine, command + "\n") == [f"ERROR the game is over: {result}"]
            break
    else:
        pytest.fail("the game did not end")
    np.testing.assert_array_equal(engine.match.board(), board)


def test_takeback_and_restart(agents):
    engine = GomocupEngine(agents, simulations=4)
    first = talk(engine, "START 9\nBEGIN\n")[1]
    theirs = "0,0" if first != "0,0" else "1,0"
    [reply] = talk(engine, f"TURN {theirs}\n")
    # Both moves back, the same move again: the same position, so the same (searched) reply.
    assert talk(engine, f"TAKEBACK {reply}\nTAKEBACK {theirs}\n") == ["OK", "OK"]
    assert engine.match.board().sum() == 1
    assert talk(engine, f"TURN {theirs}\n") == [reply]
    # A stone that is not the last move comes off too; its owner is then to move.
    assert talk(engine, f"TAKEBACK {theirs}\n") == ["OK"]
    board = engine.match.board()
    assert board[point(theirs)] == 0 and (board == 1).sum() == 2 and engine.match.to_play == 1
    [again] = talk(engine, f"TURN {theirs}\n")
    board = engine.match.board()
    assert board[point(again)] == 1 and (board == 1).sum() == 3 and (board == 2).sum() == 1
    r, c = np.argwhere(board == 0)[0]
    assert talk(engine, f"TAKEBACK {c},{r}\nTAKEBACK 9,9\n") == [
        f"ERROR no stone at {c},{r} to take back",
        "ERROR the point 9,9 is off the 9x9 board",
    ]
    assert talk(engine, "RESTART\nBEGIN\n") == ["OK", first]  # an empty board, the same move


def test_board_sets_the_position_with_the_brain_to_move(agents):
    engine = GomocupEngine(agents, simulations=4)
    # The opponent has one stone more, so it is Black: an open four on row 4 (columns 2-5).
    theirs = [(4, 2), (4, 3), (4, 4), (4, 5)]
    mine = [(0, 0), (8, 8), (0, 8)]
    [answer] = talk(engine, f"START 9\nBOARD\n{board_lines(mine, theirs)}DONE\n")[1:]
    board = np.zeros((9, 9), np.int8)
    board[tuple(zip(*theirs, strict=True))] = 1
    board[tuple(zip(*mine, strict=True))] = 2
    assert board[point(answer)] == 0
    board[point(answer)] = 2  # the brain plays White
    np.testing.assert_array_equal(engine.match.board(), board)
    # Malformed positions, or one already won, are refused and the game goes on unchanged.
    for lines, message in [
        ("1,1\n", "BOARD lines are x,y,field, got '1,1'"),
        ("1,1,3\n", "BOARD field 3 in '1,1,3': only 1 and 2 are supported"),
        ("1,1,1\n1,1,2\n", "BOARD names the point 1,1 twice"),
        ("9,1,1\n", "the point 9,1 is off the 9x9 board"),
        (board_lines([], [(0, c) for c in range(5)]), "the game is over: Black wins"),
    ]:
        assert talk(engine, f"BOARD\n{lines}DONE\nABOUT\n") == [f"ERROR {message}", ABOUT]
        np.testing.assert_array_equal(engine.match.board(), board)
    # The opponent completes its four at an end the brain left open: five for Black.
    end = (4, 1) if board[4, 1] == 0 else (4, 6)
    [answer] = talk(engine, f"TURN {end[1]},{end[0]}\n")
    assert answer == "ERROR the game is over: Black wins"


def test_start_readies_every_rule_shipped_for_the_board_before_info_rule(model_dir):
    # A manager sends INFO rule after START: the renju model's search must be compiled by then.
    agents = Agents(model_dir=model_dir)
    engine = GomocupEngine(agents, simulations=4)
    assert talk(engine, "START 9\n") == ["OK"]
    renju, freestyle = agents.get("gomoku", 9, "renju"), agents.get("gomoku", 9)
    assert engine.clock.lasting(renju).prepared and engine.clock.lasting(freestyle).prepared
    assert talk(engine, "INFO rule 4\n") == []
    assert engine.rule == "renju" and engine._current().game is renju.game
    # One model given: nothing else is loaded.
    only = GomocupEngine(Agents(model="gomoku9", model_dir=model_dir), simulations=4)
    assert (
        agents.available_rules("gomoku", 9) == ["freestyle", "renju"]
        and agents.available_rules("gomoku", 15) == []
    )
    assert only._other_rules() == [] and talk(only, "START 9\n") == ["OK"]


def test_renju_by_info_rule_never_plays_a_forbidden_point(agents):
    engine = GomocupEngine(agents, simulations=4)
    assert talk(engine, "START 9\nINFO rule 4\n") == ["OK"]
    # Equal counts: the brain is Black, and x 4, y 4 would be its double three.
    black = [(4, 2), (4, 3), (2, 4), (3, 4)]
    white = [(0, 0), (0, 8), (8, 0), (8, 8)]
    board = np.zeros((9, 9), np.int8)
    board[tuple(zip(*black, strict=True))] = 1
    board[tuple(zip(*white, strict=True))] = 2
    before = forbidden(board)
    assert before[4, 4]
    [answer] = talk(engine, f"BOARD\n{board_lines(black, white)}DONE\n")
    assert board[point(answer)] == 0 and not before[point(answer)], answer
    board[point(answer)] = 1
    r, c = (8, 4) if board[8, 4] == 0 else (8, 3)  # White's move, then Black's again
    board[r, c] = 2
    before = forbidden(board)
    [answer] = talk(engine, f"TURN {c},{r}\n")
    assert board[point(answer)] == 0 and not before[point(answer)], answer
    board[point(answer)] = 1
    assert engine.match.game.rule == "renju"
    np.testing.assert_array_equal(engine.match.board(), board)
    # The opponent is Black (one stone more) with double threes at x 3, y 3 and x 7, y 6: the
    # brain's move can spoil one of them at most, and Black's move to the other is refused.
    black = [(3, 1), (3, 2), (1, 3), (2, 3), (6, 5), (6, 6), (4, 7), (5, 7)]
    white = [(8, 0), (0, 8), (8, 2), (7, 0), (8, 4), (0, 6), (6, 0)]
    [answer] = talk(engine, f"BOARD\n{board_lines(white, black)}DONE\n")
    board = np.zeros((9, 9), np.int8)
    board[tuple(zip(*black, strict=True))] = 1
    board[tuple(zip(*white, strict=True))] = 2
    board[point(answer)] = 2
    left = [(r, c) for r, c in [(3, 3), (6, 7)] if forbidden(board)[r, c]]
    assert left, "one of the two double threes is left"
    r, c = left[0]
    [refused] = talk(engine, f"TURN {c},{r}\n")
    assert refused.startswith("ERROR") and "forbidden for Black" in refused
    np.testing.assert_array_equal(engine.match.board(), board)


def test_budgets_from_timeout_turn_and_time_left(agents):
    assert [rule_name(bits) for bits in range(7)] == [
        "freestyle", "standard", "freestyle", "standard", "renju", "renju", "renju"
    ]  # fmt: skip
    engine = GomocupEngine(agents)
    assert engine.budget() is None
    engine.answer("INFO timeout_turn 2000")
    engine.answer("INFO time_left 2147483647")  # no match limit
    assert engine.budget() == 2.0 and engine.most() == 2.0  # the turn's limit: no more
    engine.answer("INFO time_left 10000")
    assert engine.budget() == 0.5  # 10 s shared among the next 20 moves
    assert engine.most() == 1.25  # an eighth of it when the search is unsure
    engine.answer("INFO time_left -300")  # overdrawn
    assert engine.budget() == 0.0


def test_a_move_has_its_time_less_what_its_command_took_before_the_search(
    agents, monkeypatch
):  # fmt: skip
    """The manager times the whole TURN: the opponent's move played there (0.3 s here) comes
    off timeout_turn and off the share of time_left."""
    fake = [0.0]
    engine = GomocupEngine(agents, simulations=4)
    engine.clock = SearchClock(4, now=lambda: fake[0])
    real_move, real_play, asked = engine.clock.move, Match.play, []

    def move(agent, state, budget_s, most_s=None):
        asked.append((budget_s, most_s))
        return real_move(agent, state, None)  # 4 simulations

    def slow_play(match, action):
        fake[0] += 0.3
        real_play(match, action)

    monkeypatch.setattr(engine.clock, "move", move)
    monkeypatch.setattr(Match, "play", slow_play)
    assert talk(engine, "START 9\nINFO timeout_turn 1000\n") == ["OK"]
    talk(engine, "BEGIN\n")  # nothing played before the search
    assert asked == [pytest.approx((1.0, 1.0))]
    talk(engine, "TURN 0,0\n")
    assert asked[-1] == pytest.approx((0.7, 0.7))
    talk(engine, "INFO time_left 10000\nTURN 8,8\n")  # 0.5 s a move; unsure, up to the turn
    assert asked[-1] == pytest.approx((0.2, 0.7))


def test_without_simulations_a_timed_move_searches_what_fits_and_an_untimed_one_64(agents):
    """The brain's own clock (counts, on a fake clock): without --simulations, no time limit
    searches 64, and timeout_turn 10 s what fits half of it, far past 64 (a cap of 64 once left
    most of a clock unspent)."""
    agent = FakeTimeAgent(agents.get("gomoku", 9).game)
    engine = GomocupEngine(OnlyAgent(agent), timed_search="counts")
    engine.clock.now = agent.now
    talk(engine, "START 9\n")
    assert agent.searched == [1, 4, 16, 64, 256]  # timed at START, up to a second
    talk(engine, "BEGIN\n")
    assert agent.searched[-1] == 64
    talk(engine, "INFO timeout_turn 10000\nTURN 8,8\nTURN 7,7\n")
    assert agent.searched[-2:] == [1024, 4096]


def test_the_command_leaves_the_count_to_the_clock_unless_asked(model_dir, monkeypatch):
    """hexjax-gomocup's own flags: without --simulations a move without a limit searches 64 and
    one with a limit up to 4096 (the command once passed 64, capping both); --simulations 16
    caps both."""
    clocks = []

    class Built(GomocupEngine):
        def run(self, stdin, stdout):
            clocks.append((self.clock.untimed, self.clock.most))

    monkeypatch.setattr(gomocup, "GomocupEngine", Built)
    argv = ["--model", "gomoku9", "--model-dir", str(model_dir), "--search-cores", "all"]
    assert gomocup.main(argv) == 0
    assert gomocup.main([*argv, "--simulations", "16"]) == 0
    assert clocks == [(64, 4096), (16, 16)]


def test_every_move_fits_timeout_turn_on_a_fake_clock(agents):
    """The counts clock, --simulations 4096 and timeout_turn 500: START compiles and times the
    counts (outside any move), no move searches past the limit, and the moves use the largest
    count that fits half the turn (64: 66 ms; 256 would take 258 ms)."""
    agent = FakeTimeAgent(agents.get("gomoku", 9).game)
    engine = GomocupEngine(OnlyAgent(agent), simulations=4096)
    engine.clock = SearchClock(4096, now=agent.now, search="counts")
    assert talk(engine, "START 9\nINFO timeout_turn 500\n") == ["OK"]
    assert agent.searched == [1, 4, 16, 64, 256]  # timed at START
    command = "BEGIN"
    for _ in range(9):  # the opponent takes the next point in reading order: no five
        before = agent.time
        [answer] = talk(engine, command + "\n")
        assert not answer.startswith("ERROR"), answer
        assert agent.time - before <= 0.5, (command, agent.searched)
        y, x = divmod(int(np.flatnonzero(engine.match.board().reshape(-1) == 0)[0]), 9)
        command = f"TURN {x},{y}"
    assert agent.searched[5:] == [64] * 9
    # No limit: the most allowed.
    engine.info.pop("timeout_turn")
    talk(engine, command + "\n")
    assert agent.searched[-1] == 4096


def test_time_limit_over_the_protocol(model_dir, tmp_path):
    """The real engine with timeout_turn 1000 and --simulations 4096: every answer after START
    comes well within the limit (a move that compiled would take seconds)."""
    # One model: the renju one's searches would compile too (tested in-process above). Compiled
    # as users' engines are, not with the suite's quick-compiling flags (conftest.py), which run
    # the re-rooting between moves, outside the timed chunks, many times slower (docs/testing.md).
    args = ["--model", "gomoku9", "--model-dir", str(model_dir), "--simulations", "4096"]
    product = {"XLA_FLAGS": PRODUCT_XLA_FLAGS}
    with engine_process("hexjax.play.gomocup", args, tmp_path / "stderr", product) as process:

        def ask(command: str) -> tuple[str, float]:
            started = time.monotonic()
            process.stdin.write(command + "\r\n")
            process.stdin.flush()
            return process.stdout.readline().rstrip("\r\n"), time.monotonic() - started

        assert ask("START 9")[0] == "OK"
        if len(os.sched_getaffinity(0)) > 1:  # the search pinned to one core (play/cores.py)
            assert len(os.sched_getaffinity(process.pid)) == 1
        process.stdin.write("INFO timeout_turn 1000\r\n")
        answer, took = ask("BEGIN")
        played, seconds = {point(answer)}, [took]
        for _ in range(6):
            # Points two apart in both directions: the opponent never makes five.
            spread = ((r, c) for r in range(0, 9, 2) for c in range(0, 9, 2))
            theirs = next(p for p in spread if p not in played)
            played.add(theirs)
            answer, took = ask(f"TURN {theirs[1]},{theirs[0]}")
            played.add(point(answer))
            seconds.append(took)
        assert len(played) == 13
        assert max(seconds) < 1.0, seconds
        process.stdin.write("END\r\n")
        process.stdin.flush()
        assert process.wait(timeout=60) == 0, (tmp_path / "stderr").read_text()


def test_over_stdin_and_stdout(model_dir, tmp_path):
    # Line by line with CR LF, as Piskvork talks: a brain that does not flush hangs here.
    args = ["--model", "gomoku9", "--model-dir", str(model_dir), "--simulations", "4"]
    with engine_process("hexjax.play.gomocup", args, tmp_path / "stderr") as process:

        def ask(command: str) -> str:
            process.stdin.write(command + "\r\n")
            process.stdin.flush()
            return process.stdout.readline().rstrip("\r\n")

        assert ask("START 9") == "OK"
        process.stdin.write("INFO timeout_turn 30000\r\nINFO rule 0\r\n")
        first = point(ask("BEGIN"))
        theirs = (0, 0) if first != (0, 0) else (0, 1)
        second = point(ask(f"TURN {theirs[1]},{theirs[0]}"))
        assert len({first, second, theirs}) == 3
        assert ask("ABOUT") == ABOUT
        process.stdin.write("END\r\n")
        process.stdin.flush()
        assert process.wait(timeout=60) == 0, (tmp_path / "stderr").read_text()


def test_a_second_start_reads_its_searches_from_the_compilation_cache(model_dir, tmp_path):
    """The engine keeps what it compiles in $XDG_CACHE_HOME/hexjax/jax: started again it writes
    nothing new, everything read back; with HEXJAX_COMPILATION_CACHE=off it keeps nothing."""
    argv = [sys.executable, "-m", "hexjax.play.gomocup", "--model", "gomoku9", "--model-dir",
            str(model_dir), "--simulations", "16"]  # fmt: skip
    commands = "START 9\r\nINFO timeout_turn 5000\r\nBEGIN\r\nEND\r\n"
    cache = tmp_path / "xdg" / "hexjax" / "jax"
    session = {k: v for k, v in os.environ.items() if k != "JAX_COMPILATION_CACHE_DIR"}

    def start(**env) -> set[str]:
        environment = {**session, "XDG_CACHE_HOME": str(tmp_path / "xdg"), **env}
        done = subprocess.run(argv, input=commands, capture_output=True, text=True, timeout=600,
                              env=environment)  # fmt: skip
        assert done.returncode == 0 and done.stdout.splitlines()[0] == "OK", done.stderr
        return {str(p.relative_to(cache)) for p in cache.rglob("*")} if cache.exists() else set()

    assert start(HEXJAX_COMPILATION_CACHE="off") == set()
    first = start()
    steps = {name.split("/")[1].split("-")[0] for name in first if name.startswith("exported/")}
    # lasting.py's steps and the game's start and step (hexjax/games/host_compile.py), each
    # traced once
    assert steps == {"grow", "reroot", "plan", "choose", "new_state", "step"}, first
    assert len(first) > 5  # and their executables beside them
    assert start() == first


def test_a_model_of_another_game_is_refused_at_start(tmp_path):
    make_tiny_model(tmp_path, "hex5", "hex", 5)
    argv = [sys.executable, "-m", "hexjax.play.gomocup", "--model", "hex5"]
    done = subprocess.run(
        [*argv, "--model-dir", str(tmp_path)], input="", capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 2
    assert "the engine plays gomoku; this model hex5 plays hex 5x5" in done.stderr


def test_pondering_between_the_brains_move_and_the_next_command(agents):
    """timeout_turn 200 ms; with --ponder the brain thinks until the manager's next command
    (0.3 s later) and then answers it as before."""
    for ponder in (False, True):
        engine = GomocupEngine(agents, 256, solve=False, ponder=ponder)
        # Started (its searches compiled) before the lines' timing starts.
        assert engine.answer("START 9") == "OK"
        assert engine.answer("INFO timeout_turn 200") is None
        output = io.StringIO()
        engine.run(SlowInput(["BEGIN\n", "TURN 0,0\n", "END\n"], 0.3), output)
        answers = output.getvalue().splitlines()
        assert len(answers) == 2 and all(len(point(answer)) == 2 for answer in answers)
        assert (engine.pondered > 0) == ponder
