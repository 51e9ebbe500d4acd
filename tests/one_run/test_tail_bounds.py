"""The tail bounds of the one-run guessing game, checked against independent exact computations.

* [SNJ23, Thm 3.1] with ``delta = 0`` is the exact binomial tail: compared with a sum of exact
  rational binomial probabilities; with ``delta > 0`` with a direct transcription of the theorem's
  sum in exact rationals;
* the epsilon searches reproduce the one-run ceilings tabulated from the paper's formula;
* [MMC24] on the ``(eps, 0)`` curve never rejects where the tight mechanism (randomized response on
  every canary, for which the number of correct guesses is exactly ``Bin(r, e^eps / (1 + e^eps))``)
  has tail probability at least ``tau``: an exact, deterministic validity check.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import special, stats

from dpaudit.errors import InvalidArgument
from dpaudit.one_run import fdp_epsilon, fdp_mu, fdp_rejects, steinke_epsilon, steinke_p_value
from dpaudit.one_run.tail_bounds import _approx_dp_inverse_blow_up, _gaussian_inverse_blow_up


def _exact_tail(r: int, v: int, q: Fraction) -> Fraction:
    return sum((math.comb(r, j) * q**j * (1 - q) ** (r - j) for j in range(v, r + 1)), Fraction(0))


def _exact_steinke(m: int, r: int, v: int, q: Fraction, delta: Fraction) -> Fraction:
    """[SNJ23, Thm 3.1]: beta + 2 m delta max_{1<=i<=v} (P[B >= v - i] - P[B >= v]) / i, in rationals."""
    beta = _exact_tail(r, v, q)
    alpha = max((_exact_tail(r, max(v - i, 0), q) - beta) / i for i in range(1, v + 1))
    return min(Fraction(1), beta + 2 * m * delta * alpha)


@pytest.mark.parametrize(("m", "r", "v", "delta"), [
    (10, 10, 7, 0), (50, 20, 15, 0), (50, 20, 20, 0), (40, 40, 30, Fraction(1, 1000)), (100, 30, 24, Fraction(1, 10**5)),
])
@pytest.mark.parametrize("q", [Fraction(1, 2), Fraction(3, 5), Fraction(9, 10)])
def test_p_value_is_the_theorem_in_exact_arithmetic(m, r, v, delta, q):
    epsilon = math.log(q / (1 - q))
    got = steinke_p_value(m, r, v, epsilon, float(delta))
    want = float(_exact_steinke(m, r, v, q, delta))
    # the product widens by 1e-10 relative and may only be larger
    assert want * (1 - 1e-12) <= got <= want * (1 + 1e-9) + 1e-300, (m, r, v, delta, q, got, want)


@pytest.mark.parametrize(("m", "r", "delta", "ceiling"), [
    (100, 100, 0.0, 3.49), (1000, 100, 1e-5, 3.47), (1000, 1000, 1e-5, 5.78), (10_000, 1000, 1e-5, 5.53), (10_000, 10_000, 1e-5, 7.83),
])
def test_all_guesses_right_gives_the_one_run_ceiling(m, r, delta, ceiling):
    eps = steinke_epsilon(m, r, r, delta=delta, confidence=0.95)
    assert round(eps, 2) == ceiling
    # the search keeps the rejected end: the p-value at the bound is at most the significance
    assert steinke_p_value(m, r, r, eps, delta) <= 0.05
    assert steinke_p_value(m, r, r, eps * (1 + 1e-6) + 1e-9, delta) > 0.05


def test_half_right_or_less_gives_zero():
    assert steinke_epsilon(100, 40, 20) == 0.0
    assert fdp_mu(100, 40, 20) == 0.0
    assert steinke_epsilon(100, 0, 0) == 0.0


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("m", [20, 100, 400])
def test_fdp_recursion_never_rejects_the_tight_mechanism(eps, m):
    """Randomized response per canary is exactly (eps, 0)-DP and W ~ Bin(r, q): no rejection where its tail is >= tau."""
    q = float(special.expit(eps))
    inverse = _approx_dp_inverse_blow_up(eps, 0.0)
    for r in sorted({m, m // 2, m // 4}):
        for v in range(r // 2, r + 1):
            tail = float(stats.binom.sf(v - 1, r, q))
            for tau in (0.05, 0.01):
                if fdp_rejects(m, r, v, inverse, tau):
                    assert tail < tau, (eps, m, r, v, tau, tail)


def test_fdp_with_the_dp_curve_is_close_to_the_binomial_test_at_delta_zero():
    # both are valid; at delta = 0 neither can beat the exact binomial tail of the tight mechanism
    for m, r, v in [(1000, 1000, 700), (1000, 200, 170), (500, 500, 400)]:
        snj = steinke_epsilon(m, r, v)
        mmc = fdp_epsilon(m, r, v, delta=0.0, tradeoff="approx-dp")
        assert mmc <= snj + 1e-6
        assert mmc > 0.5 * snj


def test_gaussian_inverse_blow_up_inverts_the_gdp_curve():
    mu = 1.3
    inverse = _gaussian_inverse_blow_up(mu)
    for x in (1e-6, 0.01, 0.3, 0.9):
        blown = float(special.ndtr(special.ndtri(x) + mu))  # 1 - G_mu(x)
        assert inverse(blown) == pytest.approx(x, rel=1e-9)


def test_fdp_epsilon_is_the_gdp_epsilon_of_fdp_mu():
    from dpaudit.accounting.conversions import gdp_epsilon

    mu = fdp_mu(1000, 500, 400)
    assert mu > 0
    assert fdp_epsilon(1000, 500, 400, delta=1e-5) == pytest.approx(gdp_epsilon(mu, 1e-5))


def test_more_correct_guesses_never_lower_the_bounds():
    previous = (0.0, 0.0)
    for v in range(50, 101, 5):
        now = (steinke_epsilon(1000, 100, v, delta=1e-5), fdp_mu(1000, 100, v))
        assert now[0] >= previous[0] and now[1] >= previous[1]
        previous = now


@pytest.mark.parametrize(("call", "name"), [
    (lambda: steinke_p_value(10, 11, 3, 1.0), "r"),
    (lambda: steinke_p_value(10, 5, 6, 1.0), "v"),
    (lambda: steinke_p_value(10, 5, 3, -1.0), "epsilon"),
    (lambda: steinke_epsilon(10, 5, 3, delta=1.0), "delta"),
    (lambda: steinke_epsilon(10, 5, 3, confidence=1.0), "confidence"),
    (lambda: fdp_epsilon(10, 5, 3, delta=0.0), "delta"),
    (lambda: fdp_epsilon(10, 5, 3, delta=0.1, tradeoff="laplace"), "tradeoff"),
])
def test_bad_arguments_are_named(call, name):
    with pytest.raises(InvalidArgument, match=f"`{name}`"):
        call()


def test_p_value_is_vectorisation_free_of_float_cancellation_at_large_r():
    # a window sum formed from pmf terms, not a difference of two tails near 1
    p = steinke_p_value(10**5, 10**5, 50_500, 0.0, 1e-6)
    assert 0.0 < p <= 1.0
    assert np.isfinite(p)
