"""The notebooks in notebooks/: stored without outputs, each with its Colab link, and every one
executed top to bottom by a real notebook runner (nbclient, an IPython kernel) at the smoke size
that HEXJAX_NOTEBOOK_SMOKE=1 selects."""

import pathlib

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
COLAB = "https://colab.research.google.com/github/hexjax/hexjax/blob/main/notebooks/"
CELL_TIMEOUT = 600  # seconds: a training cell compiling on a shared 2-core machine


def _read(path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def test_the_four_notebooks_are_there_and_linked_from_the_readme():
    names = [path.stem for path in NOTEBOOKS]
    assert names == ["01_games", "02_train", "03_play", "04_scale"]
    readme = (ROOT / "README.md").read_text()
    for name in names:
        assert f"notebooks/{name}.ipynb" in readme


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_without_outputs_and_with_its_colab_link(path):
    notebook = _read(path)
    nbformat.validate(notebook)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [], f"cell {index} has outputs: strip them"
            assert cell.execution_count is None, f"cell {index} has an execution count"
    assert "widgets" not in notebook.metadata, "widget state is an output too"
    assert f"{COLAB}{path.name}" in notebook.cells[0].source
    setup = notebook.cells[1].source
    # Colab: install on top of the runtime's own JAX, never the obsolete TPU set-up call.
    assert "keep-jax.txt" in setup and "setup_tpu" not in setup


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_runs_top_to_bottom_at_the_smoke_size(path, monkeypatch, tmp_path):
    from nbclient import NotebookClient

    monkeypatch.setenv("HEXJAX_NOTEBOOK_SMOKE", "1")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    notebook = _read(path)
    # Run where a user would (notebooks/), with the kernel's scratch files in tmp_path.
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path))
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()  # raises CellExecutionError, with the cell and its traceback, on an error
    outputs = [output for cell in notebook.cells for output in cell.get("outputs", [])]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    pictures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert pictures, "every notebook draws something"
    assert "sizes: smoke" in text
    expected = {
        "01_games": "(plies per second by batch)",
        "02_train": "done: iteration 2",
        "03_play": "after a click:",
        "04_scale": "fits a 16 GiB chip",
    }[path.stem]
    assert expected in text
