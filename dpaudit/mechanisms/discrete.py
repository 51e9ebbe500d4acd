"""Discrete noise: the discrete Laplace (two-sided geometric) and Ghazi et al. 2023's truncated one.

The truncated discrete Laplace is shifted to be centred on the answer.

References
----------
.. [GRS09] A. Ghosh, T. Roughgarden and M. Sundararajan. Universally utility-maximizing privacy
   mechanisms. STOC 2009 (the geometric mechanism).
.. [GKKMMZ23] B. Ghazi, P. Kamath, R. Kumar, R. Meka, P. Manurangsi and C. Zhang. On user-level
   private convex optimization. ICML 2023, Definition 3.4.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_int, check_positive
from dpaudit.guarantees import ApproxDP, PureDP
from dpaudit.mechanisms.base import MechanismBase, check_integer_valued, check_size
from dpaudit.mechanisms.tdlap_params import tdlap_kappa
from dpaudit.neighbors.relations import QueryDistance

if TYPE_CHECKING:
    from dpaudit.exact import PrivacyProfile

__all__ = [
    "DiscreteLaplaceMechanism",
    "TruncatedDiscreteLaplaceMechanism",
    "discrete_laplace_rate",
    "sample_tdlap",
    "tdlap_kappa",
    "tdlap_pmf",
]


def discrete_laplace_rate(sensitivity: int, epsilon: float) -> float:
    """Rate ``t = epsilon / sensitivity`` of ``P[k] ∝ exp(-t |k|)``, rounded *down* (more noise)."""
    sensitivity = check_int("discrete_laplace_rate", "sensitivity", sensitivity, minimum=1)
    epsilon = check_positive("discrete_laplace_rate", "epsilon", epsilon)
    rate = epsilon / sensitivity
    while Fraction(rate) * sensitivity > Fraction(epsilon):
        rate = float(np.nextafter(rate, 0.0))
    return rate


@dataclass(frozen=True)
class DiscreteLaplaceMechanism(MechanismBase):
    """Add two-sided geometric noise ``P[k] ∝ exp(-epsilon |k| / sensitivity)`` to integer answers.

    epsilon-DP for integer-valued queries of l1 sensitivity ``sensitivity`` [GRS09]. The noise is
    sampled as the difference of two i.i.d. geometric variables with success probability
    ``1 - exp(-t)``, whose law is exactly the two-sided geometric with rate ``t``.
    """

    epsilon: float
    sensitivity: int = 1
    rate: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_positive("DiscreteLaplaceMechanism", "epsilon", self.epsilon)
        check_int("DiscreteLaplaceMechanism", "sensitivity", self.sensitivity, minimum=1)
        object.__setattr__(self, "rate", discrete_laplace_rate(self.sensitivity, self.epsilon))

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int64]:
        """``size`` releases ``data + Z`` with ``Z`` two-sided geometric of rate ``epsilon / sensitivity``.

        ``Z`` is drawn as the difference of two geometric variables with success probability
        ``1 - e^{-rate}`` [GRS09], in one pass over the batch.

        Returns
        -------
        ndarray of int64
            Shape ``(size, *data.shape)``.
        """
        x = check_integer_valued("DiscreteLaplaceMechanism.sample", "data", data)
        size = check_size("DiscreteLaplaceMechanism.sample", size)
        p = -math.expm1(-self.rate)
        shape = (size, *x.shape)
        return rng.geometric(p, size=shape) - rng.geometric(p, size=shape) + x

    def claimed_guarantee(self) -> PureDP:
        """epsilon-DP for integer queries of l1 sensitivity ``sensitivity`` [GRS09]."""
        return PureDP(self.epsilon, QueryDistance(float(self.sensitivity), "l1"))

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The exact profile: two-sided geometric noise of ``rate``, shifted by the integers ``d1 - d0``."""
        from dpaudit.exact import DiscreteLaplaceStep, compose

        shifts = _integer_shifts("DiscreteLaplaceMechanism.privacy_profile", d0, d1)
        return compose([DiscreteLaplaceStep(s, self.rate) for s in shifts] or [DiscreteLaplaceStep(0, self.rate)])


def tdlap_pmf(epsilon: float, delta: float, *, kappa: int | None = None) -> NDArray[np.float64]:
    """pmf of TDLap(epsilon, delta) on ``{0, ..., 2 kappa}``: ``∝ exp(-epsilon |x - kappa|)`` [GKKMMZ23, Def 3.4].

    ``kappa`` overrides ``kappa(epsilon, delta)`` (structure tests at tiny sizes; the end-point mass
    is then ``pmf[0]``, which may exceed ``delta``).
    """
    if kappa is None:
        kappa = tdlap_kappa(epsilon, delta)
    else:
        epsilon = check_positive("tdlap_pmf", "epsilon", epsilon)
        kappa = check_int("tdlap_pmf", "kappa", kappa, minimum=1)
    support = np.arange(2 * kappa + 1)
    weights = np.exp(-epsilon * np.abs(support - kappa))
    return weights / weights.sum()


def sample_tdlap(epsilon: float, delta: float, size: int | tuple[int, ...], *, rng: np.random.Generator,
                 kappa: int | None = None) -> NDArray[np.int64]:
    """Draw from TDLap(epsilon, delta) (support ``{0..2 kappa}``) by inverse CDF (``kappa`` as in :func:`tdlap_pmf`)."""
    pmf = tdlap_pmf(epsilon, delta, kappa=kappa)
    cdf = np.cumsum(pmf)
    cdf[-1] = 1.0
    u = rng.random(size)
    return np.searchsorted(cdf, u, side="right").astype(np.int64)


@dataclass(frozen=True)
class TruncatedDiscreteLaplaceMechanism(MechanismBase):
    """Release ``f(D) + R - kappa`` with ``R ~ TDLap(epsilon, delta)`` for an integer query.

    For integer queries with ``|f(D) - f(D')| <= 1``: adjacent masses differ by a factor of at most
    ``e^epsilon`` (properties T2/T3 of ``docs/papers/ghazi2023.md``) and the one output that only one of
    the two datasets can produce has mass ``exp(-epsilon kappa)/Z <= delta`` (T1), so the release
    is (epsilon, delta)-DP. [GKKMMZ23, Def 3.4] defines the distribution; the mechanism form is
    the standard truncated-noise argument.
    """

    epsilon: float
    delta: float
    kappa: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kappa", tdlap_kappa(self.epsilon, self.delta))

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int64]:
        """``size`` releases ``data + R - kappa`` with ``R ~ TDLap(epsilon, delta)`` [GKKMMZ23, Def. 3.4].

        Returns
        -------
        ndarray of int64
            Shape ``(size, *data.shape)``; every entry lies in ``data + [-kappa, kappa]``.
        """
        x = check_integer_valued("TruncatedDiscreteLaplaceMechanism.sample", "data", data)
        size = check_size("TruncatedDiscreteLaplaceMechanism.sample", size)
        return sample_tdlap(self.epsilon, self.delta, (size, *x.shape), rng=rng) - self.kappa + x

    def claimed_guarantee(self) -> ApproxDP:
        """(epsilon, delta)-DP for integer queries that move by at most 1 (see the class docstring)."""
        return ApproxDP(self.epsilon, self.delta, QueryDistance(1.0, "l1"))

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The exact profile: TDLap(epsilon, delta) on ``{0..2 kappa}`` shifted by the integers ``d1 - d0``."""
        from dpaudit.exact import TruncatedDiscreteLaplaceStep, compose

        shifts = _integer_shifts("TruncatedDiscreteLaplaceMechanism.privacy_profile", d0, d1) or [0]
        return compose([TruncatedDiscreteLaplaceStep(s, self.epsilon, self.delta, self.kappa) for s in shifts])


def _integer_shifts(owner: str, d0: Any, d1: Any) -> list[int]:
    """The non-zero integer shifts ``d1 - d0`` per coordinate (data checked as ``sample`` checks it)."""
    x0 = check_integer_valued(owner, "d0", d0)
    x1 = check_integer_valued(owner, "d1", d1)
    if x0.shape != x1.shape:
        raise argument_error(owner, "d1", f"of the shape of d0 {x0.shape}", d1)
    return [int(b) - int(a) for a, b in zip(x0.ravel(), x1.ravel(), strict=True) if a != b]
