"""AboveThreshold on random queries (:mod:`dpaudit.exact.random_threshold`) against independent computations.

* point-mass laws: the exact sparse-vector law of :func:`dpaudit.exact.threshold_profile` (a
  different code path: one exponential polynomial per query, not the prefix sums over a law);
* mixtures: scipy's adaptive quadrature of ``f_rho(r) prod (1 - h_s(r)) h_t(r)`` in plain floats, with
  ``h`` summed term by term, and a Monte Carlo simulation of the mechanism itself.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate

from dpaudit.errors import InvalidArgument
from dpaudit.exact import ThresholdSpec, threshold_profile
from dpaudit.exact.random_threshold import random_query_threshold_profile

MIXED = [(-3.0, Fraction(1, 4)), (0.5, Fraction(1, 2)), (2.0, Fraction(1, 4))]
OTHER = [(-1.0, Fraction(1, 3)), (1.0, Fraction(2, 3))]


def _sf(y: float, b: float) -> float:
    return 0.5 * math.exp(-y / b) if y >= 0 else 1.0 - 0.5 * math.exp(y / b)


def _quad_law(threshold: float, b1: float, b2: float, laws: list[list[tuple[float, Fraction]]]) -> list[float]:
    """``P(first halt at t)`` and ``P(no halt)`` by quadrature over the threshold noise (floats)."""

    def h(t: int, r: float) -> float:
        return sum(float(w) * _sf(threshold + r - q, b2) for q, w in laws[t])

    def integrand(r: float, t: int) -> float:
        go = math.prod(1.0 - h(s, r) for s in range(min(t, len(laws))))
        last = h(t, r) if t < len(laws) else 1.0
        return math.exp(-abs(r) / b1) / (2 * b1) * go * last

    points = sorted({q - threshold for law in laws for q, _ in law} | {0.0})
    out = []
    for t in range(len(laws) + 1):
        total = sum(integrate.quad(integrand, a, b, args=(t,), epsabs=1e-13, epsrel=1e-12)[0]
                    for a, b in zip([-60.0, *points], [*points, 60.0], strict=True))
        out.append(total)
    return out


def test_point_masses_match_the_sparse_vector_law() -> None:
    """One value per query: the exact AboveThreshold law of ``threshold_profile`` (cutoff 1), enclosures overlapping."""
    q0, q1 = [-143.0125, -144.5, -140.0, -150.0], [-141.1375, -143.0, -146.0, -144.0]
    ref = threshold_profile(ThresholdSpec(-144.0, 1.0, 2.0, 1, "above"), q0, q1, description="reference")
    got = random_query_threshold_profile(-144.0, 1.0, 2.0, [[(v, Fraction(1))] for v in q0], [[(v, Fraction(1))] for v in q1])
    # threshold_profile lists "no halt" first, then the halting positions in order
    order = [1, 2, 3, 4, 0]
    for mine_lo, mine_hi, ref_lo, ref_hi in ((got.p_lo, got.p_hi, ref.p_lo, ref.p_hi), (got.q_lo, got.q_hi, ref.q_lo, ref.q_hi)):
        for i, j in enumerate(order):
            assert mine_lo[i] <= ref_hi[j] and ref_lo[j] <= mine_hi[i], (i, mine_lo[i], mine_hi[i], ref_lo[j], ref_hi[j])
            assert mine_hi[i] - mine_lo[i] < 1e-14
    assert got.epsilon(1e-2).lower == pytest.approx(ref.epsilon(1e-2).lower, rel=1e-9)


def test_mixtures_match_quadrature() -> None:
    """Per-step mixtures (different per step and per side): the probabilities agree with float quadrature to 1e-9."""
    laws0, laws1 = [MIXED, OTHER, MIXED], [OTHER, MIXED, [(0.0, Fraction(1))]]
    prof = random_query_threshold_profile(0.3, 1.0, 2.0, laws0, laws1)
    for lo, hi, laws in ((prof.p_lo, prof.p_hi, laws0), (prof.q_lo, prof.q_hi, laws1)):
        ref = _quad_law(0.3, 1.0, 2.0, laws)
        assert sum(ref) == pytest.approx(1.0, abs=1e-9)
        for a, b, r in zip(lo, hi, ref, strict=True):
            assert a - 1e-9 <= r <= b + 1e-9, (a, b, r)
            assert b - a < 1e-14


def test_mixture_matches_monte_carlo() -> None:
    """The mechanism simulated (threshold noise once, a fresh query value and noise per step): within 4.5 standard errors."""
    laws = [MIXED, OTHER, MIXED]
    prof = random_query_threshold_profile(0.3, 1.0, 2.0, laws, laws)
    rng, n = np.random.default_rng(20261127), 200_000
    rho = rng.laplace(0.0, 1.0, n)
    halted, first = np.zeros(n, dtype=bool), np.full(n, len(laws))
    for t, law in enumerate(laws):
        values = np.array([v for v, _ in law])
        weights = np.array([float(w) for _, w in law])
        stop = (rng.choice(values, size=n, p=weights) + rng.laplace(0.0, 2.0, n) >= 0.3 + rho) & ~halted
        first[stop] = t
        halted |= stop
    freq = np.bincount(first, minlength=len(laws) + 1) / n
    se = np.sqrt(prof.p_lo * (1 - prof.p_lo) / n)
    assert np.all(np.abs(freq - prof.p_lo) <= 4.5 * se), (n, freq, prof.p_lo, "seed 20261127")


def test_far_values_keep_tight_enclosures() -> None:
    """Values hundreds of noise scales from the threshold (the terms span e^{+-300}): the law still sums to 1 tightly."""
    law = [(-600.0, Fraction(1, 2)), (-1.0, Fraction(1, 4)), (600.0, Fraction(1, 4))]
    other = [(-600.0, Fraction(1, 4)), (-1.0, Fraction(1, 4)), (600.0, Fraction(1, 2))]
    prof = random_query_threshold_profile(0.0, 1.0, 2.0, [law] * 4, [other] * 4)
    for lo, hi in ((prof.p_lo, prof.p_hi), (prof.q_lo, prof.q_hi)):
        assert float(np.sum(lo)) <= 1.0 <= float(np.sum(hi)) + 1e-15
        assert np.all(hi - lo < 1e-14)
    # a value 600 above the threshold halts at once: P(halt at step 1) >= 1/4 on either side
    assert prof.p_lo[0] >= 0.25 and prof.q_lo[0] >= 0.25


def test_refuses_laws_that_are_not_probability_laws() -> None:
    with pytest.raises(InvalidArgument, match="laws0"):
        random_query_threshold_profile(0.0, 1.0, 2.0, [[(0.0, Fraction(1, 2))]], [[(0.0, Fraction(1))]])
    with pytest.raises(InvalidArgument, match="laws1"):
        random_query_threshold_profile(0.0, 1.0, 2.0, [[(0.0, Fraction(1))]], [])
    with pytest.raises(InvalidArgument, match="finite"):
        random_query_threshold_profile(0.0, 1.0, 2.0, [[(math.inf, Fraction(1))]], [[(0.0, Fraction(1))]])
    with pytest.raises(InvalidArgument, match="query_scale"):
        random_query_threshold_profile(0.0, 1.0, 0.0, [[(0.0, Fraction(1))]], [[(0.0, Fraction(1))]])
