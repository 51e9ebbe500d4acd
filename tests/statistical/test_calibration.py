"""Calibration rounds towards more noise, and the analytic Gaussian matches an independent computation.

The independent computation integrates the hockey-stick divergence of two Gaussians with mpmath
at 30 significant digits [BW18, Thm 8 is *not* used by the oracle]:

    delta(sigma) = integral over x > x* of  N(x; 1, sigma^2) - e^eps N(x; 0, sigma^2)  dx,

with x* = sigma^2 eps + 1/2 the point where the two densities' ratio equals e^eps.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpaudit.accounting import (
    analytic_gaussian_delta,
    gaussian_sigma_analytic,
    gaussian_sigma_classical,
    laplace_scale,
)
from dpaudit.mechanisms.discrete import discrete_laplace_rate, tdlap_kappa
from dpaudit.mechanisms.randomized_response import randomized_response_keep_probability

DPS = 30  # working precision of the oracle, set per call with mpmath.workdps


@mpmath.workdps(DPS)
def hockey_stick_delta(sigma, epsilon):
    sigma, epsilon = mpmath.mpf(sigma), mpmath.mpf(epsilon)
    x_star = sigma**2 * epsilon + mpmath.mpf(1) / 2

    def integrand(x):
        p = mpmath.npdf(x, 1, sigma)
        q = mpmath.npdf(x, 0, sigma)
        return p - mpmath.e**epsilon * q

    return mpmath.quad(integrand, [x_star, x_star + 5 * sigma, mpmath.inf])


GRID = [(e, d) for e in (0.1, 0.5, 1.0, 2.0, 4.0, 8.0) for d in (1e-3, 1e-5, 1e-8, 1e-10)]


@pytest.mark.parametrize(("epsilon", "delta"), GRID)
def test_analytic_sigma_matches_mpmath_hockey_stick(epsilon, delta):
    sigma = gaussian_sigma_analytic(1.0, epsilon, delta)
    # delta(sigma) is decreasing, so these two evaluations bracket the exact root in
    # [sigma (1 - 1e-9), sigma]: our sigma is within 1e-9 of it, and on the safe (noisier) side.
    assert hockey_stick_delta(sigma, epsilon) <= delta
    assert hockey_stick_delta(sigma * (1 - 1e-9), epsilon) > delta


@pytest.mark.parametrize(("epsilon", "delta", "sigma"), [
    (0.1, 1e-5, 30.7496), (0.5, 1e-5, 7.0318), (1.0, 1e-5, 3.7306), (1.0, 1e-6, 4.2247),
    (2.0, 1e-5, 1.9938), (4.0, 1e-5, 1.0812), (8.0, 1e-5, 0.6002),
])
def test_analytic_sigma_reference_table(epsilon, delta, sigma):
    """Reference values computed independently with scipy."""
    assert gaussian_sigma_analytic(1.0, epsilon, delta) == pytest.approx(sigma, abs=1e-4)


@given(st.floats(1e-3, 1e3), st.floats(1e-3, 1e2))
def test_laplace_scale_rounds_up(sensitivity, epsilon):
    scale = laplace_scale(sensitivity, epsilon)
    assert Fraction(scale) * Fraction(epsilon) >= Fraction(sensitivity)
    assert scale <= np.nextafter(np.nextafter(sensitivity / epsilon, math.inf), math.inf)


def test_laplace_scale_rounding_is_needed_somewhere():
    """The check is not vacuous: for some inputs the plain quotient gives too little noise."""
    rng = np.random.default_rng(20261122)
    pairs = rng.uniform(0.01, 10.0, size=(2000, 2))
    short = [Fraction(s / e) * Fraction(e) < Fraction(s) for s, e in pairs]
    assert any(short)


@given(st.floats(1e-3, 0.999), st.floats(1e-12, 0.5))
@mpmath.workdps(DPS)
def test_classical_sigma_is_never_below_the_formula(epsilon, delta):
    exact = mpmath.sqrt(2 * mpmath.log(mpmath.mpf(1.25) / mpmath.mpf(delta))) / mpmath.mpf(epsilon)
    assert gaussian_sigma_classical(1.0, epsilon, delta) >= exact


@mpmath.workdps(DPS)
def exact_gaussian_delta(epsilon, sigma):
    """[BW18, Thm 8] in 30-digit arithmetic (the double-precision curve is off by up to ~1e-10)."""
    e, s = mpmath.mpf(epsilon), mpmath.mpf(sigma)
    return mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s)


@given(st.floats(0.001, 20.0), st.floats(1e-12, 0.5))
def test_analytic_sigma_is_private(epsilon, delta):
    sigma = gaussian_sigma_analytic(1.0, epsilon, delta)
    assert exact_gaussian_delta(epsilon, sigma) <= delta
    # and it is not wastefully large: a sigma 1e-9 smaller already breaks the target
    assert analytic_gaussian_delta(epsilon, sigma * (1 - 1e-9)) > delta * (1 - 1e-6)


@given(st.floats(0.01, 20.0), st.integers(2, 50))
@mpmath.workdps(DPS)
def test_randomized_response_ratio_never_exceeds_e_eps(epsilon, k):
    p = randomized_response_keep_probability(epsilon, k)
    ratio = mpmath.mpf(p) * (k - 1) / (1 - mpmath.mpf(p))
    assert ratio <= mpmath.e ** mpmath.mpf(epsilon)


@given(st.floats(0.01, 20.0), st.integers(1, 20))
def test_discrete_laplace_rate_rounds_down(epsilon, sensitivity):
    rate = discrete_laplace_rate(sensitivity, epsilon)
    assert Fraction(rate) * sensitivity <= Fraction(epsilon)


@given(st.floats(0.01, 5.0), st.floats(1e-12, 0.5))
@mpmath.workdps(DPS)
def test_tdlap_edge_mass_is_at_most_delta(epsilon, delta):
    """Property (T1) of ``docs/papers/ghazi2023.md``: P[R = 0] = exp(-eps kappa)/Z <= delta."""
    kappa = tdlap_kappa(epsilon, delta)
    e = mpmath.mpf(epsilon)
    z = sum(mpmath.e ** (-e * abs(x - kappa)) for x in range(2 * kappa + 1))
    assert mpmath.e ** (-e * kappa) / z <= delta


@pytest.mark.parametrize(("epsilon", "delta"), [(1e-6, 1e-6), (1e9, 1e-3)])
def test_analytic_sigma_far_outside_the_first_bracket(epsilon, delta):
    """sigma above e^10 and below e^-10 times the sensitivity: the bracket search must widen both ways."""
    sigma = gaussian_sigma_analytic(1.0, epsilon, delta)
    assert not math.exp(-10) < sigma < math.exp(10)
    assert hockey_stick_delta(sigma, epsilon) <= delta
    assert hockey_stick_delta(sigma * (1 - 1e-9), epsilon) > delta


@pytest.mark.parametrize("sensitivity", [0.5, 2.0, 3.7])
@pytest.mark.parametrize(("epsilon", "delta"), [(0.5, 1e-5), (2.0, 1e-8)])
def test_analytic_sigma_scales_with_the_sensitivity(sensitivity, epsilon, delta):
    """sigma for sensitivity s is s times sigma for 1: the oracle at sigma / s brackets the root as above."""
    sigma = gaussian_sigma_analytic(sensitivity, epsilon, delta)
    assert hockey_stick_delta(sigma / sensitivity, epsilon) <= delta
    assert hockey_stick_delta(sigma * (1 - 1e-9) / sensitivity, epsilon) > delta


@pytest.mark.parametrize(("args", "message"), [
    ((-1.0, 1.0, 1e-5), "`gaussian_sigma_analytic`: `sensitivity` must be in (0, inf); got sensitivity=-1.0."),
    ((1.0, 0.0, 1e-5), "`gaussian_sigma_analytic`: `epsilon` must be in (0, inf); got epsilon=0.0."),
    ((1.0, 1.0, 0.0), "`gaussian_sigma_analytic`: `delta` must be in (0, 1); got delta=0.0."),
])
def test_analytic_sigma_names_its_bad_argument(args, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        gaussian_sigma_analytic(*args)
