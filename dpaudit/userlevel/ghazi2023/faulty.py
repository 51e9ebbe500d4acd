"""Deliberately broken variants of Algorithms 1-2, built from the ``docs/papers/ghazi2023.md`` pitfalls (Sec. 8).

Each replaces one declared step of a correct mechanism (``STEPS``, :mod:`dpaudit.userlevel.steps`) and warns :class:`~dpaudit.errors.UnsoundMechanismWarning`
when constructed. They exist so that the auditor can be shown catching them (:mod:`~dpaudit.userlevel.ghazi2023.audit_cases`);
the auditor never reads their names.

==============================  ==========  =====================================================
variant                         note        what changes
==============================  ==========  =====================================================
DeterministicTest               P4          ``R1 = 0``: ⊥ exactly when ``x`` itself is unstable
CertificateElseBottom           P4          the fast path's certificate, and ⊥ when it fails
UnshiftedR1                     P5(a)       ``R1`` = a discrete Laplace centred at 0, clipped to [0, 2 kappa]
HalfSupportR1                   P5(b)       ``R1`` supported on ``{0..kappa}`` instead of ``{0..2 kappa}``
SwappedRateR1                   P5(c)       pmf ``∝ exp(-|r - kappa| / eps_bar)``: rate and scale swapped
UnsplitBudgetR1                 P5(d)       ``R1 ~ TDLap(eps, delta)`` instead of ``TDLap(eps/2, delta_bar)``
ContinuousLaplaceR1             P5(e)       ``R1 = floor(rng.laplace(kappa, eps_bar))``: a continuous Laplace
                                            from numpy, whose second argument is a *scale*, given the
                                            discrete pmf's *rate*
SensitivityDeltaSigma           P9          sigma calibrated to Delta instead of ``8 kappa Delta``
==============================  ==========  =====================================================

The continuous variant is the natural transcription of ``pmf ∝ exp(-eps |x - kappa|)`` into numpy's
continuous API. A continuous Laplace with the *right* scale ``1/eps_bar``, floored and clipped, would
be (nearly) private: the floor of a continuous Laplace is a discrete one. It is a deviation from
Def 3.4 that the sampler test catches (``tests/userlevel/ghazi2023``), not a leak.

References
----------
.. [GKKMMZ23] B. Ghazi, P. Kamath, R. Kumar, R. Meka, P. Manurangsi and C. Zhang. On user-level
   private convex optimization. ICML 2023, Def 3.4, Alg 1, Alg 2.
.. [Note002] The readings, corrections and pitfalls of Ghazi et al. (2023)
   kept in ``docs/papers/ghazi2023.md`` (errata E1-E13, pitfalls P1-P23, audit recipes B1-B3; pitfalls P4, P5, P9).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.mechanisms.discrete import sample_tdlap, tdlap_kappa
from dpaudit.userlevel.ghazi2023.del_output_pert import DelOutputPert
from dpaudit.userlevel.ghazi2023.sc_output_pert import SCOutputPert, SCParameters, StableCentres

__all__ = [
    "CertificateElseBottom",
    "ContinuousLaplaceR1",
    "DeterministicTest",
    "HalfSupportR1",
    "SensitivityDeltaSigma",
    "SwappedRateR1",
    "UnshiftedR1",
    "UnsplitBudgetR1",
]


def _warn(obj: object, flaw: str) -> None:
    warnings.warn(f"{type(obj).__name__} is deliberately unsound: {flaw}", UnsoundMechanismWarning, stacklevel=4)


def _sample_pmf(weights: NDArray[np.float64], size: int, rng: np.random.Generator) -> NDArray[np.int64]:
    cdf = np.cumsum(weights / weights.sum())
    cdf[-1] = 1.0
    return np.searchsorted(cdf, rng.random(size), side="right").astype(np.int64)


@dataclass(frozen=True)
class DeterministicTest(SCOutputPert):
    """P4: propose-test-release without the noisy ``R1``: release iff ``x`` is stable, else ⊥."""

    flaw = "the stability test is deterministic (R1 = 0), so P[⊥] is 0 or 1 and one user flips it"

    def __post_init__(self) -> None:
        super().__post_init__()
        _warn(self, self.flaw)

    def _draw_r1(self, spec: SCParameters, size: int, rng: np.random.Generator) -> NDArray[np.int64]:
        return np.zeros(size, dtype=np.int64)


@dataclass(frozen=True)
class CertificateElseBottom(SCOutputPert):
    """P4 via App. C: release ``f(x) + Z`` when the certificate holds and ⊥ otherwise (no exact fallback)."""

    flaw = "'certificate else ⊥' is a deterministic test: one user can make the certificate fail"

    def __post_init__(self) -> None:
        super().__post_init__()
        _warn(self, self.flaw)

    def _centres(self, res: StableCentres, spec: SCParameters) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        return np.where(res.certified, 0, -1).astype(np.int64), res.centre


@dataclass(frozen=True)
class UnshiftedR1(SCOutputPert):
    """P5(a): ``R1`` = discrete Laplace (rate eps_bar) centred at 0, clipped to ``[0, 2 kappa]``: ``P[R1 = 0] > 1/2``."""

    flaw = "R1 is centred at 0, so R1 = 0 with probability above 1/2 instead of at most delta_bar"

    def __post_init__(self) -> None:
        super().__post_init__()
        _warn(self, self.flaw)

    def _draw_r1(self, spec: SCParameters, size: int, rng: np.random.Generator) -> NDArray[np.int64]:
        a = spec.alg1
        q = -math.expm1(-a.eps_bar)
        noise = rng.geometric(q, size) - rng.geometric(q, size)
        return np.clip(noise, 0, 2 * a.kappa)


@dataclass(frozen=True)
class HalfSupportR1(SCOutputPert):
    """P5(b): pmf ``∝ exp(-eps_bar |r - kappa|)`` on ``{0..kappa}``: the top value kappa has mass ~ 1 - e^{-eps_bar}."""

    flaw = "R1 is truncated at kappa, so a dataset needing kappa + 1 deletions is ⊥ for sure and its neighbour is not"

    def __post_init__(self) -> None:
        super().__post_init__()
        _warn(self, self.flaw)

    def _draw_r1(self, spec: SCParameters, size: int, rng: np.random.Generator) -> NDArray[np.int64]:
        a = spec.alg1
        r = np.arange(a.kappa + 1)
        return _sample_pmf(np.exp(-a.eps_bar * np.abs(r - a.kappa)), size, rng)


@dataclass(frozen=True)
class SwappedRateR1(SCOutputPert):
    """P5(c): pmf ``∝ exp(-|r - kappa| / eps_bar)``: adjacent masses differ by ``e^{1/eps_bar} = e^{2/eps}``."""

    flaw = "the rate of R1 is 1/eps_bar instead of eps_bar: adjacent deletion counts differ by e^(2/eps) in P[⊥]"

    def __post_init__(self) -> None:
        super().__post_init__()
        _warn(self, self.flaw)

    def _draw_r1(self, spec: SCParameters, size: int, rng: np.random.Generator) -> NDArray[np.int64]:
        a = spec.alg1
        r = np.arange(2 * a.kappa + 1)
        return _sample_pmf(np.exp(-np.abs(r - a.kappa) / a.eps_bar), size, rng)


@dataclass(frozen=True)
class UnsplitBudgetR1(SCOutputPert):
    """P5(d): ``R1 ~ TDLap(eps, delta)``: the ⊥ channel alone spends about eps, leaving nothing for the Gaussian."""

    flaw = "R1 uses the whole (eps, delta) instead of (eps/2, delta_bar); with the Gaussian step the proof gives 1.5 eps"
    EXTRAS: ClassVar[tuple[str, ...]] = ("full_budget_kappa",)  # for its audit case, not a step

    def __post_init__(self) -> None:
        super().__post_init__()
        _warn(self, self.flaw)

    def _draw_r1(self, spec: SCParameters, size: int, rng: np.random.Generator) -> NDArray[np.int64]:
        return sample_tdlap(self.epsilon, self.delta, size, rng=rng)

    def full_budget_kappa(self) -> int:
        """kappa of TDLap(eps, delta), the shift this variant's ``R1`` is centred at."""
        return tdlap_kappa(self.epsilon, self.delta)


@dataclass(frozen=True)
class ContinuousLaplaceR1(SCOutputPert):
    """P5(e): ``R1 = clip(floor(rng.laplace(kappa, eps_bar)), 0, 2 kappa)``: numpy's scale given the rate."""

    flaw = "R1 from numpy's continuous Laplace with scale eps_bar (the discrete pmf's rate): the rate becomes 1/eps_bar"

    def __post_init__(self) -> None:
        super().__post_init__()
        _warn(self, self.flaw)

    def _draw_r1(self, spec: SCParameters, size: int, rng: np.random.Generator) -> NDArray[np.int64]:
        a = spec.alg1
        return np.clip(np.floor(rng.laplace(a.kappa, a.eps_bar, size)), 0, 2 * a.kappa).astype(np.int64)


@dataclass(frozen=True)
class SensitivityDeltaSigma(DelOutputPert):
    """P9: ``sigma = 2 sqrt(ln(2/delta_bar)) Delta / eps_bar``: calibrated to Delta, not to ``8 kappa Delta``."""

    flaw = "sigma covers a shift of Delta, but the two released centres can be up to (4 kappa + 1) Delta apart"

    def __post_init__(self) -> None:
        super().__post_init__()
        _warn(self, self.flaw)

    def _sigma(self) -> float:
        p = self.params
        return 2.0 * math.sqrt(math.log(2.0 / p.delta_bar)) * p.threshold / p.eps_bar
