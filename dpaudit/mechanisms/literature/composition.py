"""Compositions from DP-Sniper's suite [BSBV21, Sec. VI]: parallel releases and prefix sums.

* :class:`LaplaceParallel`: ``n`` independent ``Lap(1/eps_each)`` releases of one value; by basic
  composition ``n eps_each``-DP [DR14, Thm 3.14], tight only for events of vanishing probability.
* :class:`SVT34Parallel`: Lyu et al.'s Alg. 3 and Alg. 4 run side by side on the same queries,
  claimed ``eps_3 + eps_4``-DP by composition; Alg. 3 is not DP for any epsilon [LSL17].
* :class:`PrefixSum`: ``Lap(1/eps)`` on each of ``k`` answers, released as running sums
  [WDWKZ19]. The sums are post-processing of the noisy answers, so under the component-wise
  relation DP-Sniper audits it with (every answer may change by 1) it is ``k eps``-DP by basic
  composition.

References
----------
.. [BSBV21] B. Bichsel, S. Steffen, I. Bogunovic and M. Vechev. DP-Sniper. IEEE S&P 2021.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
.. [LSL17] M. Lyu, D. Su and N. Li. Understanding the sparse vector technique. PVLDB 10(6), 2017.
.. [WDWKZ19] Y. Wang, Z. Ding, G. Wang, D. Kifer and D. Zhang. Proving differential privacy with
   shadow execution. PLDI 2019 (PrefixSum).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    argument_error,
    check_finite_array,
    check_int,
    check_positive,
    check_real,
)
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.guarantees import PureDP
from dpaudit.mechanisms.base import MechanismBase, UnsafeMechanism, check_size
from dpaudit.mechanisms.faulty import SparseVectorLyu3, SparseVectorLyu4
from dpaudit.neighbors.relations import QueryDistance

if TYPE_CHECKING:
    from dpaudit.exact import PrivacyProfile

__all__ = ["LaplaceParallel", "PrefixSum", "SVT34Parallel"]


@dataclass(frozen=True)
class LaplaceParallel(MechanismBase):
    """``copies`` independent ``Lap(1/eps_each)`` releases of a scalar; ``copies * eps_each``-DP."""

    eps_each: float = 0.005
    copies: int = 20

    def __post_init__(self) -> None:
        check_positive("LaplaceParallel", "eps_each", self.eps_each)
        check_int("LaplaceParallel", "copies", self.copies, minimum=1)

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` releases of ``copies`` independent ``x + Lap(1/eps_each)`` of the scalar ``data``.

        Returns
        -------
        ndarray of float
            Shape ``(size, copies)``.
        """
        x = check_finite_array("LaplaceParallel.sample", "data", data, ndim=0)
        size = check_size("LaplaceParallel.sample", size)
        return x + rng.laplace(0.0, 1.0 / self.eps_each, size=(size, self.copies))

    def claimed_guarantee(self) -> PureDP:
        """``copies * eps_each``-DP for a sensitivity-1 scalar (basic composition [DR14, Thm 3.14])."""
        return PureDP(self.copies * self.eps_each, QueryDistance(1.0, "l1"))

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The exact law: ``copies`` independent Laplace releases of the same shift (composed)."""
        from dpaudit.exact import LaplaceStep, compose
        from dpaudit.exact.pairs import exact_shifts, paired_arrays

        x0, x1 = paired_arrays("LaplaceParallel.privacy_profile", d0, d1, ndim=0)
        step = LaplaceStep(exact_shifts(x0, x1)[0], 1.0 / self.eps_each)
        return compose([step] * self.copies, description=f"{self.copies} Laplace releases of scale {1.0 / self.eps_each:g}")


@dataclass(frozen=True)
class SVT34Parallel(UnsafeMechanism):
    """[LSL17] Alg. 3 and Alg. 4 on the same queries, outputs side by side; claimed ``2 eps``-DP."""

    epsilon: float = 0.1
    threshold: float = 1.0
    cutoff: int = 2
    flaw = "contains Lyu et al.'s Alg. 3, which is not DP for any epsilon"

    def __post_init__(self) -> None:
        check_positive("SVT34Parallel", "epsilon", self.epsilon)
        check_real("SVT34Parallel", "threshold", self.threshold)
        check_int("SVT34Parallel", "cutoff", self.cutoff, minimum=1)
        super().__post_init__()

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` runs of [LSL17] Alg. 3 and Alg. 4 on ``data`` (drawn one after the other from ``rng``).

        Returns
        -------
        ndarray of float
            Shape ``(size, 2 * len(data))``: Alg. 3's released values, then Alg. 4's codes.
        """
        with warnings.catch_warnings():  # both halves warn on construction; this one already did
            warnings.simplefilter("ignore", UnsoundMechanismWarning)
            alg3 = SparseVectorLyu3(self.epsilon, self.threshold, self.cutoff)
            alg4 = SparseVectorLyu4(self.epsilon, self.threshold, self.cutoff)
        return np.hstack([alg3.sample(data, size, rng=rng), alg4.sample(data, size, rng=rng).astype(float)])

    def claimed_guarantee(self) -> PureDP:
        """The claim the pair makes: ``2 eps``-DP (each half claims eps; Alg. 3's claim is false)."""
        return PureDP(2 * self.epsilon, QueryDistance(1.0, "linf"))

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The true law: the two halves' laws side by side (independent noise), composed exactly.

        By :func:`dpaudit.exact.compose`: their privacy-loss distributions, certified on a grid; the
        largest loss is the sum of the halves'.
        """
        from dpaudit.exact import ProfileStep, compose

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnsoundMechanismWarning)
            alg3 = SparseVectorLyu3(self.epsilon, self.threshold, self.cutoff)
            alg4 = SparseVectorLyu4(self.epsilon, self.threshold, self.cutoff)
        steps = [ProfileStep(alg3.privacy_profile(d0, d1)), ProfileStep(alg4.privacy_profile(d0, d1))]
        return compose(steps, description=f"[LSL17] Alg. 3 and Alg. 4 side by side, c = {self.cutoff}")


#: Largest magnitude of a PrefixSum answer (the cap every user-level mechanism shares,
#: :data:`dpaudit.userlevel.domain.MAX_MAGNITUDE`): sums of ``length`` noisy answers stay finite.
MAX_ANSWER = 2.0**960


@dataclass(frozen=True)
class PrefixSum(MechanismBase):
    """Running sums of ``q + Lap(1/eps)`` over ``length`` answers [WDWKZ19].

    ``length * eps``-DP when every answer may change by 1 (basic composition, [DR14, Thm 3.14]).

    The answers are real numbers in the paper; in floating point their declared domain is
    ``[-2^960, 2^960]`` (:data:`MAX_ANSWER`), so that no running sum overflows to ``inf``, and data
    outside it is refused before anything is drawn.
    """

    epsilon: float = 0.1
    length: int = 10

    def __post_init__(self) -> None:
        check_positive("PrefixSum", "epsilon", self.epsilon)
        check_int("PrefixSum", "length", self.length, minimum=1)

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` releases of the running sums of ``q + Lap(1/eps)`` [WDWKZ19].

        Answers outside ``[-2^960, 2^960]`` are refused before any draw, so no running sum overflows.

        Returns
        -------
        ndarray of float
            Shape ``(size, length)``.
        """
        q = check_finite_array("PrefixSum.sample", "data", data, ndim=1)
        if q.shape[0] != self.length:
            raise argument_error("PrefixSum.sample", "data", f"a vector of {self.length} answers", data)
        if np.any(np.abs(q) > MAX_ANSWER):  # refused before any draw: the declared domain of the answers
            raise argument_error("PrefixSum.sample", "data", "answers in [-2^960, 2^960] (so that no running sum "
                                 "can overflow)", data)
        size = check_size("PrefixSum.sample", size)
        return np.cumsum(q + rng.laplace(0.0, 1.0 / self.epsilon, size=(size, self.length)), axis=1)

    def claimed_guarantee(self) -> PureDP:
        """``length * eps``-DP when every answer moves by at most 1 (basic composition [DR14, Thm 3.14])."""
        return PureDP(self.length * self.epsilon, QueryDistance(1.0, "linf"))

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The exact law: that of ``length`` Laplace releases shifted by ``d1 - d0``.

        The running sums are an invertible map of the noisy answers, so the pair's profile is the
        noisy answers' [DR14, Prop. 2.1 both ways].
        """
        from dpaudit.exact import LaplaceStep
        from dpaudit.exact.pairs import exact_shifts, paired_arrays

        x0, x1 = paired_arrays("PrefixSum.privacy_profile", d0, d1, ndim=1)
        if x0.shape[0] != self.length:
            raise argument_error("PrefixSum.privacy_profile", "d0", f"a vector of {self.length} answers", d0)
        return LaplaceStep(tuple(exact_shifts(x0, x1)), 1.0 / self.epsilon).profile()
