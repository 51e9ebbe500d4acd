"""The Gaussian mechanism, classical [DR14, Thm A.1] and analytic [BW18, Thm 8] calibration.

References
----------
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
.. [BW18] B. Balle and Y.-X. Wang. Improving the Gaussian mechanism for differential privacy.
   ICML 2018, arXiv:1805.06530v2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import check_finite_array, check_one_of, check_positive, check_probability
from dpaudit.accounting.calibrate import gaussian_sigma_analytic, gaussian_sigma_classical
from dpaudit.guarantees import ApproxDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.neighbors.relations import QueryDistance

if TYPE_CHECKING:
    from dpaudit.exact import PrivacyProfile

__all__ = ["GaussianMechanism"]


@dataclass(frozen=True)
class GaussianMechanism(MechanismBase):
    """Add i.i.d. ``N(0, sigma^2)`` noise calibrated for (epsilon, delta)-DP.

    Parameters
    ----------
    epsilon : float
        In (0, inf); the classical calibration needs (0, 1).
    delta : float
        In (0, 1).
    sensitivity : float
        l2 sensitivity of the query.
    calibration : {"analytic", "classical"}
        ``"analytic"`` solves the exact curve [BW18, Thm 8]; ``"classical"`` uses
        ``sigma = sensitivity * sqrt(2 ln(1.25/delta)) / epsilon`` [DR14, Thm A.1].
    """

    epsilon: float
    delta: float
    sensitivity: float = 1.0
    calibration: Literal["analytic", "classical"] = "analytic"
    sigma: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        owner = "GaussianMechanism"
        check_positive(owner, "epsilon", self.epsilon)
        check_probability(owner, "delta", self.delta, allow_zero=False)
        check_positive(owner, "sensitivity", self.sensitivity)
        check_one_of(owner, "calibration", self.calibration, ("analytic", "classical"))
        if self.calibration == "analytic":
            sigma = gaussian_sigma_analytic(self.sensitivity, self.epsilon, self.delta)
        else:
            sigma = gaussian_sigma_classical(self.sensitivity, self.epsilon, self.delta)
        object.__setattr__(self, "sigma", sigma)

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` releases ``data + N(0, sigma^2 I)``.

        Returns
        -------
        ndarray of float
            Shape ``(size, *data.shape)``.
        """
        x = check_finite_array("GaussianMechanism.sample", "data", data)
        size = check_size("GaussianMechanism.sample", size)
        return rng.normal(x, self.sigma, size=(size, *x.shape))  # loc broadcasts: one pass

    def claimed_guarantee(self) -> ApproxDP:
        """(epsilon, delta)-DP for queries of l2 sensitivity ``sensitivity`` ([BW18, Thm 8] or [DR14, Thm A.1])."""
        return ApproxDP(self.epsilon, self.delta, QueryDistance(self.sensitivity, "l2"))

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The exact profile: the Gaussian pair with ``mu = ||d1 - d0||_2 / sigma`` [BW18, Thm 8]."""
        from dpaudit.exact import GaussianStep
        from dpaudit.exact.pairs import exact_shifts, paired_arrays

        x0, x1 = paired_arrays("GaussianMechanism.privacy_profile", d0, d1)
        return GaussianStep(tuple(exact_shifts(x0, x1)), self.sigma).profile()
