"""Deliberately broken variants of the Levy et al. 2021 algorithms, for power tests and demos.

Each class is one bug from ``docs/papers/levy2021.md`` (section 8, table B1-B20), built as the correct
mechanism with *one* change, and an :class:`~dpaudit.mechanisms.base.UnsafeMechanism` (construction
warns :class:`~dpaudit.errors.UnsoundMechanismWarning`). Claims stay the paper's: the bug is in the
sampler, so an auditor that sees only outputs must find the leak. :func:`~dpaudit.userlevel.levy2021.audit_cases.levy2021_audit_cases` lists,
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
* overflow :class:`LevyOverflowingMean` - Corollary 1's estimator averaging each user's items
  *before* mapping them into the support ball (and Algorithm 2 without its clamp to ``[-B, B]^d``):
  a user whose items are all ``1e308`` (finite) has an infinite mean, the rotation computes
  ``inf - inf = NaN``, and the release is NaN on that dataset and finite on its neighbour. This was
  the code before the clamp; it is kept to show that the overflow audit case catches it.

Not built as variants, and why:

* B7 (weighting users by ``m_u``): the data model ``(n_users, m_items, ...)`` has equal ``m``, where
  ``m_u / sum_v m_v = 1/n`` and the bug vanishes; "several vectors per user" is B6.
* B9 (claims outside the valid region): a claim, not a sampler; the constructors reject it
  exactly (:func:`~dpaudit.userlevel.levy2021.parameters.check_alg2_region`), and an empirical auditor could
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
from dataclasses import dataclass, fields
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from dpaudit.accounting.calibrate import laplace_scale, round_up
from dpaudit.data import as_user_dataset
from dpaudit.guarantees import PureDP
from dpaudit.mechanisms.base import UnsafeMechanism
from dpaudit.neighbors.relations import UserAddRemove
from dpaudit.userlevel.levy2021.first_order import WinsorizedFirstOrder, user_mean_gradients
from dpaudit.userlevel.levy2021.mean_estimation import UserMeanEstimator
from dpaudit.userlevel.levy2021.parameters import round_down
from dpaudit.userlevel.levy2021.phased_erm import PhasedERM, PhaseRound
from dpaudit.userlevel.levy2021.private_range import PrivateRange
from dpaudit.userlevel.levy2021.winsorized_1d import WinsorizedMean1D
from dpaudit.userlevel.levy2021.winsorized_highd import WinsorizedMeanHighD
from dpaudit.userlevel.projections import project_l2_ball

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
    "LevyOverflowingMean",
    "LevyRangeArgmaxFallback",
    "LevyRangeItemCounts",
    "LevyRangeNoClamp",
    "LevyRangeNoHalf",
    "LevyReusedUsers",
    "LevyWidenOnMiss",
    "LevyWrongWidthLaplace",
]


@dataclass(frozen=True)
class LevyRangeNoHalf(UnsafeMechanism, PrivateRange):
    """B3: exponential-mechanism weights ``exp(eps cnt)`` instead of ``exp(eps cnt / 2)``."""

    flaw = "B3: PrivateRange weights exp(eps * count), without the /2 of the exponential mechanism (2x leak)"

    def __post_init__(self) -> None:
        PrivateRange.__post_init__(self)
        UnsafeMechanism.__post_init__(self)

    def log_weights(self, counts: NDArray[np.int64]) -> NDArray[np.float64]:
        """``eps * cnt``: the exponential mechanism's weights without the half of [LSA+21, Alg. 1] (the bug)."""
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
        """One bin per row, weights ``exp(eps cnt / 2)`` computed naively; on overflow the argmax bin (the bug)."""
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

    def _user_values(self, data: Any) -> NDArray[np.float64]:
        PrivateRange._user_values(self, data)  # same validation as the correct mechanism
        return np.asarray(data, dtype=np.float64).mean(axis=1)  # BUG: the items are not clamped to [-B, B]

    def bin_index(self, values: Any) -> NDArray[np.float64]:
        """Bin of each value with no clamp to ``[-B, B]``, so an out-of-range value gets its own bin (the bug)."""
        return np.floor((np.asarray(values, dtype=np.float64) + self.bound) * (0.5 / self.tau))  # BUG: no clip


class _FaultyWM1D(UnsafeMechanism, WinsorizedMean1D):
    def __post_init__(self) -> None:
        WinsorizedMean1D.__post_init__(self)
        UnsafeMechanism.__post_init__(self)


@dataclass(frozen=True)
class LevyWrongWidthLaplace(_FaultyWM1D):
    """B1: safe-mode clipping (``w = 6 tau``) with the paper-mode noise ``Lap(8 tau / (n eps))``."""

    flaw = "B1: Laplace scale 8*tau/(n*eps) (width 4*tau) while clipping to the safe width 6*tau (1.5x leak)"

    def noise_scale(self, n_users: int) -> float:
        """``(4 tau / n) / (eps / 2) = 8 tau / (n eps)``: the paper mode's noise on the safe mode's width ``w = 6 tau`` (the bug)."""
        return laplace_scale(round_up(4.0 * self.tau / n_users), self.laplace_epsilon())  # BUG: 4 tau, not w


@dataclass(frozen=True)
class LevyFullBudgetStage(_FaultyWM1D):
    """B2: one stage gets the full ``eps`` (``which="laplace"`` or ``"range"``), so the total is ``1.5 eps``."""

    flaw = "B2: one stage of Algorithm 1 spends the full eps instead of eps/2"
    which: Literal["laplace", "range"] = "laplace"

    def laplace_epsilon(self) -> float:
        """``eps`` when ``which == "laplace"`` (the bug), else ``eps / 2``."""
        return self.epsilon if self.which == "laplace" else 0.5 * self.epsilon  # BUG when which == "laplace"

    def range_epsilon(self) -> float:
        """``eps`` when ``which == "range"`` (the bug), else ``eps / 2``."""
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
        """``size`` releases of Algorithm 1 with ``tau`` read from the data (the bug)."""
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
        """The claim the variant makes: epsilon-DP under user add/remove, which its calibration does not cover."""
        return PureDP(self.epsilon, UserAddRemove())  # BUG: the calibration needs n fixed


@dataclass(frozen=True)
class LevyNoLogCoordinateBudget(UnsafeMechanism, WinsorizedMeanHighD):
    """B8: per-coordinate budget ``eps / sqrt(d')``, without the ``sqrt(8 log(1/delta))`` of Algorithm 2."""

    flaw = "B8: Algorithm 2's per-coordinate budget eps/sqrt(d') misses the factor sqrt(8 log(1/delta))"

    def __post_init__(self) -> None:
        WinsorizedMeanHighD.__post_init__(self)
        UnsafeMechanism.__post_init__(self)

    def coordinate_epsilon(self, padded_dim: int) -> float:
        """``eps / sqrt(d')``: Algorithm 2's budget without its ``sqrt(8 log(1/delta))`` (the bug)."""
        return round_down(self.epsilon / math.sqrt(padded_dim))  # BUG


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


class _UnclampedHighD(WinsorizedMeanHighD):
    """Algorithm 2 without its clamp to ``[-B, B]^d`` (used by :class:`LevyOverflowingMean` only)."""

    def _to_domain(self, vectors: NDArray[np.float64]) -> NDArray[np.float64]:
        return vectors  # BUG: a non-finite user mean reaches the rotation


@dataclass(frozen=True)
class LevyOverflowingMean(UnsafeMechanism, UserMeanEstimator):
    """Corollary 1 with the user means taken before the items are mapped into ``B_2(0, B)`` (the old code).

    Numpy's overflow warnings are silenced, as a caller who does not turn warnings into errors
    never sees them: the release is simply NaN.
    """

    flaw = ("overflow: user means taken before the items are mapped into the support ball; a user at 1e308 "
            "makes the mean inf and the rotation NaN (inf - inf), so NaN on one dataset and a number on its "
            "neighbour tell them apart in one run")

    def __post_init__(self) -> None:
        UserMeanEstimator.__post_init__(self)
        UnsafeMechanism.__post_init__(self)

    def _user_means(self, owner: str, data: Any) -> NDArray[np.float64]:
        means: NDArray[np.float64] = as_user_dataset(data, owner, "data", item_ndim=1).mean(axis=1)  # BUG
        return means

    def estimator(self, n_users: int, m_items: int, dim: int) -> WinsorizedMeanHighD:
        """Algorithm 2 with the unclamped user means (the bug), otherwise as the correct estimator builds it."""
        correct = UserMeanEstimator.estimator(self, n_users, m_items, dim)
        return _UnclampedHighD(**{f.name: getattr(correct, f.name) for f in fields(correct)})  # BUG: no clamp

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` releases of Corollary 1's estimator with overflow warnings silenced (NaN where the mean overflows)."""
        with np.errstate(over="ignore", invalid="ignore"):
            return UserMeanEstimator.sample(self, data, size, rng=rng)
