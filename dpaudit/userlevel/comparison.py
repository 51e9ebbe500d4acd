"""Utility across papers on a problem with a known optimum: the instance, slope fits and the comparison plot.

The problem is the lower-bound instance of Ghazi et al. 2025 [GKLM25, Sec. 4]: the linear loss
``f(theta; x) = -<theta, x>`` over ``X = [-D, D]^d`` with features ``x = mu + U[-a, a]^d``, so
``F(theta) = -<theta, mu>``, ``x* = D sign(mu)`` and the excess risk is
``sum_j |mu_j| (D - sign(mu_j) theta_j)`` [GKLM25, Eq. (5)], linear in the distance to the optimum.
:func:`plot_excess_risk_comparison` puts Ghazi et al. 2025 and Levy et al. 2021 on the same data.

References
----------
.. [GKLM25] B. Ghazi, R. Kumar, D. Liu and P. Manurangsi. Linear-time user-level DP-SCO via robust
   statistics. arXiv:2502.08889v1, 2025. Thm 3.1, Sec. 4, Eq. (5).
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, Algorithm 4 (Phased ERM).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from dpaudit._validation import (
    argument_error,
    check_finite_array,
    check_int,
    check_probability,
)
from dpaudit.userlevel.ghazi2025.algorithms import RobustStatsLocalization, RobustStatsSGD
from dpaudit.userlevel.ghazi2025.utility import (
    LinearUtilityProblem,
    noise_free_output,
    theorem_3_1_rate,
)

__all__ = ["SlopeFit", "fit_log_slope", "plot_excess_risk_comparison"]




@dataclass(frozen=True)
class SlopeFit:
    """Least-squares fit of ``log y = a + b log x`` over all replicates: slope ``b``, its standard error, dof."""

    slope: float
    standard_error: float
    intercept: float
    dof: int

    def interval(self, failure_prob: float) -> tuple[float, float]:
        """Two-sided Student-t interval for the slope that misses with probability ``failure_prob``."""
        alpha = check_probability("SlopeFit.interval", "failure_prob", failure_prob, allow_zero=False)
        t = float(stats.t.isf(alpha / 2, self.dof))
        return self.slope - t * self.standard_error, self.slope + t * self.standard_error


def fit_log_slope(x: Sequence[float], samples: Sequence[Sequence[float]]) -> SlopeFit:
    """Fit the log-log slope of positive ``samples[i]`` (replicates) against ``x[i]``.

    Ordinary least squares of ``log y_ij`` on ``log x_i`` over every replicate; the slope's standard
    error is the regression's, ``s / sqrt(sum (log x_ij - mean)^2)`` with ``s^2`` the residual
    variance on ``N - 2`` degrees of freedom (exact Student-t coverage for Gaussian log-errors).
    """
    owner = "fit_log_slope"
    xs = check_finite_array(owner, "x", x, ndim=1)
    if xs.size < 2 or np.any(xs <= 0) or np.unique(xs).size < 2:
        raise argument_error(owner, "x", "at least two distinct positive values", x)
    if len(samples) != xs.size:
        raise argument_error(owner, "samples", f"one sequence of replicates per x ({xs.size})", len(samples))
    lx, ly = [], []
    for xi, rep in zip(xs, samples, strict=True):
        r = check_finite_array(owner, "samples", rep, ndim=1)
        if r.size < 1 or np.any(r <= 0):
            raise argument_error(owner, "samples", "positive replicates (a log-log fit)", rep)
        lx.extend([math.log(xi)] * r.size)
        ly.extend(np.log(r).tolist())
    lxa, lya = np.asarray(lx), np.asarray(ly)
    dof = lxa.size - 2
    if dof < 1:
        raise argument_error(owner, "samples", "at least three values in total (one degree of freedom)", len(lx))
    sxx = float(((lxa - lxa.mean()) ** 2).sum())
    slope = float(((lxa - lxa.mean()) * (lya - lya.mean())).sum() / sxx)
    intercept = float(lya.mean() - slope * lxa.mean())
    s2 = float(((lya - intercept - slope * lxa) ** 2).sum() / dof)
    return SlopeFit(slope, math.sqrt(s2 / sxx), intercept, dof)


@dataclass(frozen=True)
class _Series:
    label: str
    x: list[float] = field(default_factory=list)
    mean: list[float] = field(default_factory=list)
    se: list[float] = field(default_factory=list)


def plot_excess_risk_comparison(
    problem: LinearUtilityProblem,
    n_values: Sequence[int],
    m_items: int,
    *,
    rng: np.random.Generator,
    epsilon: float = 1.0,
    delta: float = 1e-3,
    trials: int = 10,
    datasets: int = 2,
    levy_factory: Callable[[LinearUtilityProblem, float, float], Any] | None = None,
) -> Any:
    """Excess risk against ``n`` for Ghazi et al. (safe preset: released and noise-free) and Levy et al.

    On the same datasets (``datasets`` draws per ``n``, ``trials`` mechanism runs each): the released
    output of :class:`RobustStatsLocalization` (safe preset), its noise-free counterpart and that of
    :class:`RobustStatsSGD` (:func:`noise_free_output`), Levy et al.'s Phased ERM (its output
    projected onto the box), the
    trivial level ``D sum |mu_j|``, and Theorem 3.1's rate with the proof's factors. matplotlib is
    imported here, not at module import.

    Returns
    -------
    matplotlib.figure.Figure
        The figure; ``fig.dpaudit_series`` holds the plotted numbers (label, x, mean, standard error).
    """
    # the object-oriented API: no pyplot state and no backend switch, so it works in scripts,
    # tests and notebooks alike
    from matplotlib.figure import Figure

    owner = "plot_excess_risk_comparison"
    ns = [check_int(owner, "n_values", v, minimum=2) for v in n_values]
    m = check_int(owner, "m_items", m_items, minimum=1)
    trials = check_int(owner, "trials", trials, minimum=2)
    datasets = check_int(owner, "datasets", datasets, minimum=1)
    if levy_factory is None:
        levy_factory = _default_levy
    loss = problem.loss
    ghazi = RobustStatsLocalization(loss, epsilon, delta, radius=problem.radius)
    ghazi_sgd = RobustStatsSGD(loss, epsilon, delta, radius=problem.radius)
    series = {k: _Series(k) for k in ("Ghazi et al. 2025 (released)", "Ghazi et al. 2025 (noise removed)",
                                       "Ghazi et al. 2025 Alg. 1 (noise removed)",
                                       "Levy et al. 2021 Phased ERM (released)")}
    for n in ns:
        vals: dict[str, list[float]] = {k: [] for k in series}
        for _ in range(datasets):
            data = problem.sample(n, m, rng=rng)
            vals["Ghazi et al. 2025 (released)"].extend(problem.excess_risk(ghazi.sample(data, trials, rng=rng)).tolist())
            xbar, _ = noise_free_output(ghazi, data)
            vals["Ghazi et al. 2025 (noise removed)"].append(float(problem.excess_risk(xbar)))
            xbar1, _ = noise_free_output(ghazi_sgd, data)
            vals["Ghazi et al. 2025 Alg. 1 (noise removed)"].append(float(problem.excess_risk(xbar1)))
            levy = levy_factory(problem, epsilon, delta)
            vals["Levy et al. 2021 Phased ERM (released)"].extend(problem.excess_risk(levy.sample(data, trials, rng=rng)).tolist())
        for k, v in vals.items():
            arr = np.asarray(v)
            series[k].x.append(float(n))
            series[k].mean.append(float(arr.mean()))
            series[k].se.append(float(arr.std(ddof=1) / math.sqrt(arr.size)) if arr.size > 1 else 0.0)
    fig = Figure(figsize=(7.0, 4.6))
    ax = fig.subplots()
    markers = {"Ghazi et al. 2025 (released)": "o", "Ghazi et al. 2025 (noise removed)": "s",
               "Ghazi et al. 2025 Alg. 1 (noise removed)": "D", "Levy et al. 2021 Phased ERM (released)": "^"}
    for k, s in series.items():
        ax.errorbar(s.x, s.mean, yerr=s.se, marker=markers[k], capsize=3, label=k)
    grid = np.geomspace(min(ns), max(ns), 50)
    rate = [sum(theorem_3_1_rate(v, m, problem.dim, epsilon, delta, problem.feature_bound, problem.radius)) for v in grid]
    ax.plot(grid, rate, "k--", lw=1, label="Theorem 3.1 rate (proof's log factors)")
    ax.axhline(problem.trivial_excess, color="grey", ls=":", label="trivial (x = 0)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("users n")
    ax.set_ylabel("excess risk F(x) - F(x*)")
    ax.set_title(f"Linear instance, d={problem.dim}, m={m}, eps={epsilon:g}, delta={delta:g}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.dpaudit_series = [(s.label, s.x, s.mean, s.se) for s in series.values()]  # type: ignore[attr-defined]
    return fig


def _default_levy(problem: LinearUtilityProblem, epsilon: float, delta: float) -> Any:
    """Levy et al.'s Phased ERM on the l_2 ball circumscribing the box, with the instance's bounds."""
    from dpaudit.userlevel.levy2021.phased_erm import PhasedERM

    d = problem.dim
    return PhasedERM(problem.loss, epsilon, delta, radius=problem.radius * math.sqrt(d),
                     feature_bound=problem.feature_bound * math.sqrt(d), smoothness=0.0)
