"""The README's quick start runs as written."""

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_quick_start_runs(capsys):
    text = README.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert blocks, "the README has no python example"
    exec(compile(blocks[0], "README quick start", "exec"), {})
    assert "X" in capsys.readouterr().out  # the rendered board was printed


def test_readme_starts_with_the_two_commands():
    lines = README.read_text().splitlines()
    commands = [line for line in lines[:6] if line.startswith("make ")]
    assert [c.split()[1] for c in commands] == ["train", "test"]
