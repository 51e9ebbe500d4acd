"""Algorithm 2 of Lowy, Liu and Asi (2024): user-level DP accelerated minibatch SGD, vectorised over trials.

:func:`run_minibatch_phase` runs one call of Algorithm 2 on one phase's users for many trials at
once: ``T`` AC-SA iterations [GL12] on ``F_i(x) = (1/n_i) sum_Z F(x, Z) + (lambda_i/2)||x - x_{i-1}||^2``;
per iteration, ``K`` users sampled *without replacement* (finding F5: the box's "with replacement"
breaks the proof's sensitivity bounds), their mean gradients' concentration score at ``2 tau`` fed
to AboveThreshold (the shared :class:`~dpaudit.mechanisms.sparse_vector.AboveThreshold`, threshold
noise drawn once per call), the soft ramp, the robust mean plus ``N(0, sigma^2 I_d)``, and one AC-SA step.

As ``docs/papers/lowy2024.md`` proposes (Sec. 2.2): the test, the scores and the averaged gradients all use
the gradients at the AC-SA query point ``x_md`` (pitfall P11); a halt returns the public point 0
(the caller stops Algorithm 3); an empty kept set is a halt; ``K_i <= n_i``.

References
----------
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. NeurIPS 2024, Algorithm 2, Lemma C.2, proof of Thm C.1.
.. [GL12] S. Ghadimi and G. Lan. Optimal stochastic approximation algorithms for strongly convex
   stochastic composite optimization I. SIAM J. Optim. 22(4), 2012.
.. [Note003] The readings, corrections and pitfalls of Lowy, Liu and Asi (2024)
   kept in ``docs/papers/lowy2024.md`` (findings F1-F7, pitfalls P1-P25).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpaudit.mechanisms.sparse_vector import AboveThreshold
from dpaudit.userlevel.lowy2024.domain import PublicDomain
from dpaudit.userlevel.lowy2024.outlier_removal import (
    inclusion_probability,
    pairwise_sq_distances,
    robust_mean,
)
from dpaudit.userlevel.lowy2024.sgd import ACSAState, acsa_query_point, acsa_update
from dpaudit.userlevel.lowy2024.smoothing import RandomizedSmoothing

__all__ = ["MinibatchPhase", "MinibatchRules", "run_minibatch_phase"]


@dataclass(frozen=True)
class MinibatchPhase:
    """The public constants of one call of Algorithm 2 [LLA24, Alg 2 inputs; Alg 3 line 4]."""

    users: int
    steps: int
    batch: int
    lam: float
    tau: float
    sigma: float
    threshold: float
    above_threshold_epsilon: float
    smoothness: float


@dataclass(frozen=True)
class MinibatchRules:
    """Switches for the ``docs/papers/lowy2024.md`` pitfalls (all off in the correct algorithm).

    ``hard_threshold``: keep a user iff ``h >= K/2`` instead of the ramp (P2);
    ``redraw_threshold``: fresh threshold noise at every step, as the box's line 4 literally reads (P10);
    ``with_replacement``: sample the ``K`` users with replacement, as the box's line 3 reads (P7).
    """

    hard_threshold: bool = False
    redraw_threshold: bool = False
    with_replacement: bool = False


def _sample_users(rng: np.random.Generator, trials: int, users: int, batch: int, with_replacement: bool) -> NDArray[np.int64]:
    if with_replacement:
        return rng.integers(0, users, size=(trials, batch))
    if batch == users:
        return np.broadcast_to(np.arange(users), (trials, users))
    return np.argpartition(rng.random((trials, users)), batch - 1, axis=1)[:, :batch]  # a uniform K-subset


def run_minibatch_phase(
    domain: PublicDomain, phase_data: NDArray[np.float64], phase: MinibatchPhase, center: NDArray[np.float64],
    *, rng: np.random.Generator, smoothing: RandomizedSmoothing | None = None, rules: MinibatchRules = MinibatchRules(),
    releases: NDArray[np.float64] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.bool_], int, int]:
    """One call of Algorithm 2 for ``trials = center.shape[0]`` trials [LLA24, Alg 2 lines 1-21].

    Parameters
    ----------
    phase_data : ndarray, shape (n_i, m, d + 1)
        The phase's users ``D_i`` (disjoint from other phases'), inside the declared domain.
    center : ndarray, shape (trials, d)
        ``x_{i-1}`` in units of the radius.
    releases : ndarray, shape (trials, T, 1 + d), optional
        If given, receives every step's noisy releases (the transcript; no draw changes): the
        AboveThreshold answer (1 continue, 0 halt at this step, -1 halted before) and the noisy
        robust mean ``g + zeta`` in units of ``L`` (0 unless the step continues and uses it).

    Returns
    -------
    (x_out, halted, gradient_evaluations, score_pair_terms)
        ``x_out`` ``(trials, d)`` in units of the radius (``x_{i-1}^{T_i}``, the AC-SA output
        ``x_ag``); ``halted`` per trial; the per-trial counts of item gradients (``T K m``) and of
        pairwise distances the test evaluated (``T K^2``).
    """
    trials, d = center.shape
    radius, lip = domain.radius, domain.lipschitz
    k, m = phase.batch, phase_data.shape[1]
    # AC-SA on F(radius v)/(L radius) in v = x/radius: gradients in units of L, mu = lambda R/L, smoothness
    # (beta + lambda) R/L; the iterates are those of AC-SA on F (it is invariant to scaling the objective)
    # and every quantity stays O(1) whatever the declared constants
    mu_v, smooth_v = phase.lam * radius / lip, (phase.smoothness + phase.lam) * radius / lip
    sigma_l = phase.sigma / lip
    state = ACSAState(center.copy(), center.copy())
    # AboveThreshold [LLA24, Alg 4] on the negated scores: "continue iff s_hat >= 4K/5 + xi" is "halt (⊤) iff
    # -s + nu >= -4K/5 + Lap"; scales 2s/eps_AT and 4s/eps_AT with s = 2 are Lap(8/eps), Lap(16/eps) at eps_AT = eps/2
    at = AboveThreshold(phase.above_threshold_epsilon, -phase.threshold, sensitivity=2.0, variant="lowy2024")
    noisy_threshold = at.start(trials, rng=rng)  # drawn once per call [Alg 2 line 4; proof of Thm C.1]
    halted = np.zeros(trials, dtype=bool)
    radius_2tau_sq = (2.0 * phase.tau / lip) ** 2  # 2 tau in units of L
    for t in range(1, phase.steps + 1):
        x_md = acsa_query_point(state, t, mu_v, smooth_v)  # gradients are queried at x_md (Alg. 2)
        idx = _sample_users(rng, trials, phase.users, k, rules.with_replacement)  # [Alg 2 line 3] (F5)
        items = phase_data[idx]  # (trials, K, m, d + 1)
        theta = radius * x_md
        if smoothing is None:
            q = domain.user_mean_gradients(theta, items)  # q_t(Z)/L [Alg 2 line 5]
        else:
            q = _smoothed_user_means(domain, smoothing, theta, items, rng)
        d2 = pairwise_sq_distances(q)
        within = d2 <= radius_2tau_sq
        h = np.count_nonzero(within, axis=-1)  # h_i^t(Z) at 2 tau [Alg 2 line 10]
        score = h.sum(axis=-1) / k  # s_i^t(tau) at 2 tau [Alg 2 line 6]
        if rules.redraw_threshold:
            noisy_threshold = at.start(trials, rng=rng)
        _, now = at.answer(-score, noisy_threshold, halted, rng=rng)  # [Alg 2 line 7]
        probs = (h >= k / 2.0).astype(float) if rules.hard_threshold else inclusion_probability(h, k)  # [Alg 2 line 11]
        mean, kept = robust_mean(q, probs, rng=rng)  # g_i^t / L [Alg 2 line 13]
        now = now | (kept == 0)  # an empty kept set is a halt (dpaudit's reading)
        g_hat = mean + rng.normal(0.0, sigma_l, size=(trials, d))  # (g + zeta_i^t)/L [Alg 2 lines 13-14]
        grad_v = g_hat + mu_v * (x_md - center)  # + lambda_i (x - x_{i-1}), scaled [Alg 2 line 15]
        live = ~now
        if releases is not None:
            releases[:, t - 1, 0] = np.where(live, 1.0, np.where(halted, -1.0, 0.0))
            releases[:, t - 1, 1:] = np.where(live[:, None], g_hat, 0.0)
        if live.any():
            sub = ACSAState(state.x[live], state.x_ag[live])
            acsa_update(sub, x_md[live], grad_v[live], t, mu_v, smooth_v)  # one AC-SA step [GL12]
            state.x[live], state.x_ag[live] = sub.x, sub.x_ag
        halted = now
    return state.x_ag, halted, phase.steps * k * m, phase.steps * k * k


def _smoothed_user_means(
    domain: PublicDomain, smoothing: RandomizedSmoothing, theta: NDArray[np.float64], items: NDArray[np.float64],
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """Users' mean gradients of ``f_r`` (one fresh ball point per item, Lemma D.1), in units of ``L``, clamped."""
    x, y = items[..., :-1], items[..., -1]
    margin = np.einsum("tkmd,td->tkm", x, theta) + smoothing.margin_offsets(x, rng=rng)
    slope = domain.slope(margin, y) / domain.lipschitz
    q = (slope[..., None, :] @ x)[..., 0, :] / x.shape[-2]
    norm = np.linalg.norm(q, axis=-1, keepdims=True)
    return q * np.minimum(1.0, 1.0 / np.maximum(norm, 1e-300))
