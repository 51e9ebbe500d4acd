"""AboveThreshold halting on a low query: its output law, exactly (Arb) and by scipy quadrature (a cross-check).

For threshold noise L_th ~ Lap(b_th) and fresh query noise Lap(b_q), the mechanism answers ⊤ while
``s_t + nu_t >= nu - L_th`` and halts with ⊥ at the first query below (Ghazi et al. 2025, Alg 4, mirrored;
Lowy et al. 2024, Alg 2 lines 4-7 and 17-18, whose noisy threshold is ``nu + xi``: the same law, Lap is
symmetric). Conditionally on L_th = u the answers are independent, so

    P(⊤^{k-1} ⊥) = ∫ p_th(u) prod_{t<k} P(s_t + nu_t >= nu - u) P(s_k + nu_k < nu - u) du

and P(⊤^T) likewise.

* :func:`exact_profile` integrates this exactly in Arb: the integrand is an exponential polynomial between
  its kinks (:mod:`dpaudit.exact.threshold`, ``ThresholdSpec(halt_on="below", cutoff=1)``, the law of
  ``AboveThreshold(variant="ghazi2025")``), so every probability comes as a certified enclosure, and
  :func:`worst_pattern` turns the enclosures into a certified lower bound ``ln(p_lo / q_hi)`` on one output's
  privacy loss, a closed form the verification kernel re-checks.
* :func:`pattern_probabilities` / :func:`privacy_loss` compute the same integral with ``scipy.integrate.quad``
  (break points at the kinks). Its error estimate is not a bound: these values are evidence only, for
  cross-checking the exact ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp
from scipy import integrate

from dpaudit.errors import EnclosureError
from dpaudit.exact import FiniteProfile
from dpaudit.exact.threshold import ThresholdSpec, threshold_profile


def exact_profile(scores: Sequence[float], scores2: Sequence[float], threshold: float, b_th: float, b_q: float) -> FiniteProfile:
    """The certified law of the output patterns on ``scores`` (``P``) and ``scores2`` (``Q``), by :mod:`dpaudit.exact`."""
    spec = ThresholdSpec(threshold, b_th, b_q, cutoff=1, halt_on="below")
    return threshold_profile(spec, list(scores), list(scores2), description="AboveThreshold halting at the first ⊥")


@dataclass(frozen=True)
class PatternLoss:
    """A certified lower bound ``ln(numerator / denominator)`` on the privacy loss of one output pattern.

    ``numerator <= P(pattern | on)`` and ``denominator >= P(pattern | against)`` are the ends of Arb enclosures
    (floats, i.e. exact binary rationals), so ``ln P(pattern | on) - ln P(pattern | against) >= ln(numerator /
    denominator)``.
    """

    pattern: str
    on: str  # which stream the numerator is the law on: "scores" or "scores2"
    numerator: float
    denominator: float

    def lower_bound(self) -> sp.Expr:
        """``ln(numerator / denominator)`` with both ends as exact rationals (a closed form the kernel can sign)."""
        return sp.log(sp.Rational(self.numerator) / sp.Rational(self.denominator))

    @property
    def approx(self) -> float:
        """The lower bound as a float, for display and for choosing among patterns (never for a decision)."""
        return math.log(self.numerator) - math.log(self.denominator)


def worst_pattern(profile: FiniteProfile) -> PatternLoss:
    """The output pattern (either direction) whose certified lower bound on the privacy loss is the largest."""
    best: PatternLoss | None = None
    labels = profile.labels or tuple(str(i) for i in range(profile.size))
    for on, num, den in (("scores", profile.p_lo, profile.q_hi), ("scores2", profile.q_lo, profile.p_hi)):
        usable = np.flatnonzero((num > 0) & (den > 0))
        for i in usable:
            cand = PatternLoss(labels[i], on, float(num[i]), float(den[i]))
            if best is None or cand.approx > best.approx:
                best = cand
    if best is None:
        raise EnclosureError("no output pattern has a positive certified probability under both streams")
    return best


def _lap_cdf(x: float, b: float) -> float:
    return 0.5 * math.exp(x / b) if x < 0 else 1.0 - 0.5 * math.exp(-x / b)


def pattern_probabilities(scores: Sequence[float], threshold: float, b_th: float, b_q: float) -> list[tuple[float, float]]:
    """``[(P(⊤^{k-1} ⊥), abserr) for k = 1..T] + [(P(⊤^T), abserr)]`` by quadrature (evidence, not a bound)."""
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


def privacy_loss(scores: Sequence[float], scores2: Sequence[float], threshold: float, b_th: float, b_q: float) -> float:
    """Largest ``|ln P - ln P'|`` over output patterns, by quadrature (evidence: cross-checks :func:`exact_profile`)."""
    p = pattern_probabilities(scores, threshold, b_th, b_q)
    q = pattern_probabilities(scores2, threshold, b_th, b_q)
    return max((abs(math.log(a / b)) for (a, _), (b, _) in zip(p, q, strict=True) if a > 0 and b > 0), default=0.0)
