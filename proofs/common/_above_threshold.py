"""Exact output distribution of AboveThreshold (halting on a low query) by numerical quadrature.

For threshold noise L_th ~ Lap(b_th) and fresh query noise Lap(b_q), the mechanism answers ⊤ while
``s_t + nu_t >= nu - L_th`` and halts with ⊥ at the first query below (Ghazi et al. 2025, Alg 4;
Lowy et al. 2024, Alg 2 lines 4-7, whose threshold noise has the opposite sign, which is the same law
because Lap is symmetric). Conditionally on L_th = u the answers are independent, so

    P(⊤^{k-1} ⊥) = ∫ p_th(u) prod_{t<k} P(s_t + nu >= nu_0 - u) P(s_k + nu < nu_0 - u) du

and P(⊤^T) likewise. The integrand is piecewise smooth with kinks at u = 0 and u = nu_0 - s_t, which
are passed to ``scipy.integrate.quad`` as break points; its error estimate is carried along.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from scipy import integrate


def _lap_cdf(x: float, b: float) -> float:
    return 0.5 * math.exp(x / b) if x < 0 else 1.0 - 0.5 * math.exp(-x / b)


def pattern_probabilities(scores: Sequence[float], threshold: float, b_th: float, b_q: float) -> list[tuple[float, float]]:
    """``[(P(⊤^{k-1} ⊥), abserr) for k = 1..T] + [(P(⊤^T), abserr)]``."""
    out = []
    breaks = sorted({0.0, *[threshold - s for s in scores]})
    span = 60.0 * max(b_th, b_q) + max(abs(b) for b in breaks)
    for k in range(1, len(scores) + 2):

        def integrand(u: float, k: int = k) -> float:
            value = math.exp(-abs(u) / b_th) / (2 * b_th)
            level = threshold - u
            for s in scores[: k - 1]:
                value *= 1.0 - _lap_cdf(level - s, b_q)
            if k <= len(scores):
                value *= _lap_cdf(level - scores[k - 1], b_q)
            return value

        prob, err = integrate.quad(integrand, -span, span, points=breaks, limit=400, epsabs=1e-14, epsrel=1e-11)
        out.append((prob, err + 1e-300))
    return out


def privacy_loss(scores: Sequence[float], scores2: Sequence[float], threshold: float, b_th: float, b_q: float) -> tuple[float, float]:
    """(largest |ln P - ln P'| over output patterns, a lower bound on it allowing for quadrature error)."""
    p = pattern_probabilities(scores, threshold, b_th, b_q)
    q = pattern_probabilities(scores2, threshold, b_th, b_q)
    best, best_low = 0.0, 0.0
    for (a, ea), (b, eb) in zip(p, q, strict=True):
        if a <= 0 or b <= 0:
            continue
        best = max(best, abs(math.log(a / b)))
        if a - ea > 0 and b - eb > 0:
            best_low = max(best_low, math.log((a - ea) / (b + eb)), math.log((b - eb) / (a + ea)))
    return best, best_low
