"""Discovery of the built-in lemma checks.

Every module under the paper packages (``common``, ``levy2021``, ``ghazi2023``, ``lowy2024``,
``ghazi2025``) whose name does not start with ``_`` defines either ``CHECK`` (one
:class:`~dpaudit.verify.LemmaCheck`) or ``CHECKS`` (a tuple, e.g. an erratum's printed statement
and its corrected sibling). :func:`all_checks` imports them and returns them in a fixed order.
"""

from __future__ import annotations

import functools

from dpaudit.proofs import PAPER_ORDER

from dpaudit.errors import UnknownName
from dpaudit.verify.discovery import checks_in_package
from dpaudit.verify.lemma import LemmaCheck

__all__ = ["PACKAGES", "all_checks", "checks_for_paper", "get_check"]

#: Sub-packages searched for checks, in the order the runner prints them.
PACKAGES: tuple[str, ...] = ("common", *PAPER_ORDER)


@functools.cache
def all_checks() -> tuple[LemmaCheck, ...]:
    """Every built-in check, grouped by package then module name; names are unique."""
    return checks_in_package("dpaudit.proofs", PACKAGES)


def get_check(name: str) -> LemmaCheck:
    """The built-in check called ``name``."""
    for check in all_checks():
        if check.name == name:
            return check
    raise UnknownName(name)


def checks_for_paper(paper: str) -> tuple[LemmaCheck, ...]:
    """The checks attributed to ``paper`` (a key of :data:`dpaudit.proofs.PAPERS`)."""
    return tuple(c for c in all_checks() if paper in c.papers)
