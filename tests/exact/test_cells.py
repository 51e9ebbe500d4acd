"""The cell profile (continuous outputs cut into cells with ratio ranges), its products and its branch and bound.

Checked against profiles computed another way: atoms against :class:`FiniteProfile`, a Laplace pair
cut into cells against the closed form, a product of cells against the composition of privacy-loss
distributions, and the branch and bound against a function whose maximum is known.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.exact import LaplaceProfile, LaplaceStep, compose
from dpaudit.exact.cells import CellProfile, Cells, laplace_pair_cells, refine_maximum
from dpaudit.exact.composition import loss_distribution
from dpaudit.exact.enclosure import Enclosure
from dpaudit.exact.finite import finite_from_arbs
from dpaudit.exact.pld import PLDProfile

EPSILONS = [0.0, 0.1, 0.4, 1.0, 2.5]


def test_atoms_are_a_finite_profile(rng):
    from flint import arb

    for _ in range(5):
        p, q = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
        p[2] = 0.0  # an output only d1 can produce
        p /= p.sum()
        pa, qa = [arb(float(x)) for x in p], [arb(float(x)) for x in q]
        finite = finite_from_arbs(pa, qa)
        cells = Cells.atoms(pa, qa).profile(description="atoms")
        for eps in EPSILONS:
            for d in (0, 1):
                a, b = finite.hockey_stick(eps, d), cells.hockey_stick(eps, d)
                assert abs(a.lo - b.lo) <= 1e-15 and abs(a.hi - b.hi) <= 1e-15
        for d in (0, 1):
            assert cells.max_loss(d).lo <= finite.max_loss(d).hi and finite.max_loss(d).lo <= cells.max_loss(d).hi
        assert cells.infinite_loss_mass(1).lo == pytest.approx(q[2], rel=1e-12)


@pytest.mark.parametrize("shift, scale", [(1.0, 2.0), (0.3, 0.5), (4.0, 1.0)])
def test_a_laplace_pair_in_cells_brackets_the_closed_form(shift, scale):
    exact = LaplaceProfile(shift, scale)
    widths = []
    for band in (2, 16, 128):
        cells = laplace_pair_cells(0.0, shift, scale, band).profile(description="cells")
        for eps in EPSILONS:
            for d in (0, 1):
                h, e = cells.hockey_stick(eps, d), exact.hockey_stick(eps, d)
                assert h.lo <= e.hi and e.lo <= h.hi, (band, eps, d, h, e)
        widths.append(cells.delta(0.1).width)
        b = cells.epsilon(0.0)  # the tails' losses are exact: the largest loss is shift / scale
        assert b.lower <= shift / scale <= b.upper and b.upper - b.lower <= 1e-12
    assert widths[0] > widths[1] > widths[2] and widths[2] <= 1e-3 * exact.delta(0.1).hi  # finer cells, tighter bounds


def test_a_product_of_cells_agrees_with_the_composed_loss_distributions():
    a = laplace_pair_cells(0.0, 1.0, 2.0, 64)
    b = laplace_pair_cells(0.5, 0.0, 1.0, 64)
    product = a.times(b).profile(description="product")
    composed = compose([LaplaceStep(1.0, 2.0), LaplaceStep(0.5, 1.0)])
    for eps in EPSILONS:
        for d in (0, 1):
            h, c = product.hockey_stick(eps, d), composed.hockey_stick(eps, d)
            assert h.lo <= c.hi + 1e-15 and c.lo <= h.hi + 1e-15, (eps, d, h, c)
    assert product.epsilon(0.0).upper == pytest.approx(1.0, abs=1e-12)  # 1/2 + 1/2, the tails'
    lo, hi = product.masses(0)
    assert lo.sum() <= 1.0 <= hi.sum() + 1e-12


def test_cells_give_certified_loss_distributions():
    cells = laplace_pair_cells(0.0, 1.0, 1.0, 256).profile(description="cells")
    step = 2.0**-10
    pld = PLDProfile((loss_distribution(cells, 0, step), loss_distribution(cells, 1, step)), description="from cells")
    exact = LaplaceProfile(1.0, 1.0)
    for eps in EPSILONS:
        h, e = pld.hockey_stick(eps, 0), exact.hockey_stick(eps, 0)
        assert h.lo <= e.hi and e.lo <= h.hi, (eps, h, e)


def test_branch_and_bound_finds_a_known_maximum():
    """``f(x) = -(x - c)^2`` on cells of [-3, 5]: its exact range on a cell bounds it, a point value bounds the sup."""
    c = 0.3141592653589793

    def f(x: float) -> float:
        return -((x - c) ** 2)

    def bounds(cells):  # type: ignore[no-untyped-def]
        upper = [0.0 if lo <= c <= hi else max(f(lo), f(hi)) for _, (lo, hi) in cells]
        lower = [f(0.5 * (lo + hi)) for _, (lo, hi) in cells]
        return np.array(upper), np.array(lower)

    edges = np.linspace(-3, 5, 9)
    cells = [("f", (float(a), float(b))) for a, b in itertools.pairwise(edges)]
    found = refine_maximum(bounds, cells, tolerance=1e-12)
    assert found.lo <= 0.0 <= found.hi and found.hi - found.lo <= 1e-12
    early = refine_maximum(bounds, cells, tolerance=1e-12, rounds=2)  # stopped early: wider, still certified
    assert early.lo <= 0.0 <= early.hi and early.hi - early.lo > 1e-6

    def wrong(cells):  # type: ignore[no-untyped-def]
        """An upper bound that misses the maximum (as a wrong factor's range would): refused, not returned."""
        upper, lower = bounds(cells)
        return upper - 0.01, lower

    with pytest.raises(ArithmeticError, match="below the certified lower bound"):
        refine_maximum(wrong, cells, tolerance=1e-12)


def test_the_float_arithmetic_is_rounded_outward(rng):
    """Ratio ranges of atoms and products of cells hold every exact quotient and product of their ends (checked in rationals)."""
    from fractions import Fraction

    p_lo = rng.uniform(0.0, 1.0, 200)
    p_hi = np.nextafter(p_lo, 2.0) * (1 + rng.uniform(0, 1e-12, 200))
    q_lo = rng.uniform(1e-300, 1.0, 200)
    q_hi = q_lo * (1 + rng.uniform(0, 1e-12, 200))
    atoms = Cells.atoms_from_bounds(p_lo, p_hi, q_lo, q_hi)
    for i in range(200):
        assert Fraction(atoms.r_lo[i]) <= Fraction(p_lo[i]) / Fraction(q_hi[i])
        assert Fraction(atoms.r_hi[i]) >= Fraction(p_hi[i]) / Fraction(q_lo[i])
    a, b = atoms.take(slice(0, 20)), atoms.take(slice(20, 40))
    prod = a.times(b)
    for i in range(20):
        for j in range(20):
            k = i * 20 + j
            for lo, hi, name in (("p_lo", "p_hi", "p"), ("r_lo", "r_hi", "r")):
                assert Fraction(getattr(prod, lo)[k]) <= Fraction(getattr(a, lo)[i]) * Fraction(getattr(b, lo)[j]), name
                assert Fraction(getattr(prod, hi)[k]) >= Fraction(getattr(a, hi)[i]) * Fraction(getattr(b, hi)[j]), name


def test_bad_cells_are_refused():
    one = np.ones(1)
    with pytest.raises(InvalidArgument):
        CellProfile(one, one, one, one, 2 * one, one)  # ratio lo > hi
    with pytest.raises(InvalidArgument):
        CellProfile(one, 0.5 * one, one, one, one, one)  # mass lo > hi
    cells = CellProfile(one, one, one, one, one, one, max_losses=(Enclosure(3.0, 4.0), None))
    with pytest.raises(ArithmeticError):  # a declared largest loss that the cells contradict
        cells.max_loss(0)
    assert math.isfinite(cells.max_loss(1).hi)
