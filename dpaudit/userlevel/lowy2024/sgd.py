"""The non-private optimisers inside Lowy, Liu and Asi (2024)'s algorithms, vectorised over trials.

* :func:`one_pass_sgd`: ``SGD(D, eta, T, x0)`` of Algorithm 1 line 8, the average iterate of ``T``
  steps of one-pass projected SGD, run for all ``C`` groups and all trials at once;
* :class:`ACSAState` / :func:`acsa_query_point` / :func:`acsa_update`: one iteration of the
  accelerated stochastic approximation of [GL12] (Algorithm 2 line 15), Euclidean prox.

Iterates are held in units of the domain radius (``u = x / radius``, so ``||u|| <= 1``): squares
and norms stay O(1) whatever the declared constants.

References
----------
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. NeurIPS 2024, Alg 1 line 8, Alg 2 line 15, proof of Lemma 2.3.
.. [FKT20] V. Feldman, T. Koren and K. Talwar. Private stochastic convex optimization: optimal
   rates in linear time. STOC 2020, Lemma 4.5 (average of the query points).
.. [GL12] S. Ghadimi and G. Lan. Optimal stochastic approximation algorithms for strongly convex
   stochastic composite optimization I. SIAM J. Optim. 22(4), 2012, AC-SA (Algorithm 1), Prop. 9.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpaudit.userlevel.lowy2024.domain import PublicDomain, safe_norm

__all__ = ["ACSAState", "acsa_query_point", "acsa_update", "one_pass_sgd", "project_unit_ball"]

_RENORM_EVERY = 64


def project_unit_ball(u: NDArray[np.float64]) -> NDArray[np.float64]:
    """Euclidean projection onto the unit ball along the last axis (in place on a copy)."""
    norm = safe_norm(u)
    return u * np.where(norm > 1.0, 1.0 / np.where(norm > 0, norm, 1.0), 1.0)[..., None]


def one_pass_sgd(
    domain: PublicDomain, features: NDArray[np.float64], labels: NDArray[np.float64], start: NDArray[np.float64],
    step_size: float,
) -> NDArray[np.float64]:
    """Average of the query points of one-pass projected SGD, per trial and group [LLA24, Alg 1 line 8].

    Parameters
    ----------
    features : ndarray, shape (C, T, d) or (trials, C, T, d)
        Group ``j``'s pooled items in the order SGD visits them (one pass, each item once).
    labels : ndarray, shape (C, T) or (trials, C, T)
    start : ndarray, shape (trials, d)
        ``x_{i-1}`` in units of the radius (``||start|| <= 1`` is not required: the first step projects).
    step_size : float
        ``eta_i`` in original units.

    Returns
    -------
    ndarray, shape (trials, C, d)
        ``(1/T) sum_{t=0}^{T-1} u_t`` with ``u_{t+1} = Pi(u_t - (eta/radius) grad f(radius u_t, z_t))``,
        in units of the radius: the average of the ``T`` points at which gradients are queried
        ([FKT20, Lemma 4.5]; dpaudit's choice).
    """
    radius = domain.radius
    shared = features.ndim == 3
    trials = start.shape[0]
    n_groups, steps = labels.shape[-2], labels.shape[-1]
    d = features.shape[-1]
    # layout (C, d, trials): the trial axis last and contiguous, so each item's features broadcast along it
    # (about 2.5 times faster than (trials, C, d) for the small d of these problems)
    u = np.broadcast_to(start.T[None, :, :], (n_groups, d, trials)).copy()
    sq = np.square(safe_norm(np.moveaxis(u, 1, -1)))  # (C, trials)
    acc = np.zeros_like(u)
    tmp = np.empty_like(u)
    xnorm = safe_norm(features)  # ||x|| <= feature_bound; its products below are bounded by eta L / radius
    if shared:
        feats, labs, norms = features[:, :, :, None], labels[:, :, None], xnorm[:, :, None]  # broadcast over trials
    else:
        feats, labs, norms = np.moveaxis(features, 0, -1), np.moveaxis(labels, 0, -1), np.moveaxis(xnorm, 0, -1)
    scale = step_size / radius
    for t in range(steps):
        acc += u  # the query point u_t enters the average before the step [FKT20, Lemma 4.5]
        x_t = feats[:, t]  # (C, d, 1) or (C, d, trials)
        margin = np.einsum("cdt,cdt->ct", u, np.broadcast_to(x_t, u.shape)) if not shared else \
            np.einsum("cdt,cd->ct", u, x_t[..., 0])
        coef = domain.slope(radius * margin, labs[:, t])
        coef *= -scale  # u <- u - (eta/radius) * slope * x
        np.multiply(coef[:, None, :], x_t, out=tmp)
        u += tmp
        # ||u + c x||^2 = ||u||^2 + 2 c <u, x> + (c ||x||)^2, kept incrementally; exact every 64 steps
        sq += 2.0 * coef * margin + np.square(coef * norms[:, t])
        if (t + 1) % _RENORM_EVERY == 0:
            sq = np.square(safe_norm(np.moveaxis(u, 1, -1)))
        if (sq > 1.0).any():
            exact = safe_norm(np.moveaxis(u, 1, -1))
            factor = np.where(exact > 1.0, 1.0 / np.where(exact > 0, exact, 1.0), 1.0)
            u *= factor[:, None, :]
            sq = np.square(exact * factor)
    return np.moveaxis(acc / steps, -1, 0)


@dataclass
class ACSAState:
    """AC-SA iterates ``x`` and ``x_ag`` in units of the radius, shape ``(trials, d)`` [GL12, Alg 1]."""

    x: NDArray[np.float64]
    x_ag: NDArray[np.float64]


def _acsa_coefficients(t: int, mu: float, smooth: float) -> tuple[float, float]:
    """``alpha_t = 2/(t + 1)``, ``gamma_t = 4 L_f/(t (t + 1))`` [GL12, Prop. 9 (the strongly convex stepsizes)]."""
    return 2.0 / (t + 1.0), 4.0 * smooth / (t * (t + 1.0))


def acsa_query_point(state: ACSAState, t: int, mu: float, smooth: float) -> NDArray[np.float64]:
    """``x_md = [(1-a)(mu+g)/(g+(1-a^2)mu)] x_ag + [a((1-a)mu+g)/(g+(1-a^2)mu)] x`` [GL12, Alg 1, eq. (3.1)]."""
    a, g = _acsa_coefficients(t, mu, smooth)
    den = g + (1.0 - a * a) * mu
    return ((1.0 - a) * (mu + g) / den) * state.x_ag + (a * ((1.0 - a) * mu + g) / den) * state.x


def acsa_update(
    state: ACSAState, x_md: NDArray[np.float64], gradient: NDArray[np.float64], t: int, mu: float, smooth: float
) -> None:
    """``x <- Pi((a mu x_md + ((1-a)mu + g) x - a G)/(mu + g))``, ``x_ag <- a x + (1-a) x_ag`` [GL12, Alg 1, (3.2)-(3.3)].

    All points and ``gradient`` (``G``, the gradient of the objective in the scaled variable) are in
    units of the radius; the prox step is the Euclidean one onto the unit ball.
    """
    a, g = _acsa_coefficients(t, mu, smooth)
    x_new = project_unit_ball((a * mu * x_md + ((1.0 - a) * mu + g) * state.x - a * gradient) / (mu + g))
    state.x = x_new
    state.x_ag = a * x_new + (1.0 - a) * state.x_ag
