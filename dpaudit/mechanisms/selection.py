"""Private selection: report-noisy-max and the exponential mechanism.

``data`` is the vector of ``k`` query answers (utilities); each may change by at most
``sensitivity`` between neighbours (:class:`QueryDistance` in the l_inf norm). Both mechanisms
output an index.

References
----------
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
.. [MT07] F. McSherry and K. Talwar. Mechanism design via differential privacy. FOCS 2007.
.. [MS20] R. McKenna and D. Sheldon. Permute-and-flip: a new mechanism for differentially private
   selection. NeurIPS 2020.
.. [DKSSWXZ21] Z. Ding, D. Kifer, S. Saghaian, T. Steinke, Y. Wang, Y. Xiao and D. Zhang. The
   permute-and-flip mechanism is identical to report-noisy-max with exponential noise. 2021.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import check_finite_array, check_one_of, check_positive
from dpaudit.accounting.calibrate import laplace_scale
from dpaudit.guarantees import PureDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.neighbors.relations import QueryDistance

if TYPE_CHECKING:
    from dpaudit.exact import PrivacyProfile

__all__ = ["ExponentialMechanism", "ReportNoisyMax"]


@dataclass(frozen=True)
class ReportNoisyMax(MechanismBase):
    """Return ``argmax_i (q_i + Z_i)`` with i.i.d. noise of scale ``2 sensitivity / epsilon``.

    Parameters
    ----------
    noise : {"laplace", "gumbel", "exponential"}
        ``"laplace"``: epsilon-DP [DR14, Claim 3.9, with the factor 2 for non-monotone queries].
        ``"gumbel"``: identical in law to the exponential mechanism [MT07; DR14, Thm 3.10].
        ``"exponential"``: identical to permute-and-flip [MS20; DKSSWXZ21].
    """

    epsilon: float
    sensitivity: float = 1.0
    noise: Literal["laplace", "gumbel", "exponential"] = "laplace"
    scale: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_positive("ReportNoisyMax", "epsilon", self.epsilon)
        check_positive("ReportNoisyMax", "sensitivity", self.sensitivity)
        check_one_of("ReportNoisyMax", "noise", self.noise, ("laplace", "gumbel", "exponential"))
        object.__setattr__(self, "scale", laplace_scale(2.0 * self.sensitivity, self.epsilon))

    def _noise(self, shape: tuple[int, ...], rng: np.random.Generator) -> NDArray[np.float64]:
        if self.noise == "laplace":
            return rng.laplace(0.0, self.scale, size=shape)
        if self.noise == "gumbel":
            return rng.gumbel(0.0, self.scale, size=shape)
        return rng.exponential(self.scale, size=shape)

    def noisy_answers(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """The noisy query answers (before the argmax), shape ``(size, k)``."""
        x = check_finite_array("ReportNoisyMax.sample", "data", data, ndim=1)
        size = check_size("ReportNoisyMax.sample", size)
        return self._noise((size, x.shape[0]), rng) + x

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int64]:
        """``size`` indices of the noisy maximum (ties broken to the lowest index).

        Returns
        -------
        ndarray of int64
            Shape ``(size,)``.
        """
        return np.argmax(self.noisy_answers(data, size, rng=rng), axis=1).astype(np.int64)

    def claimed_guarantee(self) -> PureDP:
        """epsilon-DP for queries of l-infinity sensitivity ``sensitivity`` (per ``noise``: [DR14, Claim 3.9; MT07; MS20])."""
        return PureDP(self.epsilon, QueryDistance(self.sensitivity, "linf"))

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The exact law of the index on both answer vectors (Gumbel noise: the softmax of ``q / scale``)."""
        from dpaudit.exact.closed_forms import exponential_mechanism_profile
        from dpaudit.exact.pairs import paired_arrays
        from dpaudit.exact.selection import report_noisy_max_profile

        q0, q1 = paired_arrays("ReportNoisyMax.privacy_profile", d0, d1, ndim=1)
        if self.noise == "gumbel":  # argmax of q + Gumbel(scale) has P(i) ∝ exp(q_i / scale)
            return exponential_mechanism_profile(q0.tolist(), q1.tolist(), 1.0, self.scale / 2.0)
        return report_noisy_max_profile(q0.tolist(), q1.tolist(), self.scale, self.noise)


@dataclass(frozen=True)
class ExponentialMechanism(MechanismBase):
    """Sample index ``i`` with probability ``∝ exp(epsilon u_i / (2 sensitivity))`` [MT07; DR14, Thm 3.10].

    Sampled by inverse CDF over the normalised weights (computed with the max subtracted, so
    large utilities do not overflow).
    """

    epsilon: float
    sensitivity: float = 1.0

    def __post_init__(self) -> None:
        check_positive("ExponentialMechanism", "epsilon", self.epsilon)
        check_positive("ExponentialMechanism", "sensitivity", self.sensitivity)

    def probabilities(self, data: Any) -> NDArray[np.float64]:
        """The exact output distribution on utilities ``data``."""
        u = check_finite_array("ExponentialMechanism", "data", data, ndim=1)
        logits = self.epsilon * u / (2.0 * self.sensitivity)
        w = np.exp(logits - logits.max())
        return w / w.sum()

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int64]:
        """``size`` indices drawn from :meth:`probabilities` by inverse CDF.

        Returns
        -------
        ndarray of int64
            Shape ``(size,)``.
        """
        p = self.probabilities(data)
        size = check_size("ExponentialMechanism.sample", size)
        cdf = np.cumsum(p)
        cdf[-1] = 1.0
        return np.searchsorted(cdf, rng.random(size), side="right").astype(np.int64)

    def claimed_guarantee(self) -> PureDP:
        """epsilon-DP for utilities of l-infinity sensitivity ``sensitivity`` [DR14, Thm 3.10]."""
        return PureDP(self.epsilon, QueryDistance(self.sensitivity, "linf"))

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The exact law ``∝ exp(eps u_i / 2s)`` on both utility vectors.

        This is the law of the definition; the float inverse-CDF sampler rounds each probability by
        about 2^-53.
        """
        from dpaudit.exact.closed_forms import exponential_mechanism_profile
        from dpaudit.exact.pairs import paired_arrays

        u0, u1 = paired_arrays("ExponentialMechanism.privacy_profile", d0, d1, ndim=1)
        return exponential_mechanism_profile(u0.tolist(), u1.tolist(), self.epsilon, self.sensitivity)
