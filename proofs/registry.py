"""Discovery of the lemma checks.

Every module under the paper packages (``common``, ``levy2021``, ``ghazi2023``, ``lowy2024``,
``ghazi2025``) whose name does not start with ``_`` defines either ``CHECK`` (one
:class:`~proofs._core.LemmaCheck`) or ``CHECKS`` (a tuple: an erratum's printed statement and
its corrected sibling). :func:`all_checks` imports them and returns them in a fixed order.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from types import ModuleType

from proofs._core import PAPER_ORDER, LemmaCheck

__all__ = ["PACKAGES", "all_checks", "checks_for_paper", "get_check"]

#: Sub-packages searched for checks, in the order the runner prints them.
PACKAGES: tuple[str, ...] = ("common", *PAPER_ORDER)


def _module_checks(module: ModuleType) -> tuple[LemmaCheck, ...]:
    found: list[LemmaCheck] = []
    if hasattr(module, "CHECK"):
        found.append(module.CHECK)
    found.extend(getattr(module, "CHECKS", ()))
    if not found:
        raise LookupError(f"{module.__name__} defines neither CHECK nor CHECKS")
    for check in found:
        if not isinstance(check, LemmaCheck):
            raise TypeError(f"{module.__name__}: {check!r} is not a LemmaCheck")
    return tuple(found)


@functools.cache
def all_checks() -> tuple[LemmaCheck, ...]:
    """Every registered check, grouped by package then module name; names are unique."""
    checks: list[LemmaCheck] = []
    for package_name in PACKAGES:
        package = importlib.import_module(f"proofs.{package_name}")
        names = sorted(info.name for info in pkgutil.iter_modules(package.__path__) if not info.name.startswith("_"))
        for name in names:
            checks.extend(_module_checks(importlib.import_module(f"proofs.{package_name}.{name}")))
    seen: dict[str, LemmaCheck] = {}
    for check in checks:
        if check.name in seen:
            raise ValueError(f"duplicate lemma check name {check.name!r}")
        seen[check.name] = check
    for check in checks:
        if check.sibling is not None and check.sibling not in seen:
            raise ValueError(f"{check.name!r} names a sibling {check.sibling!r} that is not registered")
    return tuple(checks)


def get_check(name: str) -> LemmaCheck:
    """The check called ``name``."""
    for check in all_checks():
        if check.name == name:
            return check
    raise KeyError(name)


def checks_for_paper(paper: str) -> tuple[LemmaCheck, ...]:
    """The checks attributed to ``paper`` (a key of :data:`proofs._core.PAPERS`)."""
    return tuple(c for c in all_checks() if paper in c.papers)
