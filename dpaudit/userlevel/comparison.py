"""Utility across papers and against naive baselines: problems with a known answer, slope fits and plots.

Two comparisons, each on the same data for every method:

* :func:`plot_excess_risk_comparison`: optimisation on the lower-bound instance of Ghazi et al. 2025
  [GKLM25, Sec. 4]: the linear loss ``f(theta; x) = -<theta, x>`` over ``X = [-D, D]^d`` with features
  ``x = mu + U[-a, a]^d``, so ``F(theta) = -<theta, mu>``, ``x* = D sign(mu)`` and the excess risk is
  ``sum_j |mu_j| (D - sign(mu_j) theta_j)`` [GKLM25, Eq. (5)], linear in the distance to the optimum.
  It puts Ghazi et al. 2025 and Levy et al. 2021 on the same data.
* :func:`plot_error_vs_m`: user-level mean estimation (:class:`SphereMeanProblem`), Levy et al.'s
  Corollary 1 estimator against the naive baselines of :mod:`dpaudit.userlevel.baselines`, as the
  number ``m`` of items per user grows at fixed ``n``. Mean estimation is where the effect is
  clearest: the baselines bound a user's contribution by the public clip ``C`` whatever ``m`` is, so
  their noise ``Theta(C^2 d / (n eps)^2)`` is flat in ``m``; Corollary 1 clips to a private range of
  width ``O(C / sqrt(m))`` around the concentrated user means, so its noise falls like ``1/m``
  [LSA+21, Cor 1]. With the constants the algorithm actually needs, the fall starts far above the
  baselines; the plot extrapolates the closed-form noise terms to the ``m`` where the lines cross.

References
----------
.. [GKLM25] B. Ghazi, R. Kumar, D. Liu and P. Manurangsi. Linear-time user-level DP-SCO via robust
   statistics. arXiv:2502.08889v1, 2025. Thm 3.1, Sec. 4, Eq. (5).
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, Corollary 1 and Algorithm 4 (Phased ERM).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from dpaudit._validation import (
    argument_error,
    check_count,
    check_finite_array,
    check_int,
    check_positive,
    check_probability,
)
from dpaudit.userlevel.baselines import (
    ClippedUserMeanGaussian,
    ClippedUserMeanLaplace,
    GroupPrivateItemMean,
)
from dpaudit.userlevel.ghazi2025.algorithms import RobustStatsLocalization, RobustStatsSGD
from dpaudit.userlevel.ghazi2025.utility import (
    LinearUtilityProblem,
    noise_free_output,
    theorem_3_1_rate,
)
from dpaudit.userlevel.levy2021.mean_estimation import UserMeanEstimator

__all__ = [
    "SlopeFit",
    "SphereMeanProblem",
    "default_mean_estimators",
    "fit_log_slope",
    "plot_error_vs_m",
    "plot_excess_risk_comparison",
    "predicted_privacy_error",
]




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
    trials = check_count(owner, "trials", trials, minimum=2)
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


# ----------------------------------------------------------------------------------------------
# user-level mean estimation: Levy et al.'s Corollary 1 against the naive baselines, as m grows
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SphereMeanProblem:
    """Items ``z = mu + spread * u`` with ``u`` uniform on the unit sphere of ``R^d``.

    ``E z = mu``, ``Var(P_0) = E||z - mu||^2 = spread^2`` exactly, support in ``B_2(0, ||mu|| +
    spread)``.
    """

    mu: tuple[float, ...]
    spread: float = 0.5

    def __post_init__(self) -> None:
        owner = "SphereMeanProblem"
        mu = check_finite_array(owner, "mu", self.mu, ndim=1)
        if mu.size < 1:
            raise argument_error(owner, "mu", "a non-empty vector", self.mu)
        check_positive(owner, "spread", self.spread)
        object.__setattr__(self, "mu", tuple(float(v) for v in mu))

    @property
    def dim(self) -> int:
        """The dimension ``d`` (the length of ``mu``)."""
        return len(self.mu)

    @property
    def bound(self) -> float:
        """``B = ||mu|| + spread``: every item lies in ``B_2(0, B)``."""
        return float(np.linalg.norm(self.mu)) + self.spread

    @property
    def variance(self) -> float:
        """``Var(P_0) = spread^2``."""
        return self.spread**2

    def sample(self, n_users: int, m_items: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """A dataset ``(n_users, m_items, d)`` of i.i.d. items."""
        n = check_int("SphereMeanProblem.sample", "n_users", n_users, minimum=1)
        m = check_int("SphereMeanProblem.sample", "m_items", m_items, minimum=1)
        u = rng.normal(size=(n, m, self.dim))
        u /= np.linalg.norm(u, axis=-1, keepdims=True)
        return np.asarray(self.mu) + self.spread * u


def predicted_privacy_error(mechanism: Any, n_users: int, m_items: int, dim: int) -> float:
    """Closed-form ``E||A(S) - mean(S)||^2`` of the noise each mean estimator adds, before any projection.

    Levy et al.'s :class:`UserMeanEstimator`: ``2 d b^2`` with ``b`` the Laplace scale of every
    rotated coordinate (exact when PrivateRange picks a bin holding every user mean, the event of
    Theorem 2; ``U`` is orthogonal) [LSA+21, Alg 2, Cor 1]. Gaussian baselines: ``d sigma^2``;
    Laplace baseline: ``2 d b^2`` (:mod:`dpaudit.userlevel.baselines`).
    """
    if isinstance(mechanism, UserMeanEstimator):
        b = mechanism.estimator(n_users, m_items, dim).coordinate_mechanism(n_users, dim).noise_scale(n_users)
        return 2.0 * dim * b**2
    if isinstance(mechanism, ClippedUserMeanGaussian):
        return dim * mechanism.noise_scale(n_users) ** 2
    if isinstance(mechanism, ClippedUserMeanLaplace):
        return 2.0 * dim * mechanism.noise_scale(n_users, dim) ** 2
    if isinstance(mechanism, GroupPrivateItemMean):
        return dim * mechanism.noise_scale(n_users, m_items) ** 2
    raise argument_error("predicted_privacy_error", "mechanism",
                         "a UserMeanEstimator or a baseline of dpaudit.userlevel.baselines", mechanism)


def default_mean_estimators(problem: SphereMeanProblem, epsilon: float, delta: float) -> dict[str, Any]:
    """The compared estimators, all ``(epsilon, delta)``-user-level DP with clip / support bound ``B``."""
    b = problem.bound
    return {
        "Levy et al. 2021, Cor. 1 (defaults)": UserMeanEstimator(epsilon, delta, b),
        "Levy et al. 2021, Cor. 1 (tight tau')": UserMeanEstimator(epsilon, delta, b, tau_rule="tight"),
        "clipped user means + Gaussian": ClippedUserMeanGaussian(epsilon, delta, b),
        "clipped user means + Laplace": ClippedUserMeanLaplace(epsilon, b),
        "item-level mean + group privacy": GroupPrivateItemMean(epsilon, delta, b),
    }


def _crossover(levy: Any, baselines: Sequence[Any], n: int, d: int, m_max: float) -> float:
    """Smallest ``m`` where Levy's predicted noise is below every baseline's; ``inf`` if none.

    Searched on a grid of 16 points per decade up to ``m_max``.
    """
    for m in np.unique(np.round(np.geomspace(1, m_max, int(16 * math.log10(m_max)) + 1)).astype(np.int64)):
        mi = int(m)
        if predicted_privacy_error(levy, n, mi, d) <= min(predicted_privacy_error(b, n, mi, d) for b in baselines):
            return float(mi)
    return math.inf


def plot_error_vs_m(
    problem: SphereMeanProblem,
    m_values: Sequence[int],
    n_users: int,
    *,
    rng: np.random.Generator,
    epsilon: float = 1.0,
    delta: float = 1e-6,
    trials: int = 200,
    extrapolate_to: float = 1e9,
) -> Any:
    """Privacy error ``E||A(S) - mean(S)||^2`` against ``m`` for Levy et al.'s Corollary 1 and the baselines.

    For each ``m`` one dataset of ``n_users`` users is drawn and every estimator of
    :func:`default_mean_estimators` runs ``trials`` times on it; the plotted value is the mean squared
    distance to the dataset's own mean (the part of the error the privacy mechanism adds; the
    sampling error ``Var(P_0)/(nm)``, shared by all, is drawn as a grey line). Dashed lines are the
    closed-form noise terms (:func:`predicted_privacy_error`) extended to ``extrapolate_to``; a
    vertical line marks where Levy et al.'s (tight) line crosses the best baseline. matplotlib's
    object API is used (no pyplot state).

    Returns
    -------
    matplotlib.figure.Figure
        ``fig.dpaudit_series``: ``(label, m, mean, standard error)`` per estimator;
        ``fig.dpaudit_crossover``: ``{label: m}`` where each Levy et al. line meets the best baseline.
    """
    from matplotlib.figure import Figure

    owner = "plot_error_vs_m"
    ms = [check_int(owner, "m_values", v, minimum=1) for v in m_values]
    n = check_int(owner, "n_users", n_users, minimum=2)
    trials = check_count(owner, "trials", trials, minimum=2)
    check_positive(owner, "extrapolate_to", extrapolate_to)
    mechs = default_mean_estimators(problem, epsilon, delta)
    series = {k: _Series(k) for k in mechs}
    for m in ms:
        data = problem.sample(n, m, rng=rng)
        centre = data.mean(axis=(0, 1))
        for label, mech in mechs.items():
            err = np.sum((mech.sample(data, trials, rng=rng) - centre) ** 2, axis=-1)
            series[label].x.append(float(m))
            series[label].mean.append(float(err.mean()))
            series[label].se.append(float(err.std(ddof=1) / math.sqrt(trials)))
    d = problem.dim
    baselines = [v for v in mechs.values() if not isinstance(v, UserMeanEstimator)]
    top = max(float(max(ms)), extrapolate_to)
    crossover = {k: _crossover(v, baselines, n, d, top) for k, v in mechs.items() if isinstance(v, UserMeanEstimator)}
    fig = Figure(figsize=(8.0, 5.0))
    ax = fig.subplots()
    grid = np.unique(np.round(np.geomspace(min(ms), top, 120)).astype(np.int64))
    for (label, s), colour in zip(series.items(), ("C0", "C1", "C2", "C3", "C4"), strict=True):
        ax.errorbar(s.x, s.mean, yerr=s.se, marker="o", ls="none", color=colour, capsize=3, label=label)
        ax.plot(grid, [predicted_privacy_error(mechs[label], n, int(m), d) for m in grid], ls="--", lw=1, color=colour)
    ax.plot(grid, problem.variance / (n * grid), color="grey", lw=1, label="sampling error Var(P0)/(nm), not private")
    for label, m_star in crossover.items():
        if math.isfinite(m_star):
            ax.axvline(m_star, color="C1" if "tight" in label else "C0", ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    floor = min(min(s.mean) for label, s in series.items() if not isinstance(mechs[label], UserMeanEstimator))
    ax.set_ylim(bottom=floor / 1e3, top=10.0 * problem.bound**2)
    ax.set_xlabel("items per user m")
    ax.set_ylabel("privacy error E||A(S) - mean(S)||^2")
    shown = ", ".join(f"{k.split('(')[-1].rstrip(')')}: m = {v:.2g}" for k, v in crossover.items())
    ax.set_title(f"User-level mean, n={n}, d={d}, eps={epsilon:g}, delta={delta:g}; points measured, dashed closed form\n"
                 f"Levy et al. below every baseline from ({shown})", fontsize=9)
    ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    fig.dpaudit_series = [(s.label, s.x, s.mean, s.se) for s in series.values()]  # type: ignore[attr-defined]
    fig.dpaudit_crossover = crossover  # type: ignore[attr-defined]
    return fig
