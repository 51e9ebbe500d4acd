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

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from dpaudit.verify.decide import exact_sign
from dpaudit.verify.proof import Proof
from dpaudit.verify.regions import (
    MAX_COVERAGE_TERMS,
    Region,
    _known_relations,
    eq,
    le,
    lt,
    orderings,
)
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

#: The functions whose value switches between smooth pieces.
KINKS = (sp.Min, sp.Max, sp.Abs, sp.Piecewise, sp.sign, sp.Heaviside)

#: Largest number of cells a case split evaluates (each is a sympy sign decision).
MAX_CELLS = 400

_MAX_PIECES = 64


class CaseSplitError(ValueError):
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


def kink_comparisons(expr: Any) -> list[tuple[sp.Expr, sp.Expr]]:
    """The comparisons ``(lhs, rhs)`` whose order decides which branch every kink of ``expr`` takes.

    ``Max(u, v)`` and ``Min(u, v)`` compare ``u`` with ``v``; ``Abs(u)``, ``sign(u)``, ``Heaviside(u)``
    compare ``u`` with 0; ``Piecewise`` compares the two sides of each relation in its conditions. A
    side that itself has kinks contributes each of its branches.

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


def _term_pair(lhs: sp.Expr, rhs: sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Expr] | None:
    """``lhs - rhs`` as ``c (t1 - t2)`` with terms ``t1, t2`` (symbols or numbers) and ``c`` a nonzero
    number: returns ``(t1, t2, c)``; None when the comparison is between numbers (no kink).

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
            pair = _term_pair(lhs, rhs)
        except CaseSplitError:
            continue  # not decided by the cells: left to the sign decider (a Max or Abs it can bound)
        if pair is not None:
            add(pair[0])
            add(pair[1])
    relations = []
    for cond in domain:
        if not isinstance(cond, sp.core.relational.Relational):
            raise CaseSplitError(f"a domain condition must be a sympy relation such as a <= b, got {cond!r}")
        lo, hi = (cond.rhs, cond.lhs) if isinstance(cond, (sp.GreaterThan, sp.StrictGreaterThan)) else (cond.lhs, cond.rhs)
        pair = _term_pair(lo, hi)
        if pair is None:
            continue
        t1, t2, c = pair
        add(t1)
        add(t2)
        # lo - hi = c (t1 - t2), so lo <= hi iff t1 <= t2 when c > 0, and t2 <= t1 when c < 0
        a, b = (t1, t2) if bool(c > 0) else (t2, t1)
        if isinstance(cond, sp.Equality):
            relations.append(eq(a, b))
        elif isinstance(cond, (sp.StrictLessThan, sp.StrictGreaterThan)):
            relations.append(lt(a, b))
        else:
            relations.append(le(a, b))
    if any(t.is_Symbol and (t.is_positive is not None or t.is_nonnegative is not None) for t in terms):
        add(sp.Integer(0))
    return terms, relations


def _atoms(relations: Sequence[Any], index: Mapping[sp.Expr, int]) -> list[tuple[int, int, str]]:
    out = []
    for rel in relations:
        if isinstance(rel, sp.Equality):
            out.append((index[sp.sympify(rel.lhs)], index[sp.sympify(rel.rhs)], "eq"))
        else:
            kind = "lt" if isinstance(rel, sp.StrictLessThan) else "le"
            out.append((index[sp.sympify(rel.lhs)], index[sp.sympify(rel.rhs)], kind))
    return out


def ordering_cells(terms: Sequence[Any], domain: Sequence[Any] = (), *, max_cells: int = MAX_CELLS) -> list[Region]:
    """One cell per weak ordering of ``terms`` allowed by ``domain`` and the terms' known order.

    ``domain`` holds relations between the terms (``le``, ``lt``, ``eq``). Each cell is a
    :class:`~dpaudit.verify.Region` with strict conditions between consecutive levels and equalities
    within a level, parametrised exactly (see the module docstring).

    Raises
    ------
    CaseSplitError
        With more than ``max_cells`` cells, or more terms than :data:`~dpaudit.verify.regions.MAX_COVERAGE_TERMS`.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> [c.name for c in ordering_cells([x, -1, 1])]
    ['-1 < 1 < x', '-1 < x < 1', '-1 < x = 1', 'x < -1 < 1', 'x = -1 < 1']
    """
    terms = [sp.sympify(t) for t in terms]
    if len(terms) > MAX_COVERAGE_TERMS:
        raise CaseSplitError(f"{len(terms)} terms to order (more than {MAX_COVERAGE_TERMS}): {terms}")
    index = {t: i for i, t in enumerate(terms)}
    known = [(index[a], index[b], k) for a, b, k in _known_relations(terms)]
    constraints = known + _atoms(domain, index)
    cells = []
    for rank in orderings(len(terms)):
        if not all(_rank_holds(a, rank) for a in constraints):
            continue
        levels: dict[int, list[sp.Expr]] = {}
        for i, r in rank.items():
            levels.setdefault(r, []).append(terms[i])
        cells.append(_cell([levels[r] for r in sorted(levels)], {terms[i]: r for i, r in rank.items()}))
        if len(cells) > max_cells:
            raise CaseSplitError(f"more than {max_cells} cells (orderings of {terms})")
    return sorted(cells, key=lambda c: c.name)


def _rank_holds(atom: tuple[int, int, str], rank: Mapping[int, int]) -> bool:
    a, b, kind = atom
    return rank[a] == rank[b] if kind == "eq" else (rank[a] < rank[b] if kind == "lt" else rank[a] <= rank[b])


def _cell(levels: list[list[sp.Expr]], ranks: Mapping[sp.Expr, int]) -> OrderedCell:
    """The cell ``levels[0] < levels[1] < ...`` (terms within a level equal), exactly parametrised."""
    reps = []
    for level in levels:
        numbers = [t for t in level if t.is_number]
        reps.append(numbers[0] if numbers else level[0])
    name = " < ".join(" = ".join(str(t) for t in sorted(level, key=lambda t: (bool(t.is_number), str(t)))) for level in levels)
    conditions: list[Any] = []
    for level, rep in zip(levels, reps, strict=True):
        conditions.extend(eq(rep, t) for t in level if t is not rep and t != rep)
    conditions.extend(lt(reps[i], reps[i + 1]) for i in range(len(reps) - 1))
    value: dict[int, sp.Expr] = {}
    inverse: dict[sp.Symbol, sp.Expr] = {}
    numbered = [i for i, rep in enumerate(reps) if rep.is_number]

    def slack() -> sp.Dummy:
        return sp.Dummy(f"u{len(inverse)}", positive=True)

    if not numbered:
        value[0] = reps[0]  # the free anchor keeps its own assumptions
        for i in range(1, len(reps)):
            s = slack()
            inverse[s] = reps[i] - reps[i - 1]
            value[i] = value[i - 1] + s
    else:
        for i in numbered:
            value[i] = reps[i]
        for i in range(numbered[0] - 1, -1, -1):  # below the smallest number
            s = slack()
            inverse[s] = reps[i + 1] - reps[i]
            value[i] = value[i + 1] - s
        for i in range(numbered[-1] + 1, len(reps)):  # above the largest number
            s = slack()
            inverse[s] = reps[i] - reps[i - 1]
            value[i] = value[i - 1] + s
        for a, b in itertools.pairwise(numbered):  # between two numbers: positive gaps, normalised
            if b - a == 1:
                continue
            gaps = []
            for j in range(a, b):
                u = slack()
                inverse[u] = reps[j + 1] - reps[j]
                gaps.append(u)
            total = sp.Add(*gaps)
            for j in range(a + 1, b):
                value[j] = reps[a] + (reps[b] - reps[a]) * sp.Add(*gaps[: j - a]) / total
    substitution = {}
    for i, level in enumerate(levels):
        for t in level:
            if isinstance(t, sp.Symbol) and not (t is value[i] or t == value[i]):
                substitution[t] = value[i]
    return OrderedCell(name, tuple(conditions), substitution, inverse, tuple(ranks.items()))


def _sign_in_cell(lhs: sp.Expr, rhs: sp.Expr, ranks: Mapping[sp.Expr, int]) -> int | None:
    """The sign of ``lhs - rhs`` in a cell whose terms have the given ranks, or None if the cell does not decide it."""
    try:
        pair = _term_pair(lhs, rhs)
    except CaseSplitError:
        return None
    if pair is None:
        return exact_sign(sp.sympify(lhs) - sp.sympify(rhs))
    t1, t2, c = pair
    if t1 not in ranks or t2 not in ranks:
        return None
    c_sign = exact_sign(c)
    if c_sign is None:
        return None
    r1, r2 = ranks[t1], ranks[t2]
    return c_sign * (0 if r1 == r2 else (1 if r1 > r2 else -1))


def resolve_kinks(expr: Any, ranks: Mapping[sp.Expr, int]) -> sp.Expr:
    """``expr`` with every kink the cell decides replaced by its branch (bottom-up, in the original symbols).

    A kink is decided when its comparison is between two ranked terms: then its sign is the sign of
    the terms' rank difference times a number's exact sign. Kinks the cell does not decide are kept.
    """
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


def _truth_in_cell(cond: Any, ranks: Mapping[sp.Expr, int]) -> bool | None:
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


@dataclass(frozen=True)
class OrderedCell(Region):
    """A cell of a case split: a :class:`Region` that also knows the rank of each of its terms, and
    resolves the kinks those ranks decide before writing an expression in its slack variables."""

    ranks: tuple[tuple[sp.Expr, int], ...] = ()

    def apply(self, expr: Any) -> sp.Expr:
        return super().apply(resolve_kinks(expr, dict(self.ranks)))


def cell_points(region: Region, symbols: Iterable[sp.Symbol], rng: np.random.Generator, count: int = 4) -> list[dict[sp.Symbol, sp.Expr]]:
    """Exact points of ``region`` (rational slack values), as values of ``symbols`` (free ones set to
    0, or 1 when they must be positive)."""
    slacks = sorted(region.inverse, key=lambda s: s.name)
    choices = [[sp.Integer(1)] * len(slacks)]
    for _ in range(count - 1):
        choices.append([sp.Rational(int(k), 4) for k in rng.integers(1, 17, size=len(slacks))])
    out = []
    for vals in choices:
        at = dict(zip(slacks, vals, strict=True))
        point = {}
        for s in symbols:
            v = sp.sympify(region.substitution.get(s, s)).xreplace(at)
            free = {f: (sp.Integer(1) if f.is_positive or f.is_nonzero else sp.Integer(0)) for f in v.free_symbols}
            point[s] = sp.nsimplify(v.xreplace(free)) if v.free_symbols else v
        anchors = {f: (sp.Integer(1) if f.is_positive else sp.Integer(0)) for v in point.values() for f in sp.sympify(v).free_symbols}
        out.append({s: sp.sympify(v).xreplace(anchors) for s, v in point.items()})
    return out


def case_split(residual: Any, domain: Sequence[Any] = (), *, max_cells: int = MAX_CELLS) -> tuple[list[OrderedCell], list[Any]]:
    """The cells deciding the kinks of ``residual`` on ``domain``, and the domain as relations between terms.

    Raises
    ------
    CaseSplitError
        When no kink is a comparison between terms, or the split has too many cells.
    """
    residual = sp.sympify(residual)
    terms, relations = split_terms(kink_comparisons(residual), domain)
    if len(terms) < 2:
        raise CaseSplitError(f"nothing to split: no kink of {residual} compares two terms (symbols or numbers)")
    return ordering_cells(terms, relations, max_cells=max_cells), relations


def prove_by_cases(proof: Proof, label: str, residual: Any, *, domain: Sequence[Any] = (),
                   max_cells: int = MAX_CELLS) -> Verdict:
    """Record on ``proof`` that ``residual >= 0`` on ``domain``, by one case per ordering of the terms
    that decide its kinks (see the module docstring).

    Returns the verdict of :meth:`~dpaudit.verify.Proof.cases`.

    Raises
    ------
    CaseSplitError
        When the kinks are not comparisons between terms, or the split has too many cells (the
        caller turns this into UNDECIDED with the reason).
    """
    cells, relations = case_split(residual, domain, max_cells=max_cells)
    return proof.cases(label, residual, cells, domain=relations)
