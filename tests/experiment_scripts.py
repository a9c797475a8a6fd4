"""Load a script of experiments/ as a module, so tests call its `main` / `parse` in-process."""

import importlib.util
import pathlib

EXPERIMENTS = pathlib.Path(__file__).parents[1] / "experiments"


def load_experiment(name: str):
    """experiments/<name>.py as a fresh module (its `if __name__ == "__main__"` block unrun)."""
    spec = importlib.util.spec_from_file_location(f"{name}_script", EXPERIMENTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
