"""Attacks: score functions fitted on the selection split, and threshold events chosen on it.

Every attack reduces an output to a real *score*; an *event* is ``{score > t}`` or
``{score <= t}``. The families (DP-Sniper-style [BSBV21] where noted):

* ``coordinate[j]``: the raw value of column ``j`` (for scalars, the output itself);
* ``sum`` and ``lda``: linear projections (all-ones, and Fisher's discriminant direction);
* ``logistic``: logistic regression on engineered features [BSBV21, Sec. V], fitted with
  scipy's L-BFGS on half of the selection split;
* ``category``: the estimated log-likelihood ratio of each distinct output (or, for mixed
  outputs, of each pattern of atoms), for discrete outputs [DWWZK18 event search].

Candidate events are ranked by the bound they are *predicted* to give on the estimation split
(the selection counts scaled to the estimation size, with Wilson limits as a fast stand-in for
Clopper-Pearson). Nothing here touches the estimation split.

References
----------
.. [BSBV21] B. Bichsel, S. Steffen, I. Bogunovic and M. Vechev. DP-Sniper: black-box discovery
   of differential privacy violations using classifiers. IEEE S&P 2021.
.. [DWWZK18] Z. Ding, Y. Wang, G. Wang, D. Zhang and D. Kifer. Detecting violations of
   differential privacy. CCS 2018.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, special

from dpaudit.auditor.features import OutputLayout, encode_rows

__all__ = ["Candidate", "Score", "fit_scores", "rank_candidates"]

MAX_COORDINATE_SCORES = 16
MAX_PATTERNS = 64
MAX_TRAIN_ROWS = 100_000
MAX_THRESHOLDS = 4000
DENSE_CATEGORY_LIMIT = 1 << 22
MAX_LISTED = 4


@dataclass(frozen=True)
class Score:
    """A fitted score function; ``name`` says what it is, ``fn`` maps flattened outputs to scores."""

    name: str
    fn: Callable[[NDArray[Any]], NDArray[np.float64]] = field(repr=False, compare=False)
    members: Callable[[float, bool], str | None] | None = field(default=None, repr=False, compare=False)

    def __call__(self, x: NDArray[Any]) -> NDArray[np.float64]:
        return np.asarray(self.fn(x), dtype=float)


@dataclass(frozen=True)
class Candidate:
    """An event ``{score > t}`` (``upper``) or ``{score <= t}`` with ``numerator`` dataset 0 or 1."""

    score: Score
    threshold: float
    upper: bool
    numerator: int
    predicted: float

    def event(self, scores: NDArray[np.float64]) -> NDArray[np.bool_]:
        return scores > self.threshold if self.upper else scores <= self.threshold

    def describe(self) -> str:
        op = ">" if self.upper else "<="
        text = f"{self.score.name} {op} {self.threshold:.6g}"
        listing = self.score.members(self.threshold, self.upper) if self.score.members else None
        return text if listing is None else f"{text}, i.e. output in {listing}"


# ----------------------------------------------------------------------------------------------
# score families


def _coordinate(j: int, values: Callable[[NDArray[Any]], NDArray[np.float64]] | None = None, label: str = "coordinate") -> Score:
    if values is None:
        return Score(f"{label}[{j}]", lambda x: np.asarray(x[:, j], dtype=float))
    return Score(f"{label}[{j}]", lambda x: values(x)[:, j])


def _standardizer(z: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    mean = z.mean(axis=0)
    std = z.std(axis=0)
    std[std == 0] = 1.0
    return mean, std


def _fit_logistic(z0: NDArray[np.float64], z1: NDArray[np.float64], ridge: float = 1e-4) -> NDArray[np.float64]:
    """Weights ``(w, b)`` of a ridge-regularised logistic regression, class +1 = dataset 0."""
    z = np.concatenate([z0, z1], axis=0)
    y = np.concatenate([np.ones(len(z0)), -np.ones(len(z1))])
    zb = np.hstack([z, np.ones((len(z), 1))])

    def objective(w: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        margin = y * (zb @ w)
        loss = float(np.mean(np.logaddexp(0.0, -margin))) + 0.5 * ridge * float(w[:-1] @ w[:-1])
        coef = -y * special.expit(-margin)
        grad = zb.T @ coef / len(y)
        grad[:-1] += ridge * w[:-1]
        return loss, grad

    res = optimize.minimize(objective, np.zeros(zb.shape[1]), jac=True, method="L-BFGS-B", options={"maxiter": 200})
    return np.asarray(res.x, dtype=float)


def _logistic_score(name: str, featurize: Callable[[NDArray[Any]], NDArray[np.float64]], a0: NDArray[Any], a1: NDArray[Any]) -> Score | None:
    f0, f1 = featurize(a0[:MAX_TRAIN_ROWS]), featurize(a1[:MAX_TRAIN_ROWS])
    mean, std = _standardizer(np.concatenate([f0, f1]))
    w = _fit_logistic((f0 - mean) / std, (f1 - mean) / std)
    if not np.all(np.isfinite(w)):
        return None
    coef, bias = w[:-1] / std, w[-1] - float((mean / std) @ w[:-1])
    return Score(name, lambda x: featurize(x) @ coef + bias)


def _lda_score(v0: NDArray[np.float64], v1: NDArray[np.float64], values: Callable[[NDArray[Any]], NDArray[np.float64]]) -> Score:
    diff = v0.mean(axis=0) - v1.mean(axis=0)
    cov = 0.5 * (np.cov(v0, rowvar=False) + np.cov(v1, rowvar=False))
    cov = np.atleast_2d(cov) + 1e-9 * (np.trace(np.atleast_2d(cov)) / max(len(diff), 1) + 1e-12) * np.eye(len(diff))
    w = np.linalg.solve(cov, diff)
    return Score("lda", lambda x: values(x) @ w)


def _category_score(
    name: str,
    codes_fn: Callable[[NDArray[Any]], NDArray[np.int64]],
    a0: NDArray[Any],
    a1: NDArray[Any],
    label_row: Callable[[NDArray[np.int64]], str] | None = None,
) -> Score:
    """Score = smoothed log-ratio of the two datasets' frequencies of each category (row of codes).

    Categories are looked up in a dense table when the integer codes span a small box (fast, the
    common case: indices, counts, answer patterns), and through 64-bit row hashes otherwise.
    """
    c0, c1 = codes_fn(a0), codes_fn(a1)
    both = np.concatenate([c0, c1])
    low, high = both.min(axis=0), both.max(axis=0)
    extent = (high - low + 1).astype(np.float64)
    if float(np.prod(extent)) <= DENSE_CATEGORY_LIMIT:
        strides = np.concatenate([np.cumprod(extent[::-1])[::-1][1:], [1.0]]).astype(np.int64)
        size = int(np.prod(extent))

        def index(codes: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
            inside = np.all((codes >= low) & (codes <= high), axis=1)
            idx = ((np.clip(codes, low, high) - low) @ strides).astype(np.int64)
            return idx, inside

        def decode(i: int) -> str:
            row = (i // strides) % extent.astype(np.int64) + low
            return label_row(row) if label_row else "(" + ", ".join(str(int(v)) for v in row) + ")"
    else:
        decode = None  # type: ignore[assignment]
        keys = np.unique(encode_rows(both))
        size = len(keys)

        def index(codes: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
            kx = encode_rows(codes)
            idx = np.minimum(np.searchsorted(keys, kx), size - 1)
            return idx.astype(np.int64), keys[idx] == kx

    i0, _ = index(c0)
    i1, _ = index(c1)
    n0 = np.bincount(i0, minlength=size)
    n1 = np.bincount(i1, minlength=size)
    # add-1/2 smoothing keeps categories seen on one side only finite
    ratio = np.log((n0 + 0.5) / (len(c0) + 1.0)) - np.log((n1 + 0.5) / (len(c1) + 1.0))

    def score(x: NDArray[Any]) -> NDArray[np.float64]:
        idx, known = index(codes_fn(x))
        return np.where(known, ratio[idx], 0.0)  # unseen categories are neutral

    seen = np.flatnonzero((n0 + n1) > 0)

    def members(threshold: float, upper: bool) -> str | None:
        """The seen categories inside the event (decoded when the table is dense), for the report."""
        inside = seen[ratio[seen] > threshold] if upper else seen[ratio[seen] <= threshold]
        if decode is None or inside.size == 0:
            return None
        inside = inside[np.argsort(-(n0 + n1)[inside])]
        shown = ", ".join(decode(int(i)) for i in inside[:MAX_LISTED])
        more = f", ... ({inside.size} categories)" if inside.size > MAX_LISTED else ""
        return "{" + shown + more + "}"

    return Score(name, score, members)


def _discrete_codes(x: NDArray[Any]) -> NDArray[np.int64]:
    return np.asarray(x).astype(np.int64)


def fit_scores(layout: OutputLayout, a0: NDArray[Any], a1: NDArray[Any]) -> list[Score]:
    """Fit the score functions for ``layout`` on the training part ``a0``, ``a1`` of the selection split."""
    k = layout.n_columns
    scores: list[Score] = []
    if layout.kind == "discrete":
        n_categories = len(np.unique(encode_rows(_discrete_codes(np.concatenate([a0, a1])))))
        if n_categories <= max(2, (len(a0) + len(a1)) // 4):
            scores.append(_category_score("category", _discrete_codes, a0, a1))
        values = lambda x: np.asarray(x, dtype=float)  # noqa: E731
        scores.extend(_continuous_scores(k, a0.astype(float), a1.astype(float), values, "value"))
        return scores
    if layout.kind == "mixed":
        scores.append(_category_score("atom pattern", layout.atom_codes, a0, a1, layout.describe_codes))
        scores.extend(_mixed_logistic(layout, a0, a1))
        values = layout.continuous_part
        scores.extend(_continuous_scores(k, values(a0), values(a1), values, "value", logistic=False))
        return scores
    return _continuous_scores(k, a0, a1, lambda x: np.asarray(x, dtype=float), "coordinate")


def _continuous_scores(
    k: int,
    v0: NDArray[np.float64],
    v1: NDArray[np.float64],
    values: Callable[[NDArray[Any]], NDArray[np.float64]],
    label: str,
    logistic: bool = True,
) -> list[Score]:
    scores: list[Score] = []
    if k == 1:
        return [_coordinate(0, values, label)]
    spread = np.sqrt(0.5 * (v0.var(axis=0) + v1.var(axis=0))) + 1e-300
    separation = np.abs(v0.mean(axis=0) - v1.mean(axis=0)) / spread
    for j in np.argsort(separation)[::-1][:MAX_COORDINATE_SCORES]:
        scores.append(_coordinate(int(j), values, label))
    scores.append(Score("sum", lambda x: values(x).sum(axis=1)))
    scores.append(Score("max", lambda x: values(x).max(axis=1)))
    scores.append(Score("min", lambda x: values(x).min(axis=1)))
    scores.append(_lda_score(v0, v1, values))
    if logistic:
        def quadratic(x: NDArray[Any]) -> NDArray[np.float64]:
            v = values(x)
            return np.hstack([v, v**2])

        fitted = _logistic_score("logistic(x, x^2)", quadratic, v0, v1)
        if fitted is not None:
            scores.append(fitted)
    return scores


def _mixed_logistic(layout: OutputLayout, a0: NDArray[Any], a1: NDArray[Any]) -> list[Score]:
    codes = layout.atom_codes(np.concatenate([a0, a1]))
    keys = encode_rows(codes)
    uniq, counts = np.unique(keys, return_counts=True)
    top = uniq[np.argsort(counts)[::-1][:MAX_PATTERNS]]

    def featurize(x: NDArray[Any]) -> NDArray[np.float64]:
        c = layout.atom_codes(x)
        v = layout.continuous_part(x, c)
        onehot = (encode_rows(c)[:, None] == top[None, :]).astype(float)
        total = v.sum(axis=1, keepdims=True)
        return np.hstack([onehot, v, v**2, onehot * total, onehot * total**2])

    fitted = _logistic_score("logistic(pattern, values)", featurize, a0, a1)
    return [] if fitted is None else [fitted]


# ----------------------------------------------------------------------------------------------
# threshold selection


def _wilson(p: NDArray[np.float64], n: float, z: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * np.sqrt(np.maximum(p * (1 - p), 0.0) / n + z * z / (4 * n * n)) / denom
    return np.maximum(centre - half, 0.0), np.minimum(centre + half, 1.0)


# Selection-side shrinkage: each frequency is first moved one standard error towards the
# unfavourable side. Without it the argmax over thousands of thresholds lands on far-tail events
# whose few selection counts look extreme by chance (the winner's curse).
SELECTION_Z = 2.0


def _conservative_rates(c_num: NDArray[np.float64], c_den: NDArray[np.float64], n_sel: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    p_num, _ = _wilson(c_num / n_sel, n_sel, SELECTION_Z)
    _, p_den = _wilson(c_den / n_sel, n_sel, SELECTION_Z)
    return p_num, p_den


def predicted_bounds(c_num: NDArray[np.float64], c_den: NDArray[np.float64], n_sel: int, n_est: int, delta: float, z: float) -> NDArray[np.float64]:
    """Bound each event would give on ``n_est`` fresh samples, from shrunken selection frequencies."""
    p_num, p_den = _conservative_rates(c_num, c_den, n_sel)
    lo, _ = _wilson(p_num, n_est, z)
    _, hi = _wilson(p_den, n_est, z)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(np.maximum(lo - delta, 0.0)) - np.log(hi)
    return np.where(lo > delta, out, -np.inf)


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
    return thresholds[np.isfinite(thresholds)] if np.any(np.isfinite(thresholds)) else thresholds[:1]


def rank_candidates(
    scores: list[Score],
    b0: NDArray[Any],
    b1: NDArray[Any],
    *,
    n_est: int,
    delta: float,
    z: float,
) -> tuple[list[Candidate], list[Candidate]]:
    """Best (score, threshold, side, numerator) candidates per score, best first.

    Returns two lists: ranked by the predicted epsilon bound, and by the predicted GDP mu.
    Each score is evaluated and sorted once.
    """
    by_epsilon: list[Candidate] = []
    by_gdp: list[Candidate] = []
    n_sel = len(b0)
    for score in scores:
        s0 = np.sort(score(b0))
        s1 = np.sort(score(b1))
        t = _threshold_grid(s0, s1)
        le0 = np.searchsorted(s0, t, side="right").astype(float)
        le1 = np.searchsorted(s1, t, side="right").astype(float)
        gt0, gt1 = n_sel - le0, len(s1) - le1
        options = [(True, 0, gt0, gt1), (True, 1, gt1, gt0), (False, 0, le0, le1), (False, 1, le1, le0)]
        for upper, numerator, c_num, c_den in options:
            for objective, out in ((predicted_bounds(c_num, c_den, n_sel, n_est, delta, z), by_epsilon),
                                   (predicted_gdp(c_num, c_den, n_sel, n_est, z), by_gdp)):
                i = int(np.argmax(objective))
                if math.isfinite(float(objective[i])):
                    out.append(Candidate(score, float(t[i]), upper, numerator, float(objective[i])))
    by_epsilon.sort(key=lambda c: -c.predicted)
    by_gdp.sort(key=lambda c: -c.predicted)
    return by_epsilon, by_gdp
