"""Attacks: score functions fitted on the selection split, and threshold events chosen on it.

Every attack reduces an output to a real *score*; an *event* is ``{score > t}`` or
``{score <= t}``. The families (DP-Sniper-style [BSBV21] where noted):

* ``coordinate[j]``: the raw value of column ``j`` (for scalars, the output itself);
* ``sum`` and ``lda``: linear projections (all-ones, and Fisher's discriminant direction);
* ``logistic``: logistic regression on engineered features [BSBV21, Sec. V], fitted with
  scipy's L-BFGS on half of the selection split;
* ``category``: the estimated log-likelihood ratio of each distinct output (or, for mixed
  outputs, of each pattern of atoms), for discrete outputs [DWWZK18 event search];
* per-column families for vector outputs (:mod:`.columns`), the summed per-column
  log-likelihood ratio of a transcript of releases (:mod:`.transcript_llr`) and, when asked for,
  bit-level families for floating-point outputs (:mod:`.bits`).

Each family is an :class:`AttackFamily` (its name, the layouts it reads, its fit) in the registry
:data:`FAMILIES`; the fitted score functions and the category score they share are in the leaf
module :mod:`.score`. Threshold events on these scores are ranked in :mod:`.ranking`. Nothing here
touches the estimation split.

References
----------
.. [BSBV21] B. Bichsel, S. Steffen, I. Bogunovic and M. Vechev. DP-Sniper: black-box discovery
   of differential privacy violations using classifiers. IEEE S&P 2021.
.. [DWWZK18] Z. Ding, Y. Wang, G. Wang, D. Zhang and D. Kifer. Detecting violations of
   differential privacy. CCS 2018.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, special

from dpaudit.auditor.bits import bit_scores
from dpaudit.auditor.columns import column_scores
from dpaudit.auditor.features import OutputLayout, encode_rows
from dpaudit.auditor.score import Family, Score, category_score
from dpaudit.auditor.transcript_llr import transcript_scores

__all__ = ["FAMILIES", "AttackFamily", "Score", "category_score", "fit_scores", "score_families"]

MAX_COORDINATE_SCORES = 16
MAX_PATTERNS = 16
MAX_TRAIN_ROWS = 40_000
CHUNK_ROWS = 1024  # rows featurized at once: the features of all rows need not exist together


# ----------------------------------------------------------------------------------------------
# score families


def _coordinate(j: int, values: Callable[[NDArray[Any]], NDArray[np.float64]] | None = None, label: str = "coordinate") -> Score:
    if values is None:
        return Score(f"{label}[{j}]", lambda x: np.asarray(x[:, j], dtype=float))
    return Score(f"{label}[{j}]", lambda x: values(x)[:, j])


def _standardize_in_place(z: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Centre and scale the columns of ``z`` in place; return their means and scales.

    The scale of a constant column is 1. In place: the feature matrix is the largest array of an
    audit's selection step.
    """
    mean = z.mean(axis=0)
    z -= mean
    std = np.sqrt(np.einsum("ij,ij->j", z, z) / len(z))  # the column norms, without an n x d temporary
    std[std == 0] = 1.0
    z /= std
    return mean, std


def _fit_logistic(z: NDArray[np.float64], n0: int, ridge: float = 1e-4) -> NDArray[np.float64]:
    """Weights ``(w, b)`` of a ridge-regularised logistic regression.

    Class +1 is dataset 0: the first ``n0`` rows of ``z``.
    """
    y = np.concatenate([np.ones(n0), -np.ones(len(z) - n0)])

    def objective(w: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        margin = y * (z @ w[:-1] + w[-1])
        loss = float(np.mean(np.logaddexp(0.0, -margin))) + 0.5 * ridge * float(w[:-1] @ w[:-1])
        coef = -y * special.expit(-margin)
        grad = np.empty_like(w)
        grad[:-1] = z.T @ coef / len(y) + ridge * w[:-1]
        grad[-1] = coef.sum() / len(y)
        return loss, grad

    res = optimize.minimize(objective, np.zeros(z.shape[1] + 1), jac=True, method="L-BFGS-B", options={"maxiter": 100})
    return np.asarray(res.x, dtype=float)


def _features_into(featurize: Callable[[NDArray[Any]], NDArray[np.float64]], x: NDArray[Any],
                   out: NDArray[np.float64], offset: int) -> None:
    """``featurize`` of the rows of ``x`` into ``out`` from row ``offset``, ``CHUNK_ROWS`` rows at a time.

    The features of all rows at once would be a second copy of the largest array.
    """
    for start in range(0, len(x), CHUNK_ROWS):
        part = featurize(x[start : start + CHUNK_ROWS])
        out[offset + start : offset + start + len(part)] = part


def _logistic_score(name: str, featurize: Callable[[NDArray[Any]], NDArray[np.float64]], a0: NDArray[Any], a1: NDArray[Any]) -> Score | None:
    a0, a1 = a0[:MAX_TRAIN_ROWS], a1[:MAX_TRAIN_ROWS]
    z = np.empty((len(a0) + len(a1), featurize(a0[:1]).shape[1]))  # both datasets' features, stacked
    _features_into(featurize, a0, z, 0)
    _features_into(featurize, a1, z, len(a0))
    mean, std = _standardize_in_place(z)
    w = _fit_logistic(z, len(a0))
    del z
    if not np.all(np.isfinite(w)):
        return None
    coef, bias = w[:-1] / std, w[-1] - float((mean / std) @ w[:-1])

    def score(x: NDArray[Any]) -> NDArray[np.float64]:
        out = np.empty(len(x))
        for start in range(0, len(x), CHUNK_ROWS):
            out[start : start + CHUNK_ROWS] = featurize(x[start : start + CHUNK_ROWS]) @ coef + bias
        return out

    return Score(name, score)


def _lda_score(v0: NDArray[np.float64], v1: NDArray[np.float64], values: Callable[[NDArray[Any]], NDArray[np.float64]]) -> Score:
    diff = v0.mean(axis=0) - v1.mean(axis=0)
    cov = 0.5 * (np.cov(v0, rowvar=False) + np.cov(v1, rowvar=False))
    cov = np.atleast_2d(cov) + 1e-9 * (np.trace(np.atleast_2d(cov)) / max(len(diff), 1) + 1e-12) * np.eye(len(diff))
    w = np.linalg.solve(cov, diff)
    return Score("lda", lambda x: values(x) @ w)


_BIG = 2.0**62


def _discrete_codes(x: NDArray[Any]) -> NDArray[np.int64]:
    """Integer codes of discrete outputs; float infinities get codes of their own.

    Integral floats beyond 2^62 in magnitude are clipped there (merging categories costs power,
    never validity: the score is fixed before the estimation split is read).
    """
    arr = np.asarray(x)
    if arr.dtype.kind != "f":
        return arr.astype(np.int64)
    clipped = np.clip(np.where(np.isfinite(arr), arr, 0.0), -_BIG, _BIG).astype(np.int64)
    return np.where(np.isposinf(arr), 2**62 + 1, np.where(np.isneginf(arr), -(2**62) - 1, clipped))


@dataclass(frozen=True)
class AttackFamily:
    """One attack family: the name users see, the outputs it reads, and how it fits its scores.

    Attributes
    ----------
    name : str
        The family's name: ``Score.family`` of its scores, and what ``fit_scores(only=...)`` selects.
    reads : Callable[[OutputLayout], bool]
        Whether the family applies to outputs of a layout.
    fit : Callable[[OutputLayout, NDArray, NDArray], list[Score]]
        Its score functions, fitted on the training rows ``(a0, a1)`` of the selection split.
    opt_in : bool
        Fitted only when asked for (the bit-level families: ``float_bits=True``).
    """

    name: str
    reads: Callable[[OutputLayout], bool] = field(repr=False)
    fit: Callable[[OutputLayout, NDArray[Any], NDArray[Any]], list[Score]] = field(repr=False)
    opt_in: bool = False

    def fitter(self, layout: OutputLayout) -> Family:
        """The fit of this family for ``layout``, as a function of the training rows ``(a0, a1)``."""
        return lambda a0, a1: self.fit(layout, a0, a1)


def _values(layout: OutputLayout) -> Callable[[NDArray[Any]], NDArray[np.float64]]:
    """The real values the vector families read: integer codes, the continuous part, or the output."""
    if layout.kind == "discrete":
        return lambda x: _discrete_codes(x).astype(float)  # finite even for infinite outputs
    if layout.kind == "mixed":
        return layout.continuous_part
    return lambda x: np.asarray(x, dtype=float)


def _fit_coordinates(layout: OutputLayout, a0: NDArray[Any], a1: NDArray[Any]) -> list[Score]:
    values, label = _values(layout), "coordinate" if layout.kind == "continuous" else "value"
    if layout.n_columns == 1:
        return [_coordinate(0, values, label)]
    return _coordinate_scores(layout.n_columns, values(a0), values(a1), values, label)


def _fit_lda(layout: OutputLayout, a0: NDArray[Any], a1: NDArray[Any]) -> list[Score]:
    values = _values(layout)
    v0, v1 = values(a0), values(a1)
    return [_lda_score(v0, v1, values)] if _all_finite(v0, v1) else []


def _fit_quadratic_logistic(layout: OutputLayout, a0: NDArray[Any], a1: NDArray[Any]) -> list[Score]:
    values = _values(layout)
    v0, v1 = values(a0), values(a1)
    if not _all_finite(v0, v1):
        return []

    def quadratic(x: NDArray[Any]) -> NDArray[np.float64]:
        v = values(x)  # the values of values are the values: the fit may be given either
        return np.hstack([v, v**2])

    fitted = _logistic_score("logistic(x, x^2)", quadratic, v0, v1)
    return [] if fitted is None else [fitted]


def _vector(layout: OutputLayout) -> bool:
    return layout.n_columns > 1


#: The attack families, in the order their scores are fitted and listed.
FAMILIES: tuple[AttackFamily, ...] = (
    AttackFamily("category", lambda layout: layout.kind == "discrete", lambda layout, a0, a1: _discrete_category(a0, a1)),
    AttackFamily("atom pattern", lambda layout: layout.kind == "mixed",
                 lambda layout, a0, a1: [category_score("atom pattern", layout.atom_codes, a0, a1, layout.describe_codes)]),
    AttackFamily("logistic(pattern, values)", lambda layout: layout.kind == "mixed", lambda layout, a0, a1: _mixed_logistic(layout, a0, a1)),
    AttackFamily("value", lambda layout: layout.kind in ("discrete", "mixed"), _fit_coordinates),
    AttackFamily("coordinate", lambda layout: layout.kind == "continuous", _fit_coordinates),
    AttackFamily("lda", _vector, _fit_lda),
    AttackFamily("logistic", lambda layout: _vector(layout) and layout.kind != "mixed", _fit_quadratic_logistic),
    AttackFamily("columns", lambda layout: _vector(layout) or layout.kind == "mixed", column_scores),
    AttackFamily("transcript llr", lambda layout: _vector(layout) or layout.kind == "mixed", transcript_scores),
    AttackFamily("float bits", lambda layout: True, bit_scores, opt_in=True),
)


def score_families(layout: OutputLayout, *, float_bits: bool = False) -> dict[str, Family]:
    """The attack families for ``layout``: name -> function fitting that family's scores on (a0, a1).

    ``float_bits`` adds the bit-level families of :mod:`.bits` for floating-point outputs.
    """
    return {family.name: family.fitter(layout) for family in FAMILIES
            if family.reads(layout) and (float_bits or not family.opt_in)}


def fit_scores(
    layout: OutputLayout, a0: NDArray[Any], a1: NDArray[Any], *, float_bits: bool = False, only: set[str] | None = None
) -> list[Score]:
    """Fit the score functions for ``layout`` on the training part ``a0``, ``a1`` of the selection split.

    ``only`` restricts the fit to the named families (see :data:`FAMILIES`).
    """
    scores: list[Score] = []
    for family, fit in score_families(layout, float_bits=float_bits).items():
        if only is None or family in only:
            scores.extend(replace(score, family=family) for score in fit(a0, a1))
    return scores


def _discrete_category(a0: NDArray[Any], a1: NDArray[Any]) -> list[Score]:
    n_categories = len(np.unique(encode_rows(_discrete_codes(np.concatenate([a0, a1])))))
    if n_categories > max(2, (len(a0) + len(a1)) // 4):
        return []  # nearly every output unique: frequencies carry no information
    return [category_score("category", _discrete_codes, a0, a1)]


def _all_finite(*arrays: NDArray[np.float64]) -> bool:
    return all(bool(np.isfinite(a).all()) for a in arrays)


def _coordinate_scores(
    k: int, v0: NDArray[np.float64], v1: NDArray[np.float64], values: Callable[[NDArray[Any]], NDArray[np.float64]], label: str
) -> list[Score]:
    with np.errstate(all="ignore"):  # infinite entries make some separations NaN: ranked last
        spread = np.sqrt(0.5 * (v0.var(axis=0) + v1.var(axis=0))) + 1e-300
        separation = np.nan_to_num(np.abs(v0.mean(axis=0) - v1.mean(axis=0)) / spread, nan=-1.0)
    scores = [_coordinate(int(j), values, label) for j in np.argsort(separation)[::-1][:MAX_COORDINATE_SCORES]]
    scores.append(Score("sum", lambda x: values(x).sum(axis=1)))
    scores.append(Score("max", lambda x: values(x).max(axis=1)))
    scores.append(Score("min", lambda x: values(x).min(axis=1)))
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
