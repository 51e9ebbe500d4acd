"""Noise calibration. Every function rounds towards *more* noise (convention 10 of ``docs/conventions.md``).

A floating-point quotient such as ``sensitivity / epsilon`` may be rounded down by half an ulp;
that would give slightly less noise than the formula asks for. Each function here checks the
rounding direction exactly (with :class:`fractions.Fraction` or with the exact privacy curve)
and steps up to the next float when needed.

References
----------
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
.. [BW18] B. Balle and Y.-X. Wang. Improving the Gaussian mechanism for differential privacy.
   ICML 2018, arXiv:1805.06530v2.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
from scipy import optimize

from dpaudit._validation import argument_error, check_positive, check_probability
from dpaudit.accounting.conversions import analytic_gaussian_delta

__all__ = [
    "gaussian_sigma_analytic",
    "gaussian_sigma_classical",
    "laplace_scale",
    "round_up",
]


def round_up(value: float) -> float:
    """The next float above ``value`` (one ulp of safety for a rounded-to-nearest result)."""
    return float(np.nextafter(value, math.inf))


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """Laplace scale ``b = sensitivity / epsilon`` for epsilon-DP [DR14, Thm 3.6], rounded up.

    The returned float ``b`` satisfies ``b * epsilon >= sensitivity`` exactly (in rationals).
    """
    sensitivity = check_positive("laplace_scale", "sensitivity", sensitivity)
    epsilon = check_positive("laplace_scale", "epsilon", epsilon)
    scale = sensitivity / epsilon
    while Fraction(scale) * Fraction(epsilon) < Fraction(sensitivity):
        scale = round_up(scale)
    return scale


def gaussian_sigma_classical(sensitivity: float, epsilon: float, delta: float) -> float:
    """Classical Gaussian sigma ``sensitivity * sqrt(2 ln(1.25/delta)) / epsilon`` [DR14, Thm A.1].

    The theorem needs ``epsilon < 1``; larger values are rejected rather than silently used,
    because the formula stops being private for large epsilon (for example at epsilon = 10,
    delta = 1e-5 the exact delta of this sigma is 2.3e-5). Use :func:`gaussian_sigma_analytic`.
    The result is rounded up by a few ulps to cover the rounding of sqrt and log.
    """
    owner = "gaussian_sigma_classical"
    sensitivity = check_positive(owner, "sensitivity", sensitivity)
    epsilon = check_positive(owner, "epsilon", epsilon)
    delta = check_probability(owner, "delta", delta, allow_zero=False)
    if epsilon >= 1.0:
        raise argument_error(owner, "epsilon", "in (0, 1) for the classical calibration [DR14, Thm A.1]",
                             epsilon, fix="use calibration='analytic' (Balle & Wang 2018) for epsilon >= 1.")
    sigma = sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon
    # each of log, sqrt, *, / is correctly rounded (<= 0.5 ulp); 4 ulps cover them all
    for _ in range(4):
        sigma = round_up(sigma)
    return sigma


def gaussian_sigma_analytic(sensitivity: float, epsilon: float, delta: float) -> float:
    """Smallest sigma for which the Gaussian mechanism is (epsilon, delta)-DP [BW18, Thm 8].

    Solves ``analytic_gaussian_delta(epsilon, sigma, sensitivity) = delta`` with Brent's method
    in log-sigma, then steps sigma up until the exact curve at the result is at most ``delta``
    (the "non-positive gap" rule of dp_accounting's calibration), so the answer never gives less
    privacy than requested.
    """
    owner = "gaussian_sigma_analytic"
    sensitivity = check_positive(owner, "sensitivity", sensitivity)
    epsilon = check_positive(owner, "epsilon", epsilon)
    delta = check_probability(owner, "delta", delta, allow_zero=False)

    def gap(log_sigma: float) -> float:
        return analytic_gaussian_delta(epsilon, math.exp(log_sigma), sensitivity) - delta

    lo, hi = math.log(sensitivity) - 10.0, math.log(sensitivity) + 10.0
    while gap(lo) < 0:
        lo -= 10.0
    while gap(hi) > 0:
        hi += 10.0
    log_sigma = optimize.brentq(gap, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    sigma = math.exp(log_sigma)
    # The double-precision curve loses up to ~1e-10 (relative) to cancellation at small epsilon,
    # so the final safety check uses the same curve in 40-digit arithmetic and steps sigma up
    # (geometrically growing steps) until the exact delta is at most the target.
    step = 1e-14
    while _exact_gaussian_delta(epsilon, sigma, sensitivity) > delta:
        sigma = round_up(sigma * (1.0 + step))
        step *= 2.0
    return sigma


def _exact_gaussian_delta(epsilon: float, sigma: float, sensitivity: float) -> mpmath.mpf:
    """[BW18, Thm 8] evaluated with mpmath at 40 significant digits (inputs taken exactly)."""
    with mpmath.workdps(40):
        eps, sig, sens = mpmath.mpf(epsilon), mpmath.mpf(sigma), mpmath.mpf(sensitivity)
        a, b = sens / (2 * sig), eps * sig / sens
        return mpmath.ncdf(a - b) - mpmath.exp(eps) * mpmath.ncdf(-a - b)
