"""Deliberately broken variants of Lowy, Liu and Asi (2024)'s algorithms: the ``docs/papers/lowy2024.md`` pitfalls.

Each variant changes one thing, warns :class:`~dpaudit.errors.UnsoundMechanismWarning` when
constructed, and keeps the correct mechanism's claim, so that an audit against that claim can
catch it (the auditor never sees these names):

* :class:`HardThresholdPhasedSGD` (P2): keep an iterate iff ``h >= C/2`` instead of the ramp; one
  user can flip many inclusions at once;
* :class:`LeakyHaltPhasedSGD` (P12): on a halt, release the un-noised average of the group
  iterates instead of the public 0;
* :class:`RedrawnThresholdTest` (P10): Algorithm 2's test with the threshold noise redrawn at every
  step, as the box's line 4 literally reads: no longer AboveThreshold;
* :class:`WithReplacementTest` (P7): Algorithm 2's test with users drawn with replacement and
  ``K_i`` as printed (above ``n_i``): a user appears several times and moves the score by more than 2;
* :class:`RedrawnThresholdMinibatchSGD` (P10) and :class:`WithReplacementMinibatchSGD` (P7): the
  same two bugs inside the whole Algorithm 2 (every step's gradient released too), for audits of
  the full algorithm (:mod:`.worst_pairs`); with replacement the batch keeps ``K = n``, the largest
  the recomputed claim accepts;
* :class:`LemmaA6OutputPerturbation` (P14): the Gaussian step with Lemma A.6's classical
  calibration ``sigma = Delta sqrt(2 log(2/delta))/eps``, used at ``eps > 1``, where its proof does
  not apply; from about ``eps = 7.5`` (at ``delta = 0.1``) it is not ``(eps, delta)``-DP. Algorithm 1
  applies it at ``eps/4 <= 2.5``, where it happens to hold, so for Algorithm 1 as stated P14 is a
  gap in the proof rather than a leak.

References
----------
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. NeurIPS 2024.
.. [Note003] The readings, corrections and pitfalls of Lowy, Liu and Asi (2024)
   kept in ``docs/papers/lowy2024.md`` (findings F1-F7, pitfalls P1-P25).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import check_finite_array, check_positive, check_probability
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.guarantees import ApproxDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.neighbors.relations import QueryDistance
from dpaudit.userlevel.lowy2024.minibatch_outliers import MinibatchConcentrationTest
from dpaudit.userlevel.lowy2024.minibatch_sgd import MinibatchRules
from dpaudit.userlevel.lowy2024.phased_erm import AcceleratedMinibatchSGD
from dpaudit.userlevel.lowy2024.phased_sgd import OutlierRemovalPhasedSGD

__all__ = [
    "HardThresholdPhasedSGD",
    "LeakyHaltPhasedSGD",
    "LemmaA6OutputPerturbation",
    "RedrawnThresholdMinibatchSGD",
    "RedrawnThresholdTest",
    "WithReplacementMinibatchSGD",
    "WithReplacementTest",
]


def _warn(obj: Any, flaw: str) -> None:
    warnings.warn(f"{type(obj).__name__} is deliberately unsound: {flaw}", UnsoundMechanismWarning, stacklevel=4)


@dataclass(frozen=True)
class HardThresholdPhasedSGD(OutlierRemovalPhasedSGD):
    """Algorithm 1 with a hard threshold (keep iff ``h >= C/2``) instead of the ramp (pitfall P2)."""

    _hard_threshold: ClassVar[bool] = True

    def __post_init__(self) -> None:
        super().__post_init__()
        _warn(self, "hard outlier threshold h >= C/2 instead of the ramp (P2): one user flips many inclusions")


@dataclass(frozen=True)
class LeakyHaltPhasedSGD(OutlierRemovalPhasedSGD):
    """Algorithm 1 whose halting branch releases the un-noised average of the group iterates (pitfall P12)."""

    _leaky_halt: ClassVar[bool] = True

    def __post_init__(self) -> None:
        super().__post_init__()
        _warn(self, "the halting branch returns the un-noised average of the iterates instead of 0 (P12)")


@dataclass(frozen=True)
class RedrawnThresholdTest(MinibatchConcentrationTest):
    """Algorithm 2's test with fresh threshold noise at every step (pitfall P10)."""

    _rules: ClassVar[MinibatchRules] = MinibatchRules(redraw_threshold=True)

    def __post_init__(self) -> None:
        super().__post_init__()
        _warn(self, "threshold noise redrawn at every step (P10): T answers of fresh noise, not AboveThreshold")


@dataclass(frozen=True)
class WithReplacementTest(MinibatchConcentrationTest):
    """Algorithm 2's test with users drawn with replacement, ``K`` as printed (pitfall P7, finding F5)."""

    _rules: ClassVar[MinibatchRules] = MinibatchRules(with_replacement=True)

    def __post_init__(self) -> None:
        super().__post_init__()
        _warn(self, "minibatch drawn with replacement (P7): a user appears several times and moves the score by > 2")


@dataclass(frozen=True)
class RedrawnThresholdMinibatchSGD(AcceleratedMinibatchSGD):
    """Algorithm 2 with fresh threshold noise at every step (pitfall P10), claims unchanged."""

    _rules: ClassVar[MinibatchRules] = MinibatchRules(redraw_threshold=True)

    def __post_init__(self) -> None:
        super().__post_init__()
        _warn(self, "threshold noise redrawn at every step (P10): T answers of fresh noise, not AboveThreshold")


@dataclass(frozen=True)
class WithReplacementMinibatchSGD(AcceleratedMinibatchSGD):
    """Algorithm 2 with its minibatches drawn with replacement (pitfall P7), claims unchanged."""

    _rules: ClassVar[MinibatchRules] = MinibatchRules(with_replacement=True)

    def __post_init__(self) -> None:
        super().__post_init__()
        _warn(self, "minibatch drawn with replacement (P7): a user appears several times and moves the score by > 2")


@dataclass(frozen=True)
class LemmaA6OutputPerturbation(MechanismBase):
    """Algorithm 1's output perturbation (line 25) with Lemma A.6's classical calibration (pitfall P14).

    ``sigma = sensitivity sqrt(2 log(2/delta))/epsilon`` [LLA24, Def. A.5 / Lemma A.6] at any
    ``epsilon``; ``data`` is the phase's robust mean (a vector), whose ``l_2`` sensitivity is
    ``sensitivity``. The classical proof needs ``epsilon <= 1``.
    """

    epsilon: float
    delta: float
    sensitivity: float = 1.0
    sigma: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        owner = "LemmaA6OutputPerturbation"
        check_positive(owner, "epsilon", self.epsilon)
        check_probability(owner, "delta", self.delta, allow_zero=False)
        check_positive(owner, "sensitivity", self.sensitivity)
        sigma = self.sensitivity * math.sqrt(2.0 * math.log(2.0 / self.delta)) / self.epsilon  # [LLA24, Lemma A.6]
        object.__setattr__(self, "sigma", sigma)
        if self.epsilon > 1.0:
            _warn(self, f"Lemma A.6's classical Gaussian calibration at epsilon = {self.epsilon:g} > 1 (P14)")

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` releases ``data + N(0, sigma^2 I)`` with Lemma A.6's sigma, shape ``(size, *data.shape)``."""
        x = check_finite_array("LemmaA6OutputPerturbation.sample", "data", data)
        size = check_size("LemmaA6OutputPerturbation.sample", size)
        return rng.normal(x, self.sigma, size=(size, *x.shape))

    def claimed_guarantee(self) -> ApproxDP:
        """The claim the variant makes: (epsilon, delta)-DP at l2 sensitivity ``sensitivity``, false for epsilon > 1."""
        return ApproxDP(self.epsilon, self.delta, QueryDistance(self.sensitivity, "l2"))
