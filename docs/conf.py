"""Sphinx configuration of dpaudit's documentation (``make docs``; warnings are errors there)."""

from __future__ import annotations

import shutil
from pathlib import Path

import dpaudit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

project = "dpaudit"
author = "dpaudit developers"
release = version = dpaudit.__version__
copyright = "dpaudit developers"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]

# the notebooks are rendered as committed: never executed while the documentation is built
nb_execution_mode = "off"
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3

autosummary_generate = True
autosummary_imported_members = False
# members defined in each module only: a package's re-exports (its __all__) are documented where they are defined
autodoc_default_options = {"members": True, "show-inheritance": True, "ignore-module-all": True}
autodoc_typehints = "none"
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()
# citation labels such as [LSA+21] or [DRS19] are made unique per docstring (they repeat across modules)
numpydoc_citation_re = r"[\w+.-]+"

# the docstrings cite their references in plain text ("[DR14, Thm 3.6]"), not as RST citation links
suppress_warnings = ["ref.citation"]
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
templates_path = ["_templates"]
html_theme = "pydata_sphinx_theme"
html_title = "dpaudit"
html_static_path: list[str] = []
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}

# The notebooks live in notebooks/ (where `make notebooks` runs them); Sphinx reads only files under
# docs/, so they are copied here at every build (docs/_notebooks is not committed).
_NOTEBOOKS = HERE / "_notebooks"
_NOTEBOOKS.mkdir(exist_ok=True)
for _nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
    shutil.copy2(_nb, _NOTEBOOKS / _nb.name)
