"""Round length of Phased ERM (Levy et al. 2021, Algorithm 4 with Corollary 2's accuracy) and its noise cost.

Each round of :class:`~dpaudit.userlevel.levy2021.phased_erm.PhasedERM` minimises a
``lambda_t``-strongly convex, ``(H + lambda_t)``-smooth objective with Algorithm 3. A step of size
``1/(H + lambda_t)`` shrinks the distance to the minimiser by ``q_t = H / (H + lambda_t)`` [RB16, Sec. 6];
Algorithm 2 adds zero-mean noise whose variance ``nu_t^2(T)`` grows with the number of steps ``T``
(the per-step budget ``eps' = eps / (2 sqrt(2 T log(2/delta)))`` shrinks) [LSA+21, Alg 3, line 2]. The
functions here take the mechanism (``erm``) and one of its rounds (``phase``) and return public,
data-independent constants: Corollary 2's tolerance, the bound on the round's error after ``T`` steps,
and the round length chosen by ``erm.step_rule`` (see :class:`PhasedERM`'s Notes).

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845.
.. [RB16] E. K. Ryu and S. Boyd. Primer on monotone operator methods. Applied and Computational
   Mathematics 15(1), 2016 (Sec. 6: the gradient map of a strongly convex smooth function is a
   contraction).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Literal

from dpaudit._validation import check_in_range, check_nonnegative, check_positive

__all__ = [
    "StepRule",
    "choose_round_length",
    "localization_steps",
    "round_contraction",
    "round_error_bound",
    "round_initial_distance",
    "round_noise_variance",
    "round_tolerance",
]


StepRule = Literal["balanced", "corollary2"]


def localization_steps(contraction: float, initial_distance: float, tolerance: float) -> int:
    """Smallest ``T >= 1`` with ``q^(2T) D^2 <= tolerance``: the steps that reach Corollary 2's accuracy.

    ``q = contraction = H / (H + lambda_t)`` is the factor by which one gradient step of size
    ``1/(H + lambda_t)`` shrinks the distance to the minimiser of a ``lambda_t``-strongly convex,
    ``(H + lambda_t)``-smooth objective (the gradient map is a contraction with factor
    ``max(|1 - eta lambda|, |1 - eta (H + lambda)|)`` [RB16, Sec. 6]; the projection is non-expansive),
    ``D = initial_distance`` bounds the starting distance and ``tolerance`` is Corollary 2's
    ``sigma^2 d^2 / (mu^2 n^2 m eps^2)``. Since ``-2 log q >= 2 lambda_t / (H + lambda_t)``, the result is
    at most half of Corollary 2's ``T = (H/mu) log(.)`` with ``H -> H + lambda_t``, ``mu = lambda_t`` and
    the log's argument read as ``D^2 / tolerance`` (the printed argument is not dimensionless,
    ``docs/papers/levy2021.md`` 0(c)). ``q = 0`` (``H = 0``: one step lands on the minimiser) gives 1.
    """
    owner = "localization_steps"
    check_in_range(owner, "contraction", contraction, 0.0, 1.0, high_closed=False)
    check_nonnegative(owner, "initial_distance", initial_distance)
    check_positive(owner, "tolerance", tolerance)
    ratio = initial_distance**2 / tolerance
    if contraction == 0.0 or ratio <= 1.0:
        return 1
    return max(1, math.ceil(math.log(ratio) / (-2.0 * math.log(contraction))))


def round_tolerance(erm: Any, phase: Any, m_items: int, dim: int) -> float:
    """Corollary 2's accuracy ``sigma^2 d^2 / (lambda_t^2 n_t^2 m eps^2)`` for round ``phase`` [LSA+21, Cor 2]."""
    return erm._sigma()**2 * dim**2 / (phase.lam**2 * phase.n_users**2 * m_items * erm.epsilon**2)


def round_initial_distance(erm: Any, phase: Any) -> float:
    """``D_t = min(R, G / lambda_t)``: a bound on ``||theta_hat_{t-1} - theta*_t||`` (see :class:`PhasedERM`'s Notes)."""
    return min(2.0 * erm.radius, erm.lipschitz / phase.lam)


def round_contraction(erm: Any, phase: Any) -> float:
    """``q_t = H / (H + lambda_t)``: the distance contraction of one step of size ``1/(H + lambda_t)`` [RB16, Sec. 6]."""
    return erm.smooth_constant / (erm.smooth_constant + phase.lam)


def round_noise_variance(erm: Any, phase: Any, m_items: int, dim: int, steps: int) -> float:
    """``nu^2 = 2 d b^2``: variance of Algorithm 2's noise in every step of a ``steps``-step run of round ``phase``.

    ``b`` is the Laplace scale of every rotated coordinate at the per-step budget of ``steps``
    steps, read from the round's own estimator; ``U`` is orthogonal, so the ``d`` kept
    coordinates of ``U^{-1} xi`` carry ``2 b^2`` each [LSA+21, Alg 2-3].
    """
    opt = erm.round_optimizer(replace(phase, steps=steps))
    b = opt.gradient_estimator(phase.n_users, m_items, dim).coordinate_mechanism(phase.n_users, dim).noise_scale(
        phase.n_users)
    return 2.0 * dim * b**2


def round_error_bound(erm: Any, phase: Any, m_items: int, dim: int, steps: int) -> float:
    """Bound on ``E||theta_hat_t - theta*_t||^2`` after ``steps`` steps (``D_t^2`` for 0 steps; smooth losses).

    ``q^(2T) D^2 + eta^2 nu^2(T) (1 - q^(2T)) / (1 - q^2)``: every step contracts the distance by
    ``q`` and adds independent zero-mean noise of variance ``eta^2 nu^2(T)`` (in Algorithm 2's
    concentration event). It is the finite-``T`` form of the strongly convex case of [LSA+21,
    Prop 4], ``(1 - mu/H)^T R^2 + nu^2 / (mu H)``, which it never exceeds.
    """
    d0 = round_initial_distance(erm, phase)
    if steps == 0:
        return d0**2
    q = round_contraction(erm, phase)
    eta = 1.0 / (erm.smooth_constant + phase.lam)
    nu2 = round_noise_variance(erm, phase, m_items, dim, steps)
    if q == 0.0:
        return eta**2 * nu2
    log_q2 = 2.0 * math.log(q)
    shrink = math.exp(steps * log_q2)  # q^(2T)
    return shrink * d0**2 + eta**2 * nu2 * math.expm1(steps * log_q2) / math.expm1(log_q2)


def choose_round_length(erm: Any, phase: Any, m_items: int, dim: int) -> Any:
    """``phase`` with its steps chosen by ``step_rule`` (unless ``steps`` is fixed) and its error budget."""
    tol = round_tolerance(erm, phase, m_items, dim)
    d0 = round_initial_distance(erm, phase)
    steps = phase.steps
    if erm.steps is None:
        steps = localization_steps(round_contraction(erm, phase), d0, tol)
        if erm.step_rule == "balanced":
            steps = _balanced_steps(erm, phase, m_items, dim, steps)
        if erm.max_steps is not None:
            steps = min(steps, erm.max_steps)
    return replace(phase, steps=steps, initial_distance=d0, tolerance=tol,
                   error_bound=round_error_bound(erm, phase, m_items, dim, steps))


def _balanced_steps(erm: Any, phase: Any, m_items: int, dim: int, limit: int) -> int:
    """The ``T`` in ``[0, limit]`` minimising :func:`round_error_bound`.

    The bound is unimodal in ``T``: its forward difference is
    ``-(D^2 - c nu^2(T)) (1 - q^2) q^(2T) + c (nu^2(T+1) - nu^2(T)) (1 - q^(2T+2))`` with
    ``c = eta^2 / (1 - q^2)``; while ``D^2 >= c nu^2(T)`` both parts are non-decreasing in ``T``
    (``nu^2(T) ~ T log(2T/delta)`` is increasing and convex), and afterwards the difference is
    positive. So bisection on the sign of the difference finds the minimiser.
    """
    def rises(t: int) -> bool:
        return round_error_bound(erm, phase, m_items, dim, t + 1) >= round_error_bound(erm, phase, m_items, dim, t)

    lo, hi = 0, limit  # the minimiser lies in [lo, hi]
    while lo < hi:
        mid = (lo + hi) // 2
        if rises(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo
