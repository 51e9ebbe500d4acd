"""Audit cases for Levy et al. 2021: each correct component and each broken variant, with its pair.

:func:`levy_audit_cases` lists, for the correct components (audited against their own budgets) and
for every variant of :mod:`dpaudit.userlevel.levy2021.faulty`, a neighbouring pair that exposes it and
the budget to audit against. The ``broken`` flag is documentation: the auditor only sees outputs.

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.auditor.cases import AuditCase
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

__all__ = ["levy_audit_cases"]


def _case(name: str, mechanism: Any, d0: Any, d1: Any, epsilon: float, delta: float, trials: int, broken: bool,
          bug: str | None = None, note: str = "") -> AuditCase:
    """An :class:`AuditCase` of this paper; ``epsilon``/``delta`` are the component's own budget."""
    return AuditCase(name, mechanism, d0, d1, epsilon, delta, trials, broken, bug, note, "Levy et al. 2021")


def _scalars(values: Any) -> NDArray[np.float64]:
    """A ``(n_users, 1)`` dataset of one scalar item per user."""
    return np.asarray(values, dtype=np.float64).reshape(-1, 1)


def _one_d_cases(trials: int) -> list[AuditCase]:
    """Algorithm 1 and PrivateRange: correct components and variants B1-B6, B12, B15, B17, B18."""
    out: list[AuditCase] = []
    # tau = 0.5, B = 4: bins of width 1 tile [-4, 4) with centres -3.5 .. 3.5. Seven users at 0.5
    # make bin [0, 1) the likely one; its safe interval is [-1, 2] (w = 3). The edge pair moves the
    # eighth user from a = -1 to b = 2: the clipped mean moves by the full w / n.
    edge0, edge1 = _scalars([-1.0] + [0.5] * 7), _scalars([2.0] + [0.5] * 7)
    far0, far1 = _scalars([0.5] * 8), _scalars([20.0] + [0.5] * 7)
    wm = WinsorizedMean1D(2.0, 0.5, 4.0)
    out.append(_case("Levy Alg 1 Laplace stage, fixed [a, b] (correct)", wm.laplace_stage(-1.0, 2.0),
                             edge0, edge1, 1.0, 0.0, trials, False, None, "shift w/n against Lap(2w/(n eps)): tight"))
    out.append(_case("Levy Alg 1 (correct)", wm, edge0, edge1, 2.0, 0.0, trials, False))
    out.append(_case("B1 Laplace scale from the paper width in safe mode",
                             LevyWrongWidthLaplace(2.0, 0.5, 4.0).laplace_stage(-1.0, 2.0),
                             edge0, edge1, 1.0, 0.0, trials, True, "B1"))
    out.append(_case("B2 Laplace stage given the full epsilon",
                             LevyFullBudgetStage(2.0, 0.5, 4.0, which="laplace").laplace_stage(-1.0, 2.0),
                             edge0, edge1, 1.0, 0.0, trials, True, "B2"))
    wide = 20.0  # B = 20 makes an outlier user 39 widths away
    out.append(_case("Levy Alg 1, outlier user (correct)", WinsorizedMean1D(2.0, 0.5, wide),
                             far0, far1, 2.0, 0.0, trials, False))
    out.append(_case("B4 interval widened to cover every user", LevyWidenOnMiss(2.0, 0.5, wide),
                             far0, far1, 2.0, 0.0, trials, True, "B4"))
    out.append(_case("B17 no clipping", LevyNoClip(2.0, 0.5, wide), far0, far1, 2.0, 0.0, trials, True,
                             "B17"))
    spread0, spread1 = _scalars([0.5] * 8), _scalars([2.0] + [0.5] * 7)
    out.append(_case("B5 tau from the data's spread", LevyDataDependentTau(2.0, 0.01, 4.0),
                             spread0, spread1, 2.0, 0.0, trials, True, "B5"))
    items0 = np.full((8, 4), 0.5)
    items1 = items0.copy()
    items0[0], items1[0] = -1.0, 2.0
    out.append(_case("Levy Alg 1, m = 4 items per user (correct)", wm, items0, items1, 2.0, 0.0, trials,
                             False))
    out.append(_case("B6 item-level calibration", LevyItemLevelMean(2.0, 0.5, 4.0), items0, items1, 2.0,
                             0.0, trials, True, "B6"))
    out.append(_case("Levy Alg 1 Laplace stage at eps = 0.5 (correct)",
                             WinsorizedMean1D(0.5, 0.5, 4.0).laplace_stage(-1.0, 2.0),
                             edge0, edge1, 0.25, 0.0, trials, False))
    out.append(_case("B15 Laplace rate passed as the scale",
                             LevyLaplaceRate(0.5, 0.5, 4.0).laplace_stage(-1.0, 2.0),
                             edge0, edge1, 0.25, 0.0, trials, True, "B15", "b = 1.5 > 1, so 1/b is less noise"))
    out.append(_case("B18 replacement calibration claimed for add/remove", LevyAddRemoveClaim(1.0, 0.5, 4.0),
                             _scalars([0.5]), _scalars([0.5, 0.5]), 1.0, 0.0, trials, True, "B18",
                             "n = 1 vs n = 2: the noise scale changes with n"))

    # PrivateRange with tau = 0.5, B = 1: two bins [-1, 0) and [0, 1]. Two users in one bin vs
    # one in each: the correct EM realises ln(0.5 (1 + e^{eps/2}) / ...) ~ 0.62 eps_r.
    two0, two1 = _scalars([0.5, 0.5]), _scalars([-0.5, 0.5])
    out.append(_case("Levy PrivateRange (correct)", PrivateRange(1.0, 0.5, 1.0), two0, two1, 1.0, 0.0,
                             trials, False))
    out.append(_case("Levy Alg 1 range stage (correct)", WinsorizedMean1D(2.0, 0.5, 1.0).range_stage(),
                             two0, two1, 1.0, 0.0, trials, False))
    out.append(_case("B2 PrivateRange given the full epsilon",
                             LevyFullBudgetStage(2.0, 0.5, 1.0, which="range").range_stage(),
                             two0, two1, 1.0, 0.0, trials, True, "B2"))
    out.append(_case("B3 exponential mechanism without the /2", LevyRangeNoHalf(1.0, 0.5, 1.0),
                             two0, two1, 1.0, 0.0, trials, True, "B3"))
    m3_0, m3_1 = np.full((2, 3), 0.5), np.full((2, 3), 0.5)
    m3_1[0] = -0.5
    out.append(_case("Levy PrivateRange, m = 3 items per user (correct)", PrivateRange(1.0, 0.5, 1.0),
                             m3_0, m3_1, 1.0, 0.0, trials, False))
    out.append(_case("B3 bin counts over items", LevyRangeItemCounts(1.0, 0.5, 1.0), m3_0, m3_1, 1.0, 0.0,
                             trials, True, "B3"))
    # 3000 users split evenly: exp(eps * 1500 / 2) overflows, the naive variant falls back to argmax
    big0 = _scalars([-0.5] * 1500 + [0.5] * 1500)
    big1 = _scalars([0.5] + [-0.5] * 1499 + [0.5] * 1500)
    out.append(_case("Levy PrivateRange, n = 3000 (correct)", PrivateRange(1.0, 0.5, 1.0), big0, big1, 1.0,
                             0.0, trials, False))
    out.append(_case("B4 argmax fallback on overflow", LevyRangeArgmaxFallback(1.0, 0.5, 1.0), big0, big1,
                             1.0, 0.0, trials, True, "B4"))
    out0, out1 = _scalars([0.5, 0.5]), _scalars([3.0, 0.5])
    out.append(_case("Levy PrivateRange, out-of-range user (correct)", PrivateRange(1.0, 0.5, 1.0),
                             out0, out1, 1.0, 0.0, trials, False))
    out.append(_case("B12 PrivateRange without the clamp", LevyRangeNoClamp(1.0, 0.5, 1.0), out0, out1,
                             1.0, 0.0, trials, True, "B12"))
    return out


def _high_d_cases(trials: int) -> list[AuditCase]:
    """Algorithm 2 and Corollary 1: coordinate stages (correct and B8) and end-to-end runs."""
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
    tight = whd.tight_guarantee(dim)
    out.append(_case("Levy Alg 2 (correct)", whd, lo, hi, tight.epsilon, tight.delta, trials, False, None,
                             "claim: min(d' eps', eps) at delta"))
    cor1 = UserMeanEstimator(4.0, 1e-5, 1.0, gamma=1e-3, tau_rule="tight")
    items0 = np.zeros((n, 4, dim))
    items1 = items0.copy()
    items1[0] = 1.0 / math.sqrt(dim)
    out.append(_case("Levy Cor 1 user-level mean (correct)", cor1, items0, items1, cor1.epsilon,
                             cor1.delta, trials, False))
    return out


def _xy_data(labels: Any, m_items: int = 1) -> NDArray[np.float64]:
    """Items ``(x, y) = (1, label)``: every user's gradient of the squared loss is ``theta - y``."""
    lab = np.asarray(labels, dtype=np.float64)
    return np.stack([np.ones((lab.size, m_items)), np.repeat(lab[:, None], m_items, axis=1)], axis=-1)


def _tau_for(tau_prime: float, n_users: int, gamma: float) -> float:
    """The ``tau`` whose tight per-coordinate radius (``d' = 1``) is ``tau_prime`` [paper_004 note, L7]."""
    return tau_prime / math.sqrt(2.0 * math.log(2.0 * n_users / gamma))


def _optimisation_cases(trials: int, include_slow: bool) -> list[AuditCase]:
    """Algorithms 3 and 4: gradient-query components, end-to-end runs, B10 and B11."""
    out: list[AuditCase] = []
    loss = SquaredLoss()
    gamma = 1e-3
    # d = 1 and x = 1: user u's gradient at theta is theta - y_u. The 1-D range is sqrt(1) G = 2;
    # tau' = 2/7 puts a bin centre at 0 (bins of width 4/7 from -2), so users with y = 0 choose the
    # interval [-6/7, 6/7] and the edge pair moves user 0's gradient from one end to the other.
    n = 8
    tau_prime = 2.0 / 7.0
    common = dict(epsilon=6.0, delta=0.1, radius=1.0, feature_bound=1.0, label_bound=1.0,
                  tau=_tau_for(tau_prime, n, gamma), gamma=gamma, tau_rule="tight")
    edge = 3.0 * tau_prime
    d0, d1 = _xy_data([-edge] + [0.0] * (n - 1)), _xy_data([edge] + [0.0] * (n - 1))
    wfo = WinsorizedFirstOrder(loss, steps=1, step_size=1e-6, aggregate="last", **common)  # type: ignore[arg-type]
    query = wfo.gradient_query([0.0], n, 1).coordinate_stage(0, (1.0,))
    lap = query.laplace_stage(-edge, edge)
    out.append(_case("Levy Alg 3 gradient query, coordinate Laplace stage (correct)", lap, d0, d1,
                             lap.claimed_guarantee().epsilon_at(0.0), 0.0, trials, False))
    pure = wfo.pure_epsilon_bound(1)
    out.append(_case("Levy Alg 3 (correct)", wfo, d0, d1, pure, 0.0, trials, False, None,
                             "claim: the pure bound T d' eps'' (basic composition)"))
    out.append(_case("B10 non-private starting point",
                             LevyNonPrivateStart(loss, steps=1, step_size=1e-6, aggregate="last", **common),  # type: ignore[arg-type]
                             d0, d1, pure, 0.0, trials, True, "B10"))
    two0, two1 = _xy_data([1.0, 1.0]), _xy_data([-1.0, 1.0])
    wfo16 = WinsorizedFirstOrder(loss, steps=16, step_size=1.0, aggregate="last", **common)  # type: ignore[arg-type]
    pure16 = wfo16.pure_epsilon_bound(1)
    out.append(_case("Levy Alg 3, 16 steps (correct)", wfo16, two0, two1, pure16, 0.0, trials, False))
    out.append(_case("B10 best iterate by non-private loss",
                             LevyBestIterate(loss, steps=16, step_size=1.0, **common),  # type: ignore[arg-type]
                             two0, two1, pure16, 0.0, trials, True, "B10"))
    # Phased ERM: a huge (valid) smoothness constant makes every round's step 1/(H + lambda_t) ~ 1e-5,
    # so the output adds up the rounds' private gradient means with equal weights.
    rounds = 7 if include_slow else 6
    n_erm = 2**rounds
    erm_kw = dict(epsilon=6.0, delta=0.1, radius=1.0, feature_bound=1.0, label_bound=1.0, smoothness=1e5,
                  rounds=rounds, steps=1, tau=_tau_for(tau_prime, n_erm, gamma), gamma=gamma, tau_rule="tight")
    erm = PhasedERM(loss, **erm_kw)  # type: ignore[arg-type]
    e0 = _xy_data([-1.0] + [0.0] * (n_erm - 1))
    e1 = _xy_data([1.0] + [0.0] * (n_erm - 1))
    tight = erm.tight_guarantee(n_erm, 1, 1).epsilon  # pure: max over rounds of T_t d' eps''_t
    stage = erm.round_stage(1, n_erm, 1, 1, [0.0])
    out.append(_case("Levy Alg 4 round 1 (correct)", stage, e0, e1, tight, 0.0, trials, False))
    out.append(_case("Levy Alg 4 (correct)", erm, e0, e1, tight, 0.0, trials, False, None,
                             "claim: max over rounds of the pure bound (parallel composition)"))
    if include_slow:
        out.append(_case("B11 rounds reuse every user", LevyReusedUsers(loss, **erm_kw),  # type: ignore[arg-type]
                                 e0, e1, tight, 0.0, trials, True, "B11", "slow: 7 rounds over 128 users (~20 s)"))
    return out


def levy_audit_cases(trials: int = 100_000, *, include_slow: bool = False) -> list[AuditCase]:
    """Correct components and broken variants of Levy et al. 2021, each with a pair that exposes it.

    Every case audits in a few seconds at ``trials = 10^5`` (``include_slow=True`` adds B11, whose
    detection needs 7 rounds over 128 users, about 20 s). Correct cases are audited against their
    own budget and must not be flagged; broken ones against the budget the paper gives the same
    component, and must be flagged. Constructing the broken mechanisms emits
    :class:`~dpaudit.errors.UnsoundMechanismWarning`.

    Examples
    --------
    >>> import warnings
    >>> from dpaudit.errors import UnsoundMechanismWarning
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", UnsoundMechanismWarning)
    ...     cases = levy_audit_cases()
    >>> sorted({c.bug for c in cases if c.broken})
    ['B1', 'B10', 'B12', 'B15', 'B17', 'B18', 'B2', 'B3', 'B4', 'B5', 'B6', 'B8']
    """
    return [*_one_d_cases(trials), *_high_d_cases(trials), *_optimisation_cases(trials, include_slow)]
