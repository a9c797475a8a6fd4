"""experiments/ scripts that are full programs (not wrappers of hexjax.commands), loaded as
modules so that tests can call their functions."""

import importlib.util
import pathlib
import types

EXPERIMENTS = pathlib.Path(__file__).resolve().parents[2] / "experiments"


def load_experiment(name: str) -> types.ModuleType:
    """experiments/<name>.py as a module."""
    spec = importlib.util.spec_from_file_location(name, EXPERIMENTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
