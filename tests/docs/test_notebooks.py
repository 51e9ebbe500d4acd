"""The notebooks: each runs on small parameters, is stored executed in order with its figures as images,
and the README links it with its thumbnail.

After editing a notebook run ``make notebooks`` (``python notebooks/execute.py``): it re-executes every
notebook in place with its full parameters and regenerates the thumbnails under ``docs/figures/``.
"""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[2]
FIX = "fix with: make notebooks (python notebooks/execute.py)"


def _load_execute():
    spec = importlib.util.spec_from_file_location("dpaudit_notebooks_execute", ROOT / "notebooks" / "execute.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EXECUTE = _load_execute()
NOTEBOOKS = EXECUTE.notebooks()
IDS = [p.name for p in NOTEBOOKS]


def _code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def _outputs(nb):
    return [o for c in _code_cells(nb) for o in c.get("outputs", [])]


def _png_count(nb) -> int:
    return sum("image/png" in o.get("data", {}) for o in _outputs(nb))


def test_the_four_notebooks_are_there():
    assert [p.name for p in NOTEBOOKS] == [
        "01_auditing_101.ipynb",
        "02_rates.ipynb",
        "03_user_vs_item_level.ipynb",
        "04_checking_a_paper.ipynb",
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_runs_on_small_parameters(path):
    """Every cell runs (a failing cell raises CellExecutionError) and the figures come out as PNG images."""
    nb = EXECUTE.execute(path, small=True, timeout=600)
    errors = [o for o in _outputs(nb) if o.get("output_type") == "error"]
    assert not errors, f"{path.name}: {errors[0].get('ename')}: {errors[0].get('evalue')}"
    assert _png_count(nb) >= 1, f"{path.name} drew no figure as an image on small parameters"
    EXECUTE.thumbnail(nb)  # the thumbnail cell still produces its figure


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_the_small_switch_reaches_the_notebook(path):
    """The first code cell reads DPAUDIT_NOTEBOOK_SMALL, so the test above really runs small parameters."""
    nb = nbformat.read(path, as_version=4)
    first = _code_cells(nb)[0]
    assert "parameters" in first.metadata.get("tags", []), f"{path.name}: the first code cell is not tagged 'parameters'"
    assert EXECUTE.SMALL_VARIABLE in first.source, f"{path.name}: the parameters cell does not read {EXECUTE.SMALL_VARIABLE}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_stored_outputs_are_executed_in_order(path):
    nb = nbformat.read(path, as_version=4)
    counts = [cell.get("execution_count") for cell in _code_cells(nb)]
    assert counts == list(range(1, len(counts) + 1)), (
        f"{path.name} was not executed top to bottom (execution counts {counts}); {FIX}"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_stored_notebook_shows_its_figures(path):
    nb = nbformat.read(path, as_version=4)
    assert _png_count(nb) >= 1, f"{path.name} is stored without any image output; {FIX}"
    errors = [o for o in _outputs(nb) if o.get("output_type") == "error"]
    assert not errors, f"{path.name} is stored with an error output; {FIX}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_readme_links_the_notebook_with_its_generated_thumbnail(path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    thumb = EXECUTE.thumbnail_path(path)
    assert f"(notebooks/{path.name})" in readme, f"README.md does not link notebooks/{path.name}"
    assert f'src="{thumb.relative_to(ROOT).as_posix()}"' in readme, f"README.md does not show {thumb.name}"
    assert thumb.is_file(), f"{thumb} is missing; {FIX}"
    stored = EXECUTE.thumbnail(nbformat.read(path, as_version=4))
    assert thumb.read_bytes() == stored, (
        f"{thumb.name} is not the image of {path.name}'s cell tagged 'thumbnail' (edited by hand, or stale); {FIX}"
    )


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_stored_numbers_match_a_fresh_run_at_full_parameters(path):
    """A notebook's committed output is what its code prints today at the same (full) parameters.

    Re-executes the notebook (as ``make notebooks`` does, several minutes each) and compares every
    printed line, numbers included, with the committed ones; only timings are masked.
    """
    stored = EXECUTE.printed_text(nbformat.read(path, as_version=4))
    fresh = EXECUTE.printed_text(EXECUTE.execute(path, small=False, timeout=3600))
    diff = list(difflib.unified_diff(stored, fresh, "committed", "fresh run", n=0, lineterm=""))
    assert stored == fresh, f"{path.name}'s committed output is stale:\n" + "\n".join(diff[:40]) + f"\n{FIX}"


def test_printed_text_masks_timings_only():
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print(result)")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="epsilon >= 0.9819\ntime   : 0.72 s (a)\nran "),
                    nbformat.v4.new_output("stream", name="stdout", text="in 1.5s\n\n"),
                    nbformat.v4.new_output("execute_result", data={"text/plain": "<Figure size 10x5 with 1 Axes>"}),
                    nbformat.v4.new_output("execute_result", data={"text/plain": "0.5"})]
    nb.cells = [cell]
    assert EXECUTE.printed_text(nb) == ["[cell 0] epsilon >= 0.9819", "[cell 0] ran in ?s", "[cell 0] 0.5"]
