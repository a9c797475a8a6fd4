"""experiments/evaluate.py on a tiny run: every checkpoint against baselines, the JSON record,
the curve, and clear errors for bad input."""

import json
import pathlib
import re
import subprocess
import sys

import pytest

import hexjax
from hexjax.commands import evaluate as evaluate_command
from hexjax.commands import evaluate_flags, search_scaling
from hexjax.commands import train as train_command
from hexjax.evaluation import puzzles
from hexjax.evaluation.scores import summarize
from hexjax.play.clock import engine_clock
from hexjax.training import restore

FAKE_GTP = f"{sys.executable} {pathlib.Path(__file__).parent / 'support' / 'fake_gtp_engine.py'}"


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("run")
    argv = ["--preset", "tiny", "--board", "4", "--iterations", "4", "--eval-every", "0",
            "--checkpoint-every", "2", "--quiet", "--workdir", str(workdir)]  # fmt: skip
    assert train_command.main(argv) == 0
    return workdir


def test_every_checkpoint_against_each_opponent(tiny_run, capsys):
    out = tiny_run / "all.json"
    argv = ["--checkpoint", str(tiny_run), "--all-steps", "--opponent", "random",
            "--opponent", "mcts:8", "--games", "4", "--simulations", "2",
            "--out", str(out)]  # fmt: skip
    assert evaluate_command.main(argv) == 0
    printed = capsys.readouterr().out
    assert "mcts:8 @" in printed and "random @" in printed
    record = json.loads(out.read_text())
    assert [e["step"] for e in record["evaluations"]] == [2, 4]
    minutes = [e["minutes"] for e in record["evaluations"]]
    assert 0 < minutes[0] <= minutes[1]  # rounded to 1/100 minute: a tiny run may tie
    for evaluation in record["evaluations"]:
        for summary in evaluation["results"].values():
            assert summary["games"] == 4
            assert summary["wins"] + summary["draws"] + summary["losses"] == 4
    assert (tiny_run / "plots" / "curve.png").stat().st_size > 0


def test_one_step_writes_its_record_and_shows_progress_while_it_plays(tiny_run, capsys):
    out = tiny_run / "one.json"
    argv = ["--checkpoint", str(tiny_run), "--step", "2", "--games", "2", "--out", str(out)]
    assert evaluate_command.main(argv) == 0
    record = json.loads(out.read_text())
    assert record["step"] == 2 and record["results"]["random"]["games"] == 2
    progress = [line for line in capsys.readouterr().err.splitlines() if "games over" in line]
    assert progress and progress[-1].startswith("random: 2/2 games over")  # plain lines
    assert not any("\r" in line for line in progress)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--games", "3"], "--games must be even"),
        (["--opponent", "mcts:0"], "mcts opponent needs a positive simulation count"),
        (["--opponent", "alphago"], "unknown opponent 'alphago'"),
        (["--step", "3"], "no checkpoint for step 3"),
        (["--step", "2", "--all-steps"], "not both"),
        (["--opponent", "checkpoint:/nonexistent"], "no checkpoint in /nonexistent"),
        (["--opponent", "checkpoint:/nonexistent:0"], "simulation count must be positive"),
        (["--opponent", "model:hex7:64"], "model:hex7:64 plays Hex(size=7"),
        (["--opponent", "model:nosuchmodel"], "nosuchmodel"),
        (["--step", "2", "--elo"], "not both"),
        (["--elo", "--solver-accuracy"], "separate evaluations"),
        (["--puzzles"], "--puzzles applies to gomoku only (the game is Hex(size=4"),
        (["--puzzles", "--games", "4"], "--games applies to arena games, not to --puzzles"),
        (["--puzzles", "--records"], "--records applies to arena games, not to --puzzles"),
        (["--elo", "--records"], "--records applies to the matches against --opponent, not"),
        (["--position", "a1 a1"], "a1"),
        (["--openings", "/nonexistent/openings.txt"], "/nonexistent/openings.txt"),
        (["--sgf", "out", "--elo"], "--sgf writes the matches against --opponent"),
        (["--solved-openings"], "--solved-openings applies to hex 7x7 without swap only"),
        (["--solved-openings", "--games", "4"], "--games applies to arena games, not to --solved"),
        (["--search", "puct", "--considered-actions", "4"], "not to --search puct"),
        (["--considered-actions", "0"], "--considered-actions must be at least 1"),
        (["--opponent", "gtp:no-such-engine"], "engine program not found: 'no-such-engine'"),
        (["--opponent", f"gomocup:{sys.executable}"], "gomocup engines play gomoku, not hex"),
        (["--opponent", f"gtp:{FAKE_GTP}", "--elo"], "engines (gtp:, gomocup:) play matches"),
        (["--opponent", f"gtp:{FAKE_GTP}", "--opponent", f"gtp:{FAKE_GTP}"], "named twice"),
        (
            ["--opponent", f"gtp:{FAKE_GTP} --die-at-start"],
            "fake_gtp_engine.py --die-at-start did not start: died: the engine exited with code 3",
        ),
        (
            ["--opponent", f"gtp:{FAKE_GTP}", "--opponent-setup", "param_mohex max_games 9"],
            "'param_mohex max_games 9' refused: unknown command param_mohex",
        ),  # fmt: skip
        (["--opponent-timeout", "0"], "--opponent-timeout must be positive"),
        (["--move-time", "0"], "--move-time must be positive, got 0.0"),
        (["--move-time", "1"], "--move-time applies to matches against engines"),
        (["--openings", "first-moves:x"], "expected first-moves:K, K a number"),
        (["--openings", "first-moves:17"], "17 first moves asked, 16 exist"),
    ],
)
def test_bad_input_gets_a_message_and_exit_code_2(tiny_run, argv, message, capsys):
    assert evaluate_command.main(["--checkpoint", str(tiny_run), *argv]) == 2
    assert message in capsys.readouterr().err


def test_engine_setup_lines_follow_the_engine_they_set_up(tiny_run, capsys):
    argv = ["--checkpoint", str(tiny_run), "--opponent-setup", "name", "--opponent", "random"]
    with pytest.raises(SystemExit) as exit_info:
        evaluate_command.main(argv)
    assert exit_info.value.code == 2
    assert "must follow the --opponent gtp:COMMAND" in capsys.readouterr().err


def test_engine_matches_are_refereed_recorded_and_reported(tiny_run, tmp_path, capsys):
    """Two GTP engines by one command, told apart by their setup; the second plays an occupied
    cell at its first move: that game is its loss, reported, and in the SGF."""
    out = tmp_path / "engines.json"
    argv = ["--checkpoint", str(tiny_run), "--games", "4", "--simulations", "2",
            "--opponent", f"gtp:{FAKE_GTP}", "--opponent-setup", "name",
            "--opponent", f"gtp:{FAKE_GTP} --illegal-at 1", "--opening-plies", "1",
            "--records", "--sgf", str(tmp_path / "sgf"), "--out", str(out)]  # fmt: skip
    assert evaluate_command.main(argv) == 0
    printed = capsys.readouterr().out
    plain, illegal = f"gtp:{FAKE_GTP} [name]", f"gtp:{FAKE_GTP} --illegal-at 1"
    results = json.loads(out.read_text())["results"]
    assert set(results) == {plain, illegal}
    assert results[plain]["games"] == 4 and results[plain]["engine"]["engine_failures"] == []
    assert results[plain]["engine"]["verdicts_asked"] == 4
    failures = results[illegal]["engine"]["engine_failures"]
    assert [f["ended"] for f in failures] == ["illegal move"]
    assert "already occupied" in failures[0]["detail"] and "already occupied" in printed
    assert "ended: " in printed and "seconds a move: agent" in printed
    from hexjax.evaluation.sgf import read_sgf

    texts = sorted((tmp_path / "sgf").glob("*.sgf"))
    assert len(texts) == 8
    forfeits = [t for t in texts if "+F]" in t.read_text()]
    assert len(forfeits) == 1 and read_sgf(forfeits[0].read_text()).actions
    records = sorted((tiny_run / "records").glob("gtp*.txt"))
    assert len(records) == 2 and all(len(r.read_text().splitlines()) == 4 for r in records)
    # Every opening (one random ply here) is played once with each colour.
    lines = records[0].read_text().splitlines()
    assert [line.split()[0] for line in lines[:2]] == [line.split()[0] for line in lines[2:]]


def test_under_a_move_time_the_agent_searches_what_fits_up_to_its_simulations(tiny_run, tmp_path):
    """With time to spare the clock searches --simulations, so the games are those of the
    untimed agent at that count (the search and the engine are deterministic, and the arena's
    agent searches every legal move), unless the tree is kept from move to move, the exact
    solver (Hex 4x4 here) plays a proven win or dead cells are left out."""
    records = {}
    plain = ["--move-time", "1000", "--no-solver", "--no-prune", "--timed-search"]
    runs = (("untimed", []), ("fresh", [*plain, "fresh"]), ("counts", [*plain, "counts"]),
            ("kept", ["--move-time", "1000"]))  # fmt: skip
    for name, timed in runs:
        out = tmp_path / name / "evaluation.json"
        argv = ["--checkpoint", str(tiny_run), "--games", "4", "--simulations", "4",
                "--opponent", f"gtp:{FAKE_GTP}", "--opening-plies", "1", "--out", str(out),
                "--records", *timed]  # fmt: skip
        assert evaluate_command.main(argv) == 0
        record = json.loads(out.read_text())
        assert record["move_time"] == (1000.0 if timed else None)
        assert record["timed_search"] == (name if timed else None)
        assert record["solver"] == ({"untimed": None, "kept": True}.get(name, False))
        assert record["pruned"] == ({"untimed": None, "kept": True}.get(name, False))
        assert record["results"][f"gtp:{FAKE_GTP}"]["engine"]["engine_failures"] == []
        written = tiny_run / "records" / f"{evaluate_command._file_name(f'gtp:{FAKE_GTP}')}.txt"
        records[name] = written.read_text()
    assert records["fresh"] == records["counts"] == records["untimed"]


def test_the_timed_agent_searches_up_to_what_the_engines_do_unless_told():
    """evaluate's agent goes by the engines' default (64 without a clock, up to 4096 under one),
    so a timed row measures the engines as they play; --simulations caps both."""
    untimed, timed = engine_clock(None).untimed, engine_clock(None).most
    assert (untimed, timed) == (64, 4096)
    argv = ["--model", "hex7", "--opponent", "random"]
    assert evaluate_flags.parse(argv).agent.simulations == untimed
    assert evaluate_flags.parse([*argv, "--move-time", "0.5"]).agent.simulations == timed
    assert (
        evaluate_flags.parse([*argv, "--move-time", "0.5", "--simulations", "16"]).agent.simulations
        == 16
    )


def test_a_model_from_another_directory(tiny_run, tmp_path, capsys):
    """--model-dir: an earlier model (taken from git, say) plays as a shipped one does."""
    from hexjax.training import models

    trained = restore.load_trained(tiny_run)
    models.export(trained.config, trained.params, "tiny4", {"trained": {}}, tmp_path / "old")
    out = tmp_path / "eval" / "evaluation.json"
    argv = ["--model", "tiny4", "--model-dir", str(tmp_path / "old"), "--games", "2",
            "--simulations", "2", "--out", str(out)]  # fmt: skip
    assert evaluate_command.main(argv) == 0
    settings = json.loads(out.read_text())
    assert settings["model"] == "tiny4" and settings["model_dir"] == str(tmp_path / "old")
    assert "agent: model tiny4" in capsys.readouterr().out
    argv = ["--model", "hex7", "--model-dir", str(tmp_path / "old")]
    assert evaluate_command.main(argv) == 2
    error = capsys.readouterr().err
    assert "no model 'hex7' in" in error and "(models: tiny4)" in error


def test_a_directory_without_checkpoints(tmp_path, capsys):
    assert evaluate_command.main(["--checkpoint", str(tmp_path), "--all-steps"]) == 2
    assert "no checkpoint in" in capsys.readouterr().err
    assert not (tmp_path / "checkpoints").exists()  # reading makes no directories


def test_records_openings_and_position_plots(tiny_run, tmp_path):
    openings = tmp_path / "openings.txt"
    openings.write_text("a1 d4\nb2 c3\n")
    argv = ["--checkpoint", str(tiny_run), "--games", "4", "--simulations", "2",
            "--opponent", "greedy", "--openings", str(openings), "--opening-plies", "0",
            "--records", "--position", "b2 c3", "--out", str(tmp_path / "r.json")]  # fmt: skip
    assert evaluate_command.main(argv) == 0
    import hexjax

    game = hexjax.make("hex", size=4)
    lines = (tiny_run / "records" / "greedy.txt").read_text().splitlines()
    assert [line.split()[:2] for line in lines] == [["a1", "d4"], ["b2", "c3"]] * 2
    assert all(bool(game.from_moves(line).terminated) for line in lines)
    for name in ("first_move.png", "position_1.png"):
        assert (tiny_run / "plots" / name).stat().st_size > 0


def test_sgf_files_of_the_arena_games(tiny_run, tmp_path):
    from hexjax.evaluation.sgf import read_sgf

    argv = ["--checkpoint", str(tiny_run), "--games", "4", "--simulations", "2",
            "--opponent", "random", "--records", "--sgf", str(tmp_path / "sgf"),
            "--out", str(tmp_path / "s.json")]  # fmt: skip
    assert evaluate_command.main(argv) == 0
    lines = (tiny_run / "records" / "random.txt").read_text().splitlines()
    names = sorted(p.name for p in (tmp_path / "sgf").iterdir())
    assert names == ["random-1.sgf", "random-2.sgf", "random-3.sgf", "random-4.sgf"]
    for number, line in enumerate(lines, 1):
        text = (tmp_path / "sgf" / f"random-{number}.sgf").read_text()
        assert text.startswith("(;FF[4]GM[11]SZ[4]AP[hexjax]") and "RE[" in text
        record = read_sgf(text)
        assert record.actions == record.game.parse_moves(line)
        agent_black = number <= 2  # the agent is Black in the first half of the games
        assert (record.white if agent_black else record.black) == "random"
        assert str(tiny_run) in (record.black if agent_black else record.white)


def test_every_first_move_once_with_each_colour_and_no_random_plies(tiny_run, tmp_path, capsys):
    argv = ["--checkpoint", str(tiny_run), "--games", "32", "--simulations", "2",
            "--opponent", "random", "--openings", "first-moves", "--records",
            "--out", str(tmp_path / "f.json")]  # fmt: skip
    assert evaluate_command.main(argv) == 0
    assert "note:" not in capsys.readouterr().err  # 16 first moves, 16 games a colour
    lines = (tiny_run / "records" / "random.txt").read_text().splitlines()
    firsts = [line.split()[0] for line in lines]
    assert sorted(firsts[:16]) == sorted(f"{c}{r}" for c in "abcd" for r in "1234")
    assert firsts[16:] == firsts[:16]  # the same opening with the other colour
    json_record = json.loads((tmp_path / "f.json").read_text())
    assert json_record["openings"] == "first-moves" and json_record["opening_plies"] == 0
    # six games a colour cannot play 16 openings equally often: said, not refused
    argv[3] = "12"
    assert evaluate_command.main(argv) == 0
    assert "16 openings do not divide 6 games a colour" in capsys.readouterr().err


def test_elo_round_robin_of_checkpoints_and_baselines(tiny_run, tmp_path, capsys):
    out = tmp_path / "elo.json"
    argv = ["--checkpoint", str(tiny_run), "--elo", "--opponent", "greedy", "--games", "4",
            "--simulations", "2", "--out", str(out)]  # fmt: skip
    assert evaluate_command.main(argv) == 0
    record = json.loads(out.read_text())
    assert set(record["elo"]) == {"step 2", "step 4", "random", "greedy"}
    assert record["elo"]["random"] == 0.0
    assert len(record["matches"]) == 6  # every pair once
    assert all(m["games"] == 4 for m in record["matches"])
    assert "round robin: 4 entrants" in capsys.readouterr().out
    assert (tiny_run / "plots" / "elo.png").stat().st_size > 0


def test_solver_accuracy_of_the_agent_its_network_and_a_baseline(tiny_run, tmp_path, capsys):
    out = tmp_path / "accuracy.json"
    argv = ["--checkpoint", str(tiny_run), "--solver-accuracy", "--opponent", "greedy",
            "--games", "4", "--simulations", "2", "--out", str(out)]  # fmt: skip
    assert evaluate_command.main(argv) == 0
    record = json.loads(out.read_text())
    results = record["solver_accuracy"]
    assert set(results) == {"agent (2 simulations)", "agent's network alone", "greedy"}
    for result in results.values():
        assert result["positions"] + result["skipped"] == record["positions"] > 0
        assert 0 <= result["accuracy"] <= 1
    assert "empty cells from 4 games" in capsys.readouterr().out


def test_puzzles_for_a_gomoku_agent_and_a_baseline(tmp_path, capsys):
    workdir = tmp_path / "gomoku"
    argv = ["--preset", "tiny", "--game", "gomoku", "--board", "9", "--iterations", "1",
            "--eval-every", "0", "--quiet", "--workdir", str(workdir)]  # fmt: skip
    assert train_command.main(argv) == 0
    out = tmp_path / "puzzles.json"
    # A random baseline: the greedy one's answers are judged in test_evaluation_puzzles.py,
    # and compiling it for every board of the suite would take most of a minute again.
    argv = ["--checkpoint", str(workdir), "--puzzles", "--opponent", "random",
            "--simulations", "2", "--out", str(out)]  # fmt: skip
    assert evaluate_command.main(argv) == 0
    results = json.loads(out.read_text())["puzzles"]
    agent = results["agent (2 simulations)"]
    assert sum(r["puzzles"] for r in agent.values()) == 4  # the 9x9 freestyle puzzles
    suite = puzzles.load_puzzles()
    assert sum(r["puzzles"] for r in results["random"].values()) == len(suite)
    # Per board: the agent plays its own, a baseline every board of the suite.
    by_board = json.loads(out.read_text())["puzzles_by_board"]
    assert list(by_board["agent (2 simulations)"]) == ["9x9 freestyle"]
    assert "15x15 renju" in by_board["random"]
    assert by_board["random"]["15x15 freestyle"]["vcf"]["puzzles"] >= 20
    printed = capsys.readouterr().out
    assert "forced_block" in printed and "four_three" in printed
    assert re.search(r"random +15x15 freestyle +\d+/\d+ +\d+\.\d%", printed), printed
    # Timed as the engines play: the win by fours is found by the solver whatever the network.
    argv = ["--checkpoint", str(workdir), "--puzzles", "--move-time", "0.3", "--simulations", "8",
            "--out", str(out)]  # fmt: skip
    assert evaluate_command.main(argv) == 0
    record = json.loads(out.read_text())
    timed = record["puzzles"]["agent, 0.3 s a move"]
    assert {c: timed[c]["solved"] for c in ("win_in_one", "vcf3", "vcf5")} == {
        "win_in_one": 1, "vcf3": 1, "vcf5": 1
    }  # fmt: skip
    assert record["move_time"] == 0.3 and record["solver"] is True


def test_a_corrupt_checkpoint_gets_one_line_and_the_newest_readable_plays(tmp_path):
    """In a fresh process, as a user runs it: no kilobytes of asyncio tracebacks after the
    message (TensorStore's callbacks into Orbax's closed event loop)."""
    argv = ["--preset", "tiny", "--board", "3", "--iterations", "2", "--eval-every", "0",
            "--checkpoint-every", "1", "--quiet", "--workdir", str(tmp_path)]  # fmt: skip
    assert train_command.main(argv) == 0
    for data in (tmp_path / "checkpoints" / "2" / "tree").rglob("*"):
        if data.is_file() and data.stat().st_size > 0 and "METADATA" not in data.name:
            data.write_bytes(b"garbage" * 3)
    script = pathlib.Path(__file__).parents[1] / "experiments" / "evaluate.py"
    common = [sys.executable, str(script), "--checkpoint", str(tmp_path), "--games", "2",
              "--simulations", "2", "--out", str(tmp_path / "e.json")]  # fmt: skip
    fallback = subprocess.run(common, capture_output=True, text=True, timeout=600, check=False)
    assert fallback.returncode == 0, fallback.stderr[-2000:]
    reports = [line for line in fallback.stderr.splitlines() if "games over" not in line]
    assert len(reports) == 1 and "step 2" in reports[0], fallback.stderr  # and progress lines
    assert "using step 1" in fallback.stderr
    named = subprocess.run(
        [*common, "--step", "2"], capture_output=True, text=True, timeout=600, check=False
    )
    assert named.returncode == 2
    first = named.stderr.splitlines()[0]
    assert first.startswith("error: checkpoint step 2") and len(first) < 400
    # The process that goes on playing hears no more of the abandoned reads. (One that exits
    # at once can still get TensorStore's late callbacks printed during interpreter shutdown.)
    assert "Event loop is closed" not in fallback.stderr


@pytest.mark.slow  # the shipped hex7's network and search, compiled: over a minute on 2 busy cores
def test_solved_openings_of_the_shipped_hex7_and_a_model_elsewhere(tmp_path, capsys):
    out = tmp_path / "solved.json"
    argv = ["--model", "hex7", "--solved-openings", "--simulations", "2", "--out", str(out)]
    assert evaluate_command.main(argv) == 0
    printed = capsys.readouterr().out
    assert "search: gumbel, 2 simulations, 8 considered" in printed
    record = json.loads(out.read_text())
    assert record["model"] == "hex7" and record["checkpoint"] is None
    for result in record["solved_openings"].values():  # the network's and the search's value
        assert result["openings"] == 49 and result["winning"] == 27
        assert result["correct"] + len(result["wrong"]) == 49 and len(result["values"]) == 49
    assert printed.count("the second player's value after each first move") == 2
    assert (tmp_path / "plots" / "first_move.png").exists()  # beside --out, not in a run


def test_an_opponent_with_its_own_count_is_the_agent_itself_at_equal_counts(tiny_run):
    # The agent and the opponent are one deterministic player, and each opening is played
    # with both colours: the same game twice, one win each way.
    for spec in (f"checkpoint:{tiny_run}@4:4", f"checkpoint:{tiny_run}:4"):
        argv = ["--checkpoint", str(tiny_run), "--simulations", "4", "--opponent", spec,
                "--games", "4", "--out", str(tiny_run / "self.json")]  # fmt: skip
        assert evaluate_command.main(argv) == 0
        summary = json.loads((tiny_run / "self.json").read_text())["results"][spec]
        assert (summary["wins"], summary["losses"], summary["score"]) == (2, 2, 0.5)


def test_an_opponent_with_its_own_count_ignores_the_agents_search_flags():
    game = hexjax.make("hex", size=3)
    loads = []

    class Loaded:  # what a loader returns: a game and an entrant
        def __init__(self, name, simulations, **search):
            loads.append((simulations, search))
            self.game = hexjax.make("hex", size={"three": 3, "four": 4}[name])

        def entrant(self, label):
            return label

    load_model = Loaded

    flags = {"search_policy": "puct", "considered_actions": 16}
    assert restore.opponent("model:three:32", game, 64, load_model, **flags) == "model:three:32"
    assert restore.opponent("model:three", game, 64, load_model, **flags) == "model:three"
    assert loads == [(32, {}), (64, flags)]  # own count: its default search; else the agent's
    with pytest.raises(ValueError, match=r"model:four:8 plays .*, not "):
        restore.opponent("model:four:8", game, 64, load_model)
    with pytest.raises(ValueError, match="unknown opponent 'model:three'"):
        restore.opponent("model:three", game, 64)  # no loader: not an opponent restore knows


def test_an_opponent_that_sees_other_planes_of_the_same_game_is_accepted():
    """Threat planes change what a network sees, not the game: such a model may meet an agent
    without them; another rule may not."""
    planes = hexjax.make("gomoku", size=9, threats=True)

    class Loaded:
        def __init__(self, name, simulations, **search):
            self.game = hexjax.make("gomoku", size=9, rule=name)

        def entrant(self, label):
            return label

    assert restore.opponent("model:freestyle", planes, 64, Loaded) == "model:freestyle"
    message = r"plays Gomoku\(size=9, win_length=5, rule='renju'\), not Gomoku\(size=9, "
    with pytest.raises(ValueError, match=message + r"win_length=5, rule='freestyle'\)$"):
        restore.opponent("model:renju", planes, 64, Loaded)


def test_a_weak_colour_leads_the_headline():
    # 40 of 40 as Black, 10 of 40 as White: the 95% intervals are far apart.
    summary = summarize([1] * 40 + [1] * 10 + [0] * 30)
    line = evaluate_command.colour_headline(summary)
    assert line.startswith("as White only 25.0% [14.2, 40.2], as Black 100.0% [91.2, 100.0]")


def test_search_scaling_runs_the_evaluation_at_each_count(tiny_run, tmp_path, capsys):
    # One count keeps it quick: the loop over counts is the evaluation run again.
    argv = ["--counts", "2", "--out", str(tmp_path), "--",
            "--checkpoint", str(tiny_run), "--games", "2"]  # fmt: skip
    assert search_scaling.main(argv) == 0
    record = json.loads((tmp_path / "simulations-2.json").read_text())
    assert record["simulations"] == 2 and record["results"]["random"]["games"] == 2
    table = capsys.readouterr().out.split("simulations  opponent")[1].splitlines()
    assert [line.split()[:2] for line in table[1:]] == [["2", "random"]]
