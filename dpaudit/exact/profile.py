"""The privacy profile of one neighbouring pair, and the certified epsilon it gives at a delta.

For the laws ``P`` (of the output on ``d0``) and ``Q`` (on ``d1``) the privacy profile is

    delta(eps) = max(H_{e^eps}(P || Q), H_{e^eps}(Q || P)),   H_a(P || Q) = sup_E P(E) - a Q(E)

[BBG18, Def. 1; BW18, Thm 5]; the pair is (eps, delta)-indistinguishable exactly when
``delta(eps) <= delta``, so the epsilon of the pair at ``delta`` is
``eps*(delta) = inf {eps >= 0 : delta(eps) <= delta}``. Every profile here returns *enclosures*
``[lo, hi]`` of ``delta(eps)`` (:mod:`dpaudit.exact.enclosure`), and :meth:`PrivacyProfile.epsilon`
turns them into a certified bracket ``eps_lo <= eps*(delta) <= eps_hi``:

* ``eps_hi``: any ``eps`` with ``hi(eps) <= delta`` has ``delta(eps) <= delta``, so ``eps* <= eps``;
* ``eps_lo``: any ``eps`` with ``lo(eps) > delta`` has ``delta(eps) > delta``, and ``delta(.)`` is
  non-increasing, so ``eps* >= eps``.

A profile is either ``"exact"`` (the law of the pair itself, so ``eps_lo`` bounds the truth from
below and can refute a claim) or an ``"upper bound"`` (a dominating pair, e.g. an adaptive step of a
composition [ZDW22, Thm 10]; only ``eps_hi`` says something about the truth).

References
----------
.. [BBG18] B. Balle, G. Barthe and M. Gaboardi. Privacy amplification by subsampling: tight
   analyses via couplings and divergences. NeurIPS 2018, Definition 1 (privacy profile).
.. [BW18] B. Balle and Y.-X. Wang. Improving the Gaussian mechanism for differential privacy.
   ICML 2018, Theorem 5 (the privacy-loss form of the hockey-stick divergence).
.. [ZDW22] Y. Zhu, J. Dong and Y.-X. Wang. Optimal accounting of differential privacy via
   characteristic function. AISTATS 2022, Definition 8 and Theorem 10 (dominating pairs).
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    argument_error,
    check_exact_float,
    check_exact_float_array,
    check_nonnegative,
    check_probability,
)
from dpaudit.errors import DPAuditError
from dpaudit.exact.enclosure import Enclosure, arb_bounds, arb_of, fraction_bounds, precision

__all__ = ["EXACT", "UPPER_BOUND", "EpsilonBracket", "PrivacyProfile", "ProfileUnavailable", "exp_bounds"]

EXACT: Literal["exact"] = "exact"
UPPER_BOUND: Literal["upper bound"] = "upper bound"

#: Bisection stops when the bracket's ends are this close (relative), or after 80 halvings.
_REL_TOL = 1e-12
#: Epsilons are searched up to here (``e^eps`` stays a finite float); beyond, the bracket says ``inf``.
_MAX_EPS = 512.0


class ProfileUnavailable(DPAuditError):
    """The mechanism declares no privacy profile for this pair (the message says why)."""


@dataclass(frozen=True)
class EpsilonBracket:
    """A certified bracket of the pair's epsilon at ``delta``: ``lower <= eps*(delta) <= upper``.

    ``kind == "exact"``: computed from the law of the pair, so ``lower`` is a certified lower bound
    on the truth (a claim below it is refuted by computation). ``kind == "upper bound"``: computed
    from a dominating pair; ``upper`` still bounds the truth, ``lower`` only the dominating pair.
    """

    delta: float
    lower: float
    upper: float
    kind: str

    @property
    def exact(self) -> bool:
        """True when the bracket comes from the law of the pair itself (``kind == "exact"``)."""
        return self.kind == EXACT

    def refutes(self, claimed_epsilon: float) -> bool:
        """True when the computation proves the pair's epsilon exceeds ``claimed_epsilon``."""
        return self.exact and self.lower > claimed_epsilon

    def certifies(self, claimed_epsilon: float) -> bool:
        """True when the computation proves the pair's epsilon is at most ``claimed_epsilon``."""
        return self.upper <= claimed_epsilon

    def __str__(self) -> str:
        if self.exact:
            return f"[{self.lower:.6g}, {self.upper:.6g}]"
        return f"<= {self.upper:.6g}"


def exp_bounds(epsilon: float) -> Enclosure:
    """Certified float bounds of ``e^epsilon``."""
    with precision():
        return arb_bounds(arb_of(epsilon).exp())


class PrivacyProfile(abc.ABC):
    """The privacy profile of one pair, as certified enclosures. Subclasses give the two directions.

    Direction 0 is ``H(P || Q)`` with ``P`` the law on ``d0``; direction 1 is ``H(Q || P)``.
    """

    #: ``"exact"`` (the pair's own law) or ``"upper bound"`` (a dominating pair).
    kind: str = EXACT
    #: What the profile is, for reports (e.g. "Laplace, shift/scale = 0.1").
    description: str = ""

    # -- what subclasses provide --------------------------------------------------------------
    @abc.abstractmethod
    def hockey_stick(self, epsilon: float, direction: int) -> Enclosure:
        """Enclosure of ``H_{e^epsilon}`` in ``direction`` (0: P||Q, 1: Q||P), for ``epsilon >= 0``."""

    @abc.abstractmethod
    def infinite_loss_mass(self, direction: int) -> Enclosure:
        """Enclosure of ``P(loss = +inf)``: the mass one law puts where the other has none."""

    @abc.abstractmethod
    def max_loss(self, direction: int) -> Enclosure:
        """Enclosure of the essential supremum of the privacy loss (``+inf`` allowed)."""

    def exact_max_loss(self, direction: int) -> Fraction | None:
        """The maximal privacy loss as an exact rational, when it is one (else ``None``)."""
        return None

    # -- what every profile gives -------------------------------------------------------------
    def delta(self, epsilon: float) -> Enclosure:
        """Enclosure of ``delta(epsilon) = max(H(P||Q), H(Q||P))`` at ``e^epsilon``."""
        epsilon = check_nonnegative("PrivacyProfile.delta", "epsilon", check_exact_float("PrivacyProfile.delta", "epsilon", epsilon),
                                    allow_inf=True)
        if math.isinf(epsilon):
            return self._max(self.infinite_loss_mass)
        a, b = self.hockey_stick(epsilon, 0), self.hockey_stick(epsilon, 1)
        return Enclosure(max(a.lo, b.lo, 0.0), min(max(a.hi, b.hi), 1.0))

    def curve(self, epsilons: NDArray[np.float64] | list[float]) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """``(epsilons, delta_lo, delta_hi)`` on a grid, for plotting (the truth lies between)."""
        eps = check_exact_float_array("PrivacyProfile.curve", "epsilons", epsilons)
        if np.ndim(epsilons) != 1:
            raise argument_error("PrivacyProfile.curve", "epsilons", "a non-empty 1-d array of values >= 0", epsilons)
        if eps.ndim != 1 or eps.size == 0 or not np.all(eps >= 0):
            raise argument_error("PrivacyProfile.curve", "epsilons", "a non-empty 1-d array of values >= 0", epsilons)
        bounds = [self.delta(float(e)) for e in eps]
        return eps, np.array([b.lo for b in bounds]), np.array([b.hi for b in bounds])

    def epsilon(self, delta: float) -> EpsilonBracket:
        """The certified bracket of the pair's epsilon at ``delta`` (see the module docstring)."""
        delta = check_probability("PrivacyProfile.epsilon", "delta", check_exact_float("PrivacyProfile.epsilon", "delta", delta))
        if delta == 0.0:
            lo, hi = self._pure()
        else:
            lo, hi = self._bisect(delta)
        return EpsilonBracket(delta, max(lo, 0.0), max(hi, 0.0), self.kind)

    # -- internals ----------------------------------------------------------------------------
    def _max(self, method: Callable[[int], Enclosure]) -> Enclosure:
        a, b = method(0), method(1)
        return Enclosure(max(a.lo, b.lo), max(a.hi, b.hi))

    def _pure(self) -> tuple[float, float]:
        """At delta = 0 the epsilon is the largest privacy loss, in either direction."""
        exact0, exact1 = self.exact_max_loss(0), self.exact_max_loss(1)
        if exact0 is not None and exact1 is not None:
            b = fraction_bounds(max(exact0, exact1))
            return b.lo, b.hi
        m = self._max(self.max_loss)
        return m.lo, m.hi

    def _bisect(self, delta: float) -> tuple[float, float]:
        if self._max(self.infinite_loss_mass).lo > delta:
            return math.inf, math.inf  # a certified mass above delta that one law puts where the other has none
        cap = self._max(self.max_loss).hi  # delta(eps) = 0 beyond the largest loss
        upper = self._search(lambda e: self.delta(e).hi <= delta, cap)
        if self.delta(0.0).lo <= delta:
            lower = 0.0
        else:
            top = upper if math.isfinite(upper) else _MAX_EPS
            if self.delta(top).lo > delta:
                return top, upper
            lower = _bisect_boundary(lambda e: self.delta(e).lo > delta, 0.0, top)[0]
        return lower, upper

    def _search(self, feasible: Callable[[float], bool], cap: float) -> float:
        """The smallest float found with ``feasible(eps)`` (monotone), or ``inf`` if none up to the cap."""
        if feasible(0.0):
            return 0.0
        high = 1.0
        while not feasible(high):
            if math.isfinite(cap) and high >= cap:
                return cap
            high *= 2.0
            if high > _MAX_EPS:  # nothing below the cap: certified only up to it
                return cap if math.isfinite(cap) else math.inf
        low = 0.0 if high == 1.0 else high / 2.0
        return _bisect_boundary(lambda e: not feasible(e), low, high)[1]


def _bisect_boundary(is_low: Callable[[float], bool], low: float, high: float) -> tuple[float, float]:
    """Bisect a monotone predicate with ``is_low(low)`` true and ``is_low(high)`` false; return the final ``(low, high)``."""
    for _ in range(80):
        if high - low <= _REL_TOL * max(high, 1e-300):
            break
        mid = 0.5 * (low + high)
        if mid <= low or mid >= high:
            break
        if is_low(mid):
            low = mid
        else:
            high = mid
    return low, high
