"""Closed forms and finite laws against independent computations (scipy quadrature, brute-force sums).

The independent side is plain float arithmetic written here (not certified): the certified
enclosures must contain it, up to the float error of the independent computation itself.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, stats

from dpaudit.exact import (
    GaussianProfile,
    LaplaceProfile,
    PLDProfile,
    discrete_laplace_profile,
    exponential_mechanism_profile,
    randomized_response_profile,
    truncated_discrete_laplace_profile,
)
from dpaudit.exact.composition import loss_distribution
from dpaudit.mechanisms import tdlap_pmf

EPSILONS = [0.0, 0.05, 0.3, 0.9, 1.7]


def _hockey_stick_quad(p, q, eps: float, points: list[float]) -> float:
    value, _ = integrate.quad(lambda x: max(p(x) - math.exp(eps) * q(x), 0.0), -60, 60, points=points, limit=400, epsabs=1e-13)
    return value


def _contains(enc, value: float, slack: float) -> bool:
    return enc.lo - slack <= value <= enc.hi + slack


@pytest.mark.parametrize("shift, scale", [(1.0, 1.0), (0.3, 2.0), (2.5, 1.5)])
def test_laplace_matches_quadrature(shift, scale):
    prof = LaplaceProfile(shift, scale)
    p = lambda x: stats.laplace.pdf(x, 0.0, scale)  # noqa: E731
    q = lambda x: stats.laplace.pdf(x, shift, scale)  # noqa: E731
    for eps in EPSILONS:
        for direction, (a, b) in enumerate(((p, q), (q, p))):
            reference = _hockey_stick_quad(a, b, eps, [0.0, shift])
            enc = prof.hockey_stick(eps, direction)
            assert enc.lo <= enc.hi and enc.width < 1e-12
            assert _contains(enc, reference, 1e-9), (shift, scale, eps, direction, enc, reference)
    pure = prof.epsilon(0.0)  # the exact rational shift / scale, rounded outward
    assert pure.lower <= Fraction(shift) / Fraction(scale) <= pure.upper and pure.upper - pure.lower <= 2 * math.ulp(pure.upper)


def test_laplace_epsilon_closed_form_agrees_with_bisection():
    prof = LaplaceProfile(1.0, 1.0)
    for delta in (1e-8, 1e-3, 0.2):
        closed = prof.epsilon(delta)
        generic = super(LaplaceProfile, prof).epsilon(delta)  # bisection on the enclosures
        assert closed.lower <= generic.upper and generic.lower <= closed.upper
        assert closed.upper == pytest.approx(1.0 + 2.0 * math.log1p(-delta), abs=1e-12)


@pytest.mark.parametrize("mu", [0.2, 1.0, 3.0])
def test_gaussian_matches_quadrature_and_the_vector_reduces_to_its_norm(mu):
    prof = GaussianProfile(mu, 1.0)
    for eps in EPSILONS:
        reference = _hockey_stick_quad(stats.norm(0, 1).pdf, stats.norm(mu, 1).pdf, eps, [0.0, mu])
        assert _contains(prof.hockey_stick(eps, 0), reference, 1e-9)
    vector = GaussianProfile([0.6 * mu, 0.8 * mu], 1.0)
    for eps in EPSILONS:
        a, b = vector.delta(eps), prof.delta(eps)
        assert max(a.lo, b.lo) <= min(a.hi, b.hi) + 1e-15
    assert math.isinf(prof.epsilon(0.0).lower)  # no finite pure epsilon


def test_discrete_laplace_matches_a_brute_force_sum():
    rate, shift = 0.7, 3
    ks = np.arange(-400, 401)
    p = np.exp(-rate * np.abs(ks))
    p /= p.sum()
    q = np.exp(-rate * np.abs(ks - shift))
    q /= q.sum()
    prof = discrete_laplace_profile(shift, rate)
    for eps in EPSILONS:
        reference = np.maximum(p - math.exp(eps) * q, 0).sum()
        assert _contains(prof.hockey_stick(eps, 0), float(reference), 1e-12)
    pure = prof.epsilon(0.0)
    assert pure.lower <= Fraction(rate) * shift <= pure.upper and pure.upper - pure.lower <= 2 * math.ulp(pure.upper)


def test_truncated_discrete_laplace_matches_its_pmf():
    eps0, delta0 = 1.0, 1e-3
    pmf = tdlap_pmf(eps0, delta0)
    kappa = (pmf.size - 1) // 2
    p = np.r_[pmf, 0.0]
    q = np.r_[0.0, pmf]
    prof = truncated_discrete_laplace_profile(1, eps0, kappa)
    for eps in EPSILONS:
        reference = np.maximum(p - math.exp(eps) * q, 0).sum()
        assert _contains(prof.hockey_stick(eps, 0), float(reference), 1e-12)
    assert prof.infinite_loss_mass(0).lo == pytest.approx(pmf[-1])  # the end point only d0 can produce
    bracket = prof.epsilon(delta0)
    assert bracket.upper <= eps0  # (T1)-(T3) of the mechanism's docstring: (eps, delta)-DP


def test_randomized_response_is_exact_rational():
    keep = 0.75  # on the 2^-53 grid
    prof = randomized_response_profile(keep, 4, 1)
    exact = math.log(0.75 * 3 / 0.25)
    b = prof.epsilon(0.0)
    assert b.lower <= exact <= b.upper and b.upper - b.lower < 1e-14
    two = randomized_response_profile(keep, 4, 2)
    assert two.epsilon(0.0).upper == pytest.approx(2 * exact, rel=1e-14)  # two entries: the losses add


def test_exponential_mechanism_matches_softmax():
    u0, u1 = [0.0, 0.5, 1.0], [1.0, 0.5, 0.0]
    prof = exponential_mechanism_profile(u0, u1, 1.0, 1.0)
    for u, lo, hi in ((u0, prof.p_lo, prof.p_hi), (u1, prof.q_lo, prof.q_hi)):
        w = np.exp(np.array(u) / 2.0)
        ref = w / w.sum()
        assert np.all(lo <= ref + 1e-16) and np.all(ref - 1e-16 <= hi)


@pytest.mark.parametrize("profile", [LaplaceProfile(1.0, 2.0), GaussianProfile(0.8, 1.0), discrete_laplace_profile(2, 0.4)])
def test_certified_discretisation_brackets_the_closed_form(profile):
    """The grid measures (rounded up and down) bracket the closed form at every epsilon."""
    step = 2.0**-10
    dists = tuple(loss_distribution(profile, d, step) for d in (0, 1))
    pld = PLDProfile(dists, description="grid")
    for eps in EPSILONS:
        exact, grid = profile.delta(eps), pld.delta(eps)
        assert grid.lo <= exact.hi and exact.lo <= grid.hi, (eps, exact, grid)
        assert grid.width < 0.01
    for delta in (1e-6, 1e-2):
        a, b = profile.epsilon(delta), pld.epsilon(delta)
        assert b.lower <= a.upper and a.lower <= b.upper
        assert b.upper - b.lower < 4 * step


def test_the_epsilon_bracket_is_valid_by_construction():
    """delta(eps_hi) <= delta is certified; delta(eps_lo) > delta is certified (so eps_lo is a lower bound)."""
    prof = GaussianProfile(1.3, 1.0)
    for delta in (1e-9, 1e-5, 0.1):
        b = prof.epsilon(delta)
        assert prof.delta(b.upper).hi <= delta
        if b.lower > 0:
            assert prof.delta(b.lower).lo > delta
        assert 0 <= b.upper - b.lower < 1e-9
    assert Fraction(0) == LaplaceProfile(0.0, 1.0).exact_max_loss(0)
