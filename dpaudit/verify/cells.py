"""Cells of a case split: one per weak ordering of the terms, parametrised exactly, and products of them.

A cell ``c < v_1 < ... < v_k < c'`` between two numbers is written with positive gaps ``u_0 .. u_k`` as
``v_j = c + (c' - c)(u_0 + ... + u_{j-1}) / (u_0 + ... + u_k)``, which reaches every point of the open cell (take
``u_j`` = the j-th gap); terms below the smallest number or above the largest are reached by positive slacks
from it, and without numbers the first term is a free anchor. :meth:`~dpaudit.verify.Region.verify` checks each
parametrisation. Terms in independent groups (no kink compares them) are ordered separately and the cells are the
product (:func:`product_cells`); :func:`~dpaudit.verify.coverage` then checks each factor.

Examples
--------
>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> [c.name for c in ordering_cells([x, -1, 1])]
['-1 < 1 < x', '-1 < x < 1', '-1 < x = 1', 'x < -1 < 1', 'x = -1 < 1']
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from dpaudit.verify.kinks import CaseSplitError, resolve_kinks
from dpaudit.verify.regions import MAX_COVERAGE_TERMS, Region, _known_relations, eq, lt, orderings

__all__ = ["MAX_CELLS", "OrderedCell", "cell_points", "ordering_cells", "product_cells"]

#: Largest number of cells a case split evaluates (each is a sympy sign decision).
MAX_CELLS = 400

@dataclass(frozen=True)
class OrderedCell(Region):
    """A cell of a case split: a :class:`Region` that also knows the rank of each of its terms.

    It resolves the kinks those ranks decide before writing an expression in its slack variables.
    """

    ranks: tuple[tuple[tuple[sp.Expr, int], ...], ...] = ()
    factors: tuple[Region, ...] = field(default=(), repr=False)

    @property
    def rank_maps(self) -> list[dict[sp.Expr, int]]:
        """One mapping term -> rank per independent group of terms."""
        return [dict(group) for group in self.ranks]

    def apply(self, expr: Any) -> sp.Expr:
        """Substitute on the cell: kinks (``Max``, ``Min``, ``Abs``) resolved by the cell's ranks first."""
        return super().apply(resolve_kinks(expr, self.rank_maps))


def _atoms(relations: Sequence[Any], index: Mapping[sp.Expr, int]) -> list[tuple[int, int, str]]:
    out = []
    for rel in relations:
        if isinstance(rel, sp.Equality):
            out.append((index[sp.sympify(rel.lhs)], index[sp.sympify(rel.rhs)], "eq"))
        else:
            kind = "lt" if isinstance(rel, sp.StrictLessThan) else "le"
            out.append((index[sp.sympify(rel.lhs)], index[sp.sympify(rel.rhs)], kind))
    return out


def ordering_cells(terms: Sequence[Any], domain: Sequence[Any] = (), *, max_cells: int = MAX_CELLS) -> list[OrderedCell]:
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
    cells: list[OrderedCell] = []
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
    return OrderedCell(name, tuple(conditions), substitution, inverse, (tuple(ranks.items()),))


def product_cells(factors: Sequence[Sequence[OrderedCell]], *, max_cells: int = MAX_CELLS) -> list[OrderedCell]:
    """Every combination of one cell per factor, as one cell.

    The factors order disjoint groups of symbols (numbers may be shared, their order is fixed); the
    combined cell's conditions, parametrisation and ranks are the union of its factors'.

    Raises
    ------
    CaseSplitError
        With more than ``max_cells`` combinations.
    """
    total = int(np.prod([len(f) for f in factors]))
    if total > max_cells:
        raise CaseSplitError(f"more than {max_cells} cells ({' x '.join(str(len(f)) for f in factors)} orderings of independent groups)")
    out = []
    for combo in itertools.product(*factors):
        substitution: dict[sp.Symbol, sp.Expr] = {}
        inverse: dict[sp.Symbol, sp.Expr] = {}
        for cell in combo:
            substitution.update(cell.substitution)
            inverse.update(cell.inverse)
        out.append(OrderedCell("; ".join(c.name for c in combo), tuple(itertools.chain(*(c.conditions for c in combo))),
                               substitution, inverse, tuple(g for c in combo for g in c.ranks), tuple(combo)))
    return out


def cell_points(region: Region, symbols: Iterable[sp.Symbol], rng: np.random.Generator, count: int = 4) -> list[dict[sp.Symbol, sp.Expr]]:
    """Exact points of ``region`` (rational slack values), as values of ``symbols``.

    Free symbols are set to 0, or 1 when they must be positive.
    """
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
