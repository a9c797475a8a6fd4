"""The play layer: matches with validated moves, models on disk, the agent, the terminal UI."""

import io
import signal
import subprocess
import sys

import jax
import numpy as np
import pytest
from support.play_models import make_tiny_model

import hexjax
from hexjax.alphazero import network as network_lib
from hexjax.commands import play as play_command
from hexjax.evaluation import players
from hexjax.play import Agent, AgentMove, Agents, Match, ModelError, MoveError
from hexjax.play.agent import search_choices
from hexjax.play.agent_move import MAX_SIMULATIONS, simulation_count
from hexjax.play.terminal import TerminalGame, draw
from hexjax.training import models


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("models")
    make_tiny_model(directory, "hex4", "hex", 4)
    make_tiny_model(directory, "renju9", "gomoku", 9, rule="renju")
    make_tiny_model(directory, "othello4", "othello", 4)
    return directory


@pytest.fixture(scope="module")
def hex_agent(model_dir):
    return Agent.load("hex", 4, model_dir=model_dir)


# --- Match -------------------------------------------------------------------------------


def test_a_match_plays_validates_and_undoes():
    match = Match(hexjax.make("hex", size=3))
    assert match.play("b2") == 4 and match.to_play == 1
    before = match.board().copy()
    for bad, message in [
        ("b2", "already occupied"),
        ("z9", "off the 3x3 board"),
        ("hello", "not a cell"),
        ("d²", "^'d²' is not a cell like 'a1'"),  # not Python's int() message
        ("x" * 1000, "^'x{20}\\.\\.\\.' is not a cell"),  # echoed cut short
        ("swap", "swap is not enabled"),
        (99, "outside 0..8"),
    ]:
        with pytest.raises(MoveError, match=message):
            match.play(bad)
        np.testing.assert_array_equal(match.board(), before)  # nothing changed
        assert match.moves() == ["b2"] and match.to_play == 1
    assert match.undo(5) == 1 and match.moves() == [] and match.board().sum() == 0
    assert match.undo() == 0


def test_undo_turn_takes_back_to_the_players_previous_turn():
    match = Match(hexjax.make("hex", size=3), ["a1", "b2", "c1"])
    assert match.undo_turn(1) == 2 and match.moves() == ["a1"] and match.to_play == 1
    assert match.undo_turn(0) == 1 and match.moves() == []
    opening = Match(hexjax.make("hex", size=3), ["b2"])
    assert opening.undo_turn(1) == 0 and opening.moves() == ["b2"]  # none of White's: unchanged
    assert opening.to_play == 1 and opening.board().sum() == 1


def test_a_finished_match_refuses_moves_and_names_the_winner():
    # Black (top-bottom) fills column a: a1 a2 a3 with White elsewhere.
    match = Match(hexjax.make("hex", size=3), ["a1", "c1", "a2", "c2", "a3"])
    assert match.over and match.winner == 0 and match.result() == "Black wins"
    with pytest.raises(MoveError, match="the game is over"):
        match.play("b2")


def test_renju_forbidden_points_are_reported_and_refused():
    game = hexjax.make("gomoku", size=9, rule="renju")
    # Black stones on d5, e5 and e4, e3: playing e6?? -- build a clean double-three at e5:
    # Black c5 d5 (row) and e3 e4 (column), White far away; e5 then makes two open threes.
    match = Match(game, ["c5", "a9", "d5", "b9", "e3", "h9", "e4", "i1"])
    forbidden = match.forbidden()
    row, col = divmod(game.string_to_action("e5"), 9)
    assert forbidden[row, col] and forbidden.sum() >= 1
    with pytest.raises(MoveError, match="forbidden for Black"):
        match.play("e5")
    assert not Match(hexjax.make("gomoku", size=9)).forbidden().any()


def test_othello_pass_is_explained():
    match = Match(hexjax.make("othello", size=4))
    with pytest.raises(MoveError, match="passing is only allowed"):
        match.play("pass")
    with pytest.raises(MoveError, match="flips nothing"):
        match.play("a1")


# --- models ------------------------------------------------------------------------------


def test_a_model_round_trips_through_its_files(model_dir):
    info, params = models.load("hex4", model_dir)
    assert info.config.game.name == "hex" and info.config.game.size == 4
    assert info.label == "hex 4x4" and info.about["trained"]["iterations"] == 0
    again = tmp = model_dir / "copy"
    models.export(info.config, params, "again", {"trained": {}}, tmp)
    _, reloaded = models.load("again", again)
    jax.tree.map(np.testing.assert_array_equal, params, reloaded)


def test_missing_and_damaged_models_get_clear_errors(model_dir, tmp_path):
    with pytest.raises(ModelError, match=r"no shipped model for hex 9x9 \(shipped: .*hex 4x4"):
        models.find_model("hex", 9, directory=model_dir)
    with pytest.raises(ModelError, match="no model 'nope'"):
        models.load("nope", model_dir)
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ModelError, match="not a model description"):
        models.load("bad", tmp_path)
    make_tiny_model(tmp_path, "hex3", "hex", 3)
    (tmp_path / "hex3.msgpack").write_bytes(b"\x00garbage")
    with pytest.raises(ModelError, match="does not hold this network"):
        models.load("hex3", tmp_path)
    # Weights of another board size under this name: the shapes differ.
    (tmp_path / "hex3.msgpack").write_bytes((model_dir / "hex4.msgpack").read_bytes())
    with pytest.raises(ModelError, match="does not hold this network"):
        models.load("hex3", tmp_path)


def test_every_shipped_model_loads_and_plays_a_legal_move():
    shipped = models.shipped_models()
    assert {m.config.game.name for m in shipped} >= {"hex", "gomoku"}
    for info in shipped:
        agent = Agent.from_model(info.name)
        states = jax.tree.map(lambda x: x[None], agent.game.new_state())
        # The network alone: searching over it is tested on tiny models of every game above,
        # and compiling seven searches for big boards would take a minute.
        net = network_lib.make_network(info.config.network, agent.game.num_actions)
        logits, value = network_lib.apply(net, agent.params, jax.vmap(agent.game.observe)(states))
        assert np.isfinite(np.asarray(logits)).all() and abs(float(value[0])) <= 1, info.name
        action = players.make_network_player(agent.game, net)(agent.params)(None, states)
        assert bool(states.legal_action_mask[0, action[0]]), info.name
        assert "trained" in info.about and info.about["trained"]["iterations"] > 0


# --- Agent -------------------------------------------------------------------------------


def test_the_agent_moves_legally_with_a_policy_and_value(hex_agent):
    match = Match(hex_agent.game, ["b2", "c3"])
    reply = hex_agent.move(match.state, simulations=8)
    legal = np.asarray(match.state.legal_action_mask)
    assert legal[reply.action]
    assert np.all(reply.policy[~legal] == 0) and reply.policy.sum() == pytest.approx(1, abs=1e-5)
    assert -1 <= reply.value <= 1 and reply.win_probability == pytest.approx((reply.value + 1) / 2)
    assert [a for a, _ in reply.top(3)][0] == int(np.argmax(reply.policy))
    with pytest.raises(ValueError, match="at least 1"):
        hex_agent.move(match.state, simulations=0)
    over = Match(hex_agent.game, ["a1", "b1", "a2", "b2", "a3", "b3", "a4"])
    with pytest.raises(ValueError, match="the game is over"):
        hex_agent.move(over.state)


def test_one_compiled_search_serves_every_simulation_count(hex_agent):
    """Counts are rounded down to powers of two (at most MAX_SIMULATIONS), and every count runs
    the same compiled programs: after the first move, moves at other counts compile nothing."""
    assert [simulation_count(n) for n in (1, 2, 3, 64, 100, 4096, 10**6)] == [
        1, 2, 2, 64, 64, 4096, 4096
    ]  # fmt: skip
    with pytest.raises(ValueError, match="at least 1"):
        simulation_count(0)
    match = Match(hex_agent.game)
    assert hex_agent.move(match.state, simulations=3).simulations == 2
    states = []
    for move in ("a1", "d4", "b3"):
        match.play(move)
        states.append(match.state)
    compiles = []

    def listen(event, seconds, **_):
        if "backend_compile" in event:
            compiles.append(event)

    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        for state, count in zip(states, (1, 8, 100), strict=True):
            assert hex_agent.move(state, count).simulations == simulation_count(count)
        hex_agent.prepare()
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)
    assert compiles == []


def test_the_agent_searches_as_its_flags_say(model_dir):
    default = Agent.load("hex", 4, model_dir=model_dir)
    assert default.search_config(1024).max_considered_actions == 64  # grows with the count
    assert default.search_config(1000).num_simulations == 512  # rounded down
    chosen = Agents(model_dir=model_dir, considered_actions=4).get("hex", 4)
    assert chosen.search_config(1024).max_considered_actions == 4
    puct = Agent.load("hex", 4, model_dir=model_dir, search_policy="puct")
    assert puct.search_config(64).policy == "puct"
    flags = play_command.parse(["--search", "puct", "--considered-actions", "4"])
    with pytest.raises(ValueError, match="not to --search puct"):
        search_choices(flags)


def test_a_search_reports_progress_and_stops_on_ctrl_c(model_dir):
    """Ctrl-C while searching (a KeyboardInterrupt, here raised by the progress callback, as
    Python raises it between the search's chunks) stops the search and reaches the caller; the
    agent then searches again. Hex 4x4: what stops does not depend on the game."""
    agent = Agent.load("hex", 4, model_dir=model_dir)
    agent.prepare()
    seen = []

    def progress(done, total):
        seen.append((done, total))
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        agent.move(agent.game.new_state(), MAX_SIMULATIONS, progress=progress)
    assert len(seen) == 2 and all(total == MAX_SIMULATIONS for _, total in seen)
    assert 0 < seen[0][0] < seen[1][0] < MAX_SIMULATIONS
    assert agent.move(agent.game.new_state(), 2).simulations == 2


def test_agents_load_each_game_once_and_name_what_is_missing(model_dir):
    agents = Agents(model_dir=model_dir)
    assert agents.get("hex", 4) is agents.get("hex", 4)
    assert agents.get("gomoku", 9, "renju").game.rule == "renju"
    with pytest.raises(ModelError, match="no shipped model for gomoku 9x9 freestyle"):
        agents.get("gomoku", 9)
    assert {m.name for m in agents.available()} == {"hex4", "renju9", "othello4"}


# --- terminal ----------------------------------------------------------------------------


def _session(agent, commands: str, human: int = 0, search=None) -> str:
    """The terminal's transcript of `commands`; `search(state, simulations, progress)` stands
    in for the agent's moves where given."""
    out = io.StringIO()
    if search is not None:
        agent.move = search  # this instance only, removed below
    try:
        TerminalGame(agent, human, simulations=2, colour=False, stdin=io.StringIO(commands),
                     stdout=out).run()  # fmt: skip
    finally:
        vars(agent).pop("move", None)
    return out.getvalue()


def test_the_terminal_game_takes_moves_and_commands(hex_agent):
    text = _session(hex_agent, "b2\nzz\nb2\nhint\nsims x\nmoves\nundo\nmoves\nquit\n")
    assert "AI plays" in text
    assert "'zz' is not a cell" in text and "b2: that cell is already occupied" in text
    assert "hint: " in text and "your win chance" in text
    assert "sims takes a positive whole number, got 'x'" in text
    assert "took back 2 moves" in text and "no moves yet" in text


def test_the_terminal_caps_simulations_and_hides_zero_percent_hints(hex_agent):
    text = _session(hex_agent, "sims 100000\nsims 100\nsims 64\nquit\n")
    assert (
        "now searches 4096 simulations a move (searches come in powers of two up to 4096)" in text
    )
    assert "now searches 64 simulations a move (searches come in powers" in text
    assert text.count("powers of two") == 2  # 64 itself needs no note
    assert "got '" + "9x" * 10 + "...'" in _session(hex_agent, "sims " + "9x" * 500 + "\nquit\n")

    def peaked(state, simulations, progress):  # 0.4% and less on all but two moves
        policy = np.full(hex_agent.game.num_actions, 0.004, np.float32)
        policy[[5, 6]] = [0.7, 0.244]
        return AgentMove(5, policy, 0.0, 2)

    text = _session(hex_agent, "hint\nquit\n", search=peaked)
    assert "hint: b2 70%, c2 24%; your win chance 50%" in text


def test_a_stopped_ai_search_waits_for_go(hex_agent):
    calls = []

    def stopped_once(state, simulations, progress):  # stopped by Ctrl-C, then plays
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt
        legal = np.flatnonzero(np.asarray(state.legal_action_mask))
        return AgentMove(int(legal[0]), np.zeros(hex_agent.game.num_actions, np.float32), 0.0, 2)

    # the AI plays Black
    text = _session(hex_agent, "a2\ngo\nmoves\nquit\n", human=1, search=stopped_once)
    assert "the AI's search was stopped" in text and "AI to move (go): " in text
    assert "it is the AI's turn: type go" in text  # a2 refused while the AI is to move
    assert text.endswith("a1\nyour move (O (blue, left-right)): ")  # after go the AI played a1


def test_ctrl_c_stops_a_long_hint_in_the_terminal(model_dir, tmp_path):
    """As a user does it: a 4096-simulation hint shows its progress, Ctrl-C (SIGINT) stops it,
    and the game goes on."""
    argv = [sys.executable, "-m", "hexjax.commands.play", "--game", "gomoku", "--board", "9",
            "--rule", "renju", "--model-dir", str(model_dir), "--simulations", "4096"]  # fmt: skip
    with subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as process:  # fmt: skip
        process.stdin.write("hint\n")
        process.stdin.flush()
        lines = []
        while not lines or "searching: " not in lines[-1]:
            lines.append(process.stdout.readline())
            assert lines[-1], "".join(lines) + process.stderr.read()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate("e5\nquit\n", timeout=300)
    assert process.returncode == 0, err
    assert "the hint was stopped" in out and "AI plays" in out, out
    assert "Traceback" not in err, err


def test_the_terminal_game_plays_to_the_end(hex_agent):
    # The human plays every cell in order, skipping occupied ones (errors are fine).
    cells = "\n".join(f"{c}{r}" for r in range(1, 5) for c in "abcd")
    text = _session(hex_agent, cells + "\nb1\nnew\nquit\n", human=1)
    assert "game over: " in text and "wins" in text
    assert "the game is over" in text and "new game" in text


def test_the_board_marks_the_last_move_and_hints():
    match = Match(hexjax.make("othello", size=4), ["b1"])
    text = draw(match, colour=False)
    assert "[X]" in text and text.count("*") == len(match.legal_actions())
    renju = Match(hexjax.make("gomoku", size=9, rule="renju"), ["c5", "a9", "d5", "b9", "e3"])
    renju.play("h9")
    renju.play("e4")
    renju.play("i1")
    assert "#" in draw(renju, colour=False)  # Black to move, e5 forbidden
    assert draw(match, colour=False).endswith("discs: X 4, O 1")  # Othello counts them
    coloured = draw(match, colour=True)
    assert "\033[" in coloured


def _play_cli():
    return play_command


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "othello", "--rule", "renju"], "--rule applies to gomoku only (the game is ot"),
        (["--rule", "renju"], "--rule applies to gomoku only (the game is hex)"),
        (["--game", "gomoku", "--swap"], "--swap applies to hex only (the game is gomoku)"),
        (["--web", "--game", "othello"], "--game applies to the terminal game; the web page"),
        (["--web", "--colour", "white"], "--colour applies to the terminal game"),
        (["--port", "9000"], "--port applies to --web only"),
    ],
)
def test_the_play_command_refuses_flags_that_would_be_ignored(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        _play_cli().parse(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--board", "9"], "--board 9 does not match the shipped model hex7: it plays hex 7x7"),
        (["--game", "othello"], "--game othello does not match the shipped model hex7"),
        (["--rule", "renju"], "--rule applies to gomoku only (the game is hex)"),
        (["--swap"], "--swap does not match the shipped model hex7: it plays hex 7x7"),
    ],
)
def test_game_flags_with_a_model_must_name_its_game(argv, message, capsys):
    assert _play_cli().main(["--model", "hex7", *argv]) == 2
    assert message in capsys.readouterr().err


def test_the_play_commands_defaults_when_no_flag_is_given():
    args = _play_cli().parse([])
    assert (args.game, args.board, args.rule, args.swap, args.colour) == (
        "hex",
        7,
        "freestyle",
        None,
        "black",
    )
    assert (args.host, args.port) == ("127.0.0.1", 8000)
    assert _play_cli().parse(["--game", "gomoku", "--rule", "renju"]).board == 9


def test_the_play_command_reports_a_missing_model(capsys, model_dir):
    cli = _play_cli()
    assert cli.main(["--game", "hex", "--board", "9", "--model-dir", str(model_dir)]) == 2
    assert "no shipped model for hex 9x9" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["--board", "0"])
    assert "must be at least 1" in capsys.readouterr().err
    web = ["--web", "--model-dir", str(model_dir), "--model", "nope"]
    assert cli.main(web) == 2  # before serving anything
    assert "no model 'nope'" in capsys.readouterr().err
    assert cli.main(["--web", "--model-dir", str(model_dir), "--simulations", "5000"]) == 2
    assert "simulations" in capsys.readouterr().err
