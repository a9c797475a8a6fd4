"""The exported network (StableHLO, ONNX) computes what the Flax network does: for every
shipped model, on positions from real games, the same logits and values to 1e-5 and the same
best legal move. Also the consumer JSON and the command's errors."""

import json
import pathlib
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
from hexjax.alphazero.iteration import TrainConfig
from hexjax.alphazero.network import NetworkConfig
from hexjax.commands import export_model
from hexjax.games import GameConfig, random_positions
from hexjax.play import export, models

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


def test_the_example_picks_flax_s_move_without_jax(shipped, tmp_path):
    export.write("onnx", shipped.config, shipped.params, shipped.name, tmp_path)
    stones = (shipped.boards != 0).sum(axis=(1, 2))
    picks = np.argsort(stones, kind="stable")[[POSITIONS // 4, POSITIONS // 2, -1]]
    argvs = []
    for i in picks:
        board = tmp_path / f"board{i}.txt"
        board.write_text("\n".join("".join(".xo"[c] for c in row) for row in shipped.boards[i]))
        # Hex and Gomoku: the side to move counted from the stones; Othello needs it said.
        to_play = ["--to-play", "xo"[shipped.players[i]]] if "othello" in shipped.name else []
        argvs.append([str(tmp_path / f"{shipped.name}.onnx"), str(board), *to_play])
    result = subprocess.run([sys.executable, "-c", WITHOUT_JAX, str(EXAMPLE), json.dumps(argvs)],
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    game = shipped.config.game
    if game.name == "gomoku" and (game.threats or game.rule == "renju"):
        # The example builds only the plain planes; it says so rather than feed wrong ones.
        variant = "threat-plane" if game.threats else game.rule
        assert result.returncode != 0
        assert f"does not build {variant} observations" in result.stderr
        return
    assert result.returncode == 0, result.stderr[-2000:]
    blocked, *answers = result.stdout.splitlines()
    assert blocked == "jax cannot be imported"
    assert len(answers) == len(picks)
    for i, answer in zip(picks, answers, strict=True):
        flax_best = np.argmax(np.where(shipped.masks[i], shipped.logits[i], -np.inf))
        assert answer.startswith(f"best action {flax_best} ("), answer
        value = float(answer.split("value ")[1].split()[0])
        assert abs(value - shipped.values[i]) <= 5e-4 + TOLERANCE, answer


def test_description_states_the_layout(shipped):
    name, config, *_ = shipped
    game = config.game.make()
    info = export.describe(config, name)
    assert info["input"]["shape"] == ["batch", *game.observation_shape]
    assert len(info["input"]["planes"]) == game.observation_shape[-1]
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
    agent = restore.load_agent(alphazero_run)
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
