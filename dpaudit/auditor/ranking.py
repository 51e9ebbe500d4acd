"""Threshold events and their ranking on the selection split.

An *event* is ``{score > t}`` (``upper``) or ``{score <= t}`` for a fitted score function, with
dataset 0 or 1 on the numerator. Candidates are ranked by the bound they are *predicted* to give
on the estimation split. Two predictors are used, both on selection data only:

* **counts**: the selection frequencies, each first moved :func:`selection_shrink` standard
  errors towards the unfavourable side (against the winner's curse of an argmax over thousands of
  thresholds, compared across scores: the shrink grows with the number of scores, from
  ``SELECTION_Z``), then scaled to the estimation size with Wilson limits as a fast stand-in for
  Clopper-Pearson;
* **tail fit** (scores marked ``smooth``: a scalar output when nothing is fitted, a released value
  within one atom pattern): if the counts point to an event beyond the pooled ``TAIL_TRIGGER``
  quantile, where counts are few and their argmax is noisy, a threshold is also proposed from
  smooth fits, and the one with the larger prediction is kept. Both sides' log-survival functions
  are fitted jointly, quadratics in ``t`` sharing their curvature (two shifts of one distribution
  bend alike, so the fitted log ratio is a line and cannot bend apart in the far tail), by
  weighted least squares over the widest of the pooled extreme ``TAIL_FIT_FRACTIONS`` of the
  selection scores on which both pass a lack-of-fit test (Pearson's chi-square of the counts
  between grid points, at ``LACK_OF_FIT_P``); each fitted rate is moved ``TAIL_FIT_Z`` of *its
  own* standard errors to the unfavourable side (the delta method on the fit's Fisher information:
  small where the fit pools many counts, growing towards the far end), and the fit is evaluated
  only where both sides still have ``MIN_TAIL_COUNT`` selection counts (interpolation, never
  extrapolation).

NaN scores belong to no event, in ranking and in evaluation alike (``Candidate.event`` is
false for NaN on both sides, and :func:`event_counts` leaves NaN out of both counts).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special, stats

from dpaudit.auditor.score import Score

__all__ = ["Candidate", "event_counts", "predicted_bounds", "predicted_gdp", "rank_candidates"]

MAX_THRESHOLDS = 4000
# Selection-side shrinkage: each frequency is first moved this many standard errors towards the
# unfavourable side before the argmax over thresholds.
SELECTION_Z = 2.0
SHRINK_EVENTS = 4.0
TAIL_FIT_FRACTIONS = (0.3, 0.1, 0.03, 0.005)
LACK_OF_FIT_GROUPS = 20
LACK_OF_FIT_P = 0.01
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

    score: Score
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
        """The event in words, e.g. ``score > 0.5, i.e. output in {...}`` when the score lists its members."""
        op = ">" if self.upper else "<="
        text = f"{self.score.name} {op} {self.threshold:.6g}"
        members = self.score.members
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


def _conservative_rates(c_num: NDArray[np.float64], c_den: NDArray[np.float64], n_sel: int,
                        shrink: float = SELECTION_Z) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    p_num, _ = _wilson(c_num / n_sel, n_sel, shrink)
    _, p_den = _wilson(c_den / n_sel, n_sel, shrink)
    return p_num, p_den


def predicted_bounds(c_num: NDArray[np.float64], c_den: NDArray[np.float64], n_sel: int, n_est: int, delta: float, z: float,
                     shrink: float = SELECTION_Z) -> NDArray[np.float64]:
    """Bound each event would give on ``n_est`` fresh samples, from selection frequencies shrunk by ``shrink`` errors."""
    p_num, p_den = _conservative_rates(c_num, c_den, n_sel, shrink)
    return _bound_from_rates(p_num, p_den, n_est, delta, z)


def selection_shrink(n_scores: int) -> float:
    """Standard errors each selection frequency is moved: ``Phi^{-1}(1 - 1 / (SHRINK_EVENTS * 4 k))`` for ``k`` scores.

    The argmax over thresholds is taken for each of the ``4 k`` (score, side, numerator)
    combinations and the winners are compared, so the winner's curse grows with ``k``; the shrink
    grows with it, like a union bound over the comparisons (``SELECTION_Z`` at least).
    """
    return max(SELECTION_Z, float(special.ndtri(1.0 - 1.0 / (SHRINK_EVENTS * 4 * max(n_scores, 1)))))


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


def _fit_log_survival(
    n: int, t: NDArray[np.float64], c0: NDArray[np.int64], c1: NDArray[np.int64]
) -> tuple[tuple[NDArray[np.float64], NDArray[np.float64]], tuple[NDArray[np.float64], NDArray[np.float64]]] | None:
    """``(log P[score > t], its standard error)`` on each side, from a joint fit of ``log(count / n)``.

    Both sides share the quadratic term (``a_j + b_j u + c u^2``, ``u`` the standardised ``t``): two
    shifts of one distribution have log-survival functions of the same curvature, so their log
    ratio is fitted as a line and cannot bend apart in the far tail where the counts are few. The
    fit is weighted least squares (the variance of ``log(count)`` is about ``1 / count``, hence the
    weights ``count``). Its standard error at each ``t`` is the delta method's
    ``sqrt(x(t)' I^{-1} x(t))``, with ``I`` the Fisher information of the fitted curves for the
    *independent* counts between consecutive grid points (a Poisson count per bin and one beyond the
    last point; the cumulative counts are nested, so weighting them as if independent would
    understate the error many times over). ``n`` is the number of rows the counts are of.
    """
    use0, use1 = c0 >= 3, c1 >= 3
    if min(np.count_nonzero(use0), np.count_nonzero(use1)) < 5:
        return None
    centre, spread = float(t.mean()), float(t.std()) or 1.0
    u = (t - centre) / spread
    one, zero = np.ones_like(u), np.zeros_like(u)
    x0 = np.vstack([one, u, zero, zero, u * u]).T  # (a0, b0, a1, b1, c)
    x1 = np.vstack([zero, zero, one, u, u * u]).T
    design = np.vstack([x0[use0], x1[use1]])
    counts = np.concatenate([c0[use0], c1[use1]]).astype(float)
    w = np.sqrt(counts)
    coef, *_ = np.linalg.lstsq(design * w[:, None], np.log(counts / n) * w, rcond=None)
    info = np.zeros((5, 5))
    fits = []
    for x in (x0, x1):
        log_surv = np.minimum(x @ coef, 0.0)
        surv = np.exp(log_surv)
        grad = surv[:, None] * x  # d S(t_i) / d coef
        mean = n * np.append(surv[:-1] - surv[1:], surv[-1])
        dmean = n * np.vstack([grad[:-1] - grad[1:], grad[-1:]])
        with np.errstate(over="ignore", invalid="ignore"):  # a fitted bin of ~0 mass: refused just below
            info += (dmean / np.maximum(mean, 1e-300)[:, None]).T @ dmean
        fits.append(log_surv)
    if not np.all(np.isfinite(info)):  # the fit gives some bin no mass: not a survival function there
        return None
    try:
        cov = np.linalg.inv(info)
    except np.linalg.LinAlgError:
        return None
    out = []
    for x, log_surv in zip((x0, x1), fits, strict=True):
        se = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", x, cov, x), 0.0))
        if not np.all(np.isfinite(se)):
            return None
        out.append((log_surv, se))
    return out[0], out[1]


def _pooled_top(a0: NDArray[np.float64], a1: NDArray[np.float64], fraction: float) -> float:
    """The value above which ``fraction`` of the pooled sorted samples lie, from their tops alone.

    The top ``m`` of the pooled samples are among the top ``m`` of each, so only those are merged.
    """
    m = max(1, int(fraction * (len(a0) + len(a1))))
    top = np.sort(np.concatenate([a0[-m:], a1[-m:]]))
    return float(top[-m])


def _fits_well(log_surv: NDArray[np.float64], counts: NDArray[np.int64], n: int) -> bool:
    """No lack of fit: Pearson's chi-square of the counts in ``LACK_OF_FIT_GROUPS`` groups of grid bins.

    The counts between consecutive grid points (and beyond the last) are multinomial; the fitted
    curve gives their expectations. The fit is accepted unless chi-square rejects it at
    ``LACK_OF_FIT_P`` (three parameters fitted).
    """
    surv = np.exp(log_surv)
    observed = np.append(counts[:-1] - counts[1:], counts[-1]).astype(float)
    expected = n * np.append(surv[:-1] - surv[1:], surv[-1])
    edges = np.linspace(0, len(observed), LACK_OF_FIT_GROUPS + 1).astype(int)
    obs, exp = np.add.reduceat(observed, edges[:-1]), np.add.reduceat(expected, edges[:-1])
    if np.any(exp <= 0):
        return False
    chi2 = float(((obs - exp) ** 2 / exp).sum())
    return bool(stats.chi2.sf(chi2, LACK_OF_FIT_GROUPS - 3) > LACK_OF_FIT_P)


def _pooled_bottom(a0: NDArray[np.float64], a1: NDArray[np.float64], fraction: float) -> float:
    """``-_pooled_top(-a0[::-1], -a1[::-1], fraction)``, without negated copies of the whole samples."""
    m = max(1, int(fraction * (len(a0) + len(a1))))
    bottom = np.sort(np.concatenate([a0[:m], a1[:m]]))
    return float(bottom[m - 1])


def _non_nan(sorted_scores: NDArray[np.float64]) -> NDArray[np.float64]:
    """The sorted scores without their NaN (sorted last): a view, not a copy."""
    return sorted_scores[: len(sorted_scores) - int(np.count_nonzero(np.isnan(sorted_scores)))]


def _tail_fit_candidate(
    score: Score, s0: NDArray[np.float64], s1: NDArray[np.float64], upper: bool, numerator: int, n_est: int, delta: float, z: float,
    n: int,
) -> Candidate | None:
    """The best ``upper``-tail (else, mirrored, lower-tail) event from smooth fits of both survival functions.

    ``s0``, ``s1`` are the sorted non-NaN scores of ``n`` rows each (a NaN row is in no event). The
    fits cover the widest of ``TAIL_FIT_FRACTIONS`` (of the pooled scores, from the top) on which
    both pass the lack-of-fit test; the narrowest is used if none does.
    """
    if min(len(s0), len(s1)) < MIN_TAIL_POINTS or not (np.isfinite(s0[[0, -1]]).all() and np.isfinite(s1[[0, -1]]).all()):
        return None
    a0, a1 = (s0, s1) if upper else (-s0[::-1], -s1[::-1])
    hi = float(max(a0[-1], a1[-1]))
    fitted = None
    for fraction in TAIL_FIT_FRACTIONS:
        if min(len(a0), len(a1)) < MIN_TAIL_POINTS / fraction:
            continue
        lo = _pooled_top(a0, a1, fraction)
        if not hi > lo:
            continue
        t = np.linspace(lo, hi, TAIL_GRID)
        c0 = (len(a0) - np.searchsorted(a0, t, side="right")).astype(np.int64)
        c1 = (len(a1) - np.searchsorted(a1, t, side="right")).astype(np.int64)
        pair = _fit_log_survival(n, t, c0, c1)
        if pair is None:
            continue
        f0, f1 = pair
        fitted = (t, c0, c1, f0, f1)
        if _fits_well(f0[0], c0, n) and _fits_well(f1[0], c1, n):
            break
    if fitted is None:
        return None
    t, c0, c1, f0, f1 = fitted
    ((q_num, se_num), k_num), ((q_den, se_den), k_den) = ((f0, c0), (f1, c1)) if numerator == 0 else ((f1, c1), (f0, c0))
    # each fitted rate is moved TAIL_FIT_Z of its own standard errors to the unfavourable side:
    # little where the fit is well determined, more towards the far end where it rests on few counts
    lo_num = np.exp(q_num - TAIL_FIT_Z * se_num)
    hi_den = np.minimum(np.exp(q_den + TAIL_FIT_Z * se_den), 1.0)
    pred = np.where(np.minimum(c0, c1) >= MIN_TAIL_COUNT, _bound_from_rates(lo_num, hi_den, n_est, delta, z), -np.inf)
    i = int(np.argmax(pred))
    if not math.isfinite(float(pred[i])):
        return None
    # the mirrored event {-score > t} is {score < -t}, i.e. {score <= the float just below -t}
    threshold = float(t[i]) if upper else float(np.nextafter(-t[i], -np.inf))
    return Candidate(score, threshold, upper, numerator, float(pred[i]), (int(k_num[i]), int(k_den[i])), "tail fit")


def rank_candidates(
    scores: list[Score],
    b0: NDArray[Any],
    b1: NDArray[Any],
    *,
    n_est: int,
    delta: float,
    z: float,
    tail_fit: bool = False,
    compared: int | None = None,
) -> tuple[list[Candidate], list[Candidate]]:
    """Best (score, threshold, side, numerator) candidates per score, best first.

    Returns two lists: ranked by the predicted epsilon bound, and by the predicted GDP mu.
    Each score is evaluated and sorted once. ``tail_fit`` adds the tail-fit candidates of the
    scores marked ``smooth`` (a real value with a smooth distribution: the output itself when
    nothing is fitted, a released value within one atom pattern). ``compared`` is the number of
    scores the winners are compared across (``len(scores)`` unless the caller ranks others apart):
    it sets the selection shrink.
    """
    by_epsilon: list[Candidate] = []
    by_gdp: list[Candidate] = []
    n_sel = len(b0)
    shrink = selection_shrink(len(scores) if compared is None else compared)
    for score in scores:
        s0 = np.sort(score(b0))
        s1 = np.sort(score(b1))
        t = _threshold_grid(_non_nan(s0), _non_nan(s1))
        le0, gt0 = event_counts(s0, t)
        le1, gt1 = event_counts(s1, t)
        options = [(True, 0, gt0, gt1), (True, 1, gt1, gt0), (False, 0, le0, le1), (False, 1, le1, le0)]
        trigger = None
        if tail_fit and score.smooth:
            f0, f1 = _non_nan(s0), _non_nan(s1)
            if len(f0) and len(f1):
                trigger = (_pooled_top(f0, f1, 1 - TAIL_TRIGGER), _pooled_bottom(f0, f1, 1 - TAIL_TRIGGER))
        for upper, numerator, c_num, c_den in options:
            fnum, fden = c_num.astype(float), c_den.astype(float)
            for objective, out in ((predicted_bounds(fnum, fden, n_sel, n_est, delta, z, shrink), by_epsilon),
                                   (predicted_gdp(fnum, fden, n_sel, n_est, z), by_gdp)):
                i = int(np.argmax(objective))
                if not math.isfinite(float(objective[i])):
                    continue
                cand = Candidate(score, float(t[i]), upper, numerator, float(objective[i]), (int(c_num[i]), int(c_den[i])))
                if out is by_epsilon and trigger is not None and (t[i] >= trigger[0] if upper else t[i] <= trigger[1]):
                    # the counts point to a far-tail event: try a threshold from smooth tail fits
                    fitted = _tail_fit_candidate(score, f0, f1, upper, numerator, n_est, delta, z, n_sel)
                    if fitted is not None and fitted.predicted > cand.predicted:
                        cand = fitted
                out.append(cand)
    by_epsilon.sort(key=lambda c: -c.predicted)
    by_gdp.sort(key=lambda c: -c.predicted)
    return by_epsilon, by_gdp
