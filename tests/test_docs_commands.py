"""Every `python experiments/<command>.py ...` line in the README and docs/ names a script that
exists and flags its parser accepts, with values it accepts (parsed, not run)."""

import pathlib
import re
import shlex

import pytest

from hexjax.commands import compare, evaluate, plan, play, train
from hexjax.training import algorithms

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PARSERS = {
    "train": lambda argv: train.parse(argv, algorithms.ALPHAZERO),
    "train_dqn": lambda argv: train.parse(argv, algorithms.DQN),
    "train_ppo": lambda argv: train.parse(argv, algorithms.PPO),
    "evaluate": evaluate._parse,
    "compare": compare._parse,
    "play": play.parse,
    "plan": plan.parse,
}


def _code_lines(text: str) -> list[str]:
    """The lines of the page's fenced code blocks (continuations joined) and inline commands."""
    lines, fenced = [], False
    for line in text.replace("\\\n", " ").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif fenced:
            lines.append(line)
    return lines + re.findall(r"`((?:\.venv/bin/)?python experiments/[^`]+)`", text)


def _commands() -> list[tuple[str, str]]:
    """(page, command line) for every documented experiments/ command."""
    found = []
    for page in PAGES:
        for line in _code_lines(page.read_text()):
            line = line.split("#")[0].strip().removeprefix(".venv/bin/")
            placeholder = any(mark in line for mark in ("<", "..."))
            if line.startswith("python experiments/") and not placeholder:
                found.append((page.name, line))
    return found


COMMANDS = _commands()


def test_the_docs_have_commands_to_check():
    assert len(COMMANDS) >= 20
    assert {line.split()[1] for _, line in COMMANDS} >= {
        "experiments/train.py",
        "experiments/evaluate.py",
        "experiments/play.py",
    }


@pytest.mark.parametrize(("page", "line"), COMMANDS)
def test_documented_command_parses(page, line):
    words = shlex.split(line)
    script = ROOT / words[1]
    assert script.exists(), f"{page}: {words[1]} does not exist"
    name = script.stem
    if name not in PARSERS:
        return  # its flags are checked by its own tests (export_model, metrics_windows, benchmarks)
    try:
        PARSERS[name](words[2:])
    except SystemExit as error:
        pytest.fail(f"{page}: `{line}` is refused by the parser (exit {error.code})")
