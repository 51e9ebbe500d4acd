"""Case splits over the orderings that decide an expression's kinks: the cells are exact (their parametrisation reaches
them, kinks resolve to the right branch), they cover the domain, and weakening a statement loses PROVED."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy as sp

from dpaudit.bounds import check_inequality
from dpaudit.verify import CaseSplitError, Proof, Verdict, coverage, le, prove_by_cases
from dpaudit.verify.piecewise import (
    case_split,
    cell_points,
    kink_comparisons,
    ordering_cells,
    resolve_kinks,
    split_terms,
)

X, Y, A, B = sp.symbols("x y a b", real=True)
P = sp.Symbol("p", positive=True)
CLAMP = lambda t: sp.Min(sp.Max(t, -1), 1)  # noqa: E731
HUBER = lambda t: sp.Piecewise((t**2 / 2, sp.Abs(t) <= 1), (sp.Abs(t) - sp.Rational(1, 2), True))  # noqa: E731


def _holds(condition, point) -> bool:
    gap = sp.sympify(condition.rhs - condition.lhs).subs(point)
    return gap == 0 if isinstance(condition, sp.Equality) else bool(gap > 0)


@pytest.mark.parametrize("expr", [sp.Abs(X - Y) - sp.Abs(CLAMP(X) - CLAMP(Y)), sp.Abs(HUBER(X) - HUBER(Y)),
                                  sp.Max(X, Y) - sp.Min(X, A) + sp.sign(Y - A) + sp.Heaviside(X)])
def test_verify_piecewise_cells_are_exact_and_cover(expr, rng):
    cells, relations = case_split(expr)
    assert coverage(cells, relations)[0] is Verdict.PROVED
    f = sp.lambdify(sorted(expr.free_symbols, key=str), expr, "mpmath")
    for cell in cells:
        assert cell.verify() == (True, "")
        resolved = resolve_kinks(expr, cell.rank_maps)
        for point in cell_points(cell, sorted(expr.free_symbols, key=str), rng, count=3):
            syms = sorted(expr.free_symbols, key=str)
            vals = [point[s] for s in syms]
            # the point lies in the cell: every condition holds exactly
            assert all(_holds(c, point) for c in cell.conditions), (cell.name, point)
            # the resolved branch equals the expression there
            assert sp.simplify(resolved.subs(point) - expr.subs(point)) == 0, (cell.name, point)
            assert abs(float(f(*[float(v) for v in vals])) - float(expr.subs(point))) < 1e-9


def test_verify_piecewise_counts_and_domain():
    assert len(ordering_cells([X, -1, 1])) == 5  # below, at -1, between, at 1, above
    assert len(ordering_cells([X, Y])) == 3
    cells = ordering_cells([X, A, B], [le(A, B)])
    assert coverage(cells, [le(A, B)])[0] is Verdict.PROVED and len(cells) == 8  # 13 weak orders, 5 with b < a
    # a positive symbol is ordered against 0
    terms, _ = split_terms(kink_comparisons(sp.Abs(P - X)))
    assert sp.Integer(0) in terms


def test_verify_piecewise_refuses_what_it_cannot_split():
    with pytest.raises(CaseSplitError, match="compares two terms"):
        case_split(sp.Max(X + Y, 1))
    with pytest.raises(CaseSplitError, match="more than"):
        ordering_cells(list(sp.symbols("t0:8", real=True)))


def _cases(residual, drop: int | None = None, domain=()):
    def run(proof: Proof):
        cells, relations = case_split(residual, domain)
        if drop is not None:
            cells = cells[:drop] + cells[drop + 1:]
        proof.cases("residual >= 0", residual, cells, domain=relations)
    return run


MUTATIONS = {
    "constant": (_cases(sp.Abs(X - Y) - sp.Abs(CLAMP(X) - CLAMP(Y))),
                 _cases(sp.Abs(X - Y) / 2 - sp.Abs(CLAMP(X) - CLAMP(Y)))),
    "direction": (_cases(sp.Abs(X - Y) - sp.Abs(CLAMP(X) - CLAMP(Y))),
                  _cases(sp.Abs(CLAMP(X) - CLAMP(Y)) - sp.Abs(X - Y))),
    "dropped cell": (_cases(sp.Abs(X - Y) - sp.Abs(CLAMP(X) - CLAMP(Y))),
                     _cases(sp.Abs(X - Y) - sp.Abs(CLAMP(X) - CLAMP(Y)), drop=7)),
    "dropped domain": (_cases(B - sp.Min(sp.Max(X, A), B) + 0 * Y, domain=[le(A, B)]),
                       _cases(sp.Min(sp.Max(X, A), B) - A + 0 * Y)),
}


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_verify_piecewise_weakening_loses_proved(name):
    good, weak = MUTATIONS[name]
    proof = Proof(f"test/piecewise/{name}")
    good(proof)
    assert proof.result().verdict is Verdict.PROVED, proof.result().details
    mutated = Proof(f"test/piecewise/{name}/mutated")
    weak(mutated)
    assert mutated.result().verdict in (Verdict.UNDECIDED, Verdict.DISPROVED), mutated.result().details


def test_verify_piecewise_unproved_step_blocks_proved():
    proof = Proof("test/unproved")
    proof.nonneg("x^2 >= 0", X**2)
    proof.unproved("the rest", "could not be carried out")
    assert proof.result().verdict is Verdict.UNDECIDED and "could not be carried out" in proof.result().details


def test_verify_bounds_check_inequality_proves_the_clamp_by_cases():
    """The issue's example: check_inequality(|clamp(x) - clamp(y)|, |x - y|) is PROVED (it was UNDECIDED)."""
    for clamp in (CLAMP, lambda t: sp.Min(sp.Max(t, A), B)):
        result = check_inequality(sp.Abs(clamp(X) - clamp(Y)), sp.Abs(X - Y))
        assert result.verdict is Verdict.PROVED and result.method in ("kernel+numeric", "cases+numeric"), result.details
    half = check_inequality(sp.Abs(CLAMP(X) - CLAMP(Y)), sp.Abs(X - Y) / 2)
    assert half.verdict is Verdict.DISPROVED and half.counterexample
    where = check_inequality(A, sp.Min(sp.Max(X, A), B), where=[A <= B])
    assert where.verdict is Verdict.PROVED
    assert check_inequality(A, sp.Min(sp.Max(X, A), B)).verdict is not Verdict.PROVED  # false when a > b


def test_verify_prove_by_cases_on_products_of_kinks(rng):
    # |x| |y| = |x y| and max(x, y) + min(x, y) = x + y, both in every cell
    for residual in (sp.Abs(X) * sp.Abs(Y) - sp.Abs(X * Y), -(sp.Max(X, Y) + sp.Min(X, Y) - X - Y) ** 2):
        proof = Proof("test/identities")
        assert prove_by_cases(proof, "identity", residual) is Verdict.PROVED
    xs = rng.normal(size=(50, 2))
    assert all(abs(abs(a) * abs(b) - abs(a * b)) < 1e-12 for a, b in xs)
    assert list(itertools.islice(ordering_cells([X, 0]), 3))  # the split of a single sign
    assert np.isfinite(float(sp.Abs(X).subs(X, 1)))


def test_verify_piecewise_independent_groups_make_a_product_whose_coverage_is_checked_per_factor():
    x2, y2 = sp.symbols("x' y'", real=True)
    residual = 2 * sp.Max(sp.Abs(X - x2), sp.Abs(Y - y2)) - sp.Abs(sp.Max(X, 0) + sp.Max(Y, 0) - sp.Max(x2, 0) - sp.Max(y2, 0))
    cells, relations = case_split(residual)
    assert len(cells) == 13 * 13 and all(len(c.factors) == 2 for c in cells)
    verdict, note, _ = coverage(cells, relations)
    assert verdict is Verdict.PROVED and "product of 2" in note
    # a missing product cell is not covered (the direct enumeration finds the gap)
    assert coverage(cells[:-1], relations)[0] is Verdict.UNDECIDED
    proof = Proof("test/product")
    assert proof.cases("2 max-gap >= |sum of ramps gap|", residual, cells, domain=relations) is Verdict.PROVED
