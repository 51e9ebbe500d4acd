"""Kinks of an expression and how an ordering of their terms resolves them.

The kinks are ``Min``, ``Max``, ``Abs``, ``Piecewise``, ``sign`` and ``Heaviside``.

Every kink is a comparison between two sub-expressions (:func:`kink_comparisons`); when the comparison is between two
*terms*, symbols or numbers (:func:`term_pair`), a cell that ranks those terms decides it, and :func:`resolve_kinks`
replaces the kink by its branch.

Examples
--------
>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> resolve_kinks(sp.Min(sp.Max(x, -1), 1), {sp.Integer(-1): 0, x: 1, sp.Integer(1): 2})
x
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import sympy as sp

from dpaudit.errors import DPAuditError
from dpaudit.verify.decide import exact_sign

__all__ = ["KINKS", "CaseSplitError", "Ranks", "branched_terms", "has_kinks", "kink_comparisons", "resolve_kinks", "term_pair"]

#: The ranks of a cell's terms: one mapping term -> rank per independent group of terms.
Ranks = Sequence[Mapping[sp.Expr, int]]

KINKS = (sp.Min, sp.Max, sp.Abs, sp.Piecewise, sp.sign, sp.Heaviside)

#: Largest number of cells a case split evaluates (each is a sympy sign decision).
MAX_CELLS = 400

_MAX_PIECES = 64


class CaseSplitError(DPAuditError, ValueError):
    """The kinks of an expression are not comparisons between terms (symbols or numbers), or too many."""


def has_kinks(expr: Any) -> bool:
    """Does ``expr`` contain ``Min``, ``Max``, ``Abs``, ``Piecewise``, ``sign`` or ``Heaviside``?"""
    return bool(sp.sympify(expr).has(*KINKS))


def _unique(items: Iterable[sp.Expr]) -> list[sp.Expr]:
    out: list[sp.Expr] = []
    for item in items:
        if not any(item == seen for seen in out):
            out.append(item)
    return out


def _pieces(expr: sp.Expr) -> list[sp.Expr]:
    """Every smooth expression ``expr`` can equal, one per choice of branch of its kinks (over-approximated)."""
    if not expr.has(*KINKS):
        return [expr]
    if isinstance(expr, (sp.Min, sp.Max)):
        out = _unique(p for a in expr.args for p in _pieces(a))
    elif isinstance(expr, sp.Abs):
        inner = _pieces(expr.args[0])
        out = _unique([*inner, *(-p for p in inner)])
    elif isinstance(expr, (sp.sign, sp.Heaviside)):
        out = [sp.Integer(-1), sp.Integer(0), sp.Rational(1, 2), sp.Integer(1)]
    elif isinstance(expr, sp.Piecewise):
        out = _unique(p for branch, _ in expr.args for p in _pieces(branch))
    else:
        choices = [_pieces(a) if isinstance(a, sp.Expr) else [a] for a in expr.args]
        total = int(np.prod([len(c) for c in choices]))
        if total > _MAX_PIECES:
            raise CaseSplitError(f"{expr} has {total} combinations of branches (more than {_MAX_PIECES})")
        out = _unique(expr.func(*combo) for combo in itertools.product(*choices))
    if len(out) > _MAX_PIECES:
        raise CaseSplitError(f"{expr} has {len(out)} branches (more than {_MAX_PIECES})")
    return out


def branched_terms(expr: Any) -> list[sp.Expr]:
    """The top-level kinks of a residual that the sign decider splits exactly by itself.

    A term ``c Abs(u)`` or ``c Max(...)`` with ``c < 0`` (or ``c Min(...)`` with ``c > 0``) of the sum is a minimum of
    its branches, so the sum is ``>= 0`` iff every branch is (:func:`~dpaudit.verify.decide_nonneg` tries all
    of them): a case split need not decide it. Only a few such terms are left to the decider (it branches two levels).
    """
    out = []
    for term in sp.Add.make_args(sp.sympify(expr)):
        coeff, rest = term.as_coeff_Mul()
        if (isinstance(rest, (sp.Abs, sp.Max)) and coeff.is_negative) or (isinstance(rest, sp.Min) and coeff.is_positive):
            out.append(rest)
    return out[:1]


def kink_comparisons(expr: Any, *, skip: Sequence[sp.Expr] = ()) -> list[tuple[sp.Expr, sp.Expr]]:
    """The comparisons ``(lhs, rhs)`` whose order decides which branch every kink of ``expr`` takes.

    ``Max(u, v)`` and ``Min(u, v)`` compare ``u`` with ``v``; ``Abs(u)``, ``sign(u)``, ``Heaviside(u)``
    compare ``u`` with 0; ``Piecewise`` compares the two sides of each relation in its conditions. A
    side that itself has kinks contributes each of its branches. The nodes in ``skip`` contribute no
    comparison of their own (their arguments' kinks still do).

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> sorted(map(str, kink_comparisons(sp.Min(sp.Max(x, -1), 1))))
    ['(-1, x)', '(1, -1)', '(1, x)']
    """
    expr = sp.sympify(expr)
    out: list[tuple[sp.Expr, sp.Expr]] = []

    def add(lhs: sp.Expr, rhs: sp.Expr) -> None:
        for p in _pieces(sp.sympify(lhs)):
            for q in _pieces(sp.sympify(rhs)):
                if not any((p, q) == c or (q, p) == c for c in out):
                    out.append((p, q))

    for node in sp.preorder_traversal(expr):
        if any(node == k for k in skip):
            continue
        if isinstance(node, (sp.Min, sp.Max)):
            for a, b in itertools.combinations(node.args, 2):
                add(a, b)
        elif isinstance(node, (sp.Abs, sp.sign, sp.Heaviside)):
            add(node.args[0], sp.Integer(0))
        elif isinstance(node, sp.Piecewise):
            for _, cond in node.args:
                for rel in cond.atoms(sp.core.relational.Relational):
                    add(rel.lhs, rel.rhs)
    return out


def term_pair(lhs: sp.Expr, rhs: sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Expr] | None:
    """``lhs - rhs`` as ``c (t1 - t2)``: returns ``(t1, t2, c)``.

    ``t1, t2`` are terms (symbols or numbers) and ``c`` a nonzero number; None when the comparison
    is between numbers (no kink).

    Raises
    ------
    CaseSplitError
        When the comparison is not between two terms (``x + y <= 1``, ``x^2 <= 1``, ``x <= 2y``).
    """
    diff = sp.expand(sp.sympify(lhs) - sp.sympify(rhs))
    symbols = sorted(diff.free_symbols, key=lambda s: s.name)
    if not symbols:
        return None
    why = f"the kink {lhs} vs {rhs} is not a comparison between two symbols or a symbol and a number"
    coeffs = {}
    for s in symbols:
        c = sp.diff(diff, s)
        if not c.is_number or c == 0:
            raise CaseSplitError(why)
        coeffs[s] = c
    rest = sp.expand(diff - sum(c * s for s, c in coeffs.items()))
    if rest.free_symbols:
        raise CaseSplitError(why)
    for s in symbols:
        if s.is_real is not True:
            raise CaseSplitError(f"the symbol {s} in the kink {lhs} vs {rhs} is not declared real")
    if len(symbols) == 1:
        (s,) = symbols
        return s, -rest / coeffs[s], coeffs[s]
    if len(symbols) == 2 and rest == 0 and sp.simplify(coeffs[symbols[0]] + coeffs[symbols[1]]) == 0:
        return symbols[0], symbols[1], coeffs[symbols[0]]
    raise CaseSplitError(why)


def _sign_in_cell(lhs: sp.Expr, rhs: sp.Expr, ranks: Ranks) -> int | None:
    """The sign of ``lhs - rhs`` in a cell whose terms have the given ranks, or None if the cell does not decide it.

    Terms of different groups are not ranked against each other; numbers are, by their values.
    """
    try:
        pair = term_pair(lhs, rhs)
    except CaseSplitError:
        return None
    if pair is None:
        return exact_sign(sp.sympify(lhs) - sp.sympify(rhs))
    t1, t2, c = pair
    group = next((g for g in ranks if t1 in g and t2 in g), None)
    c_sign = exact_sign(c)
    if group is None or c_sign is None:
        return None
    r1, r2 = group[t1], group[t2]
    return c_sign * (0 if r1 == r2 else (1 if r1 > r2 else -1))


def resolve_kinks(expr: Any, ranks: Mapping[sp.Expr, int] | Ranks) -> sp.Expr:
    """``expr`` with every kink the cell decides replaced by its branch (bottom-up, in the original symbols).

    A kink is decided when its comparison is between two ranked terms: then its sign is the sign of
    the terms' rank difference times a number's exact sign. Kinks the cell does not decide are kept.
    """
    if isinstance(ranks, Mapping):
        ranks = (ranks,)
    expr = sp.sympify(expr)
    if not expr.has(*KINKS) or not expr.args:
        return expr
    if isinstance(expr, sp.Piecewise):
        for branch, cond in expr.args:
            truth = _truth_in_cell(cond, ranks)
            if truth is None:
                break
            if truth:
                return resolve_kinks(branch, ranks)
        return expr
    args = [resolve_kinks(a, ranks) for a in expr.args]
    if isinstance(expr, (sp.Max, sp.Min)):
        want = 1 if isinstance(expr, sp.Max) else -1
        for cand in args:
            if all(o is cand or _sign_in_cell(cand, o, ranks) in (0, want) for o in args):
                return cand
        return expr.func(*args)
    if isinstance(expr, sp.Abs):
        sign = _sign_in_cell(args[0], sp.Integer(0), ranks)
        return args[0] * sign if sign is not None else sp.Abs(args[0])
    if isinstance(expr, sp.sign):
        sign = _sign_in_cell(args[0], sp.Integer(0), ranks)
        return sp.Integer(sign) if sign is not None else expr.func(*args)
    if isinstance(expr, sp.Heaviside):
        sign = _sign_in_cell(args[0], sp.Integer(0), ranks)
        if sign is None or (sign == 0 and len(args) == 1):
            return expr.func(*args)
        return sp.Integer(1) if sign > 0 else (sp.Integer(0) if sign < 0 else sp.sympify(args[1]))
    return expr.func(*args)


def _truth_in_cell(cond: Any, ranks: Ranks) -> bool | None:
    if cond in (sp.true, True):
        return True
    if cond in (sp.false, False):
        return False
    values = {}
    for rel in cond.atoms(sp.core.relational.Relational):
        lhs, rhs = resolve_kinks(rel.lhs, ranks), resolve_kinks(rel.rhs, ranks)
        sign = _sign_in_cell(lhs, rhs, ranks)
        if sign is None:
            return None
        if isinstance(rel, sp.Equality):
            values[rel] = sign == 0
        elif isinstance(rel, sp.Unequality):
            values[rel] = sign != 0
        elif isinstance(rel, sp.LessThan):
            values[rel] = sign <= 0
        elif isinstance(rel, sp.StrictLessThan):
            values[rel] = sign < 0
        elif isinstance(rel, sp.GreaterThan):
            values[rel] = sign >= 0
        else:
            values[rel] = sign > 0
    truth = cond.xreplace({k: sp.true if v else sp.false for k, v in values.items()})
    if truth in (sp.true, sp.false):
        return bool(truth)
    return None
