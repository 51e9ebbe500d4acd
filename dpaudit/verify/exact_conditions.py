"""Exact truth of the conditions a proof step is given.

Booleans, relations between closed-form numbers, a goal's sides, a residual certified non-negative, and smoothness
from the kernel's whitelist.

Helpers of :class:`~dpaudit.verify.Proof` (:mod:`dpaudit.verify.proof`, :mod:`dpaudit.verify.fact_steps`); every sign
is decided by the trusted kernel (:mod:`dpaudit.verify.kernel`), never by sympy's assumptions or a float.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy as sp

from dpaudit.errors import ArgumentTypeError
from dpaudit.verify.decide import decide_nonneg, decide_zero, decision, exact_sign
from dpaudit.verify.kernel import NotSmooth, c1_conditions
from dpaudit.verify.verdict import Verdict

__all__ = ["certified_nonneg", "condition_holds", "exact_truth", "goal_sides", "monotone_nonneg_from", "smooth_everywhere",
           "trivial_residual"]


def trivial_residual(expr: sp.Expr, zero: bool) -> bool:
    """A residual handed over as a literal number: the caller decided it before the step did anything."""
    return bool(expr.is_Number)


def exact_truth(owner: str, holds: Any) -> bool:
    """``holds`` as a bool: a Python bool, a sympy boolean, or a relation between closed-form numbers (decided by the kernel).

    numpy booleans are refused (they come from floating-point comparisons).
    """
    if isinstance(holds, bool):
        return holds
    if isinstance(holds, sp.logic.boolalg.BooleanAtom):
        return bool(holds)
    if isinstance(holds, sp.core.relational.Relational) and not holds.free_symbols:
        truth = condition_holds(owner, holds)
        if truth or condition_holds(owner, holds.negated):
            return truth
        raise ArgumentTypeError(f"{owner}: the kernel cannot certify {holds} either way")
    raise ArgumentTypeError(f"{owner}: an exact fact must be a Python bool or a sympy boolean computed exactly "
                    f"(rationals, sympy), got {type(holds).__name__}; a numpy comparison is floating-point: "
                    "use Proof.instance or numeric_le for finite-instance checks")


def condition_holds(owner: str, value: Any) -> bool:
    """A hypothesis at a counterexample, as a bool.

    An exact boolean, a relation between closed forms, or a closed-form number that must be ``>= 0``.
    """
    if isinstance(value, bool | sp.logic.boolalg.BooleanAtom):
        return bool(value)
    if isinstance(value, sp.core.relational.Relational) and not isinstance(value, sp.Equality | sp.Unequality):
        lo, hi, _ = goal_sides(value)
        strict = isinstance(value, sp.StrictLessThan | sp.StrictGreaterThan)
        sign = exact_sign(hi - lo)
        return sign is not None and (sign > 0 or (sign == 0 and not strict))
    if isinstance(value, sp.Equality):
        return exact_sign(value.lhs - value.rhs) == 0
    if isinstance(value, int | Fraction | sp.Basic):
        sign = exact_sign(sp.sympify(value))
        return sign is not None and sign >= 0
    return exact_truth(owner, value)


def goal_sides(goal: Any) -> tuple[sp.Expr, sp.Expr, str]:
    """``(lo, hi, kind)`` of a relation ``lo <= hi`` (``kind="le"``; strict or reversed alike) or ``Eq`` (``"eq"``)."""
    if isinstance(goal, sp.Equality):
        return sp.sympify(goal.lhs), sp.sympify(goal.rhs), "eq"
    if isinstance(goal, (sp.LessThan, sp.StrictLessThan)):
        return sp.sympify(goal.lhs), sp.sympify(goal.rhs), "le"
    if isinstance(goal, (sp.GreaterThan, sp.StrictGreaterThan)):
        return sp.sympify(goal.rhs), sp.sympify(goal.lhs), "le"
    raise ArgumentTypeError(f"the goal must be a sympy relation such as a <= b, got {goal!r}")


def certified_nonneg(residual: sp.Expr, certificate: sp.Expr | None) -> Verdict:
    """``residual >= 0``, through a certificate or decided directly.

    Through ``certificate``: equal to it (identity decided by the kernel) and ``certificate >= 0``.
    """
    if certificate is not None and decide_zero(residual - certificate) is Verdict.PROVED \
            and decide_nonneg(certificate) is Verdict.PROVED:
        return Verdict.PROVED
    return decide_nonneg(residual)


def smooth_everywhere(expr: sp.Expr, var: sp.Symbol, order: int = 1) -> bool:
    """Is ``expr`` C^order in ``var`` on the whole range of ``var`` (its assumptions)?

    From the kernel's whitelist of C^1 functions (:func:`~dpaudit.verify.kernel.c1_conditions`), with every
    condition proved.
    """
    try:
        for k in range(order):
            conditions = c1_conditions(sp.diff(expr, var, k))
            if not all(decision(c.lhs - c.rhs if isinstance(c, sp.StrictGreaterThan) else sp.Abs(c.lhs - c.rhs),
                                ">").verdict is Verdict.PROVED for c in conditions):
                return False
    except NotSmooth:
        return False
    return True


def monotone_nonneg_from(expr: sp.Expr, var: sp.Symbol, lower: sp.Expr, depth: int) -> Verdict:
    """``expr(lower) >= 0`` and ``expr' >= 0`` on ``[lower, oo)`` (expr C^1 there, by the kernel's whitelist)."""
    shift = sp.Dummy(f"{var.name}_shift", nonnegative=True)  # a Dummy: never equal to another symbol of expr
    moved = expr.subs(var, lower + shift)
    start = decide_nonneg(moved.subs(shift, 0))
    if start is not Verdict.PROVED or not smooth_everywhere(moved, shift):
        return Verdict.UNDECIDED
    slope = sp.diff(moved, shift)
    if decide_nonneg(slope) is Verdict.PROVED:
        return Verdict.PROVED
    if depth <= 1:
        return Verdict.UNDECIDED
    return monotone_nonneg_from(slope, shift, sp.Integer(0), depth - 1)
