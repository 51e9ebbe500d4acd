"""Small helpers shared by several of the papers' checks."""

from __future__ import annotations

from typing import Any

import sympy as sp

__all__ = ["uniform_expectation"]


def uniform_expectation(expr: Any, var: sp.Symbol) -> sp.Expr:
    """``E[expr]`` for ``var`` uniform on ``[-1, 1]`` (the prior of the fingerprinting lower bounds)."""
    return sp.integrate(expr, (var, -1, 1)) / 2
