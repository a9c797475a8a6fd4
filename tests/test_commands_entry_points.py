"""Every console script of pyproject.toml names a `main` that exists, and every thin script in
experiments/ runs one of them: the same program under both names."""

import ast
import importlib
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
BENCHMARKS = {
    "bench.py",
    "selfplay_bench.py",
    "rollout_mcts_bench.py",
    "sgd_loop_bench.py",
    "engine_time.py",
    "first_reply.py",
    "export_bench.py",
    "export_parity.py",
    "accelerator_check.py",
    "balanced_openings.py",
    "renju_reading.py",
    "fours_in_games.py",
    "search_cores.py",
    "solver_beside.py",
    "dead_cells.py",
    "tactics_cost.py",
    "selfplay_openings.py",
}  # measurements, full scripts


def _console_scripts() -> dict[str, str]:
    text = (ROOT / "pyproject.toml").read_text()
    section = text.split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    return dict(re.findall(r'^([\w-]+) = "([\w.:]+)"$', section, flags=re.M))


def test_console_scripts_name_existing_mains():
    scripts = _console_scripts()
    assert {"hexjax-train", "hexjax-evaluate", "hexjax-play", "hexjax-gtp"} <= set(scripts)
    for name, target in scripts.items():
        module, _, function = target.partition(":")
        assert callable(getattr(importlib.import_module(module), function)), name


@pytest.mark.parametrize(
    "script",
    sorted(p.name for p in (ROOT / "experiments").glob("*.py") if p.name not in BENCHMARKS),
)
def test_experiment_scripts_are_thin_wrappers_of_the_commands(script):
    tree = ast.parse((ROOT / "experiments" / script).read_text())
    imports = [n for n in tree.body if isinstance(n, ast.ImportFrom)]
    assert [n.module.split(".")[:2] for n in imports] == [["hexjax", "commands"]], script
    target = f"{imports[0].module}:{imports[0].names[0].name}"
    if not script.startswith(("metrics_windows", "curves")):  # analysis tools, no console script
        assert target in _console_scripts().values(), f"{script} runs {target}, no console script"


def test_a_script_and_its_console_script_print_the_same_help():
    wrapper = subprocess.run(
        [sys.executable, str(ROOT / "experiments" / "evaluate.py"), "--help"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    module = subprocess.run(
        [sys.executable, "-c", "import sys; from hexjax.commands.evaluate import main; "
         "sys.argv[0] = 'evaluate.py'; sys.exit(main())", "--help"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert wrapper.stdout == module.stdout and "--checkpoint" in wrapper.stdout
