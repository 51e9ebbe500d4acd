"""Deliberately broken variants of the Levy et al. 2021 algorithms, for power tests and demos.

Each class is one bug from the paper_004 note (section 8, table B1-B20), built as the correct
mechanism with *one* change, and an :class:`~dpaudit.mechanisms.base.UnsafeMechanism` (construction
warns :class:`~dpaudit.errors.UnsoundMechanismWarning`). Claims stay the paper's: the bug is in the
sampler, so an auditor that sees only outputs must find the leak. :func:`levy_audit_cases` lists,
for the correct components and for every variant, a neighbouring pair that exposes it and the
budget to audit against.

Built (the bug number, then what changes):

* B1  :class:`LevyWrongWidthLaplace` - safe-mode clipping (width ``6 tau``) with the paper-mode
  noise ``8 tau / (n eps)``: the Laplace stage spends ``0.75 eps`` of its ``eps/2``.
* B2  :class:`LevyFullBudgetStage` - the Laplace stage (or PrivateRange) gets ``eps``, not ``eps/2``.
* B3  :class:`LevyRangeNoHalf` - exponential-mechanism weights ``exp(eps cnt)`` (no ``/2``);
  :class:`LevyRangeItemCounts` - bin counts over a user's ``m`` items (sensitivity ``m``).
* B4  :class:`LevyRangeArgmaxFallback` - naive ``exp`` weights; on overflow, the argmax bin;
  :class:`LevyWidenOnMiss` - the interval is widened to cover every point when some fall outside.
* B5  :class:`LevyDataDependentTau` - ``tau`` from the empirical spread of the users' values.
* B6  :class:`LevyItemLevelMean` - item-level: range and clipped mean over all ``n m`` items, noise
  for ``n m`` contributors (one user moves ``m`` of them).
* B8  :class:`LevyNoLogCoordinateBudget` - Algorithm 2 with ``eps' = eps / sqrt(d')`` (no
  ``sqrt(8 log(1/delta))``).
* B10 :class:`LevyNonPrivateStart` - Algorithm 3 started at the non-private ERM solution
  (``o_0`` depends on the data); :class:`LevyBestIterate` - ``Aggregate`` picks the iterate with
  the lowest non-private empirical loss.
* B11 :class:`LevyReusedUsers` - Phased ERM whose every round uses all ``n`` users at the full
  ``(eps, delta)``.
* B12 :class:`LevyRangeNoClamp` - PrivateRange without the clamp to ``[-B, B]``: an out-of-range
  user creates a bin of its own.
* B15 :class:`LevyLaplaceRate` - ``Lap`` drawn with the rate ``1/b`` passed as the scale.
* B17 :class:`LevyNoClip` - noise calibrated to ``tau`` but no clipping.
* B18 :class:`LevyAddRemoveClaim` - calibrated for replacement (``n`` public) but claimed under
  user add/remove, where ``n`` changes and with it the noise scale.

Not built as variants, and why:

* B7 (weighting users by ``m_u``): the data model ``(n_users, m_items, ...)`` has equal ``m``, where
  ``m_u / sum_v m_v = 1/n`` and the bug vanishes; "several vectors per user" is B6.
* B9 (claims outside the valid region): a claim, not a sampler; the constructors reject it
  exactly (:func:`~dpaudit.userlevel.levy_common.check_alg2_region`), and an empirical auditor could
  not see it (the violating epsilons are > 20, beyond what 10^5 trials can certify).
* B13 (data-dependent rotation or a non-orthonormal ``U``): the output law given the signs does
  not depend on them for symmetric Laplace noise in ``d = 2``, and for larger ``d`` the difference
  is in the shape of a multivariate law, not in a threshold event; a missing ``d^{-1/2}`` is a utility
  bug only (the 1-D stage still clamps and clips). Covered by the unit tests of the rotation.
* B8 with ``d`` instead of ``d'``: a factor ``sqrt(d'/d) <= sqrt(2)`` on ``eps'``, which is at most
  ``~0.35`` inside Theorem 2's region; no audit with 10^5 trials separates it.
* B14, B16, B19, B20: utility or advisory (no privacy leak an output-only audit can see). B14 and
  B20 are covered by unit tests (the rotation's concentration without ``D``; paper-mode clipping).

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from dpaudit.accounting.calibrate import laplace_scale, round_up
from dpaudit.auditor.cases import AuditCase
from dpaudit.guarantees import PureDP
from dpaudit.mechanisms.base import UnsafeMechanism
from dpaudit.neighbors.relations import UserAddRemove
from dpaudit.userlevel.levy import PhasedERM, PhaseRound, WinsorizedFirstOrder, user_mean_gradients
from dpaudit.userlevel.levy_common import round_down
from dpaudit.userlevel.losses import SquaredLoss
from dpaudit.userlevel.private_range import PrivateRange
from dpaudit.userlevel.projections import project_l2_ball
from dpaudit.userlevel.winsorized import UserMeanEstimator, WinsorizedMean1D, WinsorizedMeanHighD

__all__ = [
    "LevyAddRemoveClaim",
    "LevyBestIterate",
    "LevyDataDependentTau",
    "LevyFullBudgetStage",
    "LevyItemLevelMean",
    "LevyLaplaceRate",
    "LevyNoClip",
    "LevyNoLogCoordinateBudget",
    "LevyNonPrivateStart",
    "LevyRangeArgmaxFallback",
    "LevyRangeItemCounts",
    "LevyRangeNoClamp",
    "LevyRangeNoHalf",
    "LevyReusedUsers",
    "LevyWidenOnMiss",
    "LevyWrongWidthLaplace",
    "levy_audit_cases",
]


# ==============================================================================================
# PrivateRange variants (B3, B4, B12)
# ==============================================================================================


@dataclass(frozen=True)
class LevyRangeNoHalf(UnsafeMechanism, PrivateRange):
    """B3: exponential-mechanism weights ``exp(eps cnt)`` instead of ``exp(eps cnt / 2)``."""

    flaw = "B3: PrivateRange weights exp(eps * count), without the /2 of the exponential mechanism (2x leak)"

    def __post_init__(self) -> None:
        PrivateRange.__post_init__(self)
        UnsafeMechanism.__post_init__(self)

    def log_weights(self, counts: NDArray[np.int64]) -> NDArray[np.float64]:
        return np.multiply(self.epsilon, counts, dtype=np.float64)  # BUG: should be eps * cnt / 2


@dataclass(frozen=True)
class LevyRangeItemCounts(UnsafeMechanism, PrivateRange):
    """B3: bin counts over every item, so one user moves up to ``m`` counts (sensitivity ``m``, not 1)."""

    flaw = "B3: PrivateRange counts all n*m items, so one user changes the counts by m while sensitivity 1 is assumed"

    def __post_init__(self) -> None:
        PrivateRange.__post_init__(self)
        UnsafeMechanism.__post_init__(self)

    def _user_values(self, data: Any) -> NDArray[np.float64]:
        x = np.asarray(data, dtype=np.float64)
        PrivateRange._user_values(self, data)  # same validation as the correct mechanism
        return x.reshape(-1)  # BUG: items, not one value per user


@dataclass(frozen=True)
class LevyRangeArgmaxFallback(UnsafeMechanism, PrivateRange):
    """B4: weights ``exp(eps cnt / 2)`` computed naively; when they overflow, return the argmax bin."""

    flaw = "B4: PrivateRange falls back to the (first) argmax bin when exp(eps * count / 2) overflows"

    def __post_init__(self) -> None:
        PrivateRange.__post_init__(self)
        UnsafeMechanism.__post_init__(self)

    def select_bins(self, values: Any, *, rng: np.random.Generator, rows: int | None = None) -> NDArray[np.int64]:
        v = np.asarray(values, dtype=np.float64)
        n_rows = v.shape[0] if rows is None else rows
        bins = self.bin_index(v).astype(np.int64)
        counts = np.zeros((v.shape[0], self.n_bins))
        np.add.at(counts, (np.arange(v.shape[0])[:, None], bins), 1.0)
        with np.errstate(over="ignore", invalid="ignore"):
            w = np.exp(0.5 * self.epsilon * counts)  # BUG: no log-space, overflows for eps * n / 2 > 709
            p = w / w.sum(axis=1, keepdims=True)
        ok = np.all(np.isfinite(p), axis=1)
        cdf = np.cumsum(np.where(ok[:, None], p, 0.0), axis=1)
        u = rng.random(n_rows)
        drawn = np.minimum((np.broadcast_to(cdf, (n_rows, self.n_bins)) < u[:, None]).sum(axis=1), self.n_bins - 1)
        fallback = np.argmax(counts, axis=1)  # BUG: deterministic (first) argmax on overflow
        return np.where(np.broadcast_to(ok, (n_rows,)), drawn, np.broadcast_to(fallback, (n_rows,))).astype(np.int64)


@dataclass(frozen=True)
class LevyRangeNoClamp(UnsafeMechanism, PrivateRange):
    """B12: no clamp to ``[-B, B]``: an out-of-range value gets a bin (and an interval) of its own."""

    flaw = "B12: PrivateRange does not clamp to [-B, B]; an out-of-range user opens a new bin only it can fill"

    def __post_init__(self) -> None:
        PrivateRange.__post_init__(self)
        UnsafeMechanism.__post_init__(self)

    def bin_index(self, values: Any) -> NDArray[np.float64]:
        return np.floor((np.asarray(values, dtype=np.float64) + self.bound) * (0.5 / self.tau))  # BUG: no clip


# ==============================================================================================
# Algorithm 1 variants (B1, B2, B4, B5, B6, B15, B17, B18)
# ==============================================================================================


class _FaultyWM1D(UnsafeMechanism, WinsorizedMean1D):
    def __post_init__(self) -> None:
        WinsorizedMean1D.__post_init__(self)
        UnsafeMechanism.__post_init__(self)


@dataclass(frozen=True)
class LevyWrongWidthLaplace(_FaultyWM1D):
    """B1: safe-mode clipping (``w = 6 tau``) with the paper-mode noise ``Lap(8 tau / (n eps))``."""

    flaw = "B1: Laplace scale 8*tau/(n*eps) (width 4*tau) while clipping to the safe width 6*tau (1.5x leak)"

    def noise_scale(self, n_users: int) -> float:
        return laplace_scale(round_up(4.0 * self.tau / n_users), self.laplace_epsilon())  # BUG: 4 tau, not w


@dataclass(frozen=True)
class LevyFullBudgetStage(_FaultyWM1D):
    """B2: one stage gets the full ``eps`` (``which="laplace"`` or ``"range"``), so the total is ``1.5 eps``."""

    flaw = "B2: one stage of Algorithm 1 spends the full eps instead of eps/2"
    which: Literal["laplace", "range"] = "laplace"

    def laplace_epsilon(self) -> float:
        return self.epsilon if self.which == "laplace" else 0.5 * self.epsilon  # BUG when which == "laplace"

    def range_epsilon(self) -> float:
        return self.epsilon if self.which == "range" else 0.5 * self.epsilon  # BUG when which == "range"


@dataclass(frozen=True)
class LevyWidenOnMiss(_FaultyWM1D):
    """B4: when a value falls outside ``[a, b]``, widen the interval to cover all values (data-dependent)."""

    flaw = "B4: the clipping interval is widened to cover every user when some fall outside it"

    def _clip(self, values: NDArray[np.float64], low: NDArray[np.float64],
              high: NDArray[np.float64]) -> NDArray[np.float64]:
        miss = np.any((values < low[:, None]) | (values > high[:, None]), axis=1)
        lo = np.where(miss, np.minimum(low, values.min(axis=1)), low)  # BUG: data-dependent widening
        hi = np.where(miss, np.maximum(high, values.max(axis=1)), high)
        return np.clip(values, lo[:, None], hi[:, None])


@dataclass(frozen=True)
class LevyDataDependentTau(_FaultyWM1D):
    """B5: ``tau`` set from the data, ``max(tau_floor, (max - min) / 2)`` of the users' values."""

    flaw = "B5: the concentration radius tau is estimated from the data's spread"

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        values = self._user_values(data)
        tau = max(self.tau, 0.5 * float(values.max() - values.min()))  # BUG: tau depends on the data
        return WinsorizedMean1D(self.epsilon, tau, self.bound, self.mode).release_rows(values[None], rng=rng, rows=size)


@dataclass(frozen=True)
class LevyItemLevelMean(_FaultyWM1D):
    """B6: item-level: every item counts as a contributor (range, clipped mean and noise over ``n m``)."""

    flaw = "B6: item-level calibration; range, clipped mean and noise are over the n*m items, so a user moves m of them"

    def _user_values(self, data: Any) -> NDArray[np.float64]:
        WinsorizedMean1D._user_values(self, data)  # same validation
        return np.asarray(data, dtype=np.float64).reshape(-1)  # BUG: items, not user means


@dataclass(frozen=True)
class LevyLaplaceRate(_FaultyWM1D):
    """B15: the Laplace noise is drawn with ``1/b`` (a rate) where numpy expects the scale ``b``."""

    flaw = "B15: Laplace noise drawn as rng.laplace(0, 1/b): the rate passed as the scale"

    def _laplace_noise(self, scale: float, rows: int, rng: np.random.Generator) -> NDArray[np.float64]:
        return rng.laplace(0.0, 1.0 / scale, size=rows)  # BUG: 1/b instead of b


@dataclass(frozen=True)
class LevyNoClip(_FaultyWM1D):
    """B17: noise calibrated to ``tau`` but the values are not clipped ("the data are concentrated anyway")."""

    flaw = "B17: no clipping to [a, b]; the noise assumes concentration that an outlier user breaks"

    def _clip(self, values: NDArray[np.float64], low: NDArray[np.float64],
              high: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.broadcast_to(values, (low.shape[0], values.shape[1]))  # BUG: no Pi_[a,b]


@dataclass(frozen=True)
class LevyAddRemoveClaim(_FaultyWM1D):
    """B18: calibrated for replacement with ``n`` public, but claimed under user add/remove."""

    flaw = "B18: calibrated for user replacement (n public) but claimed for user add/remove, where n changes"

    def claimed_guarantee(self) -> PureDP:
        return PureDP(self.epsilon, UserAddRemove())  # BUG: the calibration needs n fixed


# ==============================================================================================
# Algorithm 2 variant (B8)
# ==============================================================================================


@dataclass(frozen=True)
class LevyNoLogCoordinateBudget(UnsafeMechanism, WinsorizedMeanHighD):
    """B8: per-coordinate budget ``eps / sqrt(d')``, without the ``sqrt(8 log(1/delta))`` of Algorithm 2."""

    flaw = "B8: Algorithm 2's per-coordinate budget eps/sqrt(d') misses the factor sqrt(8 log(1/delta))"

    def __post_init__(self) -> None:
        WinsorizedMeanHighD.__post_init__(self)
        UnsafeMechanism.__post_init__(self)

    def coordinate_epsilon(self, padded_dim: int) -> float:
        return round_down(self.epsilon / math.sqrt(padded_dim))  # BUG


# ==============================================================================================
# Algorithm 3 variants (B10)
# ==============================================================================================


def _empirical_erm(loss: Any, x: NDArray[np.float64], y: NDArray[np.float64], radius: float,
                   steps: int = 200) -> NDArray[np.float64]:
    """Non-private projected gradient descent on the full empirical loss (what B10 leaks)."""
    dim = x.shape[2]
    theta = np.zeros((1, dim))
    lr = 1.0 / max(float(np.mean(np.sum(x**2, axis=-1))), 1e-12)
    for _ in range(steps):
        g = user_mean_gradients(loss, theta, x, y).mean(axis=1)
        theta = project_l2_ball(theta - lr * g, radius)
    best: NDArray[np.float64] = theta[0]
    return best


@dataclass(frozen=True)
class LevyNonPrivateStart(UnsafeMechanism, WinsorizedFirstOrder):
    """B10: ``o_0`` is the non-private ERM solution of the data (Query/Aggregate must not touch data)."""

    flaw = "B10: Algorithm 3 starts from the non-private empirical risk minimiser of the same data"

    def __post_init__(self) -> None:
        WinsorizedFirstOrder.__post_init__(self)
        UnsafeMechanism.__post_init__(self)

    def _start(self, xy: tuple[NDArray[np.float64], NDArray[np.float64]], rows: int,
               dim: int) -> NDArray[np.float64]:
        return np.repeat(_empirical_erm(self.loss, *xy, self.radius)[None, :], rows, axis=0)  # BUG


@dataclass(frozen=True)
class LevyBestIterate(UnsafeMechanism, WinsorizedFirstOrder):
    """B10: ``Aggregate`` returns the iterate with the lowest *non-private* empirical loss."""

    flaw = "B10: Aggregate selects the best iterate by its non-private empirical loss on the data"

    def __post_init__(self) -> None:
        WinsorizedFirstOrder.__post_init__(self)
        UnsafeMechanism.__post_init__(self)

    def _aggregate(self, iterates: NDArray[np.float64],
                   xy: tuple[NDArray[np.float64], NDArray[np.float64]]) -> NDArray[np.float64]:
        x, y = xy
        xf = x.reshape(-1, x.shape[-1])
        margins = np.einsum("std,kd->stk", iterates, xf)
        risk = self.loss._value_from_margin(margins, y.reshape(-1)[None, None, :]).mean(axis=2)
        best = np.argmin(risk[:, 1:], axis=1) + 1  # BUG: selection uses the data without privacy
        chosen: NDArray[np.float64] = iterates[np.arange(iterates.shape[0]), best]
        return chosen


# ==============================================================================================
# Algorithm 4 variant (B11)
# ==============================================================================================


@dataclass(frozen=True)
class LevyReusedUsers(UnsafeMechanism, PhasedERM):
    """B11: every round of Phased ERM uses all ``n`` users (rounds overlap) at the full ``(eps, delta)``."""

    flaw = "B11: Phased ERM rounds reuse the same users, each at the full (eps, delta): up to T-fold leak"

    def __post_init__(self) -> None:
        PhasedERM.__post_init__(self)
        UnsafeMechanism.__post_init__(self)

    def _round_users(self, phase: PhaseRound, xy: tuple[NDArray[np.float64], NDArray[np.float64]]
                     ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return xy  # BUG: all users in every round


# ==============================================================================================
# Audit cases
# ==============================================================================================


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
