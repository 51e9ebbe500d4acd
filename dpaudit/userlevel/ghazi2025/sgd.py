"""The deterministic part of Algorithm 1 of Ghazi, Kumar, Liu and Manurangsi (2025), lines 4-8.

:func:`robust_sgd_path` runs the SGD with robust gradient estimates and no test or noise; the
mechanisms and the sensitivity property tests use it.

References
----------
.. [GKLM25] B. Ghazi, R. Kumar, D. Liu and P. Manurangsi. Linear-time user-level DP-SCO via robust
   statistics. arXiv:2502.08889v1, 2025.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
.. [Note000] The readings, corrections and pitfalls of Ghazi, Kumar, Liu and Manurangsi (2025)
   kept in ``docs/papers/ghazi2025.md`` (readings A1-A14, pitfalls P1-P20).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    argument_error,
    check_finite_array,
    check_int,
    check_positive,
)
from dpaudit.userlevel.ghazi2025.concentration import concentration_score
from dpaudit.userlevel.ghazi2025.gradient_estimation import robust_gradient_estimate
from dpaudit.userlevel.ghazi2025.losses import Ghazi2025Loss
from dpaudit.userlevel.robust_stats import CoordinateMedian, RobustStatistic

__all__ = ["SGDPath", "robust_sgd_path"]


def _sgd_step(
    loss: Ghazi2025Loss,
    x: NDArray[np.float64],
    items: NDArray[np.float64],
    step_size: float,
    tau: float,
    varsigma: float,
    radius: float,
    statistic: RobustStatistic,
    with_score: bool = True,
) -> tuple[NDArray[np.float64], NDArray[np.float64] | None, NDArray[np.float64], NDArray[np.float64]]:
    """One step of Algorithm 1: ``(x_t, s_t, g_{t-1}, q_t)`` from ``x_{t-1}`` and the batch's items."""
    q = loss.mean_gradient(x[..., None, :], items)  # [GKLM25, Alg. 1, line 5]: (..., B, d)
    score = concentration_score(q, tau) if with_score else None  # [GKLM25, Eq. (3)]
    g = robust_gradient_estimate(q, varsigma, statistic)  # [GKLM25, Alg. 1, line 6]
    x_new = np.clip(x - step_size * g, -radius, radius)  # [GKLM25, Alg. 1, line 7]: Pi_X on the box
    return x_new, score, g, q


@dataclass(frozen=True, eq=False)
class SGDPath:
    """Trajectory of :func:`robust_sgd_path`: ``iterates[..., t-1, :] = x_t``, ``scores[..., t-1] = s_t``."""

    initial_point: NDArray[np.float64]
    iterates: NDArray[np.float64]
    scores: NDArray[np.float64]
    estimates: NDArray[np.float64]
    user_gradients: NDArray[np.float64]

    @property
    def average(self) -> NDArray[np.float64]:
        """``x_bar = (1/T) sum_t x_t`` [GKLM25, Alg. 1, line 11]."""
        return np.asarray(self.iterates.mean(axis=-2))


def robust_sgd_path(
    loss: Ghazi2025Loss,
    data: Any,
    initial_point: Any,
    *,
    step_size: float,
    tau: float,
    batch_size: int,
    radius: float,
    statistic: RobustStatistic | None = None,
    varsigma: float | None = None,
) -> SGDPath:
    """The SGD of Algorithm 1 of [GKLM25] (lines 4-8) without the test or any noise.

    Step ``t`` uses users ``(t-1) B, ..., t B - 1`` of ``data``; ``T = floor(n / B)``.

    Parameters
    ----------
    loss : Ghazi2025Loss
    data : array_like, shape (..., n_users, m_items, d + 1)
        Leading axes (e.g. a neighbouring pair stacked on axis 0) broadcast against ``initial_point``.
    initial_point : array_like, shape (..., d)
    step_size, tau : float
        ``eta`` and the inverse radius ``tau``.
    batch_size : int
        ``B``.
    radius : float
        ``D``; iterates are projected onto ``[-D, D]^d``.
    statistic : RobustStatistic, optional
        Default: coordinate-wise median.
    varsigma : float, optional
        Clip radius of Algorithm 2; default ``1/tau`` as in Algorithm 1, line 6.

    Returns
    -------
    SGDPath
        Iterates ``x_1..x_T``, scores ``s_1..s_T`` (at ``x_0..x_{T-1}``), estimates ``g_0..g_{T-1}``
        and user gradients ``(..., T, B, d)``.
    """
    owner = "robust_sgd_path"
    if not isinstance(loss, Ghazi2025Loss):
        raise argument_error(owner, "loss", "a Ghazi2025Loss", loss)
    z = check_finite_array(owner, "data", data, min_ndim=3)
    x0 = check_finite_array(owner, "initial_point", initial_point, min_ndim=1)
    eta = check_positive(owner, "step_size", step_size)
    tau = check_positive(owner, "tau", tau)
    b = check_int(owner, "batch_size", batch_size, minimum=1)
    dd = check_positive(owner, "radius", radius)
    vs = 1.0 / tau if varsigma is None else check_positive(owner, "varsigma", varsigma)
    stat = CoordinateMedian() if statistic is None else statistic
    if z.shape[-1] != x0.shape[-1] + 1:
        raise argument_error(owner, "data", f"items of length d + 1 = {x0.shape[-1] + 1}", data)
    steps = z.shape[-3] // b
    if steps < 1:
        raise argument_error(owner, "batch_size", f"at most n_users = {z.shape[-3]}", batch_size)
    x = np.asarray(x0, dtype=float)
    its, scs, ests, qs = [], [], [], []
    for t in range(steps):
        items = z[..., t * b : (t + 1) * b, :, :]
        x, s, g, q = _sgd_step(loss, x, items, eta, tau, vs, dd, stat)
        its.append(x)
        scs.append(s)
        ests.append(g)
        qs.append(q)
    return SGDPath(
        initial_point=np.asarray(x0, dtype=float),
        iterates=np.stack(its, axis=-2),
        scores=np.stack([sc for sc in scs if sc is not None], axis=-1),
        estimates=np.stack(ests, axis=-2),
        user_gradients=np.stack(qs, axis=-3),
    )
