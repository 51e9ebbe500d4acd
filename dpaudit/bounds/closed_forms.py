"""Closed forms of the DP primitives the papers use, with two numeric inversions in mpmath.

Laplace and Gaussian scales, the exact Gaussian and GDP curves, advanced composition; the analytic Gaussian sigma and
GDP's epsilon by bisection.

Re-exported by :mod:`dpaudit.bounds.calibration`, whose checks compare them with :mod:`dpaudit.accounting`.

References
----------
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
   Thm 3.6 (Laplace), Thm A.1 (Gaussian), Thm 3.20 (advanced composition).
.. [BW18] B. Balle and Y.-X. Wang. Improving the Gaussian mechanism for differential privacy.
   ICML 2018, arXiv:1805.06530v2, Thm 8.
.. [DRS19] J. Dong, A. Roth and W. Su. Gaussian differential privacy. arXiv:1905.02383v3,
   Cor 2.13.
"""

from __future__ import annotations

from typing import Any

import mpmath
import sympy as sp

from dpaudit._validation import check_positive, check_probability
from dpaudit.bounds.checks import DIGITS
from dpaudit.bounds.symbols import Delta, T, delta, epsilon, mu_gdp, sigma

__all__ = ["advanced_composition_expr", "analytic_gaussian_sigma", "gaussian_delta_expr", "gaussian_sigma_classical_expr",
           "gdp_delta_expr", "gdp_epsilon_from_curve", "laplace_scale_expr", "normal_cdf"]


def normal_cdf(z: sp.Expr) -> sp.Expr:
    """Standard normal CDF ``Phi(z) = erfc(-z / sqrt(2)) / 2`` as a sympy expression.

    The erfc form equals ``(1 + erf(z/sqrt(2)))/2`` but does not cancel for negative z, so that
    tiny deltas keep their relative accuracy when evaluated numerically.
    """
    return sp.erfc(-z / sp.sqrt(2)) / 2


def laplace_scale_expr(sensitivity: sp.Expr = Delta, eps: sp.Expr = epsilon) -> sp.Expr:
    """Laplace scale ``b = sensitivity / epsilon`` giving epsilon-DP [DR14, Thm 3.6]."""
    return sensitivity / eps


def gaussian_sigma_classical_expr(sensitivity: sp.Expr = Delta, eps: sp.Expr = epsilon,
                                  dlt: sp.Expr = delta) -> sp.Expr:
    """Classical Gaussian ``sigma = sensitivity sqrt(2 ln(1.25/delta)) / epsilon`` [DR14, Thm A.1] (epsilon < 1)."""
    return sensitivity * sp.sqrt(2 * sp.log(sp.Rational(5, 4) / dlt)) / eps


def gaussian_delta_expr(eps: sp.Expr = epsilon, sig: sp.Expr = sigma, sensitivity: sp.Expr = Delta) -> sp.Expr:
    """Exact delta(epsilon) of the Gaussian mechanism [BW18, Thm 8].

    .. math::
        \\delta = \\Phi\\left(\\frac{\\Delta}{2\\sigma} - \\frac{\\varepsilon\\sigma}{\\Delta}\\right)
        - e^{\\varepsilon}\\Phi\\left(-\\frac{\\Delta}{2\\sigma} - \\frac{\\varepsilon\\sigma}{\\Delta}\\right)
    """
    a = sensitivity / (2 * sig)
    b = eps * sig / sensitivity
    return normal_cdf(a - b) - sp.exp(eps) * normal_cdf(-a - b)


def gdp_delta_expr(mu: sp.Expr = mu_gdp, eps: sp.Expr = epsilon) -> sp.Expr:
    """delta(epsilon) of a mu-GDP mechanism [DRS19, Cor 2.13]: ``Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)``."""
    return normal_cdf(-eps / mu + mu / 2) - sp.exp(eps) * normal_cdf(-eps / mu - mu / 2)


def advanced_composition_expr(eps: sp.Expr = epsilon, count: sp.Expr = T,
                              delta_prime: sp.Expr | None = None) -> sp.Expr:
    """Total epsilon of ``count``-fold adaptive composition [DR14, Thm 3.20]: ``sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1)``."""
    dp = delta if delta_prime is None else delta_prime
    return sp.sqrt(2 * count * sp.log(1 / dp)) * eps + count * eps * (sp.exp(eps) - 1)


# ------------------------------------------------------------------------------------------------
# numerical helpers (mpmath, independent of dpaudit.accounting's scipy implementation)
# ------------------------------------------------------------------------------------------------


def _mp_phi(z: Any) -> Any:
    return mpmath.erfc(-z / mpmath.sqrt(2)) / 2


def _mp_gauss_delta(eps: Any, sig: Any, sens: Any) -> Any:
    a = sens / (2 * sig)
    b = eps * sig / sens
    return _mp_phi(a - b) - mpmath.exp(eps) * _mp_phi(-a - b)


def analytic_gaussian_sigma(epsilon_value: float, delta_value: float, sensitivity: float = 1.0) -> float:
    """Smallest sigma with ``gaussian_delta_expr <= delta`` [BW18, Thm 8], by bisection in mpmath.

    An implementation independent of :func:`dpaudit.accounting.gaussian_sigma_analytic` (which uses
    scipy), for cross-checks. Accurate to a relative 1e-12.
    """
    eps_v = check_positive("analytic_gaussian_sigma", "epsilon", epsilon_value)
    dlt_v = check_probability("analytic_gaussian_sigma", "delta", delta_value, allow_zero=False)
    sens = check_positive("analytic_gaussian_sigma", "sensitivity", sensitivity)
    with mpmath.workdps(DIGITS):
        e, dl, s = mpmath.mpf(eps_v), mpmath.mpf(dlt_v), mpmath.mpf(sens)
        lo, hi = s * mpmath.mpf(10) ** -6, s
        while _mp_gauss_delta(e, hi, s) > dl:
            hi *= 2
        while _mp_gauss_delta(e, lo, s) <= dl:
            lo /= 2
        return _smallest_below(lambda v: _mp_gauss_delta(e, v, s), dl, lo, hi)


def gdp_epsilon_from_curve(mu_value: float, delta_value: float) -> float:
    """Smallest epsilon >= 0 with ``gdp_delta_expr(mu, eps) <= delta`` [DRS19, Cor 2.13], in mpmath.

    Independent of :func:`dpaudit.accounting.gdp_epsilon`, for cross-checks.
    """
    mu_v = check_positive("gdp_epsilon_from_curve", "mu", mu_value)
    dlt_v = check_probability("gdp_epsilon_from_curve", "delta", delta_value, allow_zero=False)
    with mpmath.workdps(DIGITS):
        mu_m, dl = mpmath.mpf(mu_v), mpmath.mpf(dlt_v)

        def curve(e: Any) -> Any:
            return _mp_phi(-e / mu_m + mu_m / 2) - mpmath.exp(e) * _mp_phi(-e / mu_m - mu_m / 2)

        if curve(mpmath.mpf(0)) <= dl:
            return 0.0
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        while curve(hi) > dl:
            lo, hi = hi, hi * 2
        return _smallest_below(curve, dl, lo, hi)


def _smallest_below(curve: Any, target: Any, lo: Any, hi: Any) -> float:
    """Bisection of a decreasing ``curve`` keeping ``curve(lo) > target >= curve(hi)``, to a relative 1e-15: ``hi``."""
    for _ in range(200):
        mid = (lo + hi) / 2
        if curve(mid) > target:
            lo = mid
        else:
            hi = mid
        if hi - lo <= hi * mpmath.mpf(10) ** -15:
            break
    return float(hi)
