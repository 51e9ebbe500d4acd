"""Contracts of the code base itself, checked on the source tree.

* No product module is named like a test module: pytest collects ``dpaudit/`` (for its doctests)
  with its default ``python_files`` patterns ``test_*.py`` and ``*_test.py``, so such a module would
  be run as a test module.
* The packages ``pyproject.toml`` lists (setuptools cannot discover packages under ``proofs/``,
  which is installed as ``dpaudit.proofs``) are exactly the folders holding an ``__init__.py``.
"""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("dpaudit", "proofs")


def _product_modules() -> list[Path]:
    return sorted(path for folder in PRODUCT for path in (ROOT / folder).rglob("*.py") if "__pycache__" not in path.parts)


def test_no_product_module_is_named_like_a_test_module():
    collected = [str(path.relative_to(ROOT)) for path in _product_modules()
                 if any(fnmatch.fnmatch(path.name, pattern) for pattern in ("test_*.py", "*_test.py"))]
    assert not collected, f"pytest would collect these product modules as tests; rename them: {collected}"


def test_pyproject_lists_every_package_and_only_those():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-dir"] == {"dpaudit.proofs": "proofs"}
    on_disk = {"dpaudit." * (folder == "proofs") + ".".join(init.parent.relative_to(ROOT).parts)
               for folder in PRODUCT for init in (ROOT / folder).rglob("__init__.py")}
    listed = set(config["packages"])
    assert listed == on_disk, (f"add to [tool.setuptools] packages: {sorted(on_disk - listed)}; "
                               f"remove: {sorted(listed - on_disk)}")
