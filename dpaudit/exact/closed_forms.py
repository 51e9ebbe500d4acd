"""Closed forms: the Laplace and Gaussian pairs, and the finite laws of the discrete primitives.

* Laplace, ``P = Lap(0, b)`` against ``Q = Lap(Delta, b)`` with ``a = |Delta| / b``:
  ``H_{e^eps} = 1 - e^{(eps - a)/2}`` for ``0 <= eps < a`` and 0 beyond, the same in both
  directions; hence ``eps*(delta) = max(0, a + 2 ln(1 - delta))`` [BBG18, Sec. 4 (Laplace);
  the loss ``(|x - Delta| - |x|)/b`` is integrated in :func:`laplace_survival`].
* Gaussian, ``N(0, sigma^2 I)`` against ``N(Delta, sigma^2 I)``: the loss depends on the output
  only through its projection on ``Delta``, so the pair is the one-dimensional one with
  ``mu = ||Delta||_2 / sigma``, and ``H_{e^eps} = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)``
  [BW18, Thm 8].
* discrete Laplace (two-sided geometric) [GRS09], the truncated discrete Laplace of
  [GKKMMZ23, Def. 3.4], the truncated geometric GeoSample [BV18b, Alg. 4.8], k-ary randomized
  response and the exponential mechanism [MT07]: finite laws, enumerated
  (:class:`dpaudit.exact.finite.FiniteProfile`), rationals kept exact where the law is rational.

Every transcendental value is an Arb ball; profiles are of the mechanisms' laws as their
definitions state them (for continuous noise: over the reals; what a floating-point sampler does
to the low-order bits is what ``audit(..., float_bits=True)`` asks about instead).

References
----------
.. [BBG18] B. Balle, G. Barthe and M. Gaboardi. NeurIPS 2018.
.. [BW18] B. Balle and Y.-X. Wang. ICML 2018, Theorem 8.
.. [GRS09] A. Ghosh, T. Roughgarden and M. Sundararajan. STOC 2009.
.. [GKKMMZ23] B. Ghazi et al. On user-level private convex optimization. ICML 2023, Def. 3.4.
.. [BV18b] V. Balcer and S. Vadhan. Differential privacy on finite computers. ITCS 2018.
.. [MT07] F. McSherry and K. Talwar. FOCS 2007.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from flint import arb
from numpy.typing import NDArray

from dpaudit._validation import (
    argument_error,
    check_exact_float,
    check_exact_floats,
    check_int,
    check_nonnegative,
    check_positive,
    check_probability,
    exact_rational,
)
from dpaudit.exact.enclosure import Enclosure, arb_bounds, arb_of, fraction_bounds, precision
from dpaudit.exact.finite import FiniteProfile, finite_from_arbs, finite_from_fractions
from dpaudit.exact.pld import LossDistribution
from dpaudit.exact.profile import EXACT, EpsilonBracket, PrivacyProfile

__all__ = [
    "GaussianProfile",
    "IdenticalProfile",
    "LaplaceProfile",
    "as_values",
    "discrete_laplace_profile",
    "exponential_mechanism_profile",
    "randomized_response_profile",
    "truncated_discrete_laplace_profile",
    "weights_profile",
]

_ZERO = Enclosure(0.0, 0.0)


def as_values(x: object, owner: str = "as_values", name: str = "shift") -> list[float | Fraction]:
    """A number, a sequence or an array as a flat list of exact numbers, nothing rounded.

    Floats and Fractions are kept as they are; any other real (an int beyond ``2**53``, a Decimal,
    a numpy or sympy number) becomes its exact Fraction (:func:`dpaudit._validation.exact_rational`);
    NaN and non-numbers are refused, infinities kept as floats (the callers refuse them).
    """
    if isinstance(x, Sequence) or hasattr(x, "__array__"):
        flat = np.asarray(x, dtype=object).ravel().tolist()
        return [_exact_value(owner, f"{name}[{k}]", v) for k, v in enumerate(flat)]
    return [_exact_value(owner, name, x)]


def _exact_value(owner: str, name: str, value: object) -> float | Fraction:
    if type(value) is float or isinstance(value, Fraction):
        if value != value:  # NaN
            raise argument_error(owner, name, "a real number, not NaN", value)
        return value
    return exact_rational(owner, name, value)


class IdenticalProfile(PrivacyProfile):
    """Two identical laws: ``delta(eps) = 0`` and the epsilon is 0 at every delta."""

    description = "identical laws on the two datasets"

    def hockey_stick(self, epsilon: float, direction: int) -> Enclosure:
        """Zero: identical laws have no hockey-stick divergence."""
        return _ZERO

    def infinite_loss_mass(self, direction: int) -> Enclosure:
        """Zero: neither law puts mass where the other has none."""
        return _ZERO

    def max_loss(self, direction: int) -> Enclosure:
        """Zero: the privacy loss is 0 everywhere."""
        return _ZERO

    def exact_max_loss(self, direction: int) -> Fraction | None:
        """Exactly 0."""
        return Fraction(0)

    def loss_distribution(self, direction: int, step: float) -> LossDistribution:
        """One atom of mass 1 at loss 0."""
        return LossDistribution.from_atoms(*(_one_atom()), _ZERO, step)


def _one_atom() -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """One atom at loss 0 with mass 1, as ``(loss_lo, loss_hi, mass_lo, mass_hi)`` for :meth:`LossDistribution.from_atoms`."""
    return np.zeros(1), np.zeros(1), np.ones(1), np.ones(1)


class LaplaceProfile(PrivacyProfile):
    """``Lap(0, scale)`` against ``Lap(shift, scale)`` (one coordinate), exactly."""

    def __init__(self, shift: float | Fraction, scale: float) -> None:
        exact = exact_rational("LaplaceProfile", "shift", shift)  # read exactly: every later step is rational
        if not isinstance(exact, Fraction):
            raise argument_error("LaplaceProfile", "shift", "finite", shift)
        scale = check_positive("LaplaceProfile", "scale", check_exact_float("LaplaceProfile", "scale", scale))
        self.shift, self.scale = abs(exact), scale
        self.ratio = self.shift / Fraction(scale)  # a = |Delta| / b, exactly
        self.description = f"Laplace, shift {float(self.shift):g}, scale {scale:g} (shift/scale = {float(self.ratio):.6g})"

    def _a(self) -> arb:
        return arb_of(self.ratio)

    def hockey_stick(self, epsilon: float, direction: int) -> Enclosure:
        """``1 - e^{(eps - a)/2}`` for ``eps < a = |shift| / scale``, else 0, in either direction [BBG18, Sec. 4]."""
        if Fraction(epsilon) >= self.ratio:
            return _ZERO
        with precision():
            value = 1 - ((arb_of(epsilon) - self._a()) / 2).exp()
            return arb_bounds(value)

    def infinite_loss_mass(self, direction: int) -> Enclosure:
        """Zero: both Laplace laws have full support."""
        return _ZERO

    def max_loss(self, direction: int) -> Enclosure:
        """``a = |shift| / scale``: the loss ``(|x - shift| - |x|) / scale`` is largest beyond the shift."""
        return fraction_bounds(self.ratio)

    def exact_max_loss(self, direction: int) -> Fraction | None:
        """``|shift| / scale`` as an exact rational."""
        return self.ratio

    def epsilon(self, delta: float) -> EpsilonBracket:
        """``max(0, a + 2 ln(1 - delta))`` in closed form."""
        delta = check_probability("LaplaceProfile.epsilon", "delta", check_exact_float("LaplaceProfile.epsilon", "delta", delta))
        if delta <= 0.0 or self.ratio == 0:
            return super().epsilon(delta)
        with precision():
            b = arb_bounds(self._a() + 2 * (-arb_of(delta)).log1p())
        return EpsilonBracket(delta, max(b.lo, 0.0), max(b.hi, 0.0), EXACT)

    def survival(self, t: float) -> Enclosure:
        """``P(L > t)`` under ``P``: 1 below ``-a``, ``1 - e^{-(a - t)/2}/2`` on ``[-a, a)``, 0 from ``a``."""
        ft = Fraction(t)
        if ft >= self.ratio:
            return _ZERO
        if ft < -self.ratio:
            return Enclosure(1.0, 1.0)
        with precision():
            return arb_bounds(1 - ((arb_of(t) - self._a()) / 2).exp() / 2)

    def loss_distribution(self, direction: int, step: float) -> LossDistribution:
        """The loss distribution from :meth:`survival` on the grid ``k * step`` over ``[-a - step, a + step]``."""
        a = float(self.ratio)
        return LossDistribution.from_survival(self.survival, -a - step, a + step, _ZERO, step)


class GaussianProfile(PrivacyProfile):
    """``N(0, sigma^2 I)`` against ``N(shift, sigma^2 I)``: the pair with ``mu = ||shift||_2 / sigma``."""

    #: Loss distributions are cut at this many standard deviations of the loss (tail < 1e-18).
    TAILS = 9.0

    def __init__(self, shift: float | Fraction | Sequence[float | Fraction], sigma: float) -> None:
        sigma = check_positive("GaussianProfile", "sigma", check_exact_float("GaussianProfile", "sigma", sigma))
        values = as_values(shift, "GaussianProfile", "shift")  # exact: the norm is taken in Arb from exact values
        if not all(isinstance(x, Fraction) or math.isfinite(float(x)) for x in values):
            raise argument_error("GaussianProfile", "shift", "finite", shift)
        self.sigma = sigma
        with precision():
            norm_sq = sum((arb_of(x) ** 2 for x in values), arb(0))
            self._mu = norm_sq.sqrt() / arb_of(sigma)
        self.mu = arb_bounds(self._mu)
        self.description = f"Gaussian, ||shift||_2 / sigma = mu = {self.mu.hi:.6g}"

    @classmethod
    def from_mu(cls, mu: arb) -> GaussianProfile:
        """The pair ``N(0, 1)`` against ``N(mu, 1)`` for an Arb ball ``mu >= 0``."""
        out = cls(0.0, 1.0)
        out._mu, out.mu = mu, arb_bounds(mu)
        out.description = f"Gaussian, mu = {out.mu.hi:.6g}"
        return out

    def hockey_stick(self, epsilon: float, direction: int) -> Enclosure:
        """``Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)`` in Arb, either direction [BW18, Thm 8]."""
        if self.mu.hi == 0.0:
            return _ZERO
        with precision():
            mu, e = self._mu, arb_of(epsilon)
            value = _phi(mu / 2 - e / mu) - e.exp() * _phi(-mu / 2 - e / mu)
            b = arb_bounds(value)
        return Enclosure(max(b.lo, 0.0), min(b.hi, 1.0))

    def infinite_loss_mass(self, direction: int) -> Enclosure:
        """Zero: both Gaussian laws have full support."""
        return _ZERO

    def max_loss(self, direction: int) -> Enclosure:
        """``+inf`` (the Gaussian loss is unbounded), or 0 when ``mu = 0``."""
        return _ZERO if self.mu.hi == 0.0 else Enclosure(math.inf, math.inf)

    def exact_max_loss(self, direction: int) -> Fraction | None:
        """``0`` when ``mu = 0``; otherwise ``None`` (the loss is unbounded)."""
        return Fraction(0) if self.mu.hi == 0.0 else None

    def survival(self, t: float) -> Enclosure:
        """``P(L > t)`` with ``L ~ N(mu^2/2, mu^2)`` under ``P`` [BW18, Lemma 3]."""
        with precision():
            mu = self._mu
            return arb_bounds(((arb_of(t) - mu * mu / 2) / (mu * arb(2).sqrt())).erfc() / 2)

    def loss_distribution(self, direction: int, step: float) -> LossDistribution:
        """The same in both directions (the pair is symmetric); cached per (mu, step): Arb's erfc is the cost."""
        if self.mu.hi == 0.0:
            return IdenticalProfile().loss_distribution(direction, step)
        key = (self._mu.mid_rad_10exp(), step)
        if key not in _GAUSSIAN_LOSSES:
            mu = self.mu.hi
            centre = mu * mu / 2
            _GAUSSIAN_LOSSES[key] = LossDistribution.from_survival(self.survival, centre - self.TAILS * mu, centre + self.TAILS * mu, _ZERO, step)
            while len(_GAUSSIAN_LOSSES) > 64:
                _GAUSSIAN_LOSSES.pop(next(iter(_GAUSSIAN_LOSSES)))
        return _GAUSSIAN_LOSSES[key]


_GAUSSIAN_LOSSES: dict[object, LossDistribution] = {}


def _phi(x: arb) -> arb:
    """The standard normal CDF, ``erfc(-x / sqrt 2) / 2``."""
    return (-x / arb(2).sqrt()).erfc() / 2


def discrete_laplace_profile(shift: int, rate: float) -> PrivacyProfile:
    """``P[k] ∝ e^{-rate |k|}`` against the same law shifted by the integer ``shift`` [GRS09].

    The loss is ``rate (|k - shift| - |k|)``, constant on ``k <= 0`` and on ``k >= shift``: those
    outputs are merged, leaving ``|shift| + 1`` outputs with masses ``1/(1+r)``, ``c r^k``
    (``c = (1-r)/(1+r)``, ``0 < k < shift``) and ``r^shift/(1+r)``, ``r = e^{-rate}``.
    """
    shift = abs(check_int("discrete_laplace_profile", "shift", shift))
    rate = check_positive("discrete_laplace_profile", "rate", check_exact_float("discrete_laplace_profile", "rate", rate))
    if shift == 0:
        return IdenticalProfile()
    with precision():
        r = (-arb_of(rate)).exp()
        c = (1 - r) / (1 + r)
        p = [1 / (1 + r)] + [c * r**k for k in range(1, shift)] + [r**shift / (1 + r)]
        q = p[::-1]
        loss = Fraction(rate) * shift
        return finite_from_arbs(p, q, description=f"discrete Laplace, rate {rate:g}, shift {shift}",
                                exact_max_losses=(loss, loss))


def truncated_discrete_laplace_profile(shift: int, epsilon: float, kappa: int) -> FiniteProfile:
    """``v + R - kappa`` with ``R ~ TDLap`` on ``{0..2 kappa}``, ``∝ e^{-eps |x - kappa|}`` [GKKMMZ23, Def. 3.4], against ``v + shift``."""
    owner = "truncated_discrete_laplace_profile"
    shift = abs(check_int(owner, "shift", shift))
    epsilon = check_positive(owner, "epsilon", check_exact_float(owner, "epsilon", epsilon))
    kappa = check_int(owner, "kappa", kappa, minimum=0)
    with precision():
        weight = [(-arb_of(epsilon) * abs(j)).exp() for j in range(-kappa, kappa + 1)]
        z = sum(weight, arb(0))
        pmf = [w / z for w in weight]
        size = 2 * kappa + 1 + shift
        zero = arb(0)
        p = [pmf[y] if y < len(pmf) else zero for y in range(size)]
        q = [pmf[y - shift] if 0 <= y - shift < len(pmf) else zero for y in range(size)]
        return finite_from_arbs(p, q, description=f"truncated discrete Laplace, eps {epsilon:g}, kappa {kappa}, shift {shift}")


def weights_profile(w0: Sequence[int], w1: Sequence[int], description: str) -> FiniteProfile:
    """Two laws given by integer weights on the same outputs (exact rationals), e.g. GeoSample [BV18b]."""
    d0, d1 = sum(w0), sum(w1)
    return finite_from_fractions([Fraction(w, d0) for w in w0], [Fraction(w, d1) for w in w1], description=description)


def randomized_response_profile(keep: float, k: int, differing: int) -> FiniteProfile:
    """k-ary randomized response on ``differing`` entries that change between the datasets.

    The keep probability ``keep`` is exact: a float on numpy's 2^-53 grid.

    One entry changing from ``x`` to ``x'`` gives three outputs up to merging: ``x`` (``p`` vs ``r``),
    ``x'`` (``r`` vs ``p``) and any other category (``(k-2) r`` on both), ``r = (1 - p)/(k - 1)``.
    """
    owner = "randomized_response_profile"
    p = exact_rational(owner, "keep", keep)  # read exactly: every later step is rational
    if not isinstance(p, Fraction) or not 0 <= p <= 1:
        raise argument_error(owner, "keep", "a probability in [0, 1]", keep)
    k = check_int(owner, "k", k, minimum=2)
    differing = check_int(owner, "differing", differing, minimum=0)
    r = (1 - p) / (k - 1)
    if differing == 0:
        return finite_from_fractions([Fraction(1)], [Fraction(1)], description="randomized response, no entry differs")
    one_p, one_q = [p, r], [r, p]
    if k > 2:
        one_p.append((k - 2) * r)
        one_q.append((k - 2) * r)
    ps, qs = [Fraction(1)], [Fraction(1)]
    for _ in range(differing):
        ps = [a * b for a in ps for b in one_p]
        qs = [a * b for a in qs for b in one_q]
    entries = f"{differing} entr{'y' if differing == 1 else 'ies'} differ"
    return finite_from_fractions(ps, qs, description=f"randomized response, k = {k}, keep {float(p):.6g}, {entries}")


def exponential_mechanism_profile(u0: Sequence[float], u1: Sequence[float], epsilon: float, sensitivity: float) -> FiniteProfile:
    """``P(i) ∝ exp(eps u_i / (2 s))`` on each utility vector [MT07; DR14, Def. 3.4].

    Every number is read as the float it equals (:func:`dpaudit._validation.check_exact_float`).
    """
    owner = "exponential_mechanism_profile"
    epsilon = check_nonnegative(owner, "epsilon", check_exact_float(owner, "epsilon", epsilon))
    sensitivity = check_positive(owner, "sensitivity", check_exact_float(owner, "sensitivity", sensitivity))
    utilities = [check_exact_floats(owner, name, u) for name, u in (("u0", u0), ("u1", u1))]
    with precision():
        factor = arb_of(epsilon) / (2 * arb_of(sensitivity))
        laws = []
        for u in utilities:
            top = max(u)
            w = [(factor * (arb_of(x) - arb_of(top))).exp() for x in u]
            z = sum(w, arb(0))
            laws.append([x / z for x in w])
        return finite_from_arbs(laws[0], laws[1], description=f"exponential mechanism, eps {epsilon:g}, {len(u0)} candidates")
