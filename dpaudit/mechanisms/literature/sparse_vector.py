"""Sparse-vector variants of the DP-testing suites not already in :mod:`dpaudit.mechanisms`.

Lyu, Su and Li's Alg. 1 is :class:`~dpaudit.mechanisms.SparseVector`, and their broken Alg. 3-6
are in :mod:`dpaudit.mechanisms.faulty`. Here: their Alg. 2 (Dwork and Roth's version, which
redraws the threshold noise after every ⊤) and the numerical sparse vector of Wang et al.

Outputs are codes per query: ``TOP = 1``, ``BOTTOM = 0``, ``NOT_REACHED = -1`` after the cutoff
(NumericalSVT releases a fresh noisy value instead of ``TOP``, 0 instead of ``BOTTOM`` and
``-1000`` after the cutoff). Queries have sensitivity 1 and may all change at once (l-infinity
distance 1).

References
----------
.. [LSL17] M. Lyu, D. Su and N. Li. Understanding the sparse vector technique for differential
   privacy. PVLDB 10(6), 2017, Alg. 2.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014,
   Alg. 2 (Sparse), Thm 3.25.
.. [WDWKZ19] Y. Wang, Z. Ding, G. Wang, D. Kifer and D. Zhang. Proving differential privacy with
   shadow execution. PLDI 2019 (NumSVT).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import check_finite_array, check_int, check_positive, check_real
from dpaudit.guarantees import PureDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.mechanisms.sparse_vector import BOTTOM, NOT_REACHED, TOP, threshold_pair_profile
from dpaudit.neighbors.relations import QueryDistance

if TYPE_CHECKING:
    from dpaudit.exact import PrivacyProfile

__all__ = ["NUMERICAL_NOT_REACHED", "NumericalSVT", "SparseVectorResampled"]

NUMERICAL_NOT_REACHED = -1000.0


class _Params:
    epsilon: float
    threshold: float
    cutoff: int

    def _check(self) -> None:
        owner = type(self).__name__
        check_positive(owner, "epsilon", self.epsilon)
        check_real(owner, "threshold", self.threshold)
        check_int(owner, "cutoff", self.cutoff, minimum=1)

    def _queries(self, data: Any, size: int) -> tuple[NDArray[np.float64], int]:
        owner = f"{type(self).__name__}.sample"
        return check_finite_array(owner, "data", data, ndim=1), check_size(owner, size)

    def claimed_guarantee(self) -> PureDP:
        return PureDP(self.epsilon, QueryDistance(1.0, "linf"))


@dataclass(frozen=True)
class SparseVectorResampled(_Params, MechanismBase):
    """[LSL17, Alg. 2] = [DR14, Alg. 2]: eps-DP sparse vector that redraws the threshold noise after each ⊤.

    ``eps_1 = eps_2 = eps / 2``; threshold noise ``Lap(c / eps_1)``, redrawn after every ⊤; query
    noise ``Lap(2c / eps_2)``; halt after ``c`` ⊤ answers [LSL17, Alg. 2, lines 2, 4, 7].
    """

    epsilon: float = 0.1
    threshold: float = 1.0
    cutoff: int = 1

    def __post_init__(self) -> None:
        self._check()

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int8]:
        """``size`` runs of [LSL17, Alg. 2], the threshold noise redrawn after each ⊤ (one pass per query).

        Returns
        -------
        ndarray of int8
            Shape ``(size, len(data))``.
        """
        q, size = self._queries(data, size)
        eps1 = eps2 = self.epsilon / 2.0
        rho = rng.laplace(0.0, self.cutoff / eps1, size=size)
        noisy = q + rng.laplace(0.0, 2.0 * self.cutoff / eps2, size=(size, q.shape[0]))
        out = np.empty((size, q.shape[0]), dtype=np.int8)
        count = np.zeros(size, dtype=np.int64)
        for i in range(q.shape[0]):  # the threshold noise depends on earlier answers: one pass per query
            top = noisy[:, i] >= self.threshold + rho
            out[:, i] = np.where(count >= self.cutoff, NOT_REACHED, np.where(top, TOP, BOTTOM))
            fresh = rng.laplace(0.0, self.cutoff / eps1, size=size)
            rho = np.where(top, fresh, rho)
            count += top
        return out

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The exact law: independent AboveThreshold runs between ⊤ answers, each with fresh threshold noise."""
        from dpaudit.exact.threshold import ThresholdSpec

        eps1 = eps2 = self.epsilon / 2.0
        spec = ThresholdSpec(self.threshold, self.cutoff / eps1, 2.0 * self.cutoff / eps2, self.cutoff, "above", resample=True)
        return threshold_pair_profile(type(self).__name__, spec, d0, d1, f"sparse vector [LSL17, Alg. 2], c = {self.cutoff}")


@dataclass(frozen=True)
class NumericalSVT(_Params, MechanismBase):
    """Numerical sparse vector [WDWKZ19, Fig. 1 "NumSVT"]: eps-DP, releasing a fresh noisy answer on ⊤.

    Threshold noise ``Lap(3/eps)``; comparison noise ``Lap(6c/eps)`` per query; on ⊤ release
    ``q_i + Lap(3c/eps)`` (fresh noise), else 0; after ``c`` ⊤ answers, ``NUMERICAL_NOT_REACHED``.
    """

    epsilon: float = 0.1
    threshold: float = 1.0
    cutoff: int = 2

    def __post_init__(self) -> None:
        self._check()

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` runs of NumSVT [WDWKZ19, Fig. 1]: a fresh noisy answer on ⊤, 0 on ⊥ and after the cutoff.

        Returns
        -------
        ndarray of float
            Shape ``(size, len(data))``.
        """
        q, size = self._queries(data, size)
        k = q.shape[0]
        rho = rng.laplace(0.0, 3.0 / self.epsilon, size=(size, 1))
        above = q + rng.laplace(0.0, 6.0 * self.cutoff / self.epsilon, size=(size, k)) >= self.threshold + rho
        released = q + rng.laplace(0.0, 3.0 * self.cutoff / self.epsilon, size=(size, k))
        before: NDArray[np.int64] = np.cumsum(above, axis=1) - above  # ⊤ answers before each query
        out = np.where(above, released, 0.0)
        out[before >= self.cutoff] = NUMERICAL_NOT_REACHED
        return out

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The true law over the reals: the ⊤/⊥ pattern, then a fresh Laplace release per ⊤.

        See :mod:`dpaudit.exact.numerical_svt`.
        """
        from dpaudit.exact.numerical_svt import numerical_svt_profile
        from dpaudit.exact.pairs import paired_arrays
        from dpaudit.exact.threshold import ThresholdSpec

        q0, q1 = paired_arrays("NumericalSVT.privacy_profile", d0, d1, ndim=1)
        spec = ThresholdSpec(self.threshold, 3.0 / self.epsilon, 6.0 * self.cutoff / self.epsilon, self.cutoff, "above")
        return numerical_svt_profile(spec, 3.0 * self.cutoff / self.epsilon, q0.tolist(), q1.tolist(),
                                     description=f"numerical sparse vector [WDWKZ19], c = {self.cutoff}")
