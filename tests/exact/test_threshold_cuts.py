"""Sparse vector's breakpoints ``r = q - T`` where the float difference rounds.

The threshold-noise integral of :mod:`dpaudit.exact.threshold` changes piece at ``r = q - T``. When
``q`` and ``T`` differ by many orders of magnitude, ``q - T`` in floats is rounded (``1e-20 + 1e-40 ==
1e-20``), and a query noise of scale below the rounding error makes the wrong piece on the sliver
between the true and the rounded cut weigh ``e^{sliver / b_2}``: the old float cuts certified
``epsilon(0) = [1.00003, 1.00003]`` for a pair whose epsilon is 1. The reference here is the closed
form of one query, written from the definition: the query halts unless ``rho - nu > q - T``, and
``W = rho - nu`` (``rho ~ Lap(b_1)``, ``nu ~ Lap(b_2)``, independent) has ``P(W > x) = (b_1^2
e^{-x/b_1} - b_2^2 e^{-x/b_2}) / (2 (b_1^2 - b_2^2))`` for ``x >= 0`` (integrate the density of a sum
of two Laplace variables), evaluated in mpmath at 60 digits with ``q - T`` exact.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from dpaudit.exact import ThresholdSpec, threshold_profile
from dpaudit.exact.enclosure import precision
from dpaudit.exact.random_threshold import random_query_threshold_profile
from dpaudit.exact.released_values import _Conditional, _Kind, _KindLaw

#: (threshold, b1, b2, q0, q1): q0 - threshold rounds in floats (down, up, below the threshold; at scale 1 q1's too), by
#: more than b2 (the wrong piece then weighs up to e^30..e^40 on the sliver).
CASES = [
    (-1e-40, 1e-20, 2.5e-42, 1e-20, 0.0),
    (1e-40, 1e-20, 2.5e-42, 1e-20, 0.0),
    (1e-40, 1e-20, 2.5e-42, -1e-20, 0.0),
    (-3e-17, 1.0, 1e-18, 1.5, 0.75),
]


def _no_halt(threshold: float, b1: float, b2: float, q: float) -> mpmath.mpf:
    """``P(q + nu < T + rho) = P(W > q - T)`` in closed form (see the module docstring), ``q - T`` exact."""
    with mpmath.workdps(60):
        c = Fraction(q) - Fraction(threshold)
        x = abs(mpmath.mpf(c.numerator) / c.denominator)
        b1m, b2m = mpmath.mpf(b1), mpmath.mpf(b2)
        tail = (b1m**2 * mpmath.exp(-x / b1m) - b2m**2 * mpmath.exp(-x / b2m)) / (2 * (b1m**2 - b2m**2))
        return +tail if c >= 0 else 1 - tail


def _contains(lo: float, hi: float, truth: mpmath.mpf) -> bool:
    with mpmath.workdps(60):
        return mpmath.mpf(lo) <= truth <= mpmath.mpf(hi)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize(("cutoff", "halt_on", "resample"), [(1, "above", False), (1, "below", False), (None, "above", False),
                                                             (None, "below", True)])
def test_the_certified_law_contains_the_truth_where_q_minus_t_rounds(case, cutoff, halt_on, resample):
    threshold, b1, b2, q0, q1 = case
    assert Fraction(q0 - threshold) != Fraction(q0) - Fraction(threshold)  # the case is one where the float cut rounds
    spec = ThresholdSpec(threshold, b1, b2, cutoff, halt_on, resample)
    got = threshold_profile(spec, [q0], [q1], description="one query")
    truths = []
    for q, lo, hi in ((q0, got.p_lo, got.p_hi), (q1, got.q_lo, got.q_hi)):
        below = _no_halt(threshold, b1, b2, q)
        law = sorted([below, 1 - below])
        truths.append(law)
        boxes = sorted(zip(lo.tolist(), hi.tolist(), strict=True))
        assert len(boxes) == 2
        for (box_lo, box_hi), truth in zip(boxes, law, strict=True):
            assert _contains(box_lo, box_hi, truth), (q, box_lo, box_hi, mpmath.nstr(truth, 20))
    with mpmath.workdps(60):  # both orders of the two outputs' ratios
        eps = max(abs(mpmath.log(truths[0][k] / truths[1][k])) for k in (0, 1))
    bracket = got.epsilon(0.0)
    assert bracket.lower <= float(eps) * (1 + 1e-15) and float(eps) * (1 - 1e-15) <= bracket.upper, (bracket, mpmath.nstr(eps, 20))


@pytest.mark.parametrize("case", CASES)
def test_the_random_query_law_on_point_masses_agrees(case):
    """The same law from the random-query builder (exact cuts of its own): the two enclosures overlap, both narrow."""
    threshold, b1, b2, q0, q1 = case
    got = threshold_profile(ThresholdSpec(threshold, b1, b2, 1), [q0], [q1], description="one query")
    ref = random_query_threshold_profile(threshold, b1, b2, [[(q0, Fraction(1))]], [[(q1, Fraction(1))]])
    order = [1, 0]  # threshold_profile lists "no halt" first, the random-query builder last
    for mine_lo, mine_hi, ref_lo, ref_hi in ((got.p_lo, got.p_hi, ref.p_lo, ref.p_hi), (got.q_lo, got.q_hi, ref.q_lo, ref.q_hi)):
        for i, j in enumerate(order):
            assert mine_lo[i] <= ref_hi[j] and ref_lo[j] <= mine_hi[i], (i, mine_lo[i], mine_hi[i], ref_lo[j], ref_hi[j])
            assert mine_hi[i] - mine_lo[i] < 1e-14


@pytest.mark.parametrize("case", CASES)
def test_the_released_value_atom_contains_the_truth(case):
    """[LSL17] Alg. 3's "nothing released" atom ``G_B(inf)`` (the same conditional pieces) where the cut rounds."""
    threshold, b1, b2, q0, q1 = case
    spec = ThresholdSpec(threshold, b1, b2, 1)
    with precision():  # as released_value_profile builds it
        law = _KindLaw(spec, _Conditional(spec, sorted({q0, q1})), _Kind((), ((q0, q1),)))
    for side, q in zip(law.sides, (q0, q1), strict=True):
        mass = side.total[()]
        assert mass.rad() < 1e-12, mass  # a narrow ball: containing the truth is not for free
        truth = _no_halt(threshold, b1, b2, q)
        with mpmath.workdps(60):
            lo, hi = mpmath.mpf(mass.lower().str(50, radius=False)), mpmath.mpf(mass.upper().str(50, radius=False))
            # the 50-digit decimal ends are read with a slack of 1e-45 (far below the old error, 5e-6)
            assert lo - mpmath.mpf("1e-45") <= truth <= hi + mpmath.mpf("1e-45"), (q, mass, mpmath.nstr(truth, 20))
