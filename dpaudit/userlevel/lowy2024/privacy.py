"""Privacy accounting for Lowy, Liu and Asi (2024): explicit constants where the paper writes ``<~``.

The paper proves Algorithms 1 and 3 private with hidden constants (Lemmas B.2 and C.2) and a
good-event bookkeeping that fails for small ``delta`` (finding F1 of ``docs/papers/lowy2024.md``). This
module gives every step an explicit, checkable constant, so that a configuration's *consumed*
``(epsilon, delta)`` can be computed rather than assumed (dpaudit's bookkeeping, derived below):

* :func:`alg1_coupling_sensitivity` and :func:`alg2_coupling_sensitivity`: explicit versions of
  Lemmas B.2 and C.2 (derivations in the docstrings below);
* :func:`alg1_phase_guarantee`: one phase of Algorithm 1 (test, ramp, Gaussian) as ``(eps, delta)``;
* :func:`alg2_phase_guarantee`: one call of Algorithm 2, eq. (10)'s chain (Gaussian, then
  subsampling, then advanced composition) plus AboveThreshold and the test's bad event;
* :func:`calibrate_alg2_sigma` inverts that chain; :func:`f6_comparison` is finding F6 (the
  printed ``sigma_i`` against what the chain needs).

Trusted premises (cited, not re-proved here): the Laplace and Gaussian mechanisms [DR14, Thm 3.6;
BW18, Thm 8], AboveThreshold with adaptively chosen queries [DR14, Thm 3.23], amplification by
subsampling without replacement under substitution [BBG18, Thm 9], advanced composition [DR14,
Thm 3.20], concurrent composition of an interactive pure-DP mechanism with an adaptive sequence of
(eps, delta)-DP releases [Lyu22, Thm 1], and the coupling lemma (an (eps, delta) bound that holds
on a coupling event of probability ``1 - zeta`` gives (eps, delta + zeta)).

References
----------
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. NeurIPS 2024.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
.. [BW18] B. Balle and Y.-X. Wang. Improving the Gaussian mechanism for differential privacy, 2018.
.. [BBG18] B. Balle, G. Barthe and M. Gaboardi. Privacy amplification by subsampling: tight
   analyses via couplings and divergences. NeurIPS 2018.
.. [Lyu22] X. Lyu. Composition theorems for interactive differential privacy. NeurIPS 2022.
.. [Note003] The readings, corrections and pitfalls of Lowy, Liu and Asi (2024)
   kept in ``docs/papers/lowy2024.md`` (findings F1-F7, pitfalls P1-P25).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from dpaudit._validation import (
    argument_error,
    check_int,
    check_nonnegative,
    check_positive,
    check_probability,
)
from dpaudit.accounting.composition import advanced_composition
from dpaudit.accounting.conversions import gdp_epsilon

__all__ = [
    "Alg1PhaseGuarantee",
    "Alg2PhaseGuarantee",
    "F6Row",
    "alg1_coupling_sensitivity",
    "alg1_phase_guarantee",
    "alg2_coupling_sensitivity",
    "alg2_kept_count",
    "alg2_phase_guarantee",
    "binomial_quantile",
    "calibrate_alg2_sigma",
    "f6_comparison",
    "laplace_difference_tail",
    "laplace_upper_tail",
    "note_coupling_sensitivity",
    "paper_chain_epsilon",
    "subsampled",
]


# ---------------------------------------------------------------------------------------------
# tails
# ---------------------------------------------------------------------------------------------


def laplace_upper_tail(x: float, scale: float) -> float:
    """``P(Lap(scale) > x)``: ``exp(-x/scale)/2`` for ``x >= 0``."""
    scale = check_positive("laplace_upper_tail", "scale", scale)
    if x >= 0:
        return 0.5 * math.exp(-x / scale)
    return 1.0 - 0.5 * math.exp(x / scale)


def laplace_difference_tail(x: float, scale_a: float, scale_b: float) -> float:
    """``P(A - B > x)`` for independent ``A ~ Lap(scale_a)``, ``B ~ Lap(scale_b)`` and ``x >= 0``.

    ``A - B`` has the law of ``A + B``, whose density is ``(a e^{-|z|/a} - b e^{-|z|/b})/(2(a^2 - b^2))``
    (partial fractions of the characteristic function ``1/((1 + a^2 t^2)(1 + b^2 t^2))``); its upper
    tail is ``(a^2 e^{-x/a} - b^2 e^{-x/b})/(2(a^2 - b^2))`` and, for ``a = b``,
    ``e^{-x/a}(1 + x/(2a))/2``.
    """
    owner = "laplace_difference_tail"
    a = check_positive(owner, "scale_a", scale_a)
    b = check_positive(owner, "scale_b", scale_b)
    x = check_nonnegative(owner, "x", x)
    if abs(a - b) <= 1e-9 * max(a, b):
        s = 0.5 * (a + b)
        return 0.5 * math.exp(-x / s) * (1.0 + x / (2.0 * s))
    hi, lo = max(a, b), min(a, b)
    # factor out e^{-x/hi} so the difference does not underflow before it is taken
    value = (hi * hi - lo * lo * math.exp(-x / lo + x / hi)) / (2.0 * (hi * hi - lo * lo))
    return max(0.0, value) * math.exp(-x / hi)


def binomial_quantile(trials: int, prob: float, zeta: float) -> int:
    """The least ``t`` with ``P(Bin(trials, prob) >= t) <= zeta``."""
    owner = "binomial_quantile"
    trials = check_int(owner, "trials", trials, minimum=0)
    prob = check_probability(owner, "prob", prob, allow_one=True)
    zeta = check_probability(owner, "zeta", zeta, allow_zero=False)
    ts = np.arange(trials + 2)
    tails = stats.binom.sf(ts - 1, trials, prob)  # P(X >= t) = P(X > t - 1)
    return int(ts[np.argmax(tails <= zeta)])


# ---------------------------------------------------------------------------------------------
# couplings (Lemmas B.2 and C.2 with explicit constants)
# ---------------------------------------------------------------------------------------------


def note_coupling_sensitivity(tau: float, groups: int, zeta: float) -> float:
    """The ``docs/papers/lowy2024.md`` explicit Lemma B.2: ``9 tau (1 + max(33, ceil(log2(1/zeta))))/C`` [Note003, Sec. 3.4].

    Valid when ``s, s' >= 2C/3`` and ``C > 6``, with probability ``1 - zeta`` over the shared coins;
    the Chernoff bound ``P(X >= t) <= (6e/t)^t <= 2^-t`` (``t >= 33``) bounds the number of flips.
    """
    groups = check_int("note_coupling_sensitivity", "groups", groups, minimum=7)
    zeta = check_probability("note_coupling_sensitivity", "zeta", zeta, allow_zero=False)
    t = max(33, math.ceil(math.log2(1.0 / zeta)))
    return 9.0 * tau * (1 + t) / groups


def alg1_coupling_sensitivity(
    tau: float, groups: int, gamma: float, zeta: float, diameter: float = math.inf
) -> tuple[float, int]:
    """Explicit Lemma B.2: the robust mean of Algorithm 1 moves by at most the returned ``Delta`` w.p. ``1 - zeta``.

    Hypothesis: the concentration scores at ``tau`` of both neighbours are at least ``gamma C``,
    with ``g = ceil(gamma C) >= 2C/3 + 1``; ranks ``h`` at ``2 tau`` and the ramp as in Alg 1 lines
    15-17; the coins of the ``C - 1`` unchanged indices are shared (the coupling).

    Derivation (refining [Note003, Sec. 3.4]): some ``a`` has ``g`` points within ``tau`` (the
    score is their average); they are within ``2 tau`` of each other, so each has ``h >= g`` in
    ``D`` and ``h >= g - 1 >= 2C/3`` in ``D'``: the ``>= g - 1`` unchanged ones are kept on both
    sides. Every kept point has ``h > C/2`` and so a ``2 tau``-neighbour among them (``C/2 + g - 1 >
    C``), hence lies within ``3 tau`` of ``y_a``, on both sides. Only the ``<= C - g`` other indices
    can be kept on one side only, each with probability ``|p - p'| <= 6/C``: their number ``X`` is
    dominated by ``Bin(C - g, 6/C)``. With the two versions of the changed point, ``|S delta S'| <=
    X + 2`` and the means differ by at most ``2 (3 tau)(X + 2)/(g - 1)`` (tested in
    ``tests/userlevel/lowy2024/test_lowy2024_outlier_removal.py``).

    The robust mean is an average of points of a set of diameter ``diameter`` (the ball the
    iterates live in), so ``Delta`` never exceeds it, whatever the coins.

    Returns
    -------
    (Delta, t) : ``Delta = min(6 tau (t + 1)/(g - 1), diameter)`` with ``t`` = :func:`binomial_quantile`
    ``(C - g, 6/C, zeta)``.
    """
    owner = "alg1_coupling_sensitivity"
    tau = check_positive(owner, "tau", tau)
    groups = check_int(owner, "groups", groups, minimum=2)
    zeta = check_probability(owner, "zeta", zeta, allow_zero=False)
    g = math.ceil(gamma * groups - 1e-12)
    if not (g >= 2.0 * groups / 3.0 + 1.0 and g <= groups):
        raise argument_error(owner, "gamma", f"such that 2C/3 + 1 <= ceil(gamma C) <= C for C = {groups}", gamma)
    t = binomial_quantile(groups - g, min(1.0, 6.0 / groups), zeta)
    return min(6.0 * tau * (t + 1) / (g - 1), diameter), t


def alg2_kept_count(users: int, gamma: float) -> int:
    """Least number of points with ``h >= 2K/3 + 1`` when the score at ``2 tau`` is at least ``gamma K``.

    ``sum_j h_j = s K >= gamma K^2``; a point outside the set has ``h <= ceil(2K/3)`` and one inside ``h <= K``.
    """
    k = users
    h_out = math.ceil(2.0 * k / 3.0)  # largest integer below 2K/3 + 1
    if h_out >= k:
        return 0
    return max(0, math.ceil((gamma * k * k - k * h_out) / (k - h_out) - 1e-9))


def alg2_coupling_sensitivity(
    tau: float, users: int, gamma: float, zeta: float, diameter: float = math.inf
) -> tuple[float, int]:
    """Explicit Lemma C.2: Algorithm 2's robust minibatch mean moves by at most ``Delta`` w.p. ``1 - zeta``.

    Hypothesis: both neighbours' scores at ``2 tau`` are at least ``gamma K`` (Alg 2 scores and
    ranks with ``2 tau``), coins of unchanged users shared. At least ``f`` = :func:`alg2_kept_count`
    points have ``h >= 2K/3 + 1``, so ``p = p' = 1`` for the ``>= f - 1`` unchanged ones. Kept points
    of one dataset are pairwise within ``4 tau`` (two sets of more than ``K/2`` neighbours meet;
    tested in ``tests/userlevel/lowy2024/test_lowy2024_outlier_removal.py``), so with a common kept
    point ``c`` both kept sets lie in ``B(c, 4 tau)``. At
    most ``K - f`` other indices flip, each with probability ``<= 6/K``. Hence
    ``Delta = 2 (4 tau)(t + 1)/(f - 1)`` with ``t`` = :func:`binomial_quantile` ``(K - f, 6/K, zeta)``,
    and never more than ``diameter`` (users' gradients are clamped to the ball of radius ``L``, so
    two robust means are at most ``2L`` apart).
    """
    owner = "alg2_coupling_sensitivity"
    tau = check_positive(owner, "tau", tau)
    users = check_int(owner, "users", users, minimum=2)
    zeta = check_probability(owner, "zeta", zeta, allow_zero=False)
    f = alg2_kept_count(users, gamma)
    if f < 2:
        raise argument_error(owner, "gamma", f"large enough that two points have h >= 2K/3 + 1 (K = {users})", gamma)
    t = binomial_quantile(users - f, min(1.0, 6.0 / users), zeta)
    return min(8.0 * tau * (t + 1) / (f - 1), diameter), t


# ---------------------------------------------------------------------------------------------
# Algorithm 1: one phase
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Alg1PhaseGuarantee:
    """What one phase of Algorithm 1 spends; the phase is ``(epsilon, delta)``-DP under user replacement.

    ``epsilon = epsilon_test + epsilon_gaussian``;
    ``delta = max(delta_gaussian + zeta, e^{epsilon_test} * bad_pass)``.
    """

    epsilon_test: float
    epsilon_gaussian: float
    delta_gaussian: float
    zeta: float
    sensitivity: float
    flips: int
    bad_pass: float
    gamma: float

    @property
    def epsilon(self) -> float:
        """``epsilon_test + epsilon_gaussian``."""
        return self.epsilon_test + self.epsilon_gaussian

    @property
    def delta(self) -> float:
        """``max(delta_gaussian + zeta, e^{epsilon_test} * bad_pass)``."""
        return max(self.delta_gaussian + self.zeta, math.exp(self.epsilon_test) * self.bad_pass)


def alg1_phase_guarantee(
    *, groups: int, test_scale: float, threshold: float, sigma: float, tau: float,
    gamma: float, delta_gaussian: float, zeta: float, diameter: float = math.inf,
) -> Alg1PhaseGuarantee:
    """``(epsilon, delta)`` of one phase of Algorithm 1 [LLA24, Alg 1 lines 12-25], by cases on the true scores.

    ``threshold`` is the test's ``theta C`` (paper ``4C/5``), ``test_scale`` the Laplace scale
    (paper ``20/eps``). The test bit is ``epsilon_test = (2(C - 1)/C)/test_scale``-DP (the score's
    sensitivity). (i) Both scores ``>= gamma C``: the coupling (:func:`alg1_coupling_sensitivity`)
    and the Gaussian mechanism at ``(epsilon_gaussian, delta_gaussian)`` [BW18, Thm 8] give
    ``(epsilon_test + epsilon_gaussian, delta_gaussian + zeta)``. (ii) A score below ``gamma C``:
    that side passes with probability at most ``bad_pass = P(Lap > threshold - gamma C)``, so
    the halting output 0 is ``epsilon_test``-close and the rest costs ``e^{epsilon_test} bad_pass``.
    Phases use disjoint users, so the algorithm spends the largest phase's budget (parallel composition).
    """
    eps_test = (2.0 * (groups - 1) / groups) / test_scale
    sens, flips = alg1_coupling_sensitivity(tau, groups, gamma, zeta, diameter)
    eps_g = gdp_epsilon(sens / sigma, delta_gaussian)
    bad = laplace_upper_tail(threshold - gamma * groups, test_scale)
    return Alg1PhaseGuarantee(eps_test, eps_g, delta_gaussian, zeta, sens, flips, bad, gamma)


# ---------------------------------------------------------------------------------------------
# Algorithm 2: one call (one phase of Algorithm 3)
# ---------------------------------------------------------------------------------------------


def subsampled(epsilon: float, delta: float, ratio: float) -> tuple[float, float]:
    """Amplification by sampling ``K`` of ``n`` without replacement (substitution) [BBG18, Thm 9].

    ``(log(1 + r(e^eps - 1)), r delta)`` with ``r = K/n``; never above the paper's Lemma A.8
    ``((e^eps - 1) r, r delta)``.
    """
    return math.log1p(ratio * math.expm1(epsilon)), ratio * delta


@dataclass(frozen=True)
class Alg2PhaseGuarantee:
    """What one call of Algorithm 2 spends (user replacement).

    ``epsilon = epsilon_above_threshold + epsilon_gradients``; ``delta = delta_gradients +
    (1 + e^epsilon) steps * bad_pass``.
    """

    epsilon_above_threshold: float
    epsilon_step: float
    epsilon_gradients: float
    delta_gradients: float
    sensitivity: float
    flips: int
    bad_pass: float
    steps: int

    @property
    def epsilon(self) -> float:
        """``epsilon_above_threshold + epsilon_gradients``."""
        return self.epsilon_above_threshold + self.epsilon_gradients

    @property
    def delta(self) -> float:
        """``delta_gradients + (1 + e^epsilon) steps * bad_pass``, capped at 1."""
        return min(1.0, self.delta_gradients + (1.0 + math.exp(self.epsilon)) * self.steps * self.bad_pass)


def _gradient_composition(
    sigma: float, sensitivity: float, steps: int, ratio: float, delta_step: float, zeta: float, delta_prime: float
) -> tuple[float, float, float]:
    """Gaussian [BW18] -> coupling (+zeta) -> subsampling [BBG18] -> advanced composition [DR14]; (eps0, eps, delta)."""
    eps0 = gdp_epsilon(sensitivity / sigma, delta_step)
    eps1, del1 = subsampled(eps0, delta_step + zeta, ratio)
    total = advanced_composition(eps1, del1, steps, delta_prime)
    return eps0, total.epsilon, total.delta


def alg2_phase_guarantee(
    *, users: int, phase_users: int, steps: int, tau: float, sigma: float, gamma: float,
    threshold: float, threshold_scale: float, query_scale: float, epsilon_above_threshold: float,
    delta_step: float, zeta: float, delta_prime: float, diameter: float = math.inf,
) -> Alg2PhaseGuarantee:
    """``(epsilon, delta)`` of one call of Algorithm 2 [LLA24, Alg 2; proof of Thm C.1, eqs. (8)-(11)].

    AboveThreshold on the scores (sensitivity 2, threshold ``threshold``, scales as given) is
    ``epsilon_above_threshold``-DP. At steps where both neighbours' scores are at least ``gamma K``
    the robust mean moves by at most ``Delta`` (:func:`alg2_coupling_sensitivity`) except with
    probability ``zeta``; the Gaussian noise, sampling ``K`` of ``n_i`` users and advanced
    composition over ``T`` steps give ``(epsilon_gradients, delta_gradients)`` (eq. (10)). A step
    where a score is below ``gamma K`` passes only if ``v - xi > threshold - gamma K - 2``
    (``bad_pass``); forcing a halt there changes each side's output law by at most ``T bad_pass``
    in total variation, which costs ``(1 + e^epsilon) T bad_pass``.
    """
    sens, flips = alg2_coupling_sensitivity(tau, users, gamma, zeta, diameter)
    eps0, eps_g, del_g = _gradient_composition(sigma, sens, steps, users / phase_users, delta_step, zeta, delta_prime)
    margin = max(0.0, threshold - gamma * users - 2.0)
    bad = laplace_difference_tail(margin, query_scale, threshold_scale)
    return Alg2PhaseGuarantee(epsilon_above_threshold, eps0, eps_g, del_g, sens, flips, bad, steps)


def calibrate_alg2_sigma(
    *, target_epsilon: float, sensitivity: float, steps: int, ratio: float, delta_step: float, zeta: float,
    delta_prime: float,
) -> float:
    """Smallest ``sigma`` whose eq. (10) chain (:func:`alg2_phase_guarantee`) spends at most ``target_epsilon``.

    The composed epsilon decreases in ``sigma``; bisection in ``log sigma``, then the answer is moved
    up until the chain at it is within the target (never less noise than needed).
    """
    target = check_positive("calibrate_alg2_sigma", "target_epsilon", target_epsilon)

    def spent(log_sigma: float) -> float:
        return _gradient_composition(math.exp(log_sigma), sensitivity, steps, ratio, delta_step, zeta, delta_prime)[1]

    lo = hi = math.log(sensitivity)
    while spent(lo) <= target:
        lo -= 2.0
    while spent(hi) > target:
        hi += 2.0
    root = optimize.brentq(lambda s: spent(s) - target, lo, hi, xtol=1e-12)
    sigma = math.exp(root)
    while spent(math.log(sigma)) > target:
        sigma *= 1.0 + 1e-12
    return sigma


# ---------------------------------------------------------------------------------------------
# F6: the printed sigma_i of Algorithm 2 against what eq. (10)'s chain needs
# ---------------------------------------------------------------------------------------------


def paper_chain_epsilon(
    sigma: float, sensitivity: float, steps: int, ratio: float, delta_step: float, delta_prime: float
) -> float:
    """eq. (10) exactly as the paper composes it: Lemma A.6, then A.8, then A.7 [LLA24, proof of Thm C.1].

    Gaussian (A.6: ``sigma^2 = 2 Delta^2 log(2/delta0)/eps0^2``, solved for ``eps0``), subsampling
    (A.8: ``eps1 = (e^eps0 - 1) K/n``), advanced composition (A.7: ``sqrt(2T log(1/delta')) eps1 +
    T eps1 (e^eps1 - 1)``).
    """
    eps0 = sensitivity * math.sqrt(2.0 * math.log(2.0 / delta_step)) / sigma
    if eps0 > 50.0:  # the chain has long exceeded any budget; avoid overflow in expm1
        return math.inf
    eps1 = math.expm1(eps0) * ratio
    if eps1 > 50.0:
        return math.inf
    return math.sqrt(2.0 * steps * math.log(1.0 / delta_prime)) * eps1 + steps * eps1 * math.expm1(eps1)


@dataclass(frozen=True)
class F6Row:
    """One row of :func:`f6_comparison`: the printed sigma and the sigma eq. (10) needs, at one delta."""

    delta: float
    zeta: float
    printed_sigma: float
    needed_sigma_explicit: float
    needed_sigma_unit_constant: float
    explicit_constant: float

    @property
    def ratio_explicit(self) -> float:
        """The sigma eq. (10) needs with the explicit constant, over the printed sigma."""
        return self.needed_sigma_explicit / self.printed_sigma

    @property
    def ratio_unit_constant(self) -> float:
        """The sigma eq. (10) needs with a unit constant, over the printed sigma."""
        return self.needed_sigma_unit_constant / self.printed_sigma


def f6_comparison(
    deltas: tuple[float, ...], *, epsilon: float, n: int, d: int, phase_users: int, users: int, steps: int,
    tau: float = 1.0,
) -> tuple[F6Row, ...]:
    """Finding F6: Algorithm 2's printed ``sigma_i`` against the sigma its own privacy proof needs [LLA24, Alg 2 line 14].

    For each ``delta``: the proof's ``zeta = delta/(10 T e^eps)``, Lemma C.2's sensitivity
    ``c tau log(1/zeta)/K`` and eq. (10)'s budget ``e^{eps/2}`` with ``delta0, delta'`` from the
    ``(T + 1) zeta`` the proof allows (coupling ``T zeta``, the rest split evenly between ``T``
    subsampled Gaussians and ``delta'``). The needed sigma solves :func:`paper_chain_epsilon` ``= eps/2``.
    Two constants ``c``: the explicit one of :func:`alg2_coupling_sensitivity` at the paper's
    margins (scores ``>= 7K/10``, since ``4/5 - 2/20 = 7/10``), and ``c = 1``, the most lenient
    reading of ``<~``. The printed sigma is ``1000 tau sqrt(T) log(n d e^eps/delta)/(eps n_i)``.
    """
    rows = []
    ratio = users / phase_users
    for delta in deltas:
        zeta = delta / (10.0 * steps * math.exp(epsilon))
        d_step = zeta / (2.0 * steps * ratio)  # T * ratio * delta0 = zeta/2
        d_prime = zeta / 2.0
        printed = 1000.0 * tau * math.sqrt(steps) * math.log(n * d * math.exp(epsilon) / delta) / (epsilon * phase_users)
        explicit, _ = alg2_coupling_sensitivity(tau, users, 7.0 / 10.0, zeta)
        unit = tau * math.log(1.0 / zeta) / users

        def needed(sens: float, d_step: float = d_step, d_prime: float = d_prime) -> float:
            def gap(log_sigma: float) -> float:
                return paper_chain_epsilon(math.exp(log_sigma), sens, steps, ratio, d_step, d_prime) - epsilon / 2.0

            lo, hi = math.log(sens) - 5.0, math.log(sens) + 5.0
            while gap(lo) <= 0:
                lo -= 5.0
            while gap(hi) > 0:
                hi += 5.0
            return math.exp(optimize.brentq(gap, lo, hi, xtol=1e-12))

        rows.append(F6Row(delta, zeta, printed, needed(explicit), needed(unit), explicit * users / (tau * math.log(1 / zeta))))
    return tuple(rows)
