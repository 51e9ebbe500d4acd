"""The pattern-value likelihood-ratio family: which entries are atoms, and how large the others are, jointly.

A mixed output (a sparse vector that releases its noisy answers [LSL17, Alg. 3], a noisy maximum with
a ⊥ flag) is an *atom pattern* (which entries are point masses, and which) with released values on the
entries that are not. Its likelihood ratio is the pattern's ratio times the ratio of the values'
densities *given the pattern*, and the second factor is not a shift of one law: for Alg. 3 it is
``R_h(v) * Gamma_B(v - T)`` [LSL17, proof of Thm 2, with the released value in place of ⊤], where the
threshold noise makes ``Gamma_B`` largest for low released values, so the most telling outputs are
"query ``h`` answered, with a value below a cut that depends on ``h``", spread over several patterns.
The other families see one factor at a time: ``atom pattern`` the first, ``value within pattern`` one
pattern's values, ``patterns x value`` coarse bins of the values, ``transcript llr`` one column at a time.

This family estimates the joint log-likelihood ratio on the training part of the selection split:

* per frequent pattern (at least ``MIN_PATTERN_ROWS`` training rows over both datasets, at most
  ``MAX_FITTED_PATTERNS`` patterns), a logistic regression of the dataset on a piecewise-linear basis
  (hinges at the pattern's pooled quantiles ``KNOT_QUANTILES``) of the sum, the smallest and the
  largest of its released values (the value itself for one). Fitted on that pattern's rows of both
  datasets, with an unpenalised intercept, its log-odds is the log of
  ``n0 P_0(pattern, value) / (n1 P_1(pattern, value))``: the joint ratio, pattern included;
* the other patterns get their smoothed frequency log-ratio (as :func:`~.score.category_score`);
* the columns that only ever take atom values (the discrete half of a parallel composition) are
  read as one more pattern and their log-ratio added (independent halves multiply their ratios).

Like every family it is fitted on the selection split only; the threshold events on its score are
ranked on the ranking rows (:mod:`.ranking`) and evaluated on the estimation split inside the
Bonferroni count of :mod:`.runner`.

References
----------
.. [LSL17] M. Lyu, D. Su and N. Li. Understanding the sparse vector technique for differential
   privacy. PVLDB 10(6), 2017.
.. [BSBV21] B. Bichsel, S. Steffen, I. Bogunovic and M. Vechev. DP-Sniper: black-box discovery
   of differential privacy violations using classifiers. IEEE S&P 2021 (a classifier's log-odds
   as the attack's score).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.auditor.features import OutputLayout, encode_rows
from dpaudit.auditor.score import Score

__all__ = ["pattern_value_scores"]

#: Training rows (both datasets) a pattern needs before its values are fitted.
MIN_PATTERN_ROWS = 200
#: Patterns with released values whose values are fitted, the most frequent first.
MAX_FITTED_PATTERNS = 64
#: Pooled quantiles of a pattern's features where the piecewise-linear basis bends.
KNOT_QUANTILES = (0.02, 0.1, 0.25, 0.5, 0.75, 0.9, 0.98)
#: Ridge penalty of the per-pattern logistic fits (standardised features).
RIDGE = 1e-3
#: Rows featurised at once when scoring.
CHUNK_ROWS = 1 << 16

LogisticFit = Callable[[NDArray[np.float64], int, float], NDArray[np.float64]]
"""``fit(z, n0, ridge) -> (w, b)``: a ridge logistic regression, class +1 = the first ``n0`` rows of ``z``."""


@dataclass(frozen=True)
class _PatternFit:
    """The fitted log-ratio of one pattern's values: features, their knots, the standardisation, the weights."""

    features: tuple[int, ...]  # indices into (sum, min, max)
    knots: tuple[NDArray[np.float64], ...]
    mean: NDArray[np.float64]
    std: NDArray[np.float64]
    coef: NDArray[np.float64]
    bias: float


def _value_features(values: NDArray[np.float64], continuous: NDArray[np.bool_]) -> NDArray[np.float64]:
    """``(sum, min, max)`` of each row's continuous entries (0 where a row has none)."""
    any_value = continuous.any(axis=1)
    total = np.where(continuous, values, 0.0).sum(axis=1)
    low = np.where(any_value, np.where(continuous, values, np.inf).min(axis=1), 0.0)
    high = np.where(any_value, np.where(continuous, values, -np.inf).max(axis=1), 0.0)
    return np.column_stack([total, low, high])


def _basis(f: NDArray[np.float64], features: tuple[int, ...], knots: tuple[NDArray[np.float64], ...]) -> NDArray[np.float64]:
    """Piecewise-linear basis: each feature and its hinges ``max(f - knot, 0)``."""
    parts = []
    for j, kn in zip(features, knots, strict=True):
        col = f[:, j : j + 1]
        parts.append(col)
        parts.append(np.maximum(col - kn[None, :], 0.0))
    return np.hstack(parts)


def _fit_pattern(f0: NDArray[np.float64], f1: NDArray[np.float64], n_values: int, fit: LogisticFit) -> _PatternFit | None:
    features = (0,) if n_values == 1 else (0, 1, 2)
    pooled = np.concatenate([f0, f1])
    knots = tuple(np.unique(np.quantile(pooled[:, j], KNOT_QUANTILES)) for j in features)
    z = _basis(pooled, features, knots)
    mean = z.mean(axis=0)
    std = z.std(axis=0)
    std[std == 0] = 1.0
    w = fit((z - mean) / std, len(f0), RIDGE)
    if not np.all(np.isfinite(w)):
        return None
    return _PatternFit(features, knots, mean, std, np.asarray(w[:-1], dtype=float), float(w[-1]))


def _log_ratio_of_counts(c0: NDArray[np.float64], c1: NDArray[np.float64], n0: int, n1: int) -> NDArray[np.float64]:
    # add-1/2 smoothing keeps patterns seen on one side only finite (as category_score)
    return np.log((c0 + 0.5) / (n0 + 1.0)) - np.log((c1 + 0.5) / (n1 + 1.0))


class _Model:
    """The fitted joint log-ratio of one group of columns (patterns, and values within the frequent ones)."""

    def __init__(self, layout: OutputLayout, columns: NDArray[np.int64], a0: NDArray[Any], a1: NDArray[Any],
                 fit: LogisticFit | None) -> None:
        self.sub = OutputLayout(layout.kind, int(columns.size), tuple(layout.atoms[j] for j in columns))
        self.columns = columns
        k0, c0, v0 = self._read(a0)
        k1, c1, v1 = self._read(a1)
        n0, n1 = len(a0), len(a1)
        self.keys, inverse = np.unique(np.concatenate([k0, k1]), return_inverse=True)
        counts0 = np.bincount(inverse[:n0], minlength=self.keys.size).astype(float)
        counts1 = np.bincount(inverse[n0:], minlength=self.keys.size).astype(float)
        self.table = _log_ratio_of_counts(counts0, counts1, n0, n1)
        self.fits: dict[int, _PatternFit] = {}
        if fit is None:
            return
        codes = np.concatenate([c0, c1])
        n_values = (codes == 0).sum(axis=1)
        total = counts0 + counts1
        order = np.argsort(-total, kind="stable")
        f0, f1 = _value_features(v0, c0 == 0), _value_features(v1, c1 == 0)
        i0, i1 = inverse[:n0], inverse[n0:]
        for p in order[:MAX_FITTED_PATTERNS]:
            if total[p] < MIN_PATTERN_ROWS:
                break
            rows = np.flatnonzero(inverse == p)
            k = int(n_values[rows[0]])
            if k == 0 or min(counts0[p], counts1[p]) < 2:
                continue
            fitted = _fit_pattern(f0[i0 == p], f1[i1 == p], k, fit)
            if fitted is not None:
                self.fits[int(p)] = fitted

    def _read(self, x: NDArray[Any]) -> tuple[NDArray[np.uint64], NDArray[np.int64], NDArray[np.float64]]:
        part = np.asarray(x)[:, self.columns]
        codes = self.sub.atom_codes(part)
        return encode_rows(codes), codes, self.sub.continuous_part(part, codes)

    def __call__(self, x: NDArray[Any]) -> NDArray[np.float64]:
        keys, codes, values = self._read(x)
        idx = np.minimum(np.searchsorted(self.keys, keys), self.keys.size - 1)
        known = self.keys[idx] == keys
        out = np.where(known, self.table[idx], 0.0)  # unseen patterns are neutral
        if self.fits:
            feats = _value_features(values, codes == 0)
            for p, pf in self.fits.items():
                rows = np.flatnonzero(known & (idx == p))
                if rows.size:
                    z = (_basis(feats[rows], pf.features, pf.knots) - pf.mean) / pf.std
                    out[rows] = z @ pf.coef + pf.bias
        return out


def pattern_value_scores(layout: OutputLayout, a0: NDArray[Any], a1: NDArray[Any], fit: LogisticFit) -> list[Score]:
    """The family's score fitted on the training rows ``a0``, ``a1`` (nothing unless the layout is mixed).

    ``fit`` is the ridge logistic regression the family uses (``dpaudit.auditor.attacks``' own).
    """
    if layout.kind != "mixed" or min(len(a0), len(a1)) < 2:
        return []
    codes = layout.atom_codes(np.concatenate([a0, a1]))
    atomic = np.flatnonzero(np.all(codes > 0, axis=0))
    rest = np.flatnonzero(~np.all(codes > 0, axis=0))
    if rest.size == 0:
        return []
    models = [_Model(layout, rest, a0, a1, fit)]
    if atomic.size:
        models.append(_Model(layout, atomic, a0, a1, None))
    if not models[0].fits:
        return []  # no pattern with enough values: the pattern families already cover it

    def score(x: NDArray[Any]) -> NDArray[np.float64]:
        out = np.empty(len(x))
        for start in range(0, len(x), CHUNK_ROWS):
            part = x[start : start + CHUNK_ROWS]
            out[start : start + CHUNK_ROWS] = sum(m(part) for m in models)
        return out

    label = f"pattern value llr ({len(models[0].fits)} patterns fitted" + (", + discrete columns)" if atomic.size else ")")
    return [Score(label, score)]
