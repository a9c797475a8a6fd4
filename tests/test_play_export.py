"""The exported network (StableHLO, ONNX) computes what the Flax network does: for every
shipped model, on positions from real games, the same logits and values to 1e-5 and the same
best legal move. Also the consumer JSON and the command's errors."""

import json
import pathlib
import runpy
import subprocess
import sys
from typing import NamedTuple

import jax
import numpy as np
import onnx
import onnxruntime
import pytest
from support.scripts import load_experiment

from hexjax.alphazero import network as network_lib
from hexjax.alphazero.config import TrainConfig
from hexjax.alphazero.network import NetworkConfig
from hexjax.commands import export_model
from hexjax.games import GameConfig, random_legal_action, random_positions
from hexjax.games.gomoku import winning_lines
from hexjax.play import export
from hexjax.training import models

MODELS = [m.name for m in models.shipped_models()]
POSITIONS = 256
TOLERANCE = 1e-5


class Shipped(NamedTuple):
    """A shipped model, positions from real games and what the Flax network says of them."""

    name: str
    config: TrainConfig
    params: dict
    observations: np.ndarray  # float32[P, n, n, C]
    masks: np.ndarray  # bool[P, A], legal actions
    logits: np.ndarray  # float32[P, A], Flax's
    values: np.ndarray  # float32[P], Flax's
    boards: np.ndarray  # int8[P, n, n]
    players: np.ndarray  # int32[P], the side to move


@pytest.fixture(scope="module", params=MODELS)
def shipped(request) -> Shipped:
    info, params = models.load(request.param)
    observations, masks, boards, players = random_positions(info.config.game.make(), POSITIONS)
    logits, values = export.forward(info.config, params)(observations)
    return Shipped(request.param, info.config, params, observations, masks,
                   np.asarray(logits), np.asarray(values), boards, players)  # fmt: skip


def _check_parity(shipped, logits, values):
    masks, flax_logits, flax_values = shipped.masks, shipped.logits, shipped.values
    np.testing.assert_allclose(logits, flax_logits, atol=TOLERANCE, rtol=TOLERANCE)
    np.testing.assert_allclose(values, flax_values, atol=TOLERANCE, rtol=TOLERANCE)
    best = np.argmax(np.where(masks, logits, -np.inf), axis=-1)
    flax_best = np.argmax(np.where(masks, flax_logits, -np.inf), axis=-1)
    np.testing.assert_array_equal(best, flax_best)


def test_positions_come_from_real_games(shipped):
    _, config, _, observations, masks, *_ = shipped
    assert observations.shape == (POSITIONS, *config.game.make().observation_shape)
    assert masks.any(axis=-1).all()  # live positions only
    stones = observations[..., :2].sum(axis=(1, 2, 3))
    assert len(np.unique(stones)) > 10  # many stages of the game, not one


def test_stablehlo_matches_flax(shipped):
    _, config, params, observations, *_ = shipped
    call = export.load_stablehlo(export.to_stablehlo(config, params))
    # Two batch sizes through one file: the batch dimension is symbolic.
    logits, values = (np.concatenate(parts) for parts in zip(
        call(observations[:1]), call(observations[1:]), strict=True))  # fmt: skip
    _check_parity(shipped, logits, values)


def _onnx_session(data: bytes):
    return onnxruntime.InferenceSession(data, providers=["CPUExecutionProvider"])


def test_onnx_matches_flax(shipped):
    _, config, params, observations, *_ = shipped
    session = _onnx_session(export.to_onnx(config, params))
    # Two batch sizes through one session: the batch dimension is symbolic.
    logits, values = (np.concatenate(parts) for parts in zip(
        *(session.run(None, {"observations": part})
          for part in (observations[:1], observations[1:])), strict=True))  # fmt: skip
    _check_parity(shipped, logits, values)


def test_onnx_graph_declares_a_symbolic_batch(shipped):
    _, config, params, *_ = shipped
    model = onnx.load_from_string(export.to_onnx(config, params))
    onnx.checker.check_model(model, full_check=True)
    game = config.game.make()
    shapes = {
        value.name: [d.dim_param or d.dim_value for d in value.type.tensor_type.shape.dim]
        for value in [*model.graph.input, *model.graph.output]
    }
    assert shapes == {
        "observations": ["batch", *game.observation_shape],
        "logits": ["batch", game.num_actions],
        "value": ["batch"],
    }


@pytest.mark.parametrize(
    "game_config, network_config",
    [
        (GameConfig("hex", 5, swap=True), NetworkConfig("tiny")),  # swap plane and action
        (GameConfig("gomoku", 6, rule="renju"), NetworkConfig("tiny", channels=4, blocks=0)),
        (GameConfig("othello", 6), NetworkConfig("tiny", channels=20, blocks=3)),
        (GameConfig("hex", 5, swap=True), NetworkConfig("tiny", head="pooled")),  # swap: pooled
        (GameConfig("gomoku", 7), NetworkConfig("tiny", channels=4, head="pooled")),  # no extra
        (GameConfig("othello", 6), NetworkConfig("tiny", blocks=2, global_pooling=True)),
        (
            GameConfig("hex", 5, swap=True),
            NetworkConfig("tiny", head="pooled", global_pooling=True),
        ),
    ],
)
def test_onnx_writes_any_network_shape(game_config, network_config):
    """The hand-written graph follows the parameters: other widths, depths, planes, actions
    (random parameters, random observations)."""
    game = game_config.make()
    net = network_lib.make_network(network_config, game.num_actions)
    # Shapes from Flax, values drawn here (Flax's own init takes seconds to compile).
    shapes = jax.eval_shape(
        lambda key: network_lib.init_params(net, key, game.observation_shape), jax.random.key(0)
    )
    rng = np.random.default_rng(0)
    params = jax.tree.map(
        lambda x: rng.normal(0, np.prod(x.shape[:-1]) ** -0.5, x.shape).astype(np.float32), shapes
    )
    config = TrainConfig(game=game_config, network=network_config)
    observations = rng.integers(0, 2, (9, *game.observation_shape)).astype(np.float32)
    logits, values = _onnx_session(export.to_onnx(config, params)).run(
        None, {"observations": observations}
    )
    flax_logits, flax_values = network_lib.apply(net, params, observations)
    np.testing.assert_allclose(logits, flax_logits, atol=TOLERANCE, rtol=TOLERANCE)
    np.testing.assert_allclose(values, flax_values, atol=TOLERANCE, rtol=TOLERANCE)


def test_onnx_refuses_parameters_of_another_network():
    info, params = models.load("hex7")
    with pytest.raises(ValueError, match="not hexjax's policy-value network"):
        export.to_onnx(info.config, {**params, "Dense_9": params["Dense_0"]})
    othello = TrainConfig(game=GameConfig("othello", 8), network=info.config.network)
    with pytest.raises(ValueError, match="the game observes 3"):
        export.to_onnx(othello, params)


EXAMPLE = pathlib.Path(__file__).parents[1] / "docs" / "examples" / "onnx_best_move.py"
# Runs the example's main on each argv in a process where JAX, Flax and hexjax cannot be
# imported: a consumer's machine.
WITHOUT_JAX = """
import json, runpy, sys
for name in ("jax", "jaxlib", "flax", "hexjax"):
    sys.modules[name] = None  # `import name` raises ImportError
try:
    import jax
except ImportError:
    print("jax cannot be imported")
main = runpy.run_path(sys.argv[1])["main"]
for argv in json.loads(sys.argv[2]):
    main(argv)
"""
GAMES = 16  # random games played to the end for the example's positions


class Played(NamedTuple):
    """Every position of GAMES random games played to the end: the live ones, and each game's
    final position once; hexjax's observations and legal masks of them."""

    boards: np.ndarray  # int8[P, n, n]
    players: np.ndarray  # int32[P], the side to move
    observations: np.ndarray  # float32[P, n, n, C]
    masks: np.ndarray  # bool[P, A], legal actions
    finished: np.ndarray  # bool[P]
    winners: np.ndarray  # int32[P]: -1 while in play and in a draw


@pytest.fixture(scope="module")
def played(shipped) -> Played:
    """Games as `random_positions` plays them (the same compiled step and observation, from
    the session's compilation cache), but another seed, to the end, and every position."""
    game = shipped.config.game.make()
    step, observe = jax.jit(jax.vmap(game.step)), jax.jit(jax.vmap(game.observe))
    key, init_key = jax.random.split(jax.random.key(1))
    state = jax.jit(jax.vmap(game.init))(jax.random.split(init_key, GAMES))  # renju's: eager, slow
    found, over = [], np.zeros(GAMES, bool)
    while not over.all():
        fields = (state.board, state.current_player, observe(state), state.legal_action_mask,
                  state.terminated, state.winner)  # fmt: skip
        found.append([np.asarray(field)[~over] for field in fields])  # the ended ones once
        over = np.asarray(state.terminated)
        key, move_key = jax.random.split(key)
        state = step(state, random_legal_action(move_key, state.legal_action_mask))
    return Played(*(np.concatenate(parts) for parts in zip(*found, strict=True)))


@pytest.fixture(scope="module")
def example():
    """The example's functions, run here (it imports numpy and onnxruntime only)."""
    return runpy.run_path(str(EXAMPLE))


@pytest.fixture(scope="module")
def exported(shipped, tmp_path_factory) -> pathlib.Path:
    """NAME.onnx with its NAME.json, as `hexjax-export-model --format onnx` writes them."""
    directory = tmp_path_factory.mktemp(f"exported-{shipped.name}")
    export.write("onnx", shipped.config, shipped.params, shipped.name, directory)
    return directory / f"{shipped.name}.onnx"


def _forbidden(shipped, played) -> np.ndarray:
    """bool[P, n*n]: renju's forbidden points, as hexjax's plane shows them (else none)."""
    game = shipped.config.game
    if game.rule != "renju":
        return np.zeros(played.boards.reshape(len(played.boards), -1).shape, bool)
    plane = export.describe(shipped.config, shipped.name)["input"]["plane_keys"].index("forbidden")
    return played.observations[..., plane].reshape(len(played.boards), -1) > 0


def _check_positions(example, shipped, played, chosen):
    """The example's observation, legal actions and end of the game on positions `chosen`
    are hexjax's."""
    info = export.describe(shipped.config, shipped.name)
    game = info["game"]
    for i in chosen:
        board, mover = played.boards[i], int(played.players[i])
        cells = example["playable_cells"](game, board, mover)
        outcome = example["result"](game, board, mover, cells)
        if played.finished[i]:
            winner = int(played.winners[i])
            assert outcome.startswith("draw" if winner < 0 else f"{'xo'[winner]} wins"), i
            continue
        assert outcome is None, i
        np.testing.assert_array_equal(
            example["legal_actions"](game, board, mover, cells), played.masks[i], err_msg=str(i)
        )
        observation = example["observe"](info, board, mover, cells)
        np.testing.assert_array_equal(observation, played.observations[i], err_msg=str(i))


def test_the_example_builds_hexjax_s_observations(example, shipped, played):
    """Planes (threat planes and renju's forbidden points included), legal moves and finished
    games: every game's end, about 40 positions along the games, and for renju 20 of those
    where Black has forbidden points."""
    live = np.flatnonzero(~played.finished)
    forbidden = np.flatnonzero(_forbidden(shipped, played).any(axis=1))
    chosen = [*live[:: len(live) // 40], *forbidden[:: max(1, len(forbidden) // 20)]]
    _check_positions(example, shipped, played, [*chosen, *np.flatnonzero(played.finished)])
    if shipped.config.game.rule == "renju":
        assert len(forbidden) > 100  # random play makes many


@pytest.mark.slow  # renju's forbidden points on 1,700 boards take half a minute
def test_the_example_builds_hexjax_s_observations_everywhere(example, shipped, played):
    _check_positions(example, shipped, played, range(len(played.boards)))


def test_the_example_picks_flax_s_move_without_jax(shipped, played, exported):
    """On every shipped model, run where JAX, Flax and hexjax cannot be imported: the Flax
    network's best legal move (hexjax's network and legal mask) and value on real positions,
    renju's forbidden points refused, and a finished game reported as one."""
    game = shipped.config.game
    forbidden = _forbidden(shipped, played)
    live = np.flatnonzero(~played.finished)
    logits, values = (np.asarray(out) for out in export.forward(shipped.config, shipped.params)(
        played.observations[live]))  # fmt: skip
    best = np.argmax(np.where(played.masks[live], logits, -np.inf), axis=-1)
    stones = (played.boards[live] != 0).sum(axis=(1, 2))
    picks = list(np.argsort(stones, kind="stable")[[len(live) // 4, len(live) // 2, -1]])
    if game.rule == "renju":
        # Black to move where the raw network's best empty point is forbidden: masked out.
        empty = played.boards[live].reshape(len(live), -1) == 0
        raw = np.argmax(np.where(empty, logits, -np.inf), axis=-1)
        tempted = np.flatnonzero(forbidden[live][np.arange(len(live)), raw])
        assert len(tempted) > 0 and best[tempted[0]] != raw[tempted[0]]
        picks.append(tempted[0])
    finished = _finished_example(game, played)
    argvs = []
    for i in [*live[picks], finished]:
        board = exported.parent / f"board{i}.txt"
        board.write_text("\n".join("".join(".xo"[c] for c in row) for row in played.boards[i]))
        # Hex and Gomoku: the side to move counted from the stones; Othello needs it said.
        to_play = ["--to-play", "xo"[played.players[i]]] if game.name == "othello" else []
        argvs.append([str(exported), str(board), *to_play])
    result = subprocess.run([sys.executable, "-c", WITHOUT_JAX, str(EXAMPLE), json.dumps(argvs)],
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    blocked, *answers, over = result.stdout.splitlines()
    assert blocked == "jax cannot be imported"
    assert len(answers) == len(picks)
    for pick, answer in zip(picks, answers, strict=True):
        assert answer.startswith(f"best action {best[pick]} ("), answer
        assert not forbidden[live[pick], best[pick]]
        value = float(answer.split("value ")[1].split()[0])
        assert abs(value - values[pick]) <= 5e-4 + TOLERANCE, answer
    winner = int(played.winners[finished])
    assert over.startswith("game over: " + ("draw" if winner < 0 else f"{'xo'[winner]} wins"))
    if game.rule == "renju":
        length = int(over.split("(")[1].split()[0])  # White's overline wins
        assert over.startswith("game over: o wins (") and length > 5, over


def _finished_example(game, played) -> int:
    """A finished position to show the example: renju's White winning with an overline,
    Othello's board blocked before it is full, where the games have one."""
    finished = np.flatnonzero(played.finished)
    boards = played.boards[finished]
    if game.rule == "renju":
        overline = [winning_lines(board, 2, 6, exact=False).any() for board in boards]
        finished = finished[np.argsort(~np.array(overline), kind="stable")]
    if game.name == "othello":
        full = (boards != 0).all(axis=(1, 2))
        finished = finished[np.argsort(full, kind="stable")]
    return int(finished[0])


def test_the_example_refuses_planes_it_does_not_know(example, tmp_path):
    """A NAME.json from a later hexjax with a plane the example cannot build: it says so
    rather than feed the network wrong planes."""
    info = export.describe(models.load("hex7")[0].config, "hex7")
    info["input"]["plane_keys"].append("ladder_breakers")
    (tmp_path / "hex7.json").write_text(json.dumps(info))
    (tmp_path / "board.txt").write_text("\n".join(["." * 7] * 7))
    with pytest.raises(SystemExit, match="does not build the planes ladder_breakers"):
        example["main"]([str(tmp_path / "hex7.onnx"), str(tmp_path / "board.txt")])


def test_description_states_the_layout(shipped):
    name, config, *_ = shipped
    game = config.game.make()
    info = export.describe(config, name)
    assert info["input"]["shape"] == ["batch", *game.observation_shape]
    assert len(info["input"]["planes"]) == game.observation_shape[-1]
    keys = info["input"]["plane_keys"]
    assert len(keys) == len(set(keys)) == game.observation_shape[-1]
    if config.game.threats:  # the four threat planes last, the mover's first
        sides = [
            f"{side}_{kind}_points" for side in ("mover", "opponent") for kind in ("win", "four")
        ]
        assert keys[-4:] == sides and {"window", "win point", "four point"} <= set(
            info["input"]["terms"]
        )
    if config.game.rule == "renju":
        assert keys[3] == "forbidden"
        assert {"forbidden point", "four", "straight four", "three"} <= set(info["input"]["terms"])
    assert info["game"]["end"]
    assert info["outputs"]["logits"]["shape"] == ["batch", game.num_actions]
    assert info["actions"]["count"] == game.num_actions
    assert info["game"]["name"] == config.game.name
    json.dumps(info)


@pytest.mark.parametrize("fmt", export.FORMATS)
def test_command_writes_the_file_and_json(tmp_path, capsys, fmt):
    assert export_model.main(["--format", fmt, "--model", "hex7",
                              "--directory", str(tmp_path)]) == 0  # fmt: skip
    suffix = export.SUFFIX[fmt]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hex7.json", f"hex7{suffix}"]
    info = json.loads((tmp_path / "hex7.json").read_text())
    assert info["files"] == {fmt: f"hex7{suffix}"}
    assert f"wrote {fmt} export hex7" in capsys.readouterr().out


def _export(tmp_path, *argv):
    assert export_model.main([*argv, "--directory", str(tmp_path)]) == 0
    return json.loads((tmp_path / "hex7.json").read_text())


def test_both_formats_in_one_directory_share_one_json(tmp_path):
    """NAME.json lists every format of the model in the directory; another model under the
    same name (another interface) starts the list anew."""
    _export(tmp_path, "--format", "onnx", "--model", "hex7")
    both = _export(tmp_path, "--format", "stablehlo", "--model", "hex7")
    assert both["files"] == {"onnx": "hex7.onnx", "stablehlo": "hex7.stablehlo"}
    assert _export(tmp_path, "--format", "onnx", "--model", "hex7") == both
    other = _export(tmp_path, "--format", "onnx", "--model", "hex9", "--name", "hex7")
    assert other["files"] == {"onnx": "hex7.onnx"} and other["game"]["size"] == 9
    _export(tmp_path, "--format", "stablehlo", "--model", "hex9", "--name", "hex7")
    (tmp_path / "hex7.stablehlo").unlink()  # a file gone is no longer listed
    assert _export(tmp_path, "--format", "onnx", "--model", "hex9", "--name", "hex7") == other
    (tmp_path / "hex7.json").write_text("not json")  # a damaged JSON is written anew
    assert _export(tmp_path, "--format", "onnx", "--model", "hex9", "--name", "hex7") == other


@pytest.fixture(scope="module")
def alphazero_run(tmp_path_factory):
    """A training run's directory: one iteration of the tiny AlphaZero preset on Hex 3x3."""
    from hexjax.training import algorithms, config_io, loop

    trainer = algorithms.ALPHAZERO
    config = config_io.replace(trainer.presets["tiny"], {"game.size": 3})
    workdir = tmp_path_factory.mktemp("alphazero") / "run"
    loop.run(config, workdir, loop.RunOptions(iterations=1, eval_every=0, quiet=True), trainer)
    return workdir


@pytest.mark.slow  # the run's training compiles for most of a minute
def test_command_writes_onnx_from_a_run(alphazero_run, tmp_path):
    from hexjax.training import restore

    argv = ["--format", "onnx", "--checkpoint", str(alphazero_run), "--name", "hex3"]
    assert export_model.main([*argv, "--directory", str(tmp_path)]) == 0
    agent = restore.load_trained(alphazero_run)
    observations, masks, *_ = random_positions(agent.game, 32)
    logits, values = _onnx_session((tmp_path / "hex3.onnx").read_bytes()).run(
        None, {"observations": observations}
    )
    flax_logits, flax_values = export.forward(agent.config, agent.params)(observations)
    np.testing.assert_allclose(logits, flax_logits, atol=TOLERANCE, rtol=TOLERANCE)
    np.testing.assert_allclose(values, flax_values, atol=TOLERANCE, rtol=TOLERANCE)
    assert json.loads((tmp_path / "hex3.json").read_text())["game"]["size"] == 3


@pytest.mark.parametrize("fmt", export.FORMATS)
@pytest.mark.parametrize(
    "argv, message",
    [
        (["--model", "nosuch"], "no model 'nosuch'"),
        (["--checkpoint", "{tmp}/none", "--name", "x"], "none"),
    ],
)
def test_command_refuses_unknown_sources(tmp_path, capsys, fmt, argv, message):
    argv = ["--format", fmt, *(a.replace("{tmp}", str(tmp_path)) for a in argv)]
    assert export_model.main([*argv, "--directory", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_command_names_the_missing_extra(tmp_path, capsys, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def without(name, *args, **kwargs):
        if name in ("onnx", "flatbuffers"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without)
    for fmt in export.FORMATS:
        argv = ["--format", fmt, "--model", "hex7", "--directory", str(tmp_path)]
        assert export_model.main(argv) == 2
        assert "pip install 'hexjax[export]'" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_command_flags_that_do_not_fit(capsys):
    with pytest.raises(SystemExit) as exit_info:
        export_model.main(["--model", "hex7"])  # flax: it is already one
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit):
        export_model.main(["--format", "stablehlo", "--checkpoint", "runs/x"])  # no --name
    assert "--name is required" in capsys.readouterr().err


# PPO's run takes a minute to compile where no other test has compiled it; DQN's is shared.
@pytest.mark.parametrize("algorithm", ["dqn", pytest.param("ppo", marks=pytest.mark.slow)])
def test_command_refuses_a_baseline_run(tmp_path, capsys, algorithm):
    from hexjax.training import algorithms, config_io, loop

    trainer = algorithms.get(algorithm)
    config = config_io.replace(trainer.presets["tiny"], {"game.size": 3})
    options = loop.RunOptions(iterations=1, eval_every=0, quiet=True)
    loop.run(config, tmp_path / "run", options, trainer)
    for fmt in export.FORMATS:
        argv = ["--format", fmt, "--checkpoint", str(tmp_path / "run"), "--name", "x"]
        assert export_model.main([*argv, "--directory", str(tmp_path / "out")]) == 2
        assert algorithm in capsys.readouterr().err.lower()
    assert not (tmp_path / "out").exists()


def _parity_script():
    return load_experiment("export_parity")


def test_the_parity_script_prints_the_docs_table(capsys):
    """experiments/export_parity.py measures docs/export.md's table: one row per model, each
    difference inside the tests' tolerance, the largest logit well above it."""
    _parity_script().main(["--model", "hex7", "--positions", "32"])
    lines = capsys.readouterr().out.splitlines()
    header, row = lines[1].split("|")[2:-1], lines[3].split("|")[1:-1]
    assert row[0].strip() == "hex7" and len(row) == len(header) + 1
    *differences, largest = (float(cell) for cell in row[1:])
    assert all(0 <= d < TOLERANCE * (1 + largest) for d in differences) and largest > 1


@pytest.mark.parametrize(("argv", "message"), [
    (["--model", "chess"], "invalid choice: 'chess'"),
    (["--positions", "0"], "--positions must be at least 1, got 0"),
])  # fmt: skip
def test_the_parity_script_refuses_bad_flags(argv, message, capsys):
    with pytest.raises(SystemExit) as stopped:
        _parity_script().main(argv)
    assert stopped.value.code == 2 and message in capsys.readouterr().err
