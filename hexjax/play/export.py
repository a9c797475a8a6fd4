"""The trained network as a framework-neutral file: StableHLO (`jax.export`) or ONNX (the graph
written from the parameters with the optional `onnx` package, `hexjax/play/_onnx.py`), each
with a JSON beside it saying what a consumer needs: the game, the observation's planes, the
action numbering and the value's perspective.

The exported function maps observations float32[B, n, n, C] (B symbolic) to (logits
float32[B, A], value float32[B]). The parameters are baked in as constants, and the network
computes in float32 whatever the run trained with, so any runtime gets the same numbers.
"""

from __future__ import annotations

import json
import pathlib

import jax
import jax.numpy as jnp

from hexjax.alphazero import network as network_lib
from hexjax.alphazero.iteration import TrainConfig
from hexjax.games import GameConfig

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
    net_config = config.network
    if net_config.compute_dtype != "float32":
        net_config = type(net_config)(net_config.preset, net_config.channels, net_config.blocks)
    net = network_lib.make_network(net_config, game.num_actions)
    params = jax.tree.map(jnp.asarray, params)

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
        params, game.observation_shape, game.num_actions, name="hexjax_policy_value"
    )
    return model.SerializeToString()


def describe(config: TrainConfig, name: str) -> dict:
    """What a consumer of the exported files needs, as a JSON-ready dict (`write` adds which
    files it describes): enough to build the observation planes and the legal moves from a
    board without hexjax (docs/examples/onnx_best_move.py does, in numpy)."""
    game_config: GameConfig = config.game.canonical()
    game = game_config.make()
    n = game.size
    planes = _planes(game_config)
    assert len(planes) == game.observation_shape[-1]
    return {
        "name": name,
        "game": {
            "name": game_config.name,
            "size": n,
            "rule": game_config.rule,
            "swap": game_config.swap,
            "threats": game_config.threats,
            "end": _end(game_config),
        },
        "input": {
            "name": "observations",
            "dtype": "float32",
            "shape": ["batch", *game.observation_shape],
            "layout": "batch, row (0 = top), column (0 = left), plane; 1.0 or 0.0 each",
            "planes": [text for _, text in planes],
            "plane_keys": [key for key, _ in planes],
            "terms": _terms(game_config),
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
        "actions": _actions(game_config, game.num_actions),
        "network": dict(zip(("channels", "blocks"), config.network.shape, strict=True)),
    }


def _planes(game: GameConfig) -> list[tuple[str, str]]:
    """(key, meaning) of each observation plane, in order; the keys name them for code."""
    stones = [
        ("mover_stones", "1 on the side to move's stones"),
        ("opponent_stones", "1 on the other side's stones"),
    ]
    if game.name == "hex":
        planes = [
            *stones,
            (
                "mover_goal_edges",
                "1 on the two edges the mover must join, stones or not: rows 0 and n-1 when "
                "player 0 (x) moves, columns 0 and n-1 when player 1 (o) moves",
            ),
            ("opponent_goal_edges", "1 on the other two edges (the opponent's goal edges)"),
        ]
        if game.swap:
            planes.append(
                (
                    "swap_legal",
                    "all ones while the swap move is legal (player 1 to move, one x stone and "
                    "no o stone on the board), else all zeros",
                )
            )
        return planes
    if game.name == "gomoku":
        planes = [
            *stones,
            ("black_to_move", "all ones when the mover is Black (player 0, x), else all zeros"),
        ]
        if game.rule == "renju":
            planes.append(
                (
                    "forbidden",
                    "when Black is to move: 1 on Black's forbidden points (terms: forbidden "
                    "point), the empty cells Black may not play; all zeros when White is to "
                    "move or the game is over",
                )
            )
        if game.threats:
            # terms: window, win point, four point.
            planes += [
                (
                    f"{side}_{kind}_points",
                    f"1 on the {side}'s {kind} points: empty cells in a window holding {count} "
                    f"of the {side}'s stones and none of the other side's; all zeros once the "
                    "game is over",
                )
                for side in ("mover", "opponent")
                for kind, count in (("win", 4), ("four", 3))
            ]
        return planes
    if game.name == "othello":
        return [
            *stones,
            ("mover_placements", "1 on the mover's legal placements (empty cells that flip)"),
        ]
    raise ValueError(f"no observation description for {game.name!r}")


def _terms(game: GameConfig) -> dict:
    """The words the plane meanings use, defined closely enough to compute the planes."""
    terms = {}
    if game.name == "gomoku" and game.threats:
        terms |= {
            "window": "5 cells in a row along a row, a column or either diagonal, all on the "
            "board (no window runs off an edge), none of them holding a stone of the other side "
            "(for the side's threats: only its stones and empty cells). Windows count stones, "
            "not runs: a stone that would make six still completes a window (the planes are a "
            "hint where an overline does not win: standard, renju's Black)",
            "win point": "an empty cell in some window holding 4 of the side's stones (the "
            "cell is the window's only empty one): a stone there makes five",
            "four point": "an empty cell in some window holding 3 of the side's stones (the "
            "cell and one other cell of the window empty): a stone there makes a four",
        }
    if game.name == "gomoku" and game.rule == "renju":
        terms |= {
            "line": "the row, the column or either diagonal through a point; 'in a row' means "
            "consecutive on one line, with Black's stone on the point p counted",
            "forbidden point": "an empty point p where a black stone makes no five (exactly "
            "five black stones in a row on some line through p: that wins and is never "
            "forbidden, whatever else it makes) and makes an overline, or two or more fours "
            "over the four lines, or threes on two or more lines",
            "overline": "six or more black stones in a row through p",
            "four": "on one line through p, with Black on p: a five point is an empty point q "
            "of the line where one more black stone makes exactly five in a row containing p. "
            "One five point is one four; two five points are one four when they are the two "
            "ends of one straight four (.XXXX.), else two fours (X.XXX.X with p in the middle)",
            "straight four": "exactly four black stones in a row whose two neighbouring points "
            "on the line are both empty five points",
            "three": "a line through p (Black on p) is a three when some empty point x of it "
            "is an extension point: one more black stone on x makes a straight four holding p "
            "and x, x makes no five or more on any line, and x is not itself a forbidden point "
            "on the board with p played (these same rules, recursively). A line counts as one "
            "three at most",
        }
    return terms


def _end(game: GameConfig) -> str:
    """When the game is over and who won, for a consumer that must tell a finished board."""
    if game.name == "hex":
        return (
            "player 0 (x) wins by joining rows 0 and n-1, player 1 (o) by joining columns 0 and "
            "n-1, with a chain of its stones; (r, c) touches (r-1, c), (r-1, c+1), (r, c-1), "
            "(r, c+1), (r+1, c-1) and (r+1, c). No draws"
        )
    if game.name == "gomoku":
        wins = {
            "freestyle": "five or more in a row wins",
            "standard": "exactly five in a row wins (an overline does not)",
            "renju": "Black wins with exactly five in a row, White with five or more; Black "
            "may not play a forbidden point, and Black to move with only forbidden points "
            "left is a draw",
        }[game.rule]
        return (
            f"{wins}; a full board is a draw. In a row: on consecutive cells of a row, a "
            "column or either diagonal"
        )
    if game.name == "othello":
        return (
            "over when neither side can place (a full board included): more discs wins, equal "
            "counts draw; a side with no placement passes while the other can place"
        )
    raise ValueError(f"no end description for {game.name!r}")


def _actions(game: GameConfig, num_actions: int) -> dict:
    n = game.size
    extra = {}
    if game.name == "hex" and game.swap:
        extra = {str(n * n): "swap (player 1's first move only)"}
    if game.name == "othello":
        extra = {str(n * n): "pass (legal only when no placement is)"}
    return {
        "count": num_actions,
        "cells": f"action r * {n} + c is row r (0 = top), column c (0 = left)",
        "extra": extra,
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
