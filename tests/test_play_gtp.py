"""The Hex GTP engine: every command over text streams, a whole game, errors that change
nothing, board sizes with and without a model, the swap rule, and once over stdin/stdout."""

import io

import numpy as np
import pytest
from support.play_models import engine_process, make_tiny_model

from hexjax.play import AgentMove, Agents
from hexjax.play.gtp import GtpEngine, main

COMMANDS = {"protocol_version", "name", "version", "known_command", "list_commands",
            "boardsize", "clear_board", "play", "genmove", "undo", "showboard", "final_score",
            "quit"}  # fmt: skip


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
        "play b d4": "it is White's turn",
        "play white c3": "already occupied",
        "play w f1": "off the 5x5 board",
        "play w 3c": "not a cell",
        "play w pass": "Hex has no pass",
        "play w resign": "not a Hex move",
        "play w swap-pieces": "swap rule is off",
        "genmove": "expected 1 argument",
        "genmove black": "it is White's turn",
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
    assert main(["--model-dir", str(model_dir), "--size", "6"]) == 2  # exits before reading


class SwappingAgent:
    """Answers the swap whenever it is legal, else the first legal cell."""

    def __init__(self, game):
        self.game = game

    def move(self, state, simulations=None):
        legal = np.flatnonzero(np.asarray(state.legal_action_mask))
        return AgentMove(int(legal[-1]), np.zeros(self.game.num_actions, np.float32), 0.0)


class SwappingAgents:
    def __init__(self, agents):
        self.agents = agents

    def get(self, game, size, rule="freestyle", swap=False):
        return SwappingAgent(self.agents.get(game, size, rule, swap).game)


def test_swap(agents):
    engine = GtpEngine(agents, 5, swap=True)
    # Black a2 (row 2, column a); White swaps: the stone moves to its mirror b1 and turns White.
    assert talk(engine, "play b a2\nplay w swap-pieces\n") == ["= ", "= "]
    board = board_of(talk(engine, "showboard\n")[0])
    assert board[0, 1] == 2 and board.sum() == 2
    [response] = talk(engine, "play w b2\n")
    assert "it is Black's turn" in response
    assert talk(engine, "play b c3\n") == ["= "]
    [response] = talk(engine, "play w swap\n")
    assert "swap is only allowed as the second move" in response
    assert talk(engine, "undo\nundo\nshowboard\n")[:2] == ["= ", "= "]
    assert board_of(talk(engine, "showboard\n")[0])[1, 0] == 1  # back to Black's a2
    # An engine that swaps answers in HexGui's word for it.
    engine = GtpEngine(SwappingAgents(agents), 5, swap=True)
    assert talk(engine, "play b a2\ngenmove w\n") == ["= ", "= swap-pieces"]
    assert board_of(talk(engine, "showboard\n")[0])[0, 1] == 2


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
    args = ["--model-dir", str(model_dir), "--size", "5", "--simulations", "4"]
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
        assert ask("quit") == "= "
        assert process.wait(timeout=60) == 0, (tmp_path / "stderr").read_text()
