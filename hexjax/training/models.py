"""The model store: small trained networks kept as files, the shipped ones in the package
(hexjax/models/NAME.*), beside the checkpoints they are exported from.

A model is two files: NAME.json (the training config, how it was trained, how strong it
measured) and NAME.msgpack (the network parameters, flax serialization). `export` writes them
from a training run's checkpoint; `load` reads them back into (config, params).
"""

from __future__ import annotations

import dataclasses
import json
import pathlib

import jax
from flax import serialization

from hexjax.alphazero import network as network_lib
from hexjax.alphazero.config import TrainConfig
from hexjax.games import GameConfig
from hexjax.training import config_io

MODELS_DIR = pathlib.Path(__file__).parents[1] / "models"


class ModelError(ValueError):
    """A model that is missing, unreadable or does not fit the game asked for."""


@dataclasses.dataclass(frozen=True)
class ModelInfo:
    name: str
    config: TrainConfig
    about: dict  # "trained": how (command, iterations, minutes); "strength": measured scores

    @property
    def label(self) -> str:
        return self.config.game.label


def shipped_models(directory=MODELS_DIR) -> list[ModelInfo]:
    """Every model stored in `directory`, sorted by name."""
    return [_info(path) for path in sorted(pathlib.Path(directory).glob("*.json"))]


def find_model(game: str, size: int, rule: str = "freestyle", swap: bool = False,
               directory=MODELS_DIR) -> ModelInfo:  # fmt: skip
    """The shipped model for a game; ModelError listing what is shipped if there is none."""
    wanted = GameConfig(game, size, rule, swap).as_played()
    models = shipped_models(directory)
    for model in models:
        if model.config.game.as_played() == wanted:
            return model
    shipped = ", ".join(m.label for m in models) or "none"
    label = wanted.label
    raise ModelError(
        f"no shipped model for {label} (shipped: {shipped}); train one with "
        f"experiments/train.py and pass its --checkpoint"
    )


def load(name: str, directory=MODELS_DIR):
    """(ModelInfo, params) of a shipped model (or of NAME.json/NAME.msgpack in `directory`)."""
    info = _info(pathlib.Path(directory) / f"{name}.json")
    weights = pathlib.Path(directory) / f"{name}.msgpack"
    if not weights.exists():
        raise ModelError(f"model {name!r}: {weights} is missing")
    game = info.config.game.make()
    net = network_lib.make_network(info.config.network, game.num_actions)
    # Shapes only: initialising the network would compile it (seconds) to be overwritten.
    template = jax.eval_shape(
        lambda: network_lib.init_params(net, jax.random.key(0), game.observation_shape)
    )
    try:
        params = serialization.from_bytes(template, weights.read_bytes())
        shapes = jax.tree.map(lambda x: x.shape, params)
        if shapes != jax.tree.map(lambda x: x.shape, template):
            raise ValueError("parameter shapes differ from the config's network")
    except Exception as error:  # msgpack and flax raise several kinds on damaged bytes
        raise ModelError(f"model {name!r}: {weights} does not hold this network: {error}") from None
    return info, params


def export(config: TrainConfig, params, name: str, about: dict, directory=MODELS_DIR) -> None:
    """Write NAME.json and NAME.msgpack (parameters as float32 host arrays)."""
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    params = jax.tree.map(lambda x: jax.device_get(x), params)
    (directory / f"{name}.msgpack").write_bytes(serialization.to_bytes(params))
    record = {"config": config_io.to_dict(config), **about}
    (directory / f"{name}.json").write_text(json.dumps(record, indent=2) + "\n")


def _info(path: pathlib.Path) -> ModelInfo:
    if not path.exists():
        names = ", ".join(m.name for m in shipped_models(path.parent)) or "none"
        raise ModelError(f"no model {path.stem!r} in {path.parent} (models: {names})")
    try:
        record = json.loads(path.read_text())
        config = config_io.from_dict(TrainConfig, record.pop("config"))
    except (ValueError, KeyError, TypeError) as error:
        raise ModelError(f"{path} is not a model description: {error}") from None
    return ModelInfo(path.stem, config, record)
