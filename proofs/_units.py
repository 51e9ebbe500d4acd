"""Dimensional analysis by scaling: is a bound invariant under a change of units?

A bound ``lhs <= rhs_1 + rhs_2 + ...`` that holds for every instance must scale like its
left-hand side under every change of units. We change the unit of the parameter space
(``theta -> c theta``) and of the loss (``loss -> a loss``); each symbol is substituted by its
scaled value (e.g. the diameter ``R -> c R``, the smoothness ``H -> a H / c^2``), and every term
must acquire the same factor ``a^i c^j`` as the left-hand side.
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

__all__ = ["C", "L", "scaling_exponents"]

#: Unit scale of the parameter space (theta -> C theta) and of the loss (loss -> L loss).
C = sp.Symbol("c_theta", positive=True)
L = sp.Symbol("a_loss", positive=True)


def scaling_exponents(term: sp.Expr, scaling: Mapping[sp.Symbol, sp.Expr]) -> tuple[sp.Expr, sp.Expr] | None:
    """Exponents ``(i, j)`` with ``term(scaled) = a^i c^j term``, or None if the term is not homogeneous."""
    ratio = sp.powsimp(sp.simplify(term.subs(scaling, simultaneous=True) / term), force=True)
    if ratio == 1:
        return (sp.Integer(0), sp.Integer(0))
    powers = ratio.as_powers_dict()
    if set(powers) - {L, C}:
        return None
    return (sp.sympify(powers.get(L, 0)), sp.sympify(powers.get(C, 0)))
