"""Threshold events and their ranking on the selection split.

An *event* is ``{score > t}`` (``upper``) or ``{score <= t}`` for a fitted score function, with
dataset 0 or 1 on the numerator. Candidates are ranked by the bound they are *predicted* to give
on the estimation split. Two predictors are used, both on selection data only:

* **counts**: the selection frequencies, each first moved ``SELECTION_Z`` standard errors
  towards the unfavourable side (against the winner's curse of an argmax over thousands of
  thresholds), then scaled to the estimation size with Wilson limits as a fast stand-in for
  Clopper-Pearson;
* **tail fit** (scores of scalar outputs, when the whole selection split ranks thresholds): if
  the counts point to an event beyond the pooled ``TAIL_TRIGGER`` quantile, where counts are few
  and their argmax is noisy, a threshold is also proposed from smooth fits, and the one with the
  larger prediction is kept: the log-survival
  function of each side, fitted by weighted least squares with a quadratic in ``t`` over the
  pooled extreme ``TAIL_FIT_FRACTION`` of the selection scores, shrunk by ``TAIL_FIT_Z`` (less
  than raw counts: the fit pools many thresholds), and evaluated only where both sides still
  have ``MIN_TAIL_COUNT`` selection counts (interpolation, never extrapolation).

NaN scores belong to no event, in ranking and in evaluation alike (``Candidate.event`` is
false for NaN on both sides, and :func:`event_counts` leaves NaN out of both counts).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special

__all__ = ["Candidate", "event_counts", "predicted_bounds", "predicted_gdp", "rank_candidates"]

MAX_THRESHOLDS = 4000
# Selection-side shrinkage: each frequency is first moved this many standard errors towards the
# unfavourable side before the argmax over thresholds.
SELECTION_Z = 2.0
TAIL_FIT_FRACTION = 0.005
MIN_TAIL_POINTS = 50
MIN_TAIL_COUNT = 10
TAIL_GRID = 400
TAIL_TRIGGER = 0.95
TAIL_FIT_Z = 0.5


@dataclass(frozen=True)
class Candidate:
    """An event ``{score > t}`` (``upper``) or ``{score <= t}`` with ``numerator`` dataset 0 or 1.

    ``selection_counts`` are the numerator and denominator counts on the rows it was ranked on;
    ``origin`` names the predictor that proposed it (``"counts"`` or ``"tail fit"``).
    """

    score: Any
    threshold: float
    upper: bool
    numerator: int
    predicted: float
    selection_counts: tuple[int, int] = (0, 0)
    origin: str = "counts"

    def event(self, scores: NDArray[np.float64]) -> NDArray[np.bool_]:
        """Membership of each score in the event; NaN scores are never members."""
        return scores > self.threshold if self.upper else scores <= self.threshold

    def describe(self) -> str:
        op = ">" if self.upper else "<="
        text = f"{self.score.name} {op} {self.threshold:.6g}"
        members = getattr(self.score, "members", None)
        listing = members(self.threshold, self.upper) if members else None
        return text if listing is None else f"{text}, i.e. output in {listing}"


def event_counts(sorted_scores: NDArray[np.float64], thresholds: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Counts of ``score <= t`` and ``score > t`` for each threshold, NaN scores in neither.

    ``sorted_scores`` is sorted ascending (``np.sort`` puts NaN last).
    """
    valid = len(sorted_scores) - int(np.count_nonzero(np.isnan(sorted_scores)))
    finite = sorted_scores[:valid]
    below = np.searchsorted(finite, thresholds, side="right").astype(np.int64)
    return below, valid - below


def _wilson(p: NDArray[np.float64], n: float, z: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * np.sqrt(np.maximum(p * (1 - p), 0.0) / n + z * z / (4 * n * n)) / denom
    return np.maximum(centre - half, 0.0), np.minimum(centre + half, 1.0)


def _bound_from_rates(p_num: NDArray[np.float64], p_den: NDArray[np.float64], n_est: int, delta: float, z: float) -> NDArray[np.float64]:
    lo, _ = _wilson(p_num, n_est, z)
    _, hi = _wilson(p_den, n_est, z)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(np.maximum(lo - delta, 0.0)) - np.log(hi)
    return np.where(lo > delta, out, -np.inf)


def _conservative_rates(c_num: NDArray[np.float64], c_den: NDArray[np.float64], n_sel: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    p_num, _ = _wilson(c_num / n_sel, n_sel, SELECTION_Z)
    _, p_den = _wilson(c_den / n_sel, n_sel, SELECTION_Z)
    return p_num, p_den


def predicted_bounds(c_num: NDArray[np.float64], c_den: NDArray[np.float64], n_sel: int, n_est: int, delta: float, z: float) -> NDArray[np.float64]:
    """Bound each event would give on ``n_est`` fresh samples, from shrunken selection frequencies."""
    p_num, p_den = _conservative_rates(c_num, c_den, n_sel)
    return _bound_from_rates(p_num, p_den, n_est, delta, z)


def predicted_gdp(c_num: NDArray[np.float64], c_den: NDArray[np.float64], n_sel: int, n_est: int, z: float) -> NDArray[np.float64]:
    """mu lower bound each event would give on ``n_est`` fresh samples (see ``gdp_mu_lower_bound_from_counts``)."""
    p_num, p_den = _conservative_rates(c_num, c_den, n_sel)
    lo, _ = _wilson(p_num, n_est, z)
    _, hi = _wilson(p_den, n_est, z)
    fpr = np.clip(hi, 1e-300, 1 - 1e-16)
    fnr = np.clip(1.0 - lo, 1e-300, 1 - 1e-16)
    return special.ndtri(1.0 - fpr) - special.ndtri(fnr)


def _threshold_grid(s0: NDArray[np.float64], s1: NDArray[np.float64]) -> NDArray[np.float64]:
    """Candidate thresholds: every order statistic near both tails, a geometric grid in between."""
    grid: list[NDArray[np.float64]] = []
    for s in (s0, s1):
        n = len(s)
        if n == 0:
            continue
        half = max(n // 2, 1)
        steps = np.unique(np.geomspace(1, half, num=min(half, MAX_THRESHOLDS // 4)).astype(np.int64)) - 1
        grid.extend([s[steps], s[n - 1 - steps]])
    thresholds = np.unique(np.concatenate(grid)) if grid else np.zeros(1)
    finite = thresholds[np.isfinite(thresholds)]
    return finite if finite.size else np.zeros(1)


def _fit_log_survival(s: NDArray[np.float64], t: NDArray[np.float64], counts: NDArray[np.int64]) -> NDArray[np.float64] | None:
    """Fitted ``P[score > t]`` from a weighted quadratic fit of ``log(count / n)`` in ``t``.

    The variance of ``log(count)`` is about ``1 / count``, hence the weights ``count``.
    """
    n = len(s)
    use = counts >= 3
    if np.count_nonzero(use) < 5:
        return None
    tt = t[use]
    centre, spread = float(tt.mean()), float(tt.std()) or 1.0
    u = (tt - centre) / spread
    design = np.vstack([np.ones_like(u), u, u * u]).T
    w = np.sqrt(counts[use].astype(float))
    coef, *_ = np.linalg.lstsq(design * w[:, None], np.log(counts[use] / n) * w, rcond=None)
    uu = (t - centre) / spread
    return np.exp(np.minimum(coef[0] + coef[1] * uu + coef[2] * uu * uu, 0.0))


def _pooled_top(a0: NDArray[np.float64], a1: NDArray[np.float64], fraction: float) -> float:
    """The value above which ``fraction`` of the pooled sorted samples lie, from their tops alone.

    The top ``m`` of the pooled samples are among the top ``m`` of each, so only those are merged.
    """
    m = max(1, int(fraction * (len(a0) + len(a1))))
    top = np.sort(np.concatenate([a0[-m:], a1[-m:]]))
    return float(top[-m])


def _pooled_bottom(a0: NDArray[np.float64], a1: NDArray[np.float64], fraction: float) -> float:
    """``-_pooled_top(-a0[::-1], -a1[::-1], fraction)``, without negated copies of the whole samples."""
    m = max(1, int(fraction * (len(a0) + len(a1))))
    bottom = np.sort(np.concatenate([a0[:m], a1[:m]]))
    return float(bottom[m - 1])


def _non_nan(sorted_scores: NDArray[np.float64]) -> NDArray[np.float64]:
    """The sorted scores without their NaN (sorted last): a view, not a copy."""
    return sorted_scores[: len(sorted_scores) - int(np.count_nonzero(np.isnan(sorted_scores)))]


def _tail_fit_candidate(
    score: Any, s0: NDArray[np.float64], s1: NDArray[np.float64], upper: bool, numerator: int, n_est: int, delta: float, z: float
) -> Candidate | None:
    """The best ``upper``-tail (else, mirrored, lower-tail) event from smooth fits of both survival functions."""
    n = len(s0)
    if n < MIN_TAIL_POINTS / TAIL_FIT_FRACTION or not (np.isfinite(s0[[0, -1]]).all() and np.isfinite(s1[[0, -1]]).all()):
        return None
    # the lower tail is the upper tail of -score, counted on the sorted scores themselves (no negated copies)
    lo = _pooled_top(s0, s1, TAIL_FIT_FRACTION) if upper else -_pooled_bottom(s0, s1, TAIL_FIT_FRACTION)
    hi = float(max(s0[-1], s1[-1])) if upper else -float(min(s0[0], s1[0]))
    if not hi > lo:
        return None
    t = np.linspace(lo, hi, TAIL_GRID)
    if upper:
        c0 = (n - np.searchsorted(s0, t, side="right")).astype(np.int64)
        c1 = (n - np.searchsorted(s1, t, side="right")).astype(np.int64)
    else:  # #{-score > t} = #{score < -t}
        c0 = np.searchsorted(s0, -t, side="left").astype(np.int64)
        c1 = np.searchsorted(s1, -t, side="left").astype(np.int64)
    f0, f1 = _fit_log_survival(s0, t, c0), _fit_log_survival(s1, t, c1)
    if f0 is None or f1 is None:
        return None
    (p_num, k_num), (p_den, k_den) = ((f0, c0), (f1, c1)) if numerator == 0 else ((f1, c1), (f0, c0))
    # the fitted rates are shrunk too, by less than raw counts: the fit pools many thresholds
    lo_num, _ = _wilson(p_num, n, TAIL_FIT_Z)
    _, hi_den = _wilson(p_den, n, TAIL_FIT_Z)
    pred = np.where(np.minimum(c0, c1) >= MIN_TAIL_COUNT, _bound_from_rates(lo_num, hi_den, n_est, delta, z), -np.inf)
    i = int(np.argmax(pred))
    if not math.isfinite(float(pred[i])):
        return None
    # the mirrored event {-score > t} is {score < -t}, i.e. {score <= the float just below -t}
    threshold = float(t[i]) if upper else float(np.nextafter(-t[i], -np.inf))
    return Candidate(score, threshold, upper, numerator, float(pred[i]), (int(k_num[i]), int(k_den[i])), "tail fit")


def rank_candidates(
    scores: list[Any],
    b0: NDArray[Any],
    b1: NDArray[Any],
    *,
    n_est: int,
    delta: float,
    z: float,
    tail_fit: bool = False,
) -> tuple[list[Candidate], list[Candidate]]:
    """Best (score, threshold, side, numerator) candidates per score, best first.

    Returns two lists: ranked by the predicted epsilon bound, and by the predicted GDP mu.
    Each score is evaluated and sorted once. ``tail_fit`` adds the tail-fit candidates of
    continuous scores (used when the whole selection split ranks thresholds, nothing fitted).
    """
    by_epsilon: list[Candidate] = []
    by_gdp: list[Candidate] = []
    n_sel = len(b0)
    for score in scores:
        s0 = np.sort(score(b0))
        s1 = np.sort(score(b1))
        t = _threshold_grid(_non_nan(s0), _non_nan(s1))
        le0, gt0 = event_counts(s0, t)
        le1, gt1 = event_counts(s1, t)
        options = [(True, 0, gt0, gt1), (True, 1, gt1, gt0), (False, 0, le0, le1), (False, 1, le1, le0)]
        trigger = None
        if tail_fit and len(s0) and not (np.isnan(s0[-1]) or np.isnan(s1[-1])):
            trigger = (_pooled_top(s0, s1, 1 - TAIL_TRIGGER), _pooled_bottom(s0, s1, 1 - TAIL_TRIGGER))
        for upper, numerator, c_num, c_den in options:
            fnum, fden = c_num.astype(float), c_den.astype(float)
            for objective, out in ((predicted_bounds(fnum, fden, n_sel, n_est, delta, z), by_epsilon),
                                   (predicted_gdp(fnum, fden, n_sel, n_est, z), by_gdp)):
                i = int(np.argmax(objective))
                if not math.isfinite(float(objective[i])):
                    continue
                cand = Candidate(score, float(t[i]), upper, numerator, float(objective[i]), (int(c_num[i]), int(c_den[i])))
                if out is by_epsilon and trigger is not None and (t[i] >= trigger[0] if upper else t[i] <= trigger[1]):
                    # the counts point to a far-tail event: try a threshold from smooth tail fits
                    fitted = _tail_fit_candidate(score, s0, s1, upper, numerator, n_est, delta, z)
                    if fitted is not None and fitted.predicted > cand.predicted:
                        cand = fitted
                out.append(cand)
    by_epsilon.sort(key=lambda c: -c.predicted)
    by_gdp.sort(key=lambda c: -c.predicted)
    return by_epsilon, by_gdp
