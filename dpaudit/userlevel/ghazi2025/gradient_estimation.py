"""Algorithm 2 of Ghazi, Kumar, Liu and Manurangsi (2025): robust gradient estimation.

:func:`robust_gradient_estimate` / :class:`RobustGradientEstimator`: the mean of the ``B`` user
gradients clipped coordinate-wise to the l_inf ball of radius ``varsigma`` around a robust statistic
(deterministic, so it is an operator, not a mechanism).

References
----------
.. [GKLM25] B. Ghazi, R. Kumar, D. Liu and P. Manurangsi. Linear-time user-level DP-SCO via robust
   statistics. arXiv:2502.08889v1, 2025.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
.. [Note000] The readings, corrections and pitfalls of Ghazi, Kumar, Liu and Manurangsi (2025)
   kept in ``docs/papers/ghazi2025.md`` (readings A1-A14, pitfalls P1-P20).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    argument_error,
    check_finite_array,
    check_positive,
)
from dpaudit.userlevel.robust_stats import CoordinateMedian, RobustStatistic

__all__ = ["RobustGradientEstimator", "robust_gradient_estimate"]


def robust_gradient_estimate(
    gradients: Any, varsigma: float, statistic: RobustStatistic | None = None
) -> NDArray[np.float64]:
    """Algorithm 2 of [GKLM25]: the mean clipped to ``B_inf(X_rs, varsigma)`` coordinate-wise.

    Parameters
    ----------
    gradients : array_like, shape (..., B, d)
        The ``B`` user gradients ``q_t(Z_{i,t})`` (any leading trial axes).
    varsigma : float
        Clip radius ``varsigma > 0`` (Algorithm 1 passes ``1/tau``).
    statistic : RobustStatistic, optional
        Coordinate-wise robust statistic (default: the median).

    Returns
    -------
    ndarray, shape (..., d)

    Notes
    -----
    Lines 3-9 of Algorithm 2 set ``X_est[j] = Pi_[X_rs[j] - s, X_rs[j] + s](mean[j])`` when
    ``|X_rs[j] - mean[j]| >= s`` and ``mean[j]`` otherwise; both branches equal the clip below
    (the printed "Pi_{B(Y_{j,s})}" is garbled; it is this interval).

    .. math:: X_{est} = \\min(\\max(\\bar x, X_{rs} - \\varsigma), X_{rs} + \\varsigma)
    """
    q = np.asarray(gradients, dtype=float)
    stat = CoordinateMedian() if statistic is None else statistic
    rs = stat(q, axis=-2)  # [GKLM25, Alg. 2, line 3]
    mean = q.mean(axis=-2)  # [GKLM25, Alg. 2, line 3]
    return np.minimum(np.maximum(mean, rs - varsigma), rs + varsigma)  # [GKLM25, Alg. 2, lines 4-9]


@dataclass(frozen=True)
class RobustGradientEstimator:
    """Algorithm 2 of [GKLM25] as a frozen operator (deterministic; no privacy claim of its own).

    Its sensitivity under rho-alignment is ``4 rho + 2 varsigma`` in l_inf [GKLM25, Lemma 3.6].
    """

    varsigma: float
    statistic: RobustStatistic = field(default_factory=CoordinateMedian)

    def __post_init__(self) -> None:
        check_positive("RobustGradientEstimator", "varsigma", self.varsigma)
        if not isinstance(self.statistic, RobustStatistic):
            raise argument_error("RobustGradientEstimator", "statistic", "a RobustStatistic", self.statistic)

    def __call__(self, gradients: Any) -> NDArray[np.float64]:
        """The robust estimate of the user gradients ``(B, d)`` [GKLM25, Alg. 2], shape ``(d,)``."""
        q = check_finite_array("RobustGradientEstimator", "gradients", gradients, min_ndim=2)
        return robust_gradient_estimate(q, self.varsigma, self.statistic)
