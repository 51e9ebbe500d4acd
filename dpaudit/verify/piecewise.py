"""Case splits of expressions with kinks (``Min``, ``Max``, ``Abs``, ``Piecewise``, ``sign``, ``Heaviside``).

Every kink of an expression is a comparison between two of its sub-expressions: which argument of
a ``Max`` is largest, the sign of an ``Abs`` argument, a ``Piecewise`` condition. When each such
comparison is between two *terms*, real symbols or numbers (``x <= 1``, ``x <= y``, ``a <= x``,
``-x <= 1`` read as ``-1 <= x``), the weak ordering of the terms decides every kink. So the cases
are the admissible weak orderings of the terms (ties included), one *cell* each, and in a cell sympy
evaluates every kink from its definition. This generalises the chains of
:meth:`~dpaudit.verify.Region.orders` (which need one free anchor) to terms bracketed by several
numbers: a cell ``c < v_1 < ... < v_k < c'`` between two numbers is written with positive gaps
``u_0 .. u_k`` as ``v_j = c + (c' - c)(u_0 + ... + u_{j-1}) / (u_0 + ... + u_k)``, which reaches
every point of the open cell (take ``u_j`` = the j-th gap), and :meth:`Region.verify` checks it.
The cells cover the domain by construction (one per ordering), and :func:`~dpaudit.verify.coverage`
checks that again.

Examples
--------
>>> import sympy as sp
>>> from dpaudit.verify import Proof
>>> from dpaudit.verify.piecewise import prove_by_cases
>>> x, y = sp.symbols("x y", real=True)
>>> clamp = lambda t: sp.Min(sp.Max(t, -1), 1)
>>> proof = Proof("example/clamp")
>>> prove_by_cases(proof, "|clamp(x) - clamp(y)| <= |x - y|", sp.Abs(x - y) - sp.Abs(clamp(x) - clamp(y)))
<Verdict.PROVED: 'proved'>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy as sp

from dpaudit.verify.cells import MAX_CELLS, OrderedCell, cell_points, ordering_cells, product_cells
from dpaudit.verify.decide import exact_sign
from dpaudit.verify.kinks import (
    KINKS,
    CaseSplitError,
    branched_terms,
    has_kinks,
    kink_comparisons,
    resolve_kinks,
    term_pair,
)
from dpaudit.verify.proof import Proof
from dpaudit.verify.regions import eq, le, lt
from dpaudit.verify.verdict import Verdict

__all__ = [
    "KINKS",
    "MAX_CELLS",
    "CaseSplitError",
    "OrderedCell",
    "case_split",
    "cell_points",
    "has_kinks",
    "kink_comparisons",
    "ordering_cells",
    "prove_by_cases",
    "resolve_kinks",
    "split_terms",
]


def split_terms(comparisons: Sequence[tuple[sp.Expr, sp.Expr]], domain: Sequence[Any] = ()) -> tuple[list[sp.Expr], list[Any]]:
    """The terms a case split orders (symbols and numbers), and the domain as relations between terms.

    ``0`` is added when a symbol carries a sign assumption (``positive=True``...), so that the
    orderings respect it.

    Raises
    ------
    CaseSplitError
        When a comparison or a domain relation is not between two terms.
    """
    terms: list[sp.Expr] = []

    def add(t: sp.Expr) -> None:
        t = sp.sympify(t)
        if not any(t == u for u in terms):
            terms.append(t)

    for lhs, rhs in comparisons:
        try:
            pair = term_pair(lhs, rhs)
        except CaseSplitError:
            continue  # not decided by the cells: left to the sign decider (a Max or Abs it can bound)
        if pair is not None:
            add(pair[0])
            add(pair[1])
    relations = []
    for cond in domain:
        if not isinstance(cond, sp.core.relational.Relational):
            raise CaseSplitError(f"a domain condition must be a sympy relation such as a <= b, got {cond!r}")
        if isinstance(cond, sp.Unequality):
            continue  # not an order between two terms: the cells cover more than the domain (still a proof)
        lo, hi = (cond.rhs, cond.lhs) if isinstance(cond, (sp.GreaterThan, sp.StrictGreaterThan)) else (cond.lhs, cond.rhs)
        pair = term_pair(lo, hi)
        if pair is None:
            continue
        t1, t2, c = pair
        add(t1)
        add(t2)
        # lo - hi = c (t1 - t2), so lo <= hi iff t1 <= t2 when c > 0, and t2 <= t1 when c < 0
        c_sign = exact_sign(c)
        if c_sign is None:
            raise CaseSplitError(f"the sign of the coefficient {c} in {cond} is not certified")
        a, b = (t1, t2) if c_sign == 1 else (t2, t1)
        if isinstance(cond, sp.Equality):
            relations.append(eq(a, b))
        elif isinstance(cond, (sp.StrictLessThan, sp.StrictGreaterThan)):
            relations.append(lt(a, b))
        else:
            relations.append(le(a, b))
    if any(t.is_Symbol and (t.is_positive is not None or t.is_nonnegative is not None) for t in terms):
        add(sp.Integer(0))
    return terms, relations


def _groups(terms: list[sp.Expr], links: list[tuple[sp.Expr, sp.Expr]]) -> list[list[sp.Expr]]:
    """Connected groups of the symbolic terms (linked by a comparison or a domain relation).

    Numbers join every group they are compared with (their order is fixed, so the groups can be
    ordered independently).
    """
    symbols = [t for t in terms if not t.is_number]
    parent = {t: t for t in symbols}

    def root(t: sp.Expr) -> sp.Expr:
        while parent[t] != t:
            t = parent[t]
        return t

    for a, b in links:
        if a in parent and b in parent:
            parent[root(a)] = root(b)
    groups: dict[sp.Expr, list[sp.Expr]] = {}
    for t in symbols:
        groups.setdefault(root(t), []).append(t)
    out = []
    for members in groups.values():
        numbers = {b for a, b in links if a in members and b.is_number} | {a for a, b in links if b in members and a.is_number}
        zero = [sp.Integer(0)] if any(t.is_positive is not None or t.is_nonnegative is not None for t in members) else []
        out.append(members + sorted(numbers | set(zero), key=lambda v: float(v)))
    return out


def case_split(residual: Any, domain: Sequence[Any] = (), *, max_cells: int = MAX_CELLS) -> tuple[list[OrderedCell], list[Any]]:
    """The cells deciding the kinks of ``residual`` on ``domain``, and the domain as relations between terms.

    Terms that no kink or domain relation links are ordered in separate groups and the cells are the product of
    the groups' cells (:func:`~dpaudit.verify.cells.product_cells`).

    Raises
    ------
    CaseSplitError
        When no kink is a comparison between terms, or the split has too many cells.
    """
    residual = sp.sympify(residual)
    comparisons = kink_comparisons(residual, skip=branched_terms(residual))
    if not comparisons:
        comparisons = kink_comparisons(residual)
    terms, relations = split_terms(comparisons, domain)
    if len(terms) < 2:
        raise CaseSplitError(f"nothing to split: no kink of {residual} compares two terms (symbols or numbers)")
    links = []
    for lhs, rhs in comparisons:
        try:
            pair = term_pair(lhs, rhs)
        except CaseSplitError:
            continue
        if pair is not None:
            links.append((pair[0], pair[1]))
    links += [(sp.sympify(r.lhs), sp.sympify(r.rhs)) for r in relations]
    groups = [g for g in _groups(terms, links) if len(g) >= 2]
    if not groups:
        raise CaseSplitError(f"nothing to split: no kink of {residual} compares two terms (symbols or numbers)")
    factors: list[list[OrderedCell]] = []
    for group in groups:
        inside = [r for r in relations if sp.sympify(r.lhs) in group and sp.sympify(r.rhs) in group]
        factors.append(ordering_cells(group, inside, max_cells=max_cells))
    cells = factors[0] if len(factors) == 1 else product_cells(factors, max_cells=max_cells)
    return cells, relations


def prove_by_cases(proof: Proof, label: str, residual: Any, *, domain: Sequence[Any] = (),
                   max_cells: int = MAX_CELLS) -> Verdict:
    """Record on ``proof`` that ``residual >= 0`` on ``domain``, by cases.

    One case per ordering of the terms that decide its kinks (see the module docstring).

    Returns the verdict of :meth:`~dpaudit.verify.Proof.cases`.

    Raises
    ------
    CaseSplitError
        When the kinks are not comparisons between terms, or the split has too many cells (the
        caller turns this into UNDECIDED with the reason).
    """
    cells, relations = case_split(residual, domain, max_cells=max_cells)
    return proof.cases(label, residual, cells, domain=relations)
