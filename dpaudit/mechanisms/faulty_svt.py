"""Lyu et al.'s broken sparse-vector variants (Algorithms 3-6), split from :mod:`dpaudit.mechanisms.faulty`.

Every class is an :class:`~dpaudit.mechanisms.base.UnsafeMechanism` and claims the guarantee its authors
(wrongly) claimed; :mod:`dpaudit.mechanisms.faulty` re-exports them beside the other broken mechanisms.

References
----------
.. [LSL17] M. Lyu, D. Su and N. Li. Understanding the sparse vector technique for differential
   privacy. PVLDB 10(6), 2017 (Algorithms 3-6 and their actual privacy, Table 1).
.. [BSBV21] B. Bichsel et al. DP-Sniper. IEEE S&P 2021.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    check_finite_array,
    check_int,
    check_positive,
    check_real,
)
from dpaudit.guarantees import PureDP
from dpaudit.mechanisms.base import UnsafeMechanism, check_size
from dpaudit.mechanisms.sparse_vector import TOP, svt_codes, threshold_pair_profile
from dpaudit.neighbors.relations import QueryDistance

if TYPE_CHECKING:
    from dpaudit.exact import PrivacyProfile

__all__ = ["SparseVectorLyu3", "SparseVectorLyu4", "SparseVectorLyu5", "SparseVectorLyu6"]


@dataclass(frozen=True)
class _LyuSVT(UnsafeMechanism):
    """Common parameters of Lyu, Su and Li's sparse-vector variants (sensitivity-1 queries)."""

    epsilon: float
    threshold: float
    cutoff: int = 1

    def __post_init__(self) -> None:
        check_positive(type(self).__name__, "epsilon", self.epsilon)
        check_real(type(self).__name__, "threshold", self.threshold)
        check_int(type(self).__name__, "cutoff", self.cutoff, minimum=1)
        super().__post_init__()

    def _queries(self, data: Any, size: int) -> tuple[NDArray[np.float64], int]:
        q = check_finite_array(f"{type(self).__name__}.sample", "data", data, ndim=1)
        return q, check_size(f"{type(self).__name__}.sample", size)

    def _query_noise(self, size: int, queries: int, rng: np.random.Generator) -> NDArray[np.float64]:
        """``Lap(query_scale)`` per query and trial, shape ``(size, queries)``; zeros for a variant without query noise."""
        scale = self.query_scale
        if scale is None:
            return np.zeros((size, queries))
        return rng.laplace(0.0, scale, size=(size, queries))

    def claimed_guarantee(self) -> PureDP:
        return PureDP(self.epsilon, QueryDistance(1.0, "linf"))

    @property
    def threshold_scale(self) -> float:
        return 2.0 / self.epsilon

    @property
    def query_scale(self) -> float | None:
        return 2.0 * self.cutoff / self.epsilon

    def _profile(self, d0: Any, d1: Any, description: str, cutoff: int | None) -> PrivacyProfile:
        """The true law of the ⊤/⊥ answers (these variants' real noise, not their claim)."""
        from dpaudit.exact.threshold import ThresholdSpec

        spec = ThresholdSpec(self.threshold, self.threshold_scale, self.query_scale, cutoff, "above")
        return threshold_pair_profile(type(self).__name__, spec, d0, d1, description)


@dataclass(frozen=True)
class SparseVectorLyu3(_LyuSVT):
    """[LSL17, Alg. 3] (Roth's lecture notes): outputs the noisy query value on ⊤. Actually ∞-DP.

    ``rho ~ Lap(2/eps)``, ``nu_i ~ Lap(2c/eps)``; on ``q_i + nu_i >= T + rho`` release
    ``q_i + nu_i`` (and count it towards the cutoff ``c``), else release 0 (⊥); after the cutoff,
    0. The released value pins down ``nu_i``, which the privacy proof of Alg. 1 needs hidden.
    """

    flaw = "releases the noisy query value on ⊤ ([LSL17] Alg. 3: not epsilon-DP for any epsilon)"

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` runs of [LSL17, Alg. 3]: the noisy value ``q_i + nu_i`` on ⊤, 0 on ⊥ and after the cutoff.

        Returns
        -------
        ndarray of float
            Shape ``(size, len(data))``.
        """
        q, size = self._queries(data, size)
        rho = rng.laplace(0.0, self.threshold_scale, size=(size, 1))
        noisy = q + self._query_noise(size, q.shape[0], rng)
        above = noisy >= self.threshold + rho
        codes = svt_codes(above, self.cutoff, TOP)
        return np.where(codes == TOP, noisy, 0.0)

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The true law over the reals: which queries are released and their values, given the threshold noise.

        Cells of the released values with certified ratio ranges (:mod:`dpaudit.exact.released_values`);
        finite on any fixed pair, growing without bound with the ⊥ answers before a release. Raises
        :class:`~dpaudit.exact.ProfileUnavailable` for a cutoff above 2 (a higher-dimensional law).
        """
        from dpaudit.exact.pairs import paired_arrays
        from dpaudit.exact.released_values import released_value_profile
        from dpaudit.exact.threshold import ThresholdSpec

        q0, q1 = paired_arrays("SparseVectorLyu3.privacy_profile", d0, d1, ndim=1)
        spec = ThresholdSpec(self.threshold, self.threshold_scale, self.query_scale, self.cutoff, "above")
        return released_value_profile(spec, q0.tolist(), q1.tolist(), description=f"[LSL17] Alg. 3 (releases the noisy value), c = {self.cutoff}")


@dataclass(frozen=True)
class SparseVectorLyu4(_LyuSVT):
    """[LSL17, Alg. 4] (Lee and Clifton 2014): eps_1 = eps/4 and query noise not scaled by ``c``.

    ``rho ~ Lap(4/eps)``, ``nu_i ~ Lap(4/(3 eps))``; ⊤/⊥ with cutoff ``c``. Actually
    ``(1 + 6c)/4 * eps``-DP [LSL17, Sec. 3.3].
    """

    flaw = "query noise Lap(4/(3 eps)) is not scaled with the cutoff: ((1+6c)/4) eps-DP, not eps-DP"

    @property
    def threshold_scale(self) -> float:
        """``4 / eps``: the threshold noise of [LSL17, Alg. 4] (``eps_1 = eps / 4``)."""
        return 4.0 / self.epsilon

    @property
    def query_scale(self) -> float | None:
        """``4 / (3 eps)``: [LSL17, Alg. 4]'s query noise, not scaled with the cutoff (its flaw)."""
        return 4.0 / (3.0 * self.epsilon)

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int8]:
        """``size`` runs of [LSL17, Alg. 4]: ⊤/⊥ codes with cutoff ``c``.

        Returns
        -------
        ndarray of int8
            Shape ``(size, len(data))``; the codes of :func:`dpaudit.mechanisms.sparse_vector.svt_codes`.
        """
        q, size = self._queries(data, size)
        rho = rng.laplace(0.0, self.threshold_scale, size=(size, 1))
        nu = self._query_noise(size, q.shape[0], rng)
        return svt_codes(q + nu >= self.threshold + rho, self.cutoff, TOP)

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The true law of Alg. 4's ⊤/⊥ answers on the query vectors ``d0`` and ``d1`` (exact, finite)."""
        return self._profile(d0, d1, f"[LSL17] Alg. 4, c = {self.cutoff}", self.cutoff)


@dataclass(frozen=True)
class SparseVectorLyu5(_LyuSVT):
    """[LSL17, Alg. 5] (Stoddard et al. 2014): no query noise and no cutoff. Actually ∞-DP."""

    flaw = "adds no noise to the queries (and has no cutoff): not epsilon-DP for any epsilon"

    @property
    def query_scale(self) -> float | None:
        """``None``: [LSL17, Alg. 5] adds no noise to the queries."""
        return None

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int8]:
        """``size`` runs of [LSL17, Alg. 5]: each query compared, without noise, against the noisy threshold.

        Returns
        -------
        ndarray of int8
            Shape ``(size, len(data))``; no cutoff, so every query is answered.
        """
        q, size = self._queries(data, size)
        rho = rng.laplace(0.0, self.threshold_scale, size=(size, 1))
        return svt_codes(q >= self.threshold + rho, None, TOP)

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The true law of Alg. 5's answers on ``d0`` and ``d1`` (only the threshold noise is random)."""
        return self._profile(d0, d1, "[LSL17] Alg. 5 (no query noise, no cutoff)", None)


@dataclass(frozen=True)
class SparseVectorLyu6(_LyuSVT):
    """[LSL17, Alg. 6] (Chen et al. 2015): query noise Lap(2/eps) not scaled, no cutoff. Actually ∞-DP."""

    flaw = "answers every query (no cutoff) with query noise that does not grow with their number"

    @property
    def query_scale(self) -> float | None:
        """``2 / eps``: [LSL17, Alg. 6]'s query noise, which does not grow with the number of answers."""
        return 2.0 / self.epsilon

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int8]:
        """``size`` runs of [LSL17, Alg. 6]: ⊤/⊥ for every query, no cutoff.

        Returns
        -------
        ndarray of int8
            Shape ``(size, len(data))``.
        """
        q, size = self._queries(data, size)
        rho = rng.laplace(0.0, self.threshold_scale, size=(size, 1))
        nu = self._query_noise(size, q.shape[0], rng)
        return svt_codes(q + nu >= self.threshold + rho, None, TOP)

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The true law of Alg. 6's answers on ``d0`` and ``d1`` (exact, finite)."""
        return self._profile(d0, d1, "[LSL17] Alg. 6 (no cutoff)", None)
