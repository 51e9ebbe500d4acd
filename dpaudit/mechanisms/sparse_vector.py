"""Sparse vector / AboveThreshold, as the 2024 and 2025 papers state it, plus Lyu et al.'s Alg. 1.

Outputs are integer codes per query: ``TOP = 1`` (⊤), ``BOTTOM = 0`` (⊥) and ``NOT_REACHED = -1``
for queries after the mechanism halted. ``data`` is the vector of ``T`` query answers, each of
sensitivity ``sensitivity`` (all may change at once: :class:`QueryDistance` in l_inf).

References
----------
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014,
   Alg. 1 (AboveThreshold) and Thm 3.23.
.. [LSL17] M. Lyu, D. Su and N. Li. Understanding the sparse vector technique for differential
   privacy. PVLDB 10(6), 2017, Alg. 1.
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. 2024, Appendix A, Algorithm 4 (Lemma A.9).
.. [GKLM25] B. Ghazi, R. Kumar, D. Liu and P. Manurangsi. Linear-time user-level DP-SCO via
   robust statistics. 2025, Algorithm 4 (mirrored: halts on a low query), Lemma A.3.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    check_finite_array,
    check_int,
    check_one_of,
    check_positive,
    check_real,
)
from dpaudit.accounting.calibrate import laplace_scale
from dpaudit.guarantees import PureDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.neighbors.relations import QueryDistance

if TYPE_CHECKING:
    from dpaudit.exact import FiniteProfile
    from dpaudit.exact.threshold import ThresholdSpec

__all__ = ["BOTTOM", "NOT_REACHED", "TOP", "AboveThreshold", "SparseVector", "svt_codes", "threshold_pair_profile"]

TOP, BOTTOM, NOT_REACHED = 1, 0, -1


def svt_codes(halting: NDArray[np.bool_], cutoff: int | None, halting_code: int) -> NDArray[np.int8]:
    """Turn per-query "halting answer" flags into output codes, stopping after ``cutoff`` of them.

    ``halting[t, i]`` says whether query ``i`` of trial ``t`` gets the answer that counts towards
    the cutoff (⊤ for the usual direction). Query ``i`` is answered iff fewer than ``cutoff``
    halting answers came before it; ``cutoff=None`` never halts. Vectorised over trials.
    """
    other = BOTTOM if halting_code == TOP else TOP
    codes = np.where(halting, np.int8(halting_code), np.int8(other)).astype(np.int8)
    if cutoff is not None:
        before = np.cumsum(halting, axis=1, dtype=np.int32) - halting
        codes[before >= cutoff] = NOT_REACHED
    return codes


def _queries(owner: str, data: Any) -> NDArray[np.float64]:
    return check_finite_array(owner, "data", data, ndim=1)


@dataclass(frozen=True)
class SparseVector(MechanismBase):
    """Sparse vector with cutoff ``c`` [LSL17, Alg. 1], the version Lyu et al. prove epsilon-DP.

    ``rho ~ Lap(2 s / eps)`` once (eps_1 = eps/2); ``nu_i ~ Lap(4 c s / eps)`` per query
    (eps_2 = eps/2, scaled by ``2c``); answer ⊤ iff ``q_i + nu_i >= T + rho``; halt after ``c``
    ⊤ answers. With ``cutoff = 1`` this is AboveThreshold [DR14, Alg. 1].
    """

    epsilon: float
    threshold: float
    cutoff: int = 1
    sensitivity: float = 1.0

    def __post_init__(self) -> None:
        owner = "SparseVector"
        check_positive(owner, "epsilon", self.epsilon)
        check_real(owner, "threshold", self.threshold)
        check_int(owner, "cutoff", self.cutoff, minimum=1)
        check_positive(owner, "sensitivity", self.sensitivity)

    @property
    def threshold_scale(self) -> float:
        """``2 s / eps`` (``eps_1 = eps / 2``) [LSL17, Alg. 1, line 2]."""
        return laplace_scale(self.sensitivity, self.epsilon / 2.0)  # [LSL17, Alg. 1, line 2]

    @property
    def query_scale(self) -> float:
        """``4 c s / eps`` (``eps_2 = eps / 2``) [LSL17, Alg. 1, line 4]."""
        return laplace_scale(2.0 * self.cutoff * self.sensitivity, self.epsilon / 2.0)  # [LSL17, Alg. 1, line 4]

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int8]:
        """``size`` runs of [LSL17, Alg. 1]: ⊤ when ``q_i + nu_i >= T + rho``, stopping after ``cutoff`` ⊤ answers.

        Returns
        -------
        ndarray of int8
            Shape ``(size, len(data))``; the codes of :func:`svt_codes`.
        """
        q = _queries("SparseVector.sample", data)
        size = check_size("SparseVector.sample", size)
        rho = rng.laplace(0.0, self.threshold_scale, size=(size, 1))
        nu = rng.laplace(0.0, self.query_scale, size=(size, q.shape[0]))
        return svt_codes(q + nu >= self.threshold + rho, self.cutoff, TOP)

    def claimed_guarantee(self) -> PureDP:
        """epsilon-DP for queries of l-infinity sensitivity ``sensitivity`` (the proof of [LSL17, Alg. 1])."""
        return PureDP(self.epsilon, QueryDistance(self.sensitivity, "linf"))

    def privacy_profile(self, d0: Any, d1: Any) -> FiniteProfile:
        """The exact law of the answers on both query vectors (conditioned on the threshold noise)."""
        from dpaudit.exact.threshold import ThresholdSpec

        spec = ThresholdSpec(self.threshold, self.threshold_scale, self.query_scale, self.cutoff, "above")
        return threshold_pair_profile(type(self).__name__, spec, d0, d1, f"sparse vector [LSL17, Alg. 1], c = {self.cutoff}")


def threshold_pair_profile(name: str, spec: ThresholdSpec, d0: Any, d1: Any, description: str) -> FiniteProfile:
    """The exact profile of a sparse-vector variant on two query vectors (validated as ``sample`` does)."""
    from dpaudit.exact.pairs import paired_arrays
    from dpaudit.exact.threshold import threshold_profile

    q0, q1 = paired_arrays(f"{name}.privacy_profile", d0, d1, ndim=1)
    return threshold_profile(spec, q0.tolist(), q1.tolist(), description=description)


@dataclass(frozen=True)
class AboveThreshold(MechanismBase):
    """AboveThreshold exactly as the 2024 and 2025 papers print it; epsilon-DP [DR14, Thm 3.23].

    ``variant="lowy2024"`` [LLA24, Alg. 4]: ``T_hat = T + Lap(2s/eps)`` once, ``nu_t ~ Lap(4s/eps)``;
    answer ⊤ and halt at the first ``q_t + nu_t >= T_hat``, else ⊥.

    ``variant="ghazi2025"`` [GKLM25, Alg. 4], mirrored: ``T_hat = T - Lap(2s/eps)``,
    ``nu_i ~ Lap(4s/eps)``; answer ⊥ and halt at the first ``q_i + nu_i < T_hat``, else ⊤.

    Both papers state it for sensitivity-1 queries; ``sensitivity`` scales both noises (the
    ``docs/papers/ghazi2025.md`` pitfall P1 is a sensitivity-2 query fed to the sensitivity-1 scales).
    """

    epsilon: float
    threshold: float
    sensitivity: float = 1.0
    variant: Literal["lowy2024", "ghazi2025"] = "lowy2024"

    def __post_init__(self) -> None:
        owner = "AboveThreshold"
        check_positive(owner, "epsilon", self.epsilon)
        check_real(owner, "threshold", self.threshold)
        check_positive(owner, "sensitivity", self.sensitivity)
        check_one_of(owner, "variant", self.variant, ("lowy2024", "ghazi2025"))

    @property
    def threshold_scale(self) -> float:
        """``2 s / eps``: the threshold noise of [DR14, Alg. 1], as [LLA24, Alg. 4] and [GKLM25, Alg. 4] print it."""
        return laplace_scale(2.0 * self.sensitivity, self.epsilon)

    @property
    def query_scale(self) -> float:
        """``4 s / eps``: the noise of each query in [DR14, Alg. 1] (and [LLA24, Alg. 4], [GKLM25, Alg. 4])."""
        return laplace_scale(4.0 * self.sensitivity, self.epsilon)

    def start(self, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """Streaming use, step 1: one noisy threshold per trial, drawn once (``T +/- Lap(2s/eps)``).

        With :meth:`answer` this runs the mechanism on queries chosen adaptively, one per step
        (``T_hat = T + Lap`` for ``"lowy2024"``, ``T - Lap`` for ``"ghazi2025"``, as :meth:`sample`).
        """
        size = check_size("AboveThreshold.start", size)
        lap = rng.laplace(0.0, self.threshold_scale, size=size)
        return self.threshold + lap if self.variant == "lowy2024" else self.threshold - lap

    def answer(
        self, queries: Any, noisy_threshold: NDArray[np.float64], halted: NDArray[np.bool_], *, rng: np.random.Generator
    ) -> tuple[NDArray[np.int8], NDArray[np.bool_]]:
        """Streaming use, step 2: answer one query per trial with fresh ``nu ~ Lap(4s/eps)``; returns ``(codes, halted)``.

        ``"lowy2024"``: ⊤ and halt at ``q + nu >= T_hat``; ``"ghazi2025"``: ⊥ and halt at ``q + nu < T_hat``.
        Trials that halted earlier get ``NOT_REACHED``. Query noise is drawn for every trial so the
        stream of draws does not depend on the data.
        """
        q = np.asarray(queries, dtype=float)
        noisy = q + rng.laplace(0.0, self.query_scale, size=q.shape)
        if self.variant == "lowy2024":
            stop = noisy >= noisy_threshold
            codes = np.where(stop, np.int8(TOP), np.int8(BOTTOM))
        else:
            stop = noisy < noisy_threshold
            codes = np.where(stop, np.int8(BOTTOM), np.int8(TOP))
        codes = np.where(halted, np.int8(NOT_REACHED), codes).astype(np.int8)
        return codes, halted | stop

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int8]:
        """``size`` runs of AboveThreshold: halting at the first ⊤ (``"lowy2024"``) or first ⊥ (``"ghazi2025"``).

        Returns
        -------
        ndarray of int8
            Shape ``(size, len(data))``; the codes of :func:`svt_codes`.
        """
        q = _queries("AboveThreshold.sample", data)
        size = check_size("AboveThreshold.sample", size)
        lap = rng.laplace(0.0, self.threshold_scale, size=(size, 1))
        nu = rng.laplace(0.0, self.query_scale, size=(size, q.shape[0]))
        if self.variant == "lowy2024":
            return svt_codes(q + nu >= self.threshold + lap, 1, TOP)
        return svt_codes(q + nu < self.threshold - lap, 1, BOTTOM)

    def claimed_guarantee(self) -> PureDP:
        """epsilon-DP for queries of l-infinity sensitivity ``sensitivity`` [DR14, Thm 3.23]."""
        return PureDP(self.epsilon, QueryDistance(self.sensitivity, "linf"))

    def privacy_profile(self, d0: Any, d1: Any) -> FiniteProfile:
        """The exact law of the answers on both query vectors (``T - Lap`` has the law of ``T + Lap``)."""
        from dpaudit.exact.threshold import ThresholdSpec

        halt_on: Literal["above", "below"] = "above" if self.variant == "lowy2024" else "below"
        spec = ThresholdSpec(self.threshold, self.threshold_scale, self.query_scale, 1, halt_on)
        return threshold_pair_profile(type(self).__name__, spec, d0, d1, f"AboveThreshold ({self.variant})")
