"""A test's outcome, then a Gaussian released on some outcomes: the joint law's profile, exact.

A transcript that releases a finite outcome ``k`` (a test's pass or halt) and then, given ``k``,
either nothing or ``N(loc_k, sigma^2 I)`` has on each side the law ``P = sum_k p_k G_k`` where
``G_k`` is a point mass (nothing released) or the Gaussian. The outcome is released, so the two
laws' supports split by ``k`` and the hockey-stick divergence is a sum over the outcomes
[BBG18, Def. 1]:

``H_a(P || Q) = sum_k H_a(p_k G_k || q_k G'_k)``, with

* ``(p_k - a q_k)_+`` where nothing is released (or ``loc_k`` is the same on both sides);
* ``p_k Phi(mu/2 - e'/mu) - a q_k Phi(-mu/2 - e'/mu)``, ``e' = ln(a q_k / p_k)``, where the Gaussian's
  locations differ by ``mu sigma`` (the Gaussian pair's hockey stick at ``e^{e'}`` [BW18, Thm 8],
  which holds for every real ``e'``, scaled by ``p_k``).

Each term is computed in Arb (python-flint), so :class:`BranchedGaussianProfile` is the pair's own
law (``kind == "exact"``), not the dominating pair an adaptive composition of the test and the
Gaussian would give (:class:`dpaudit.exact.Adaptive`). Its privacy-loss distribution (for composing
it with other steps) is ``ln(p_k/q_k) + N(mu_k^2/2, mu_k^2)`` on outcome ``k``, cut into the grid of
:meth:`dpaudit.exact.pld.LossDistribution.from_survival` from the survival function's enclosures.

:func:`laplace_test_profile` is the two-point law of a Laplace test ``score + Lap(b) >= threshold``
(pass, else halt) alone: ``P(pass) = P(Lap(b) >= threshold - score)``, the Laplace survival
function, on each side. :func:`laplace_test_then_gaussian_profile` adds the Gaussian released on a
pass: a phase of Lowy, Liu and Asi (2024)'s Algorithm 1 [LLA24, Alg 1 lines 12-13: ``s_hat = s +
Lap(20/eps)``, continue iff ``s_hat >= 4C/5``; line 25: ``x_i = mean of the kept iterates + N(0,
sigma_i^2 I)``] on a pair whose ramp keeps a fixed set (:mod:`dpaudit.userlevel.transcript_profile`).
The paper's proof (Theorem B.1's privacy part) pays the test as a Laplace mechanism on a score of
sensitivity at most 2 (its Lemma A.4) and the Gaussian on Lemma B.2's sensitivity, composed; this
module gives what the two cost *together* on one pair.

References
----------
.. [BBG18] B. Balle, G. Barthe and M. Gaboardi. Privacy amplification by subsampling: tight analyses
   via couplings and divergences. NeurIPS 2018, Definition 1.
.. [BW18] B. Balle and Y.-X. Wang. Improving the Gaussian mechanism for differential privacy.
   ICML 2018, Theorem 8.
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. NeurIPS 2024, Algorithm 1, Theorem B.1, Lemmas A.4 and B.2.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from flint import arb

from dpaudit._validation import argument_error, check_exact_float, check_positive
from dpaudit.exact.cells import laplace_cdf
from dpaudit.exact.closed_forms import GaussianProfile, _phi
from dpaudit.exact.enclosure import Enclosure, arb_bounds, arb_of, precision
from dpaudit.exact.finite import FiniteProfile, finite_from_arbs
from dpaudit.exact.pld import LossDistribution
from dpaudit.exact.profile import EXACT, PrivacyProfile

__all__ = ["BranchedGaussianProfile", "laplace_pass_probability", "laplace_test_profile",
           "laplace_test_then_gaussian_profile"]

_ZERO = Enclosure(0.0, 0.0)


def laplace_pass_probability(score: float, threshold: float, scale: float) -> arb:
    """``P(score + Lap(scale) >= threshold)`` as an Arb ball (the sign of ``threshold - score`` decided exactly).

    ``e^{-(threshold - score)/scale}/2`` when the score is below the threshold, else
    ``1 - e^{-(score - threshold)/scale}/2`` (the Laplace survival function; ``>=`` or ``>`` alike).
    """
    owner = "laplace_pass_probability"
    values = {name: check_exact_float(owner, name, v) for name, v in (("score", score), ("threshold", threshold))}
    for name, v in values.items():
        if not math.isfinite(v):
            raise argument_error(owner, name, "a finite real number", v)
    gap = Fraction(values["threshold"]) - Fraction(values["score"])
    with precision():
        return 1 - laplace_cdf(gap, arb_of(check_positive(owner, "scale", check_exact_float(owner, "scale", scale))))


def _test_inputs(owner: str, *values: object) -> tuple[float, ...]:
    """The test's numbers as the floats they equal, refused (not rounded) when no float64 holds them."""
    return tuple(check_exact_float(owner, name, v) for name, v in zip(("score0", "score1", "threshold", "scale"), values, strict=True))


def laplace_test_profile(score0: float, score1: float, threshold: float, scale: float) -> FiniteProfile:
    """The exact two-point profile of the test ``score + Lap(scale) >= threshold`` on ``score0`` vs ``score1``.

    Outcomes ``("halt", "pass")``. Its pure epsilon is ``|score0 - score1| / scale`` when both scores
    are on one side of the threshold (the Laplace tail's ratio on the pass side), less otherwise.
    Every number is read as the float it equals (:func:`dpaudit._validation.check_exact_float`).
    """
    score0, score1, threshold, scale = _test_inputs("laplace_test_profile", score0, score1, threshold, scale)
    with precision():
        laws = [[1 - a, a] for a in (laplace_pass_probability(s, threshold, scale) for s in (score0, score1))]
        return finite_from_arbs(laws[0], laws[1], labels=("halt", "pass"),
                                description=f"Laplace test: score {score0:g} vs {score1:g} + Lap({scale:g}) >= {threshold:g}")


def laplace_test_then_gaussian_profile(score0: float, score1: float, threshold: float, scale: float,
                                       shift: float | Sequence[float], sigma: float) -> BranchedGaussianProfile:
    """The test of :func:`laplace_test_profile`, then on a pass ``N(loc, sigma^2 I)`` whose location moves by ``shift``.

    Nothing is released on a halt. The joint law's profile, exact (:class:`BranchedGaussianProfile`).
    Every number is read as the float it equals (:func:`dpaudit._validation.check_exact_float`);
    ``shift`` exactly as :class:`~dpaudit.exact.GaussianProfile` reads it.
    """
    score0, score1, threshold, scale = _test_inputs("laplace_test_then_gaussian_profile", score0, score1, threshold, scale)
    with precision():
        passes = [laplace_pass_probability(s, threshold, scale) for s in (score0, score1)]
        return BranchedGaussianProfile(
            [1 - passes[0], passes[0]], [1 - passes[1], passes[1]], [None, shift], sigma, labels=("halt", "pass"),
            description=f"Laplace test (score {score0:g} vs {score1:g}, Lap({scale:g}), threshold {threshold:g}), "
                        f"then a Gaussian on a pass")


class BranchedGaussianProfile(PrivacyProfile):
    """A finite outcome ``k`` (masses ``p[k]`` on ``d0``, ``q[k]`` on ``d1``), then ``N(., sigma^2 I)`` or nothing given ``k``.

    Parameters
    ----------
    p, q : sequence of arb
        The outcome's probabilities on each side (Arb balls, each certified positive, each law summing to 1).
    shifts : sequence of (float or sequence of float or None)
        Per outcome, the move of the Gaussian's location between the two sides (``None``: nothing is
        released on that outcome; a zero shift is the same as ``None``).
    sigma : float
        The Gaussian's standard deviation (per coordinate).
    labels : sequence of str, optional
        The outcomes' names.
    description : str
        For reports.
    """

    #: Loss distributions are cut at this many standard deviations of each branch's Gaussian loss.
    TAILS = GaussianProfile.TAILS

    def __init__(self, p: Sequence[arb], q: Sequence[arb], shifts: Sequence[float | Sequence[float] | None], sigma: float,
                 *, labels: Sequence[str] | None = None, description: str = "") -> None:
        owner = "BranchedGaussianProfile"
        if not len(p) == len(q) == len(shifts) or len(p) == 0:
            raise argument_error(owner, "p, q, shifts", "one entry per outcome each (at least one)", (len(p), len(q), len(shifts)))
        sigma = check_positive(owner, "sigma", check_exact_float(owner, "sigma", sigma))
        with precision():
            self._p, self._q = ([x if isinstance(x, arb) else arb(check_exact_float(owner, f"{name}[{k}]", x)) for k, x in enumerate(side)]
                                for name, side in (("p", p), ("q", q)))
            if not all(x > 0 for x in (*self._p, *self._q)):
                raise argument_error(owner, "p, q", "masses certified positive (an outcome one side never gives is not "
                                     "covered)", [str(x) for x in (*self._p, *self._q)])
            # mu_k = ||shift_k|| / sigma (an Arb ball; 0 where nothing moves)
            self._mu = [arb(0) if s is None else GaussianProfile(s, sigma)._mu for s in shifts]
        self.labels = tuple(labels) if labels is not None else tuple(str(k) for k in range(len(p)))
        self.description = description or f"{len(p)} outcomes, then a Gaussian (sigma {sigma:g}) on some"
        self.kind = EXACT

    @property
    def size(self) -> int:
        """The number of outcomes."""
        return len(self._p)

    def _sides(self, direction: int) -> tuple[list[arb], list[arb]]:
        return (self._p, self._q) if direction == 0 else (self._q, self._p)

    def _moves(self, k: int) -> bool:
        return not self._mu[k] == 0  # an Arb ball that is not exactly 0 (a certified or possible move)

    def hockey_stick(self, epsilon: float, direction: int) -> Enclosure:
        """``sum_k H_{e^eps}(a_k G_k || b_k G'_k)`` in Arb (see the module docstring)."""
        a_side, b_side = self._sides(direction)
        with precision():
            e = arb_of(epsilon).exp()
            total = arb(0)
            for k in range(self.size):
                a, b, mu = a_side[k], b_side[k], self._mu[k]
                if not self._moves(k):
                    diff = a - e * b
                    total += diff if diff > 0 else (arb(0) if diff < 0 else diff.union(arb(0)))
                    continue
                shifted = (e * b / a).log()  # e' = ln(e^eps b / a)
                total += a * _phi(mu / 2 - shifted / mu) - e * b * _phi(-mu / 2 - shifted / mu)
            bounds = arb_bounds(total)
        return Enclosure(max(bounds.lo, 0.0), min(bounds.hi, 1.0))

    def infinite_loss_mass(self, direction: int) -> Enclosure:
        """Zero: every outcome has positive mass on both sides and the Gaussians have full support."""
        return _ZERO

    def max_loss(self, direction: int) -> Enclosure:
        """``+inf`` when a Gaussian moves; else the largest ``ln(a_k / b_k)``."""
        if any(self._moves(k) for k in range(self.size)):
            return Enclosure(math.inf, math.inf)
        a_side, b_side = self._sides(direction)
        with precision():
            bounds = [arb_bounds((a / b).log()) for a, b in zip(a_side, b_side, strict=True)]
        return Enclosure(max(b.lo for b in bounds), max(b.hi for b in bounds))

    def survival(self, t: float, direction: int) -> Enclosure:
        """``P(L > t)`` under the first law of ``direction``: ``sum_k a_k P(ln(a_k/b_k) + N(mu_k^2/2, mu_k^2) > t)``."""
        a_side, b_side = self._sides(direction)
        lo = hi = arb(0)
        with precision():
            for k in range(self.size):
                a, b, mu = a_side[k], b_side[k], self._mu[k]
                c = (a / b).log()
                if self._moves(k):
                    s = a * ((arb_of(t) - c - mu * mu / 2) / (mu * arb(2).sqrt())).erfc() / 2
                    lo, hi = lo + s, hi + s
                    continue
                if c > arb_of(t):  # the atom at ln(a/b) is above t for sure
                    lo, hi = lo + a, hi + a
                elif not c <= arb_of(t):  # undecided: counted in the upper enclosure only
                    hi = hi + a
            blo, bhi = arb_bounds(lo), arb_bounds(hi)
        return Enclosure(max(blo.lo, 0.0), min(bhi.hi, 1.0))

    def loss_distribution(self, direction: int, step: float) -> LossDistribution:
        """The loss distribution on the grid ``k * step``, from :meth:`survival` over each branch's support (cut at ``TAILS``).

        One Arb ``erfc`` per grid point and moving branch: fast for the small moves of the pairs built
        here (``mu`` about 0.01), seconds to minutes for ``mu`` of order 1 at the default grid step.
        """
        a_side, b_side = self._sides(direction)
        ends = []
        with precision():
            for k in range(self.size):
                c = arb_bounds((a_side[k] / b_side[k]).log())
                m = arb_bounds(self._mu[k])
                ends += [c.lo + m.lo * m.lo / 2 - self.TAILS * m.hi, c.hi + m.hi * m.hi / 2 + self.TAILS * m.hi]
        return LossDistribution.from_survival(lambda t: self.survival(t, direction), min(ends) - step, max(ends) + step,
                                              _ZERO, step)

