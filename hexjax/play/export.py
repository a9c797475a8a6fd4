"""The trained network as a framework-neutral file: StableHLO (`jax.export`) or ONNX (the graph
written from the parameters with the optional `onnx` package, `hexjax/play/_onnx.py`), each
with a JSON beside it saying what a consumer needs: the game, the observation's planes, the
action numbering and the value's perspective.

The exported function maps observations float32[B, n, n, C] (B symbolic) to (logits
float32[B, A], value float32[B]). The parameters are baked in as constants, and the network
computes in float32 whatever the run trained with, so any runtime gets the same numbers.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib

import jax
import jax.numpy as jnp

from hexjax.alphazero import network as network_lib
from hexjax.alphazero.config import TrainConfig
from hexjax.games import Game, GameConfig

FORMATS = ("stablehlo", "onnx")
SUFFIX = {"stablehlo": ".stablehlo", "onnx": ".onnx"}
EXTRA = "pip install 'hexjax[export]'"
# Lowered for every XLA backend at once, so one file runs on CPU, GPU and TPU.
PLATFORMS = ("cpu", "cuda", "tpu")


class ExportError(ValueError):
    """A format that cannot be written here (its optional extra is missing)."""


def forward(config: TrainConfig, params):
    """obs float32[B, n, n, C] -> (logits float32[B, A], value float32[B]), float32 compute."""
    game = config.game.make()
    net_config = dataclasses.replace(config.network, compute_dtype="float32")
    net = network_lib.make_network(net_config, game.num_actions)
    params = jax.tree.map(jnp.asarray, network_lib.without_aux(params))

    def apply(obs):
        return network_lib.apply(net, params, obs)

    return apply


def input_spec(config: TrainConfig) -> jax.ShapeDtypeStruct:
    (batch,) = jax.export.symbolic_shape("batch")
    shape = config.game.make().observation_shape
    return jax.ShapeDtypeStruct((batch, *shape), jnp.float32)


def to_stablehlo(config: TrainConfig, params) -> bytes:
    """The serialized `jax.export.Exported` (read it back with `jax.export.deserialize`)."""
    exported = jax.export.export(jax.jit(forward(config, params)), platforms=PLATFORMS)(
        input_spec(config)
    )
    _need_flatbuffers()
    return bytes(exported.serialize())


def load_stablehlo(data: bytes):
    """The exported function of `to_stablehlo`'s bytes, callable on a batch of observations."""
    _need_flatbuffers()
    return jax.export.deserialize(bytearray(data)).call


def _need_flatbuffers() -> None:
    # jax serializes an Exported with flatbuffers, which jax itself does not require.
    try:
        import flatbuffers  # noqa: F401
    except ImportError:
        raise ExportError(f"the stablehlo format needs flatbuffers: {EXTRA}") from None


def to_onnx(config: TrainConfig, params) -> bytes:
    """The serialized ONNX model (opset 17): input "observations" float32[batch, n, n, C],
    outputs "logits" float32[batch, A] and "value" float32[batch]."""
    try:
        import onnx  # noqa: F401
    except ImportError:
        raise ExportError(f"the onnx format needs the onnx package: {EXTRA}") from None
    from hexjax.play import _onnx

    game = config.game.make()
    model = _onnx.policy_value_model(
        network_lib.without_aux(params),
        game.observation_shape,
        game.num_actions,
        name="hexjax_policy_value",
    )
    return model.SerializeToString()


def describe(config: TrainConfig, name: str) -> dict:
    """What a consumer of the exported files needs, as a JSON-ready dict (`write` adds which
    files it describes): enough to build the observation planes and the legal moves from a
    board without hexjax (docs/examples/onnx_best_move.py does, in numpy)."""
    game_config: GameConfig = config.game.canonical()
    game = game_config.make()
    n = game.size
    planes = game.plane_meanings()
    assert len(planes) == game.observation_shape[-1]
    return {
        "name": name,
        "game": {
            "name": game_config.name,
            "size": n,
            "rule": game_config.rule,
            "swap": game_config.swap,
            "threats": game_config.threats,
            "end": game.end_rule(),
        },
        "input": {
            "name": "observations",
            "dtype": "float32",
            "shape": ["batch", *game.observation_shape],
            "layout": "batch, row (0 = top), column (0 = left), plane; 1.0 or 0.0 each",
            "planes": [text for _, text in planes],
            "plane_keys": [key for key, _ in planes],
            "terms": game.terms(),
            "players": "player 0 moves first (x, Black); 'mover' is the side to move",
        },
        "outputs": {
            "logits": {
                "dtype": "float32",
                "shape": ["batch", game.num_actions],
                "meaning": "policy logits over all actions, illegal ones included: mask them",
            },
            "value": {
                "dtype": "float32",
                "shape": ["batch"],
                "meaning": "expected outcome for the side to move, in [-1, 1] (1: it wins)",
            },
        },
        "actions": _actions(game),
        "network": dict(zip(("channels", "blocks"), config.network.shape, strict=True)),
    }


def _actions(game: Game) -> dict:
    n = game.size
    return {
        "count": game.num_actions,
        "cells": f"action r * {n} + c is row r (0 = top), column c (0 = left)",
        "extra": {
            str(extra.action): f"{extra.word} ({extra.when})" for extra in game.extra_actions
        },
    }


def write(fmt: str, config: TrainConfig, params, name: str, directory) -> list[pathlib.Path]:
    """Write NAME.stablehlo or NAME.onnx and NAME.json into `directory`; the paths written."""
    if fmt not in FORMATS:
        raise ExportError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    data = to_stablehlo(config, params) if fmt == "stablehlo" else to_onnx(config, params)
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    model_path = directory / f"{name}{SUFFIX[fmt]}"
    model_path.write_bytes(data)
    info_path = directory / f"{name}.json"
    info = describe(config, name)
    info["files"] = {**_files_described(info_path, info), fmt: model_path.name}
    info_path.write_text(json.dumps(info, indent=2) + "\n")
    return [model_path, info_path]


def _files_described(info_path: pathlib.Path, info: dict) -> dict:
    """The files an existing NAME.json lists, if it describes the same interface as `info`
    (another format of the same model, exported before): they stay listed beside the new one."""
    try:
        old = json.loads(info_path.read_text())
    except (OSError, ValueError):  # none yet, or not ours: written anew
        return {}
    if not isinstance(old, dict) or {k: v for k, v in old.items() if k != "files"} != info:
        return {}
    files = old.get("files") if isinstance(old.get("files"), dict) else {}
    listed = {fmt: files[fmt] for fmt in FORMATS if isinstance(files.get(fmt), str)}
    return {fmt: file for fmt, file in listed.items() if (info_path.parent / file).is_file()}
