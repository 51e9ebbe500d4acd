"""Per-column attack families for vector outputs: each column read on its own, then combined.

Whole-row families (a category per output pattern, a linear projection) lose information when a
vector mixes columns of different kinds or when many columns each carry a little: a sparse
vector run in parallel with another (DP-Sniper's SVT34Parallel [BSBV21, Sec. VI]), twenty
Laplace releases of one value, RAPPOR's Bloom-filter bits. These families read every column
separately, fitted on the training part of the selection split:

* ``columns llr``: naive Bayes. Per column, a smoothed log-ratio of the two datasets'
  frequencies of each atom (a flag per discrete value) and of each of ``BINS`` quantile bins of
  the continuous values; the score is the sum over the columns whose frequencies differ
  significantly (a chi-square test on the training rows at ``COLUMN_P``). For independent
  columns this is the likelihood ratio itself;
* ``sign count``: per column, a flag for being above the midpoint of the two datasets' medians,
  weighted +1 or -1 by which dataset is more often above, summed. Three weightings: the
  estimated sign of every column, only the significant columns, and one common sign. For many
  columns with a small equal shift (Laplace in parallel) the count of columns above their
  midpoint is close to the likelihood ratio, where a sum of values is not (its tails carry no
  information);
* ``discrete columns``, ``patterns x value`` and ``column groups llr``: for mixed outputs, a
  category per pattern of the columns that only ever take atom values (the SVT4 half of
  SVT34Parallel), a category per (atom pattern, binned sum of the values) of the other columns
  (which query was answered with a noisy value, and how large the value was: SVT3's leak), and
  the sum of the two log-ratios.

References
----------
.. [BSBV21] B. Bichsel, S. Steffen, I. Bogunovic and M. Vechev. DP-Sniper: black-box discovery
   of differential privacy violations using classifiers. IEEE S&P 2021.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from dpaudit.auditor.features import OutputLayout, encode_rows
from dpaudit.auditor.score import Score, category_score

__all__ = ["column_scores"]

BINS = 16
MAX_VALUES_AS_BINS = 32
MAX_COLUMNS = 256
COLUMN_P = 1e-3
MAX_VALUE_PATTERNS = 8
MIN_PATTERN_ROWS = 200
SIGN_Z = 2.0
VALUE_QUANTILES = np.array([0.001, 0.003, 0.01, 0.03, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.97, 0.99, 0.997, 0.999])


def _column_bins(layout: OutputLayout, train: NDArray[Any]) -> Callable[[NDArray[Any]], NDArray[np.int64]]:
    """A map from rows to per-column bin indices, offset so that all columns share one table."""
    k = layout.n_columns
    x = np.asarray(train)
    if layout.kind == "discrete":
        edges_list = []
        for j in range(k):
            values = np.unique(x[:, j])
            if values.size <= MAX_VALUES_AS_BINS:
                edges_list.append(("values", values.astype(float)))
            else:
                edges_list.append(("quantiles", np.unique(np.quantile(x[:, j].astype(float), np.linspace(0, 1, BINS + 1)[1:-1]))))
        sizes = np.array([e.size + 1 for _, e in edges_list])
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])

        def discrete_bins(rows: NDArray[Any]) -> NDArray[np.int64]:
            r = np.asarray(rows, dtype=float)
            out = np.empty(r.shape, dtype=np.int64)
            for j, (kind, e) in enumerate(edges_list):
                if kind == "values":
                    idx = np.searchsorted(e, r[:, j])
                    known = (idx < e.size) & (e[np.minimum(idx, e.size - 1)] == r[:, j])
                    out[:, j] = np.where(known, idx, e.size)  # unseen values share the last bin
                else:
                    out[:, j] = np.searchsorted(e, r[:, j], side="right")
            return out + offsets

        return discrete_bins
    codes_train = layout.atom_codes(x) if layout.kind == "mixed" else np.zeros(x.shape, dtype=np.int64)
    n_atoms = np.array([len(a) for a in layout.atoms]) if layout.atoms else np.zeros(k, dtype=np.int64)
    values = np.where((codes_train == 0) & np.isfinite(x), x, np.nan).astype(float)
    has_values = ~np.all(np.isnan(values), axis=0)
    qs = np.zeros((BINS - 1, k))
    if has_values.any():  # quantile bins of the continuous entries, column by column
        qs[:, has_values] = np.nanquantile(values[:, has_values], np.linspace(0, 1, BINS + 1)[1:-1], axis=0)
    sizes = n_atoms + BINS + 1
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])

    def bins(rows: NDArray[Any]) -> NDArray[np.int64]:
        r = np.asarray(rows, dtype=float)
        codes = layout.atom_codes(r) if layout.kind == "mixed" else np.zeros(r.shape, dtype=np.int64)
        value_bin = np.empty(r.shape, dtype=np.int64)  # quantile bin of each entry
        for j in range(k):
            value_bin[:, j] = np.searchsorted(qs[:, j], r[:, j], side="left")
        return np.where(codes > 0, codes - 1, n_atoms + value_bin) + offsets

    return bins


def _naive_bayes(layout: OutputLayout, a0: NDArray[Any], a1: NDArray[Any]) -> list[Score]:

    bins = _column_bins(layout, np.concatenate([a0, a1]))
    i0, i1 = bins(a0), bins(a1)
    size = int(max(i0.max(), i1.max())) + 1
    n0 = np.bincount(i0.ravel(), minlength=size).astype(float)
    n1 = np.bincount(i1.ravel(), minlength=size).astype(float)
    llr = np.log((n0 + 0.5) / (len(a0) + 1.0)) - np.log((n1 + 0.5) / (len(a1) + 1.0))
    # per-column chi-square test of equal frequencies, on the training rows
    k = layout.n_columns
    keep = np.zeros(k, dtype=bool)
    lo = i0.min(axis=0)
    hi = np.maximum(i0.max(axis=0), i1.max(axis=0))
    for j in range(k):
        c0, c1 = n0[lo[j]: hi[j] + 1], n1[lo[j]: hi[j] + 1]
        used = (c0 + c1) > 0
        if np.count_nonzero(used) < 2:
            continue
        table = np.vstack([c0[used], c1[used]])
        expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / table.sum()
        chi2 = float(((table - expected) ** 2 / np.maximum(expected, 1e-300)).sum())
        keep[j] = stats.chi2.sf(chi2, table.shape[1] - 1) < COLUMN_P
    if not keep.any():
        return []
    weights = np.zeros(size)
    for col in np.flatnonzero(keep):
        weights[lo[col]: hi[col] + 1] = llr[lo[col]: hi[col] + 1]

    def score(x: NDArray[Any]) -> NDArray[np.float64]:
        idx = np.minimum(bins(x), size - 1)
        return weights[idx].sum(axis=1)

    return [Score(f"columns llr ({int(keep.sum())} of {k} columns)", score)]


def _sign_counts(layout: OutputLayout, a0: NDArray[Any], a1: NDArray[Any]) -> list[Score]:

    v0, v1 = np.asarray(a0, dtype=float), np.asarray(a1, dtype=float)
    with np.errstate(invalid="ignore"):
        mid = 0.5 * (np.median(v0, axis=0) + np.median(v1, axis=0))
    mid = np.where(np.isfinite(mid), mid, 0.0)
    f0, f1 = (v0 > mid).mean(axis=0), (v1 > mid).mean(axis=0)
    pooled = 0.5 * (f0 + f1)
    se = np.sqrt(np.maximum(pooled * (1 - pooled), 1e-12) * (1 / len(v0) + 1 / len(v1)))
    direction = np.sign(f0 - f1)
    common = np.sign((f0 - f1).sum()) * np.ones_like(direction)
    out: list[Score] = []
    for label, w in (("sign count", direction),
                     ("sign count (significant)", np.where(np.abs(f0 - f1) > SIGN_Z * se, direction, 0.0)),
                     ("sign count (common sign)", common)):
        if not np.any(w):
            continue

        def score(x: NDArray[Any], w: NDArray[np.float64] = w) -> NDArray[np.float64]:
            return (np.asarray(x, dtype=float) > mid) @ w

        out.append(Score(label, score))
    return out


def _mixed_groups(layout: OutputLayout, a0: NDArray[Any], a1: NDArray[Any]) -> list[Score]:
    """Category scores for a mixed layout's column groups, and their sum.

    The *atomic* group (columns that only ever take atom values) is read as a pattern; the
    *other* group as its atom pattern together with the quantile bin (``VALUE_QUANTILES``, finer
    in the tails) of the sum of its continuous entries: an estimate of the joint likelihood
    ratio of (which entries are continuous, how large they are). The two groups' log-ratios
    are added (naive Bayes across groups).
    """
    both = np.concatenate([a0, a1])
    codes = layout.atom_codes(both)
    atomic = np.flatnonzero(np.all(codes > 0, axis=0))
    rest = np.flatnonzero(~np.all(codes > 0, axis=0))
    scores: list[Score] = []
    if atomic.size and rest.size:
        def atomic_codes(x: NDArray[Any]) -> NDArray[np.int64]:
            return _atom_codes_of(layout, x, atomic)

        scores.append(category_score(f"discrete columns {_columns_text(atomic)}", atomic_codes, a0, a1))
    if rest.size:
        totals = layout.continuous_part(both)[:, rest].sum(axis=1)
        has_value = np.any(codes[:, rest] == 0, axis=1)
        if np.count_nonzero(has_value) >= 2 * len(VALUE_QUANTILES):
            edges = np.unique(np.quantile(totals[has_value], VALUE_QUANTILES))

            def rest_codes(x: NDArray[Any]) -> NDArray[np.int64]:
                c = _atom_codes_of(layout, x, rest)
                total = layout.continuous_part(np.asarray(x)[:, rest], c).sum(axis=1)
                value_bin = np.where(np.any(c == 0, axis=1), np.searchsorted(edges, total), -1)
                return np.column_stack([c, value_bin])

            scores.append(category_score(f"patterns x value {_columns_text(rest)}", rest_codes, a0, a1))
    if len(scores) == 2:
        first, second = scores
        scores.append(Score("column groups llr", lambda x: first(x) + second(x)))
    if rest.size:
        scores.extend(_value_within_pattern(layout, a0, a1, rest))
    return scores


def _value_within_pattern(layout: OutputLayout, a0: NDArray[Any], a1: NDArray[Any], rest: NDArray[np.int64]) -> list[Score]:
    """Per frequent atom pattern with a continuous entry: the sum of its values, NaN on other patterns.

    A threshold event on such a score is ``{pattern = p and value > t}`` (or ``<= t``): which query a
    sparse vector answered, and how far out its released value lies [LSL17, Alg. 3 leaks through
    the far tail of one answer's value]. The ranking scans the value itself, so the far tail is
    not cut into coarse bins as by ``patterns x value``; NaN rows belong to no event.
    """
    both = np.concatenate([a0, a1])
    codes = _atom_codes_of(layout, both, rest)
    with_value = np.any(codes == 0, axis=1)
    keys = encode_rows(codes[with_value])
    uniq, counts = np.unique(keys, return_counts=True)
    frequent = uniq[np.argsort(counts)[::-1][:MAX_VALUE_PATTERNS]]
    frequent = frequent[np.sort(counts)[::-1][: frequent.size] >= MIN_PATTERN_ROWS]
    out: list[Score] = []
    for key in frequent:
        example = codes[with_value][keys == key][0]

        def score(x: NDArray[Any], key: np.uint64 = key) -> NDArray[np.float64]:
            c = _atom_codes_of(layout, x, rest)
            total = layout.continuous_part(np.asarray(x)[:, rest], c).sum(axis=1)
            return np.where(encode_rows(c) == key, total, np.nan)

        out.append(Score(f"value within pattern {layout.describe_codes(_full_codes(layout, rest, example))}", score, smooth=True))
    return out


def _full_codes(layout: OutputLayout, columns: NDArray[np.int64], codes: NDArray[np.int64]) -> NDArray[np.int64]:
    """A row of codes for all columns from the codes of ``columns`` (others shown as their first atom)."""
    full = np.ones(layout.n_columns, dtype=np.int64)
    full[columns] = codes
    return full


def _atom_codes_of(layout: OutputLayout, x: NDArray[Any], columns: NDArray[np.int64]) -> NDArray[np.int64]:
    sub = OutputLayout(layout.kind, int(columns.size), tuple(layout.atoms[j] for j in columns))
    return sub.atom_codes(np.asarray(x)[:, columns])


def _columns_text(columns: NDArray[np.int64]) -> str:
    return "[" + ", ".join(str(int(j)) for j in columns[:6]) + (", ...]" if columns.size > 6 else "]")


def column_scores(layout: OutputLayout, a0: NDArray[Any], a1: NDArray[Any]) -> list[Score]:
    """The per-column families for ``layout`` (for one column, only the mixed layout's groups)."""
    if layout.n_columns > MAX_COLUMNS:
        return []
    scores: list[Score] = []
    if layout.n_columns >= 2:
        scores.extend(_naive_bayes(layout, a0, a1))
        scores.extend(_sign_counts(layout, a0, a1))
    if layout.kind == "mixed":
        scores.extend(_mixed_groups(layout, a0, a1))
    return scores
