"""Audit cases for Levy et al. 2021: each correct component and each broken variant, with its pair.

:func:`levy2021_audit_cases` lists, for the correct components and for every variant of
:mod:`dpaudit.userlevel.levy2021.faulty`, a neighbouring pair that exposes it and the budget to audit
against. The ``broken`` flag is documentation: the auditor only sees outputs.

Which budget:

* a **correct** component is audited against the privacy loss it *spends on its pair*, computed
  exactly from the paper's formulas (:mod:`dpaudit.userlevel.levy2021.exact_laws`), not against its
  whole budget. Algorithm 1 spends about ``eps/2`` on an edge pair (its Laplace stage), so an audit
  against ``eps`` could not see a noise scale off by a factor 2; against the pair's own budget it
  does (``tests/userlevel/levy2021/test_levy_tight_audits.py`` halves the noise, or doubles the
  exponential mechanism's weights, and checks that every such audit flags it). The pairs are chosen
  so that this budget is close to the component's own (the Laplace stage's ``eps/2`` exactly; an
  end-to-end run realises its Laplace stage's share, with ``n`` large enough that PrivateRange picks
  the central bin);
* a **broken** variant is audited against the budget the paper gives the same component (the bug
  must break the paper's promise, not just differ from the correct code).

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.auditor.cases import AuditCase
from dpaudit.guarantees import Guarantee
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.userlevel.levy2021.exact_laws import (
    algorithm_1_law,
    algorithm_2_pair_epsilon,
    algorithm_3_step_privacy,
    categorical_epsilon,
    laplace_mixture_epsilon,
    rotated_coordinates,
)
from dpaudit.userlevel.levy2021.faulty import (
    LevyAddRemoveClaim,
    LevyBestIterate,
    LevyDataDependentTau,
    LevyFullBudgetStage,
    LevyItemLevelMean,
    LevyLaplaceRate,
    LevyNoClip,
    LevyNoLogCoordinateBudget,
    LevyNonPrivateStart,
    LevyOverflowingMean,
    LevyRangeArgmaxFallback,
    LevyRangeItemCounts,
    LevyRangeNoClamp,
    LevyRangeNoHalf,
    LevyReusedUsers,
    LevyWidenOnMiss,
    LevyWrongWidthLaplace,
)
from dpaudit.userlevel.levy2021.first_order import WinsorizedFirstOrder
from dpaudit.userlevel.levy2021.mean_estimation import UserMeanEstimator
from dpaudit.userlevel.levy2021.phased_erm import PhasedERM
from dpaudit.userlevel.levy2021.private_range import PrivateRange
from dpaudit.userlevel.levy2021.winsorized_1d import WinsorizedMean1D
from dpaudit.userlevel.levy2021.winsorized_highd import WinsorizedMeanHighD
from dpaudit.userlevel.losses import SquaredLoss
from dpaudit.userlevel.observed import ObservedRelease

__all__ = ["PhasedERMTranscript", "levy2021_audit_cases"]


def _case(name: str, mechanism: Any, d0: Any, d1: Any, epsilon: float, delta: float, trials: int, broken: bool,
          bug: str | None = None, note: str = "") -> AuditCase:
    """An :class:`AuditCase` of this paper; ``epsilon``/``delta`` are the budget audited against."""
    return AuditCase(name, mechanism, d0, d1, epsilon, delta, trials, broken, bug, note, "Levy et al. 2021")


def _scalars(values: Any) -> NDArray[np.float64]:
    """A ``(n_users, 1)`` dataset of one scalar item per user."""
    return np.asarray(values, dtype=np.float64).reshape(-1, 1)


def _means(items: Any, bound: float) -> NDArray[np.float64]:
    """Per-user means of the items clamped to ``[-B, B]`` (the values Algorithm 1 sees)."""
    x = np.clip(np.asarray(items, dtype=np.float64), -bound, bound)
    return x.reshape(x.shape[0], x.shape[1], -1).mean(axis=1)


def _alg1_budget(d0: Any, d1: Any, epsilon: float, tau: float, bound: float, mode: str = "safe") -> float:
    """Exact pure epsilon of Algorithm 1 on the pair (users' means of clamped items)."""
    v0, v1 = _means(d0, bound)[:, 0], _means(d1, bound)[:, 0]
    return laplace_mixture_epsilon(algorithm_1_law(v0, epsilon, tau, bound, mode),
                                   algorithm_1_law(v1, epsilon, tau, bound, mode))


def _range_budget(d0: Any, d1: Any, epsilon_range: float, tau: float, bound: float) -> float:
    """Exact pure epsilon of PrivateRange at ``epsilon_range`` on the pair (its output is the bin)."""
    v0, v1 = _means(d0, bound)[:, 0], _means(d1, bound)[:, 0]
    return categorical_epsilon(algorithm_1_law(v0, 2.0 * epsilon_range, tau, bound).log_weights,
                               algorithm_1_law(v1, 2.0 * epsilon_range, tau, bound).log_weights)


def _one_d_cases(trials: int) -> list[AuditCase]:
    """Algorithm 1 and PrivateRange: correct components and variants B1-B6, B12, B15, B17, B18."""
    out: list[AuditCase] = []
    # tau = 0.5, B = 4: bins of width 1 tile [-4, 4) with centres -3.5 .. 3.5. Seven users at 0.5
    # make bin [0, 1) the likely one; its safe interval is [-1, 2] (w = 3), its paper interval
    # [-0.5, 1.5] (w = 2). The edge pair moves the eighth user from one end to the other: the clipped
    # mean moves by the full w / n, which the Laplace stage's Lap(2w/(n eps)) turns into eps/2.
    edge0, edge1 = _scalars([-1.0] + [0.5] * 7), _scalars([2.0] + [0.5] * 7)
    pedge0, pedge1 = _scalars([-0.5] + [0.5] * 7), _scalars([1.5] + [0.5] * 7)
    far0, far1 = _scalars([0.5] * 8), _scalars([20.0] + [0.5] * 7)
    wm = WinsorizedMean1D(2.0, 0.5, 4.0)
    wm_paper = WinsorizedMean1D(2.0, 0.5, 4.0, mode="paper")
    out.append(_case("Levy Alg 1 Laplace stage, fixed [a, b] (correct)", wm.laplace_stage(-1.0, 2.0),
                     edge0, edge1, 1.0, 0.0, trials, False, None, "shift w/n against Lap(2w/(n eps)): eps/2 exactly"))
    out.append(_case("Levy Alg 1 Laplace stage, paper mode (correct)", wm_paper.laplace_stage(-0.5, 1.5),
                     pedge0, pedge1, 1.0, 0.0, trials, False, None, "w = 4 tau, Lap(8 tau/(n eps)): eps/2 exactly"))
    out.append(_case("Levy Alg 1 (correct)", wm, edge0, edge1, _alg1_budget(edge0, edge1, 2.0, 0.5, 4.0),
                     0.0, trials, False, None, "claim: the exact epsilon of the output law on the pair (about eps/2)"))
    out.append(_case("Levy Alg 1, paper mode (correct)", wm_paper, pedge0, pedge1,
                     _alg1_budget(pedge0, pedge1, 2.0, 0.5, 4.0, "paper"), 0.0, trials, False, None,
                     "claim: the exact epsilon on the pair"))
    out.append(_case("B1 Laplace scale from the paper width in safe mode",
                     LevyWrongWidthLaplace(2.0, 0.5, 4.0).laplace_stage(-1.0, 2.0),
                     edge0, edge1, 1.0, 0.0, trials, True, "B1"))
    out.append(_case("B2 Laplace stage given the full epsilon",
                     LevyFullBudgetStage(2.0, 0.5, 4.0, which="laplace").laplace_stage(-1.0, 2.0),
                     edge0, edge1, 1.0, 0.0, trials, True, "B2"))
    wide = 20.0  # B = 20 makes an outlier user 39 widths away
    out.append(_case("Levy Alg 1, outlier user (correct)", WinsorizedMean1D(2.0, 0.5, wide), far0, far1,
                     _alg1_budget(far0, far1, 2.0, 0.5, wide), 0.0, trials, False, None,
                     "claim: the exact epsilon on the pair"))
    out.append(_case("B4 interval widened to cover every user", LevyWidenOnMiss(2.0, 0.5, wide),
                     far0, far1, 2.0, 0.0, trials, True, "B4"))
    out.append(_case("B17 no clipping", LevyNoClip(2.0, 0.5, wide), far0, far1, 2.0, 0.0, trials, True, "B17"))
    spread0, spread1 = _scalars([0.5] * 8), _scalars([2.0] + [0.5] * 7)
    out.append(_case("B5 tau from the data's spread", LevyDataDependentTau(2.0, 0.01, 4.0),
                     spread0, spread1, 2.0, 0.0, trials, True, "B5"))
    items0 = np.full((8, 4), 0.5)
    items1 = items0.copy()
    items0[0], items1[0] = -1.0, 2.0
    out.append(_case("Levy Alg 1, m = 4 items per user (correct)", wm, items0, items1,
                     _alg1_budget(items0, items1, 2.0, 0.5, 4.0), 0.0, trials, False))
    out.append(_case("B6 item-level calibration", LevyItemLevelMean(2.0, 0.5, 4.0), items0, items1, 2.0,
                     0.0, trials, True, "B6"))
    out.append(_case("Levy Alg 1 Laplace stage at eps = 0.5 (correct)",
                     WinsorizedMean1D(0.5, 0.5, 4.0).laplace_stage(-1.0, 2.0),
                     edge0, edge1, 0.25, 0.0, trials, False))
    out.append(_case("B15 Laplace rate passed as the scale", LevyLaplaceRate(0.5, 0.5, 4.0).laplace_stage(-1.0, 2.0),
                     edge0, edge1, 0.25, 0.0, trials, True, "B15", "b = 1.5 > 1, so 1/b is less noise"))
    out.append(_case("B18 replacement calibration claimed for add/remove", LevyAddRemoveClaim(1.0, 0.5, 4.0),
                     _scalars([0.5]), _scalars([0.5, 0.5]), 1.0, 0.0, trials, True, "B18",
                     "n = 1 vs n = 2: the noise scale changes with n"))
    out += _range_cases(trials)
    return out


def _range_cases(trials: int) -> list[AuditCase]:
    """PrivateRange and Algorithm 1's range stage: correct components and variants B2-B4, B12."""
    out: list[AuditCase] = []
    # tau = 0.5, B = 1: two bins [-1, 0) and [0, 1]. Two users in one bin vs one in each: the
    # exponential mechanism realises about 0.62 eps_r on this pair (the exact value is the claim).
    two0, two1 = _scalars([0.5, 0.5]), _scalars([-0.5, 0.5])
    out.append(_case("Levy PrivateRange (correct)", PrivateRange(1.0, 0.5, 1.0), two0, two1,
                     _range_budget(two0, two1, 1.0, 0.5, 1.0), 0.0, trials, False, None,
                     "claim: max_k |log P(k) - log P'(k)| on the pair"))
    out.append(_case("Levy Alg 1 range stage (correct)", WinsorizedMean1D(2.0, 0.5, 1.0).range_stage(),
                     two0, two1, _range_budget(two0, two1, 1.0, 0.5, 1.0), 0.0, trials, False))
    out.append(_case("B2 PrivateRange given the full epsilon",
                     LevyFullBudgetStage(2.0, 0.5, 1.0, which="range").range_stage(),
                     two0, two1, 1.0, 0.0, trials, True, "B2"))
    out.append(_case("B3 exponential mechanism without the /2", LevyRangeNoHalf(1.0, 0.5, 1.0),
                     two0, two1, 1.0, 0.0, trials, True, "B3"))
    m3_0, m3_1 = np.full((2, 3), 0.5), np.full((2, 3), 0.5)
    m3_1[0] = -0.5
    out.append(_case("Levy PrivateRange, m = 3 items per user (correct)", PrivateRange(1.0, 0.5, 1.0),
                     m3_0, m3_1, _range_budget(m3_0, m3_1, 1.0, 0.5, 1.0), 0.0, trials, False))
    out.append(_case("B3 bin counts over items", LevyRangeItemCounts(1.0, 0.5, 1.0), m3_0, m3_1, 1.0, 0.0,
                     trials, True, "B3"))
    # 3000 users split evenly: exp(eps * 1500 / 2) overflows, the naive variant falls back to argmax
    big0 = _scalars([-0.5] * 1500 + [0.5] * 1500)
    big1 = _scalars([0.5] + [-0.5] * 1499 + [0.5] * 1500)
    out.append(_case("Levy PrivateRange, n = 3000 (correct)", PrivateRange(1.0, 0.5, 1.0), big0, big1,
                     _range_budget(big0, big1, 1.0, 0.5, 1.0), 0.0, trials, False))
    out.append(_case("B4 argmax fallback on overflow", LevyRangeArgmaxFallback(1.0, 0.5, 1.0), big0, big1,
                     1.0, 0.0, trials, True, "B4"))
    # a user at 3 > B = 1 is clamped into the top bin, where the other user already is: the two
    # datasets have the same bin counts, so the correct mechanism spends exactly 0 on this pair
    out0, out1 = _scalars([0.5, 0.5]), _scalars([3.0, 0.5])
    out.append(_case("Levy PrivateRange, out-of-range user (correct)", PrivateRange(1.0, 0.5, 1.0),
                     out0, out1, _range_budget(out0, out1, 1.0, 0.5, 1.0), 0.0, trials, False, None,
                     "claim 0: after the clamp both datasets have the same counts"))
    out.append(_case("B12 PrivateRange without the clamp", LevyRangeNoClamp(1.0, 0.5, 1.0), out0, out1,
                     1.0, 0.0, trials, True, "B12"))
    return out


def _edge_vectors(epsilon: float, delta: float, tau: float, bound: float, gamma: float, n_users: int,
                  signs: tuple[float, ...]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """User vectors whose rotated coordinates sit at the two ends of every coordinate's central interval.

    The other users are at the origin (rotated coordinates 0), so every coordinate's likely bin is
    the one holding 0; user 0 moves from the low end to the high end of its interval in every
    rotated coordinate at once, which moves every clipped mean by the full ``w / n``.
    """
    dim = len(signs)
    whd = WinsorizedMeanHighD(epsilon, delta, tau, bound, gamma, tau_rule="tight")
    one_d = whd.coordinate_mechanism(n_users, dim)
    bins = one_d.private_range()
    centre = float(bins.bin_centers(bins.bin_index(np.zeros(1)))[0])
    half = 0.5 * one_d.width
    u_transpose = rotated_coordinates(np.eye(dim), signs)  # row i is U e_i: this is U^T = U^{-1} (U is orthogonal)
    low = u_transpose @ ((centre - half) * np.ones(dim))  # U^{-1} y for y at the low end of every coordinate
    high = u_transpose @ ((centre + half) * np.ones(dim))
    return low, high


def _high_d_cases(trials: int) -> list[AuditCase]:
    """Algorithm 2 and Corollary 1: coordinate stages (correct and B8), end-to-end runs, the overflow pair."""
    out: list[AuditCase] = []
    n, dim = 8, 2
    signs = (1.0, 1.0)
    params = dict(epsilon=4.0, delta=1e-5, tau=0.05, bound=1.0, gamma=1e-3, tau_rule="tight")
    whd = WinsorizedMeanHighD(**params)  # type: ignore[arg-type]
    stage = whd.coordinate_stage(n, dim, 0, signs)
    half = 0.5 * stage.inner.width  # type: ignore[attr-defined]
    # users at the origin rotate to 0; user 0 at (t, t)/sqrt(2) rotates to t in coordinate 0
    base = np.zeros((n, 1, dim))
    lo, hi = base.copy(), base.copy()
    lo[0, 0] = -half / math.sqrt(2.0)
    hi[0, 0] = half / math.sqrt(2.0)
    lap_claim = 0.5 * stage.claim_epsilon
    out.append(_case("Levy Alg 2 coordinate Laplace stage (correct)", stage.laplace_stage(-half, half), lo, hi,
                     lap_claim, 0.0, trials, False))
    bad = LevyNoLogCoordinateBudget(**params)  # type: ignore[arg-type]
    out.append(_case("B8 per-coordinate budget without the log factor",
                     bad.coordinate_stage(n, dim, 0, signs).laplace_stage(-half, half), lo, hi,
                     lap_claim, 0.0, trials, True, "B8"))
    # end to end, with the rotation fixed (DP holds conditionally on it [LSA+21, Thm 2 proof]): n = 200
    # users make PrivateRange pick the central bin of every coordinate, and the pair moves both
    # rotated coordinates across their intervals, so the run spends eps'/2 on each
    eps, delta, tau, gamma, big_n = 8.0, 1e-3, 0.05, 1e-3, 200
    low, high = _edge_vectors(eps, delta, tau, 1.0, gamma, big_n, signs)
    v0, v1 = np.zeros((big_n, 1, dim)), np.zeros((big_n, 1, dim))
    v0[0, 0], v1[0, 0] = low, high
    budget = algorithm_2_pair_epsilon(v0[:, 0], v1[:, 0], epsilon=eps, delta=delta, tau=tau, bound=1.0, gamma=gamma,
                                      signs=signs)
    fixed = WinsorizedMeanHighD(eps, delta, tau, 1.0, gamma, tau_rule="tight", signs=signs)
    out.append(_case("Levy Alg 2, fixed signs (correct)", fixed, v0, v1, budget, 0.0, trials, False, None,
                     "claim: the exact epsilon on the pair, sum over the rotated coordinates"))
    cor1 = UserMeanEstimator(eps, delta, 1.0, gamma=gamma, tau=tau, tau_rule="tight", signs=signs)
    items0, items1 = np.repeat(v0, 4, axis=1), np.repeat(v1, 4, axis=1)  # m = 4 items, all equal
    out.append(_case("Levy Cor 1 user-level mean, fixed signs (correct)", cor1, items0, items1, budget, 0.0,
                     trials, False, None, "claim: the exact epsilon on the pair (the projection only post-processes)"))
    out += _overflow_cases(trials, eps, delta, tau, gamma, big_n, signs)
    return out


def _overflow_cases(trials: int, eps: float, delta: float, tau: float, gamma: float, n_users: int,
                    signs: tuple[float, ...]) -> list[AuditCase]:
    """A user whose items are all 1e308 (finite), against the same user at ``-B (1, 1) / sqrt(2)``.

    Corollary 1's support is the ball ``B_2(0, B)``: the correct estimator projects every item onto
    it first, so the user at 1e308 counts as ``B (1, 1) / sqrt(2)``, the release is finite on both
    sides, and the pair moves rotated coordinate 0 across its whole interval (the others users are at
    the origin). Averaging first overflows (the mean is inf, the rotation ``inf - inf = NaN``): the
    observed release (:class:`~dpaudit.userlevel.observed.ObservedRelease`) is NaN on one side only.
    """
    dim = len(signs)
    corner = np.full(dim, 1.0 / math.sqrt(dim))  # B (1, 1) / sqrt(2) with B = 1
    d0 = np.zeros((n_users, 2, dim))
    d1 = d0.copy()
    d0[0] = -corner
    d1[0] = 1e308
    x0, x1 = np.zeros((n_users, dim)), np.zeros((n_users, dim))
    x0[0], x1[0] = -corner, corner  # the users' means after the projection onto B_2(0, 1)
    budget = algorithm_2_pair_epsilon(x0, x1, epsilon=eps, delta=delta, tau=tau, bound=1.0, gamma=gamma, signs=signs)
    correct = UserMeanEstimator(eps, delta, 1.0, gamma=gamma, tau=tau, tau_rule="tight", signs=signs)
    old = LevyOverflowingMean(eps, delta, 1.0, gamma=gamma, tau=tau, tau_rule="tight", signs=signs)
    return [
        _case("Levy Cor 1, a user at 1e308 (correct)", ObservedRelease(correct, dim), d0, d1, budget, 0.0, trials, False,
              None, "items are projected onto B_2(0, B) before the mean: finite on both sides; claim: the exact "
              "epsilon on the pair"),
        _case("overflow: user means taken before the domain map", ObservedRelease(old, dim),
              d0, d1, budget, 0.0, trials, True, "overflow",
              "the mean of 1e308 items is inf and the rotation NaN: the release is NaN on one side only"),
    ]


def _xy_data(labels: Any, m_items: int = 1) -> NDArray[np.float64]:
    """Items ``(x, y) = (1, label)``: every user's gradient of the squared loss is ``theta - y``."""
    lab = np.asarray(labels, dtype=np.float64)
    return np.stack([np.ones((lab.size, m_items)), np.repeat(lab[:, None], m_items, axis=1)], axis=-1)


def _tau_for(tau_prime: float, n_users: int, gamma: float) -> float:
    """The ``tau`` whose tight per-coordinate radius (``d' = 1``) is ``tau_prime`` [``docs/papers/levy2021.md``, L7]."""
    return tau_prime / math.sqrt(2.0 * math.log(2.0 * n_users / gamma))


def _query_budget(d0: Any, d1: Any, epsilon: float, delta: float, steps: int, tau: float, gamma: float,
                  n_users: int) -> float:
    """Exact epsilon of one gradient query at ``theta = 0`` (``d = 1``, random sign) on the first ``n_users`` users.

    The squared loss's gradient at 0 of an item ``(1, y)`` is ``-y``; the range of Algorithm 2 is
    ``G = (R x + y) x = 2`` [LSA+21, Alg 3 line 6].
    """
    e1, d1_ = algorithm_3_step_privacy(epsilon, delta, steps)
    g0 = -np.asarray(d0)[:n_users, :, 1].mean(axis=1)[:, None]
    g1 = -np.asarray(d1)[:n_users, :, 1].mean(axis=1)[:, None]
    return algorithm_2_pair_epsilon(g0, g1, epsilon=e1, delta=d1_, tau=tau, bound=2.0, gamma=gamma)


@dataclass(frozen=True)
class PhasedERMTranscript(MechanismBase):
    """Every round's output ``theta_hat_t`` (``t = 1`` to ``T``) of a Phased ERM run, flattened to ``(size, T d)``.

    Algorithm 4's privacy proof covers the transcript (parallel composition over disjoint rounds),
    and the final output is a post-processing of it [LSA+21, Thm 4]. Auditing the transcript sees
    round 1's spend directly, where the final output blurs it with the later rounds' noise.
    """

    erm: PhasedERM

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` transcripts of the rounds' outputs, flattened to ``(size, T d)``."""
        size = check_size("PhasedERMTranscript.sample", size)
        return self.erm.sample_rounds(data, size, rng=rng).reshape(size, -1)

    def claimed_guarantee(self) -> Guarantee:
        """The claim of the Phased ERM run, which covers its transcript [LSA+21, Thm 4]."""
        return self.erm.claimed_guarantee()


def _optimisation_cases(trials: int) -> list[AuditCase]:
    """Algorithms 3 and 4: gradient-query components, end-to-end runs, B10 and B11."""
    out: list[AuditCase] = []
    loss = SquaredLoss()
    gamma = 1e-3
    # d = 1 and x = 1: user u's gradient at theta is theta - y_u. The 1-D range is sqrt(1) G = 2;
    # tau' = 2/7 puts a bin centre at 0 (bins of width 4/7 from -2), so users with y = 0 choose the
    # interval [-6/7, 6/7] and the edge pair moves user 0's gradient from one end to the other.
    # n = 256 users make that bin the likely one (eps'' is small).
    n = 256
    tau_prime = 2.0 / 7.0
    tau = _tau_for(tau_prime, n, gamma)
    common = dict(epsilon=6.0, delta=0.1, radius=1.0, feature_bound=1.0, label_bound=1.0, tau=tau, gamma=gamma,
                  tau_rule="tight")
    edge = 3.0 * tau_prime
    d0, d1 = _xy_data([-edge] + [0.0] * (n - 1)), _xy_data([edge] + [0.0] * (n - 1))
    wfo = WinsorizedFirstOrder(loss, steps=1, step_size=1e-6, aggregate="last", **common)  # type: ignore[arg-type]
    query = wfo.gradient_query([0.0], n, 1).coordinate_stage(0, (1.0,))
    lap = query.laplace_stage(-edge, edge)
    out.append(_case("Levy Alg 3 gradient query, coordinate Laplace stage (correct)", lap, d0, d1,
                     lap.claimed_guarantee().epsilon_at(0.0), 0.0, trials, False))
    pure = wfo.pure_epsilon_bound(1)
    out.append(_case("Levy Alg 3 (correct)", wfo, d0, d1, _query_budget(d0, d1, 6.0, 0.1, 1, tau, gamma, n),
                     0.0, trials, False, None, "claim: the exact epsilon of the one query on the pair"))
    out.append(_case("B10 non-private starting point",
                     LevyNonPrivateStart(loss, steps=1, step_size=1e-6, aggregate="last", **common),  # type: ignore[arg-type]
                     d0, d1, pure, 0.0, max(100, trials // 5), True, "B10",
                     "the start moves with user 0 and the noise (eta = 1e-6) barely blurs it: a fifth of the trials suffice"))
    # 16 adaptive steps: no closed-form law, so the claim is the composed pure bound T d' eps''
    two0, two1 = _xy_data([1.0, 1.0]), _xy_data([-1.0, 1.0])
    wfo16 = WinsorizedFirstOrder(loss, steps=16, step_size=1.0, aggregate="last", **common)  # type: ignore[arg-type]
    pure16 = wfo16.pure_epsilon_bound(1)
    out.append(_case("Levy Alg 3, 16 steps (correct)", wfo16, two0, two1, pure16, 0.0, trials, False, None,
                     "claim: the composed pure bound (adaptive steps have no exact law here)"))
    out.append(_case("B10 best iterate by non-private loss",
                     LevyBestIterate(loss, steps=16, step_size=1.0, **common),  # type: ignore[arg-type]
                     two0, two1, pure16, 0.0, trials, True, "B10"))
    out += _phased_erm_cases(trials, loss, gamma, tau_prime)
    return out


def _phased_erm_cases(trials: int, loss: SquaredLoss, gamma: float, tau_prime: float) -> list[AuditCase]:
    """Algorithm 4: round 1, the transcript (correct) and B11 (every round reuses every user)."""
    # A huge (valid) smoothness constant makes every round's step 1/(H + lambda_t) ~ 1e-5, so each round
    # releases its centre minus a tiny multiple of one private gradient mean. Seven rounds over 128 users;
    # round 1 (64 users) has tau' = 2/7 and its edge pair. The correct transcript spends round 1's budget
    # on it; B11 runs all seven rounds on every user and spends about seven times that.
    rounds, n1 = 7, 64
    n_erm = 2 * n1
    erm_kw = dict(epsilon=6.0, delta=0.1, radius=1.0, feature_bound=1.0, label_bound=1.0, smoothness=1e5,
                  rounds=rounds, steps=1, tau=_tau_for(tau_prime, n1, gamma), gamma=gamma, tau_rule="tight")
    erm = PhasedERM(loss, **erm_kw)  # type: ignore[arg-type]
    edge = 3.0 * tau_prime
    e0 = _xy_data([-edge] + [0.0] * (n_erm - 1))
    e1 = _xy_data([edge] + [0.0] * (n_erm - 1))
    budget = _query_budget(e0, e1, 6.0, 0.1, 1, erm_kw["tau"], gamma, n1)  # type: ignore[arg-type]
    tight = erm.tight_guarantee(n_erm, 1, 1).epsilon  # pure: max over rounds of T_t d' eps''_t
    return [
        _case("Levy Alg 4 round 1 (correct)", erm.round_stage(1, n_erm, 1, 1, [0.0]), e0, e1, budget, 0.0, trials,
              False, None, "claim: the exact epsilon of round 1's query on the pair"),
        _case("Levy Alg 4 transcript (correct)", PhasedERMTranscript(erm), e0, e1, budget, 0.0, trials, False, None,
              "claim: round 1's exact epsilon (later rounds never see user 0)"),
        _case("B11 rounds reuse every user", PhasedERMTranscript(LevyReusedUsers(loss, **erm_kw)),  # type: ignore[arg-type]
              e0, e1, tight, 0.0, trials, True, "B11",
              "claim: max over rounds of the pure bound (parallel composition), which B11 breaks"),
    ]


def levy2021_audit_cases(trials: int = 100_000) -> list[AuditCase]:
    """Correct components and broken variants of Levy et al. 2021, each with a pair that exposes it.

    Every case audits in a few seconds at ``trials = 10^5``. Correct cases are audited against the
    exact budget they spend on their pair and must not be flagged; broken ones against the budget
    the paper gives the same component, and must be flagged (see the module docstring).
    Constructing the broken mechanisms emits :class:`~dpaudit.errors.UnsoundMechanismWarning`.

    Examples
    --------
    >>> import warnings
    >>> from dpaudit.errors import UnsoundMechanismWarning
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", UnsoundMechanismWarning)
    ...     cases = levy2021_audit_cases()
    >>> sorted({c.bug for c in cases if c.broken})
    ['B1', 'B10', 'B11', 'B12', 'B15', 'B17', 'B18', 'B2', 'B3', 'B4', 'B5', 'B6', 'B8', 'overflow']
    """
    return [*_one_d_cases(trials), *_high_d_cases(trials), *_optimisation_cases(trials)]
