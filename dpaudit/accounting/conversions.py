"""Closed-form privacy curves and conversions between privacy notions.

All functions are deterministic and vectorise over numpy arrays where that is natural.

References
----------
.. [BW18] B. Balle and Y.-X. Wang. Improving the Gaussian mechanism for differential privacy:
   analytical calibration and optimal denoising. ICML 2018, arXiv:1805.06530v2.
.. [DRS19] J. Dong, A. Roth and W. Su. Gaussian differential privacy. arXiv:1905.02383v3.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special

from dpaudit._validation import check_nonnegative, check_positive, check_probability

__all__ = [
    "analytic_gaussian_delta",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_mu_from_rates",
]


def _log_sub_exp(a: float, b: float) -> float:
    """log(exp(a) - exp(b)) for a >= b, without overflow; -inf when equal."""
    if b == -math.inf or a - b > 50:
        return a
    if a <= b:
        return -math.inf
    return a + math.log(-math.expm1(b - a))


def analytic_gaussian_delta(epsilon: float, sigma: float, sensitivity: float = 1.0) -> float:
    """Exact delta of the Gaussian mechanism at ``epsilon`` [BW18, Thm 8].

    .. math::
        \\delta(\\varepsilon) = \\Phi\\left(\\frac{\\Delta}{2\\sigma} - \\frac{\\varepsilon\\sigma}{\\Delta}\\right)
        - e^{\\varepsilon}\\,\\Phi\\left(-\\frac{\\Delta}{2\\sigma} - \\frac{\\varepsilon\\sigma}{\\Delta}\\right)

    Computed in log space (``log_ndtr``) so that tiny deltas keep their relative accuracy.
    """
    owner = "analytic_gaussian_delta"
    epsilon = check_nonnegative(owner, "epsilon", epsilon)
    sigma = check_positive(owner, "sigma", sigma)
    sensitivity = check_positive(owner, "sensitivity", sensitivity)
    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    log_first = float(special.log_ndtr(a - b))
    log_second = epsilon + float(special.log_ndtr(-a - b))
    return max(0.0, math.exp(_log_sub_exp(log_first, log_second)))


def gdp_delta(mu: float, epsilon: float) -> float:
    """delta(epsilon) of a mu-GDP mechanism [DRS19, Cor 2.13].

    ``delta = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)``; identical to the Gaussian curve
    with ``sensitivity / sigma = mu``.
    """
    mu = check_positive("gdp_delta", "mu", mu)
    epsilon = check_nonnegative("gdp_delta", "epsilon", epsilon)
    return analytic_gaussian_delta(epsilon, 1.0 / mu, 1.0)


def gdp_epsilon(mu: float, delta: float) -> float:
    """Smallest epsilon with ``gdp_delta(mu, epsilon) <= delta`` [DRS19, Cor 2.13].

    Root-finding on the monotone curve; the result is nudged upwards until the curve at it is at
    most ``delta``, so it is a valid (conservative) epsilon.
    """
    mu = check_nonnegative("gdp_epsilon", "mu", mu, allow_inf=True)
    delta = check_probability("gdp_epsilon", "delta", delta, allow_zero=False)
    if mu == 0.0:
        return 0.0
    if math.isinf(mu):
        return math.inf
    if gdp_delta(mu, 0.0) <= delta:
        return 0.0
    hi = 1.0
    while gdp_delta(mu, hi) > delta:
        hi *= 2.0
        if hi > 1e6:  # pragma: no cover - needs mu ~ 1e3
            return math.inf
    root = optimize.brentq(lambda e: gdp_delta(mu, e) - delta, 0.0, hi, xtol=1e-14, rtol=1e-14)
    while gdp_delta(mu, root) > delta:
        root = float(np.nextafter(root, math.inf)) * (1 + 1e-15)
    return float(root)


def gdp_mu_from_rates(false_positive_rate: float, false_negative_rate: float) -> float:
    """mu implied by one point of a trade-off curve [DRS19, Eq. (6)].

    A mu-GDP test satisfies ``FNR >= Phi(Phi^{-1}(1 - FPR) - mu)``, so
    ``mu >= Phi^{-1}(1 - FPR) - Phi^{-1}(FNR)``. Returns that lower value, clipped at 0.
    """
    fpr = float(false_positive_rate)
    fnr = float(false_negative_rate)
    if fpr <= 0.0 or fnr <= 0.0:
        return math.inf if fpr + fnr < 1.0 else 0.0
    mu = float(special.ndtri(1.0 - fpr) - special.ndtri(fnr)) if fpr < 1 and fnr < 1 else 0.0
    return max(0.0, mu)
