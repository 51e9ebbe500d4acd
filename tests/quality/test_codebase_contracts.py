"""Contracts of the code base itself, checked on the source tree.

* No product module is named like a test module: pytest collects ``dpaudit/`` (for its doctests)
  with its default ``python_files`` patterns ``test_*.py`` and ``*_test.py``, so such a module would
  be run as a test module.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("dpaudit", "proofs")


def _product_modules() -> list[Path]:
    return sorted(path for folder in PRODUCT for path in (ROOT / folder).rglob("*.py") if "__pycache__" not in path.parts)


def test_no_product_module_is_named_like_a_test_module():
    collected = [str(path.relative_to(ROOT)) for path in _product_modules()
                 if any(fnmatch.fnmatch(path.name, pattern) for pattern in ("test_*.py", "*_test.py"))]
    assert not collected, f"pytest would collect these product modules as tests; rename them: {collected}"
