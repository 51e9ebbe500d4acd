"""Every notebook in notebooks/ executes from top to bottom without error.

Notebooks only import dpaudit (no logic of their own); running them keeps the narrative honest.
"""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ is empty"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path):
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    errors = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_stored_outputs_are_executed_in_order(path):
    nb = nbformat.read(path, as_version=4)
    counts = [cell.get("execution_count") for cell in nb.cells if cell.cell_type == "code"]
    assert counts == list(range(1, len(counts) + 1)), (
        f"{path.name} was not executed top to bottom (execution counts {counts}); "
        "fix with: python notebooks/execute.py"
    )
