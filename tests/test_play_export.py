"""The exported network (StableHLO, ONNX) computes what the Flax network does: for every
shipped model, on positions from real games, the same logits and values to 1e-5 and the same
best legal move. Also the consumer JSON and the command's errors."""

import json

import numpy as np
import pytest
from support.export_positions import positions

from hexjax.commands import export_model
from hexjax.play import export, models

MODELS = [m.name for m in models.shipped_models()]
POSITIONS = 256
TOLERANCE = 1e-5


@pytest.fixture(scope="module", params=MODELS)
def shipped(request):
    """(name, config, params, observations, legal masks, Flax logits, Flax values)."""
    info, params = models.load(request.param)
    observations, masks = positions(info.config.game.make(), POSITIONS)
    logits, values = export.forward(info.config, params)(observations)
    return request.param, info.config, params, observations, masks, logits, values


def _check_parity(shipped, logits, values):
    *_, masks, flax_logits, flax_values = shipped
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


def test_description_states_the_layout(shipped):
    name, config, *_ = shipped
    game = config.game.make()
    info = export.describe(config, name, "stablehlo")
    assert info["input"]["shape"] == ["batch", *game.observation_shape]
    assert len(info["input"]["planes"]) == game.observation_shape[-1]
    assert info["outputs"]["logits"]["shape"] == ["batch", game.num_actions]
    assert info["actions"]["count"] == game.num_actions
    assert info["game"]["name"] == config.game.name
    json.dumps(info)


def test_command_writes_stablehlo_and_json(tmp_path, capsys):
    assert export_model.main(["--format", "stablehlo", "--model", "hex7",
                              "--directory", str(tmp_path)]) == 0  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hex7.json", "hex7.stablehlo"]
    assert json.loads((tmp_path / "hex7.json").read_text())["file"] == "hex7.stablehlo"
    assert "wrote stablehlo export hex7" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--format", "stablehlo", "--model", "nosuch"], "no model 'nosuch'"),
        (["--format", "stablehlo", "--checkpoint", "{tmp}/none", "--name", "x"], "none"),
    ],
)
def test_command_refuses_unknown_sources(tmp_path, capsys, argv, message):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert export_model.main([*argv, "--directory", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_command_names_the_missing_extra(tmp_path, capsys, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def without(name, *args, **kwargs):
        if name in ("jax2onnx", "flatbuffers"):
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


def test_command_refuses_a_dqn_run(tmp_path, capsys):
    from hexjax.training import algorithms, config_io, loop

    trainer = algorithms.DQN
    config = config_io.replace(trainer.presets["tiny"], {"game.size": 3})
    options = loop.RunOptions(iterations=1, eval_every=0, quiet=True)
    loop.run(config, tmp_path / "run", options, trainer)
    argv = ["--format", "stablehlo", "--checkpoint", str(tmp_path / "run"), "--name", "dqn"]
    assert export_model.main([*argv, "--directory", str(tmp_path / "out")]) == 2
    assert "dqn" in capsys.readouterr().err.lower()
    assert not (tmp_path / "out").exists()
