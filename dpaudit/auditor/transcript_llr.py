"""The transcript likelihood-ratio family: one fitted log-likelihood ratio per column, summed.

A user-level algorithm observed through its *transcript* (every noisy release: each iterate, each
test outcome, each private range) releases a long vector whose columns are, on a worst-case pair,
separate noisy releases of one canary's contribution. For independent releases the likelihood
ratio of the whole vector is the product of the columns' ratios, so the optimal score is the sum
of the per-column log-likelihood ratios (Neyman-Pearson). Nasr et al. [NHSBT23] audit DP-SGD
this way when the adversary sees every update: the sum over steps of each update's projection on
the canary direction. Generic families miss it: a linear discriminant weighs Laplace tails
wrongly, quantile-binned naive Bayes (:mod:`.columns`) spends its training rows on 16 bin
frequencies per column and drops the columns whose shift is below a significance test, which is
every column when each step leaks a little.

This family fits a few numbers per column on the training part of the selection split:

* the **atoms** of a column (point masses: test outcomes, ⊥ flags, ranges on a grid, the public
  point returned on a halt) and the event "not an atom": a smoothed log-ratio of the two
  datasets' frequencies each;
* the **continuous values** of a column: a location shift under a Laplace model (medians, a pooled
  mean absolute deviation: log-ratio ``(|x - m_1| - |x - m_0|) / b``, clipped-linear) or a Gaussian
  model (means, a pooled variance: log-ratio linear in ``x``, the projection on the canary
  direction), the model chosen per column by the pooled training likelihood;
* every column's estimate is shrunk towards zero (positive-part James-Stein on its own z-score), so
  that the many columns that carry nothing add little noise to the sum.

Three scores: the per-column choice (``transcript llr``), and the sums with every continuous part
under one model (``transcript llr (gaussian)``: the sum of projections on the canary direction;
``transcript llr (laplace)``). Like every family they are fitted on the selection split only; the
threshold events on them are ranked on its ranking rows (:mod:`.ranking`) and evaluated on the
estimation split like any other candidate, inside the Bonferroni count of :mod:`.runner`.

References
----------
.. [NHSBT23] M. Nasr, J. Hayes, T. Steinke, B. Balle, F. Tramèr, M. Jagielski, N. Carlini and
   A. Terzis. Tight auditing of differentially private machine learning. USENIX Security 2023.
.. [NSTPC21] M. Nasr, S. Song, A. Thakurta, N. Papernot and N. Carlini. Adversary instantiation:
   lower bounds for differentially private machine learning. IEEE S&P 2021.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.auditor.features import OutputLayout

__all__ = ["ColumnModel", "fit_column_models", "transcript_scores"]

#: Continuous values per side a column needs before its location model is fitted.
MIN_VALUES = 20
#: Distinct values up to which a column of a discrete layout is read as categories.
MAX_CATEGORIES = 64
#: Columns read at most (a transcript of a few hundred releases is far below it).
MAX_COLUMNS = 4096


@dataclass(frozen=True)
class ColumnModel:
    """The fitted log-likelihood ratio of one column (dataset 0 over dataset 1).

    ``categories`` are the column's atoms (values) and ``category_llr`` their shrunk log-ratios;
    ``continuous_llr`` is the log-ratio of "not an atom"; ``law`` names the better-fitting continuous
    model (``"laplace"``, ``"gaussian"`` or ``""`` when the column has no continuous part fitted);
    ``laplace`` and ``gaussian`` hold each model's ``(location on d0, location on d1, scale)``,
    ``weight`` in ``[0, 1]`` the shrinkage of the continuous part and ``counts`` the continuous
    values it was fitted on (per side).
    """

    column: int
    categories: NDArray[np.float64]
    category_llr: NDArray[np.float64]
    continuous_llr: float
    law: str
    weight: float
    laplace: tuple[float, float, float]
    gaussian: tuple[float, float, float]
    counts: tuple[int, int]


def _smoothed_log_ratio(c0: NDArray[np.float64], c1: NDArray[np.float64], n0: int, n1: int) -> NDArray[np.float64]:
    """Shrunk ``log((c0 + 1/2)/(n0 + 1)) - log((c1 + 1/2)/(n1 + 1))`` per category.

    Each log-ratio is multiplied by ``max(0, 1 - se^2 / llr^2)`` with ``se^2 = 1/(c0 + 1/2) + 1/(c1 + 1/2)``
    (the delta method's variance of a log-ratio of counts): a category seen a handful of times on
    one side only contributes little.
    """
    llr = np.log((c0 + 0.5) / (n0 + 1.0)) - np.log((c1 + 0.5) / (n1 + 1.0))
    se2 = 1.0 / (c0 + 0.5) + 1.0 / (c1 + 0.5)
    with np.errstate(divide="ignore", invalid="ignore"):
        shrink = np.where(llr != 0.0, np.maximum(0.0, 1.0 - se2 / (llr * llr)), 0.0)
    return llr * shrink


def _location_models(v0: NDArray[np.float64], v1: NDArray[np.float64]) -> tuple[tuple[float, float, float], tuple[float, float, float], str, float]:
    """Laplace ``(m0, m1, b)`` and Gaussian ``(mu0, mu1, s)`` fits, the better law, and its shrinkage weight."""
    n0, n1 = len(v0), len(v1)
    m0, m1 = float(np.median(v0)), float(np.median(v1))
    b = float((np.abs(v0 - m0).sum() + np.abs(v1 - m1).sum()) / (n0 + n1))
    mu0, mu1 = float(v0.mean()), float(v1.mean())
    s = float(np.sqrt((((v0 - mu0) ** 2).sum() + ((v1 - mu1) ** 2).sum()) / (n0 + n1)))
    if not (b > 0.0 and s > 0.0 and np.isfinite(b) and np.isfinite(s)):
        return (m0, m1, b), (mu0, mu1, s), "", 0.0
    # mean log-likelihood per value of each law (with its own fitted location on each side)
    ll_laplace = -np.log(2.0 * b) - 1.0
    ll_gauss = -0.5 * np.log(2.0 * np.pi * s * s) - 0.5
    law = "laplace" if ll_laplace >= ll_gauss else "gaussian"
    shift, spread = (m0 - m1, b) if law == "laplace" else (mu0 - mu1, s)
    # the sample median of a Laplace law has variance b^2/n, the mean of a Gaussian one s^2/n
    se2 = spread * spread * (1.0 / n0 + 1.0 / n1)
    weight = max(0.0, 1.0 - se2 / (shift * shift)) if shift != 0.0 else 0.0
    return (m0, m1, b), (mu0, mu1, s), law, weight


def fit_column_models(layout: OutputLayout, a0: NDArray[Any], a1: NDArray[Any]) -> list[ColumnModel]:
    """One :class:`ColumnModel` per column, fitted on the training rows ``a0``, ``a1`` of the selection split."""
    x0, x1 = np.asarray(a0, dtype=float), np.asarray(a1, dtype=float)
    n0, n1 = len(x0), len(x1)
    if layout.kind == "mixed":
        codes0, codes1 = layout.atom_codes(a0), layout.atom_codes(a1)
    else:
        codes0, codes1 = np.zeros(x0.shape, dtype=np.int64), np.zeros(x1.shape, dtype=np.int64)
    models = []
    for j in range(layout.n_columns):
        col0, col1 = x0[:, j], x1[:, j]
        if layout.kind == "mixed":
            atoms = layout.atoms[j]
            k0, k1 = codes0[:, j], codes1[:, j]
        elif layout.kind == "discrete":
            atoms = np.unique(np.concatenate([col0, col1]))
            if atoms.size > MAX_CATEGORIES:
                atoms = np.empty(0)
            # every training value is one of the atoms: searchsorted finds it exactly
            k0 = np.searchsorted(atoms, col0) + 1 if atoms.size else np.zeros(n0, dtype=np.int64)
            k1 = np.searchsorted(atoms, col1) + 1 if atoms.size else np.zeros(n1, dtype=np.int64)
        else:
            atoms = np.empty(0)
            k0, k1 = np.zeros(n0, dtype=np.int64), np.zeros(n1, dtype=np.int64)
        size = atoms.size + 1
        c0 = np.bincount(k0, minlength=size).astype(float)
        c1 = np.bincount(k1, minlength=size).astype(float)
        llr = _smoothed_log_ratio(c0, c1, n0, n1)
        v0 = col0[(k0 == 0) & np.isfinite(col0)]
        v1 = col1[(k1 == 0) & np.isfinite(col1)]
        lap, gau, law, weight = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), "", 0.0
        if len(v0) >= MIN_VALUES and len(v1) >= MIN_VALUES:
            lap, gau, law, weight = _location_models(v0, v1)
        models.append(ColumnModel(j, np.asarray(atoms, dtype=float), llr[1:], float(llr[0]), law, weight, lap, gau,
                                  (len(v0), len(v1))))
    return _pooled(models)


def _shrink_to_mean(values: NDArray[np.float64], se2: NDArray[np.float64]) -> NDArray[np.float64]:
    """Empirical-Bayes estimates of ``values`` (variances ``se2``) under a normal prior fitted across them.

    The prior's mean is the precision-weighted mean, its variance ``tau^2`` the method-of-moments
    excess of the spread over the sampling variance (floored at 0); each value moves towards the
    mean by ``se2 / (se2 + tau^2)`` [Efron and Morris 1975]. Identical columns are pooled fully,
    columns that differ by much more than their noise are left alone.
    """
    if values.size < 3:
        return values
    w = 1.0 / se2
    mean = float((w * values).sum() / w.sum())
    tau2 = max(0.0, float(((values - mean) ** 2).mean() - se2.mean()))
    return mean + (tau2 / (tau2 + se2)) * (values - mean)


def _pooled(models: list[ColumnModel]) -> list[ColumnModel]:
    """Shrink every column's fitted locations towards the others' (same law), one location at a time.

    A transcript of identical steps (a worst-case pair with a linear loss) has identical columns,
    and their pooled locations place the clipped-linear log-ratios' kinks where they belong; with
    per-column medians alone the kinks scatter by ``b / sqrt(n)`` and blur the lattice of the sum.
    """
    out = list(models)
    for law in ("laplace", "gaussian"):
        idx = [i for i, m in enumerate(models) if m.law]
        if len(idx) < 3:
            continue
        params = np.array([getattr(models[i], law) for i in idx])
        counts = np.array([models[i].counts for i in idx], dtype=float)
        loc0 = _shrink_to_mean(params[:, 0], params[:, 2] ** 2 / counts[:, 0])
        loc1 = _shrink_to_mean(params[:, 1], params[:, 2] ** 2 / counts[:, 1])
        for k, i in enumerate(idx):
            shrunk: dict[str, Any] = {law: (float(loc0[k]), float(loc1[k]), float(params[k, 2]))}
            out[i] = replace(out[i], **shrunk)
    return out


def _continuous_llr(x: NDArray[np.float64], params: tuple[float, float, float], law: str) -> NDArray[np.float64]:
    loc0, loc1, scale = params
    if law == "laplace":
        # x is clipped to [min, max] of the locations first, where the log-ratio is flat: computed as
        # |x - loc1| - |x - loc0| the flat parts would carry rounding noise that depends on the low-order
        # bits of x, and a threshold on the plateau would read those bits (a floating-point attack the
        # default audit leaves to `float_bits`); clipped, the plateaus are exact constants
        y = np.clip(x, min(loc0, loc1), max(loc0, loc1))
        return (np.abs(y - loc1) - np.abs(y - loc0)) / scale
    # ((x - mu1)^2 - (x - mu0)^2) / (2 s^2) = (mu0 - mu1)(x - (mu0 + mu1)/2) / s^2: linear in x
    return (loc0 - loc1) * (x - 0.5 * (loc0 + loc1)) / (scale * scale)


def _score_fn(layout: OutputLayout, models: list[ColumnModel], force: str | None) -> Callable[[NDArray[Any]], NDArray[np.float64]]:
    """The summed log-likelihood ratio; ``force`` reads every continuous part with that law."""

    def score(x: NDArray[Any]) -> NDArray[np.float64]:
        xf = np.asarray(x, dtype=float)
        codes = layout.atom_codes(x) if layout.kind == "mixed" else None
        total = np.zeros(len(xf))
        for mdl in models:
            col = xf[:, mdl.column]
            if layout.kind == "mixed":
                code = codes[:, mdl.column]  # type: ignore[index]
            elif mdl.categories.size:
                idx = np.minimum(np.searchsorted(mdl.categories, col), mdl.categories.size - 1)
                code = np.where(mdl.categories[idx] == col, idx + 1, -1)  # -1: a value unseen in training
            else:
                code = np.zeros(len(col), dtype=np.int64)
            table = np.concatenate([[mdl.continuous_llr], mdl.category_llr])
            total += np.where(code >= 0, table[np.maximum(code, 0)], 0.0)
            if mdl.law and mdl.weight > 0.0:
                law = force or mdl.law
                params = mdl.laplace if law == "laplace" else mdl.gaussian
                finite = np.isfinite(col) & (code == 0)
                with np.errstate(invalid="ignore", over="ignore"):
                    part = _continuous_llr(np.where(finite, col, 0.0), params, law)
                total += np.where(finite, mdl.weight * part, 0.0)
        return total

    return score


def transcript_scores(layout: OutputLayout, a0: NDArray[Any], a1: NDArray[Any]) -> list[Any]:
    """The family's three scores fitted on training rows ``a0``, ``a1`` (nothing for over-wide outputs)."""
    from dpaudit.auditor.attacks import Score

    if layout.n_columns > MAX_COLUMNS:
        return []
    models = fit_column_models(layout, a0, a1)
    informative = [m for m in models if (m.law and m.weight > 0.0) or np.any(m.category_llr != 0.0) or m.continuous_llr != 0.0]
    if not informative:
        return []
    used = f"{len(informative)} of {layout.n_columns} columns"
    out = [Score(f"transcript llr ({used})", _score_fn(layout, informative, None))]
    if any(m.law for m in informative):
        out.append(Score(f"transcript llr (gaussian, {used})", _score_fn(layout, informative, "gaussian")))
        out.append(Score(f"transcript llr (laplace, {used})", _score_fn(layout, informative, "laplace")))
    return out
