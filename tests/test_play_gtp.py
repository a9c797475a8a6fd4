"""The Hex GTP engine: every command over text streams, a whole game, errors that change
nothing, board sizes with and without a model, the swap rule, and once over stdin/stdout."""

import io
import os
import signal
import time

import numpy as np
import pytest
from support.play_models import (
    FakeTimeAgent,
    OnlyAgent,
    SlowInput,
    engine_process,
    make_tiny_model,
)

from hexjax.play import Agents, gtp
from hexjax.play.clock import SearchClock
from hexjax.play.gtp import GtpEngine, TimeControl, main

COMMANDS = {"protocol_version", "name", "version", "known_command", "list_commands",
            "boardsize", "clear_board", "play", "genmove", "undo", "showboard", "final_score",
            "time_settings", "time_left", "kgs-time_settings", "quit"}  # fmt: skip


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("models")
    make_tiny_model(directory, "hex5", "hex", 5)
    make_tiny_model(directory, "hex5swap", "hex", 5, swap=True)
    make_tiny_model(directory, "hex4swap", "hex", 4, swap=True)
    return directory


@pytest.fixture(scope="module")
def agents(model_dir):
    return Agents(model_dir=model_dir)  # shared, so each search compiles once per file


def talk(engine: GtpEngine, script: str) -> list[str]:
    """The engine's responses to the lines of `script`, each without its closing blank line."""
    output = io.StringIO()
    engine.run(io.StringIO(script), output)
    text = output.getvalue()
    assert text.endswith("\n\n") or not text
    return text.split("\n\n")[:-1]


def board_of(showboard: str) -> np.ndarray:
    """int8[n, n] from a showboard response: 0 empty, 1 Black (X), 2 White (O)."""
    rows = [line.split()[1:] for line in showboard.splitlines() if line.strip()[:1].isdigit()]
    return np.array([[".XO".index(cell) for cell in row] for row in rows], np.int8)


def cell(move: str) -> tuple[int, int]:
    """(row, column) of a HexGui cell: "b3" is column b, row 3 from the top."""
    return int(move[1:]) - 1, ord(move[0]) - ord("a")


def connects(board: np.ndarray, colour: int) -> bool:
    """Does `colour` join its edges (1: top and bottom, 2: left and right)? Own flood fill."""
    n = len(board)
    stones = board == colour if colour == 1 else (board == colour).T  # White: transpose
    frontier = [(0, c) for c in range(n) if stones[0, c]]
    seen = set(frontier)
    while frontier:
        r, c = frontier.pop()
        for dr, dc in ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0)):
            near = (r + dr, c + dc)
            if 0 <= near[0] < n and 0 <= near[1] < n and stones[near] and near not in seen:
                seen.add(near)
                frontier.append(near)
    return any(r == n - 1 for r, _ in seen)


def test_every_command(agents):
    engine = GtpEngine(agents, 5)
    script = """protocol_version
name
version
known_command genmove
known_command frobnicate
list_commands
boardsize 5
play b c3
showboard
undo
showboard
final_score
play b a1
clear_board
showboard
quit
name
"""
    responses = talk(engine, script)
    assert responses[:5] == ["= 2", "= hexjax", "= 0.1.0", "= true", "= false"]
    assert responses[5].startswith("= ") and set(responses[5][2:].split("\n")) == COMMANDS
    assert responses[6:8] == ["= ", "= "]
    board = board_of(responses[8])
    assert board.shape == (5, 5) and board[2, 2] == 1 and board.sum() == 1
    assert "O (left-right) to move" in responses[8]
    assert responses[9] == "= " and board_of(responses[10]).sum() == 0
    assert responses[11] == "? the game is not over"
    assert responses[12:14] == ["= ", "= "]
    assert board_of(responses[14]).sum() == 0  # clear_board emptied the board
    assert responses[15] == "= " and len(responses) == 16  # nothing read after quit
    assert engine.quit


def test_ids_comments_and_blank_lines(agents):
    engine = GtpEngine(agents, 5)
    script = "# a comment\n\n12 name\n   \n7 frobnicate\n3 play b a1 # b plays a1\n\t4\tundo\n"
    assert talk(engine, script) == ["=12 hexjax", "?7 unknown command: frobnicate", "=3 ", "=4 "]


def test_malformed_commands_answer_errors_and_change_nothing(agents):
    engine = GtpEngine(agents, 5)
    assert talk(engine, "play b c3\n") == ["= "]
    before = talk(engine, "showboard\n")
    bad = {
        "play": "expected 2 arguments",
        "play b": "expected 2 arguments",
        "play x d4": "unknown colour 'x'",
        "play b c3": "already occupied",
        "play white c3": "already occupied",
        "play w f1": "off the 5x5 board",
        "play w 3c": "not a cell",
        "play w pass": "Hex has no pass",
        "play w resign": "not a Hex move",
        "play w swap-pieces": "swap rule is off",
        "genmove": "expected 1 argument",
        "time_settings 1 2": "expected 3 arguments",
        "time_settings 1 x 0": "takes numbers",
        "time_settings -5 0 0": "at least 0",
        "time_left b 10": "expected 3 arguments",
        "time_left red 10 0": "unknown colour",
        "kgs-time_settings byoyomi 10": "expected kgs-time_settings none",
        "kgs-time_settings sudden 10": "expected kgs-time_settings none",
        "known_command": "expected 1 argument",
        "boardsize": "boardsize needs a size",
        "boardsize five": "boardsize needs a size",
        "boardsize 5 4": "only square boards",
        "frobnicate": "unknown command",
    }
    for command, message in bad.items():
        [response] = talk(engine, f"5 {command}\n")
        assert response.startswith("?5 ") and message in response, (command, response)
        assert talk(engine, "showboard\n") == before, command
    assert talk(engine, "play w a1\n") == ["= "]  # White still to move


def test_board_sizes_with_and_without_a_model(agents, model_dir):
    engine = GtpEngine(agents, 5, swap=True)
    talk(engine, "play b c3\n")
    before = talk(engine, "showboard\n")
    [response] = talk(engine, "boardsize 6 6\n")
    assert response.startswith("? no shipped model for hex 6x6 with swap")
    assert talk(engine, "showboard\n") == before  # the old size, the game as it was
    assert talk(engine, "boardsize 4 4\nshowboard\n")[0] == "= "
    assert board_of(talk(engine, "showboard\n")[0]).shape == (4, 4)
    assert board_of(talk(engine, "boardsize 5\nshowboard\n")[1]).sum() == 0
    # One named model plays its own size only.
    engine = GtpEngine(Agents(model="hex5", model_dir=model_dir), 5)
    [response] = talk(engine, "boardsize 4\n")
    assert response == "? no model for hex 4x4: this model hex5 plays hex 5x5 only"
    assert (
        main(["--model-dir", str(model_dir), "--size", "6", "--search-cores", "all"]) == 2
    )  # exits before reading


class SwappingAgents:
    """Agents whose agent answers the swap whenever it is legal (the last legal action)."""

    def __init__(self, agents):
        self.agents = agents

    def get(self, game, size, rule="freestyle", swap=False):
        return FakeTimeAgent(self.agents.get(game, size, rule, swap).game, last=True)


def test_swap(agents):
    engine = GtpEngine(agents, 5, swap=True)
    # Black a2 (row 2, column a); White swaps: the stone moves to its mirror b1 and turns White.
    assert talk(engine, "play b a2\nplay w swap-pieces\n") == ["= ", "= "]
    board = board_of(talk(engine, "showboard\n")[0])
    assert board[0, 1] == 2 and board.sum() == 2
    assert talk(engine, "play b c3\n") == ["= "]
    [response] = talk(engine, "play w swap\n")
    assert "swap is only allowed as the second move" in response
    assert talk(engine, "undo\nundo\nshowboard\n")[:2] == ["= ", "= "]
    assert board_of(talk(engine, "showboard\n")[0])[1, 0] == 1  # back to Black's a2
    # An engine that swaps answers in HexGui's word for it.
    engine = GtpEngine(SwappingAgents(agents), 5, swap=True, timed_search="counts")
    assert talk(engine, "play b a2\ngenmove w\n") == ["= ", "= swap-pieces"]
    assert board_of(talk(engine, "showboard\n")[0])[0, 1] == 2


def test_play_and_genmove_for_either_colour(agents):
    """HexGui sets up a position with stones of one colour in a row and asks either side."""
    engine = GtpEngine(agents, 5)
    assert talk(engine, "play b a1\nplay b a2\nplay b a3\n") == ["= "] * 3
    board = board_of(talk(engine, "showboard\n")[0])
    assert board[:3, 0].tolist() == [1, 1, 1] and board.sum() == 3
    assert engine.match.to_play == 1  # the other side of the last stone placed
    [move] = talk(engine, "genmove b\n")  # Black again, out of turn
    assert move.startswith("= ")
    board = board_of(talk(engine, "showboard\n")[0])
    assert (board == 1).sum() == 4 and (board == 2).sum() == 0 and engine.match.to_play == 1
    assert talk(engine, "undo\n") == ["= "]
    assert (board_of(talk(engine, "showboard\n")[0]) == 1).sum() == 3
    # Black's column a joined top to bottom out of turn: the game is over, Black won.
    assert talk(engine, "play b a4\nplay b a5\nfinal_score\n") == ["= ", "= ", "= B+"]
    [response] = talk(engine, "genmove w\n")
    assert "the game is over" in response


def test_time_settings_give_each_move_a_budget(agents):
    engine = GtpEngine(agents, 5)
    assert engine.time.budget(0) is None  # no time_settings: no limit
    talk(engine, "time_settings 300 0 0\n")  # absolute: 5 minutes
    assert engine.time.budget(0) == 15.0  # shared among the next 20 moves
    talk(engine, "time_left b 40 0\n")
    assert engine.time.budget(0) == 2.0 and engine.time.budget(1) == 15.0
    assert engine.time.most(0) == 5.0 and engine.time.most(1) == 37.5  # an eighth, when unsure
    talk(engine, "time_settings 0 30 5\n")  # Canadian byo-yomi only: 30 s for 5 stones
    assert engine.time.budget(0) == 6.0
    talk(engine, "time_left w 12 3\n")  # in a period: 12 s for 3 stones
    assert engine.time.budget(1) == 4.0 and engine.time.most(1) == 4.0  # a period: no more
    talk(engine, "time_settings 0 1 0\n")  # GTP's "no time limit"
    assert engine.time.budget(0) is None
    talk(engine, "kgs-time_settings byoyomi 0 10 3\n")  # 10 s a move once main time is over
    assert engine.time.budget(0) == 10.0
    talk(engine, "kgs-time_settings none\n")
    assert engine.time == TimeControl()


def test_every_genmove_fits_its_budget_on_a_fake_clock(agents):
    """The counts clock, --simulations 4096 with a second a move: boardsize compiles and times
    the counts (outside any move), no genmove searches past its second, and the moves use the
    largest count that fits half of it (256: 258 ms; 1024 takes 1.03 s)."""
    agent = FakeTimeAgent(agents.get("hex", 5).game)
    engine = GtpEngine(OnlyAgent(agent), 5, simulations=4096)
    engine.clock = SearchClock(4096, now=agent.now, search="counts")
    assert talk(engine, "boardsize 5\ntime_settings 0 1 1\n") == ["= ", "= "]
    assert agent.searched == [1, 4, 16, 64, 256]  # timed at boardsize; 1024 predicted over 1 s
    for colour in "bwbwbw":
        before = agent.time
        [answer] = talk(engine, f"genmove {colour}\n")
        assert answer.startswith("= ") and agent.time - before <= 1.0, (answer, agent.searched)
    assert agent.searched[5:] == [256] * 6


def test_without_simulations_a_timed_genmove_searches_what_fits_and_an_untimed_one_64(agents):
    """The engine's own clock (counts, on a fake clock: a search 2 ms + 1 ms a simulation):
    without --simulations, a move without a time limit searches 64, and one with 10 s searches
    what fits half of it, far past 64 (an engine once capped its timed moves at 64 and left most
    of a clock unspent); with --simulations 16, 16 either way."""
    agent = FakeTimeAgent(agents.get("hex", 5).game)
    engine = GtpEngine(OnlyAgent(agent), 5, timed_search="counts")
    engine.clock.now = agent.now
    talk(engine, "boardsize 5\n")
    assert agent.searched == [1, 4, 16, 64, 256]  # timed at boardsize, up to a second
    assert talk(engine, "genmove b\n")[0].startswith("= ") and agent.searched[-1] == 64
    talk(engine, "time_settings 0 10 1\ngenmove w\ngenmove b\n")
    assert agent.searched[-2:] == [1024, 4096]  # 4096 once 1024 is timed (at most 4 times on)
    agent = FakeTimeAgent(agents.get("hex", 5).game)
    engine = GtpEngine(OnlyAgent(agent), 5, simulations=16, timed_search="counts")
    engine.clock.now = agent.now
    talk(engine, "boardsize 5\ngenmove b\ntime_settings 0 10 1\ngenmove w\n")
    assert agent.searched == [1, 4, 16, 16, 16]


def test_the_command_leaves_the_count_to_the_clock_unless_asked(model_dir, monkeypatch):
    """hexjax-gtp's own flags: without --simulations a genmove without a limit searches 64 and
    one with a limit up to 4096; --simulations 16 caps both."""
    clocks = []

    class Built(GtpEngine):
        def prepare(self):
            pass

        def run(self, stdin, stdout):
            clocks.append((self.clock.untimed, self.clock.most))

    monkeypatch.setattr(gtp, "GtpEngine", Built)
    argv = ["--model", "hex5", "--model-dir", str(model_dir), "--search-cores", "all"]
    assert main(argv) == 0
    assert main([*argv, "--simulations", "16"]) == 0
    assert clocks == [(64, 4096), (16, 16)]


def test_a_genmove_has_its_time_less_what_came_before_its_search(agents, monkeypatch):
    """The controller times the whole genmove: a search readied inside it (0.4 s here) leaves
    the search the rest of the byo-yomi second."""
    fake = [0.0]
    engine = GtpEngine(agents, 5, simulations=4)
    engine.clock = SearchClock(4, now=lambda: fake[0])
    real_move, real_prepare, asked = engine.clock.move, engine.clock.prepare, []

    def move(agent, state, budget_s, most_s=None):
        asked.append((budget_s, most_s))
        return real_move(agent, state, None)  # 4 simulations

    def slow_prepare(agent):
        fake[0] += 0.4
        real_prepare(agent)

    monkeypatch.setattr(engine.clock, "move", move)
    monkeypatch.setattr(engine.clock, "prepare", slow_prepare)
    assert talk(engine, "time_settings 0 1 1\ngenmove b\n")[1].startswith("= ")
    assert asked == [pytest.approx((0.6, 0.6))]
    fake[0] += 5.0  # between commands: not the move's
    talk(engine, "genmove w\n")
    assert asked[-1] == pytest.approx((0.6, 0.6))


def test_a_whole_game_ends_when_a_side_connects(agents):
    engine = GtpEngine(agents, 5, swap=True, simulations=4)
    n = 5
    board = np.zeros((n, n), np.int8)
    colour = 1  # Black moves first
    for ply in range(n * n + 1):
        [response] = talk(engine, f"{ply} genmove {'bw'[colour - 1]}\n")
        assert response.startswith(f"={ply} "), response
        move = response.split()[1]
        if move == "swap-pieces":
            assert ply == 1
            [[r, c]] = np.argwhere(board == 1)
            board[r, c], board[c, r] = 0, 2
        else:
            assert board[cell(move)] == 0, f"{move} is taken"
            board[cell(move)] = colour
        if connects(board, colour):
            break
        assert not connects(board, 3 - colour)
        colour = 3 - colour
    else:
        pytest.fail("a full Hex board always has a winner")
    assert talk(engine, "final_score\n") == [f"= {'BW'[colour - 1]}+"]
    np.testing.assert_array_equal(board_of(talk(engine, "showboard\n")[0]), board)
    [response] = talk(engine, "genmove b\n")
    assert response.startswith("? the game is over")


def test_over_stdin_and_stdout(model_dir, tmp_path):
    # Line by line, as HexGui talks: an engine that does not flush its answers hangs here.
    # --ponder: the commands read on a thread of their own (nothing timed: no pondering).
    args = ["--model-dir", str(model_dir), "--size", "5", "--simulations", "4", "--ponder"]
    with engine_process("hexjax.play.gtp", args, tmp_path / "stderr") as process:

        def ask(command: str) -> str:
            process.stdin.write(command + "\n")
            process.stdin.flush()
            lines = []
            while (line := process.stdout.readline()) not in ("\n", ""):
                lines.append(line)
            return "".join(lines).rstrip("\n")

        assert ask("1 name") == "=1 hexjax"
        assert ask("boardsize 5 5") == "= " and ask("play b c3") == "= "
        move = ask("2 genmove w").removeprefix("=2 ")
        board = board_of(ask("showboard"))
        assert move != "c3" and board[cell(move)] == 2 and board.sum() == 3
        if len(os.sched_getaffinity(0)) > 1:  # the search pinned to one core (play/cores.py)
            assert len(os.sched_getaffinity(process.pid)) == 1
        assert ask("quit") == "= "
        assert process.wait(timeout=60) == 0, (tmp_path / "stderr").read_text()


def test_ctrl_c_stops_the_engine_without_a_traceback(model_dir, tmp_path):
    """A long genmove (4096 simulations, no time limit), then Ctrl-C (SIGINT): the search stops
    and the engine exits with 130, the shell's code for it, and no traceback."""
    args = ["--model-dir", str(model_dir), "--size", "5", "--simulations", "4096"]
    with engine_process("hexjax.play.gtp", args, tmp_path / "stderr") as process:
        process.stdin.write("name\n")
        process.stdin.flush()
        assert process.stdout.readline() == "= hexjax\n"  # started, the smallest search ready
        process.stdin.write("genmove b\n")
        process.stdin.flush()
        time.sleep(1)  # compiling or searching 4096 simulations: far longer than this
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=300) == 130
    assert "Traceback" not in (tmp_path / "stderr").read_text()


@pytest.mark.parametrize("ponder", [False, True], ids=["no-ponder", "ponder"])
def test_pondering_grows_the_tree_until_the_next_command(agents, ponder):
    """Timed moves (byo-yomi 0.2 s); with --ponder the engine thinks between its move and the
    next command (0.3 s later), and answers that command as before."""
    engine = GtpEngine(agents, 5, simulations=256, solve=False, ponder=ponder)
    engine.clock.lasting(engine.agent).prepare()  # compiled before the lines' timing starts
    script = ["time_settings 0 0.2 1\n", "genmove b\n", "play w a1\n", "genmove b\n", "quit\n"]
    output = io.StringIO()
    engine.run(SlowInput(script, 0.3), output)
    answers = output.getvalue().split("\n\n")[:-1]
    assert answers[:3] == ["= ", answers[1], "= "] and answers[-1] == "= "
    assert answers[1].startswith("= ") and answers[3].startswith("= ")
    assert (engine.pondered > 0) == ponder
