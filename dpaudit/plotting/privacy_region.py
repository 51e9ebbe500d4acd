"""The privacy-region plot: an audit's attack as a hypothesis test, against the claimed region.

An (epsilon, delta)-DP mechanism confines every test "which dataset produced this output?" to the
region of false-positive rate ``x`` and true-positive rate ``y`` with [KOV15, Thm 2.1]

    y <= e^epsilon x + delta,        1 - x >= e^-epsilon (1 - delta - y)

(and the mirror images, tests that answer the other way round). The audit's event E is such a test:
it answers "numerator dataset" when E happens, so ``x = P_den(E)`` and ``y = P_num(E)``. The plot
draws the Clopper-Pearson box around ``(x, y)``; a box wholly outside the claimed region is the
violation the auditor reports, and the dashed line through its corner ``(x_hi, y_lo)`` is the bound
``y = e^eps_lb x + delta``. The mu-GDP trade-off curve ``y = Phi(Phi^-1(x) + mu)`` [DRS19, Eq. (6)]
is drawn for the audit's GDP estimate, labelled as an estimate.

When the mechanism declares its structure the result carries the pair's privacy profile
``delta(eps)`` (certified upper ends on a grid of epsilons, :mod:`dpaudit.exact`), and the plot draws
the pair's own region: every test lies below ``y = e^eps x + delta(eps)`` and above its mirror image
for *every* eps, so the pointwise minimum over the grid is a certified outer boundary of the pair's
true region [KOV15, Thm 2.1 applied at each eps]. The audit's box lies inside it unless the
declaration is wrong (or the audit hit its 1 - confidence chance).

References
----------
.. [KOV15] P. Kairouz, S. Oh and P. Viswanath. The composition theorem for differential privacy.
   ICML 2015, Theorem 2.1 (the hypothesis-testing region of (epsilon, delta)-DP).
.. [DRS19] J. Dong, A. Roth and W. Su. Gaussian differential privacy. arXiv:1905.02383v3, Eq. (6).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from dpaudit._extras import require_extra

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from dpaudit.auditor.result import AuditResult, EventEvidence

__all__ = ["pair_region_bounds", "plot_privacy_region", "privacy_region_bounds"]

# dense near 0 and 1 as well, so that the boundaries stay straight lines on the zoom's log axes
_EDGE = np.geomspace(1e-12, 0.5, 1200)
_GRID = np.unique(np.concatenate([np.linspace(0.0, 1.0, 2001), _EDGE, 1.0 - _EDGE]))


def privacy_region_bounds(epsilon: float, delta: float, x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Lower and upper true-positive rates allowed at false-positive rates ``x`` [KOV15, Thm 2.1].

    Examples
    --------
    >>> lo, hi = privacy_region_bounds(math.log(2.0), 0.0, np.array([0.0, 0.25, 0.5, 1.0]))
    >>> hi.tolist(), lo.tolist()
    ([0.0, 0.5, 0.75, 1.0], [0.0, 0.125, 0.25, 1.0])
    """
    x = np.asarray(x, dtype=float)
    if math.isinf(epsilon):
        return np.zeros_like(x), np.ones_like(x)
    grow, shrink = math.exp(epsilon), math.exp(-epsilon)
    upper = np.minimum.reduce([np.ones_like(x), grow * x + delta, 1.0 - shrink * (1.0 - delta - x)])
    lower = np.maximum.reduce([np.zeros_like(x), shrink * (x - delta), 1.0 - grow * (1.0 - x) - delta])
    return lower, upper


def pair_region_bounds(
    curve: tuple[tuple[float, float, float], ...], x: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Outer boundary of a pair's region from its profile curve ``(eps, delta_lo, delta_hi)``.

    The intersection over the curve's epsilons of the (eps, delta_hi(eps)) regions
    (:func:`privacy_region_bounds`); the pair's true region lies inside it.

    Examples
    --------
    >>> lo, hi = pair_region_bounds(((0.0, 0.5, 0.5), (math.log(2.0), 0.0, 0.0)), np.array([0.0, 0.25, 1.0]))
    >>> hi.tolist()
    [0.0, 0.5, 1.0]
    """
    x = np.asarray(x, dtype=float)
    lower, upper = np.zeros_like(x), np.ones_like(x)
    for eps, _, delta_hi in curve:
        lo, hi = privacy_region_bounds(eps, min(delta_hi, 1.0), x)
        lower, upper = np.maximum(lower, lo), np.minimum(upper, hi)
    return lower, upper


def _rates(ev: EventEvidence) -> tuple[float, float, tuple[float, float], tuple[float, float]]:
    """(x, y) point estimate and the boxes' x and y intervals for one event."""
    return ev.count_denominator / ev.n, ev.count_numerator / ev.n, ev.p_denominator_interval, ev.p_numerator_interval


def _draw(ax: Axes, result: AuditResult, box_color: str) -> None:
    from matplotlib.patches import Rectangle

    lower, upper = privacy_region_bounds(result.claimed_epsilon, result.delta, _GRID)
    ax.fill_between(_GRID, lower, upper, color="#9ecae1", alpha=0.45, lw=0,
                    label=f"claimed region: ({result.claimed_epsilon:.3g}, {result.delta:.3g})-DP")
    ax.plot(_GRID, upper, color="#3182bd", lw=1.0)
    ax.plot([0, 1], [0, 1], color="0.6", lw=0.8, ls=":")
    if result.profile_curve:
        pair_lo, pair_hi = pair_region_bounds(result.profile_curve, _GRID)
        what = "exact" if result.profile_kind == "exact" else "dominating pair"
        ax.plot(_GRID, pair_hi, color="black", lw=1.2, label=f"this pair's region ({what} profile, certified outer boundary)")
        ax.plot(_GRID, pair_lo, color="black", lw=1.2)
    ev = result.evidence
    x, y, (x_lo, x_hi), (y_lo, y_hi) = _rates(ev)
    ax.add_patch(Rectangle((x_lo, y_lo), x_hi - x_lo, y_hi - y_lo, fill=False, ec=box_color, lw=1.6,
                           label=f"attack {{{ev.event}}}: {int(100 * result.confidence)}% box"))
    ax.plot([x], [y], "o", color=box_color, ms=3.5)
    if result.epsilon_lower_bound > 0 and math.isfinite(result.epsilon_lower_bound):
        line = np.minimum(math.exp(result.epsilon_lower_bound) * _GRID + result.delta, 1.0)
        ax.plot(_GRID, line, color=box_color, lw=1.0, ls="--", label=f"bound: epsilon >= {result.epsilon_lower_bound:.3f}")
    mu = result.gdp_mu_lower_bound
    if mu is not None and math.isfinite(mu) and mu > 0:
        inner = _GRID[1:-1]
        ax.plot(inner, stats.norm.cdf(stats.norm.ppf(inner) + mu), color="#31a354", lw=1.0, ls="-.",
                label=f"mu = {mu:.3f} GDP curve (estimate, Gaussian shape assumed)")
        if result.gdp_evidence is not None and result.gdp_evidence.event != ev.event:
            gx, gy, (gx_lo, gx_hi), (gy_lo, gy_hi) = _rates(result.gdp_evidence)
            ax.add_patch(Rectangle((gx_lo, gy_lo), gx_hi - gx_lo, gy_hi - gy_lo, fill=False, ec="#31a354", lw=1.0))
            ax.plot([gx], [gy], "o", color="#31a354", ms=2.5)


def _zoom(ax: Axes, low: float, high: float, axis: str) -> None:
    """Frame ``[low, high]`` with room around it; a box hugging 0 gets a log scale to be visible."""
    set_limits = ax.set_xlim if axis == "x" else ax.set_ylim
    if high < 0.05 and high > 0:
        from matplotlib.ticker import NullFormatter

        (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
        (ax.xaxis if axis == "x" else ax.yaxis).set_minor_formatter(NullFormatter())  # labels would overlap
        set_limits(max(low / 4.0, high / 1000.0) if low > 0 else high / 1000.0, min(1.0, high * 4.0))
        return
    half = max(4.0 * (high - low), 0.02)
    centre = 0.5 * (low + high)
    set_limits(max(0.0, centre - half), min(1.0, centre + half))


def plot_privacy_region(result: AuditResult, *, figsize: tuple[float, float] = (10.0, 5.4)) -> Figure:
    """The attack's rates with their confidence box against the claimed (epsilon, delta) region.

    Left: the whole unit square; right: a zoom on the box. Uses
    :class:`matplotlib.figure.Figure` directly and never touches pyplot's global state. Needs the
    ``plots`` extra (matplotlib).

    Parameters
    ----------
    result : AuditResult
        The audit to draw.
    figsize : tuple of float
        Figure size in inches.

    Returns
    -------
    matplotlib.figure.Figure
    """
    figure_module = require_extra("matplotlib.figure", "plots")
    fig: Figure = figure_module.Figure(figsize=figsize, layout="constrained")
    ax_full, ax_zoom = fig.subplots(1, 2)
    box_color = "#de2d26" if result.violation else "#08519c"
    numerator = result.evidence.numerator
    denominator = "d1" if numerator == "d0" else "d0"
    for ax in (ax_full, ax_zoom):
        _draw(ax, result, box_color)
        ax.set_xlabel(f"false-positive rate  P[E | {denominator}]")
        ax.set_ylabel(f"true-positive rate  P[E | {numerator}]")
    ax_full.set(xlim=(0, 1), ylim=(0, 1), aspect="equal", title="privacy region")
    _, _, (x_lo, x_hi), (y_lo, y_hi) = _rates(result.evidence)
    _zoom(ax_zoom, x_lo, x_hi, "x")
    _zoom(ax_zoom, y_lo, y_hi, "y")
    ax_zoom.set_title("zoom on the attack's box")
    fig.legend(*ax_full.get_legend_handles_labels(), loc="outside lower center", ncols=2, fontsize=8, frameon=False)
    exact = "" if result.epsilon_upper is None else (
        f"\ncertified on this pair: epsilon <= {result.epsilon_upper:.4f} ({result.bracket_verdict})")
    fig.suptitle(
        f"{result.verdict}: epsilon >= {result.epsilon_lower_bound:.4f} at confidence {result.confidence:g}, "
        f"claim epsilon = {result.claimed_epsilon:g} at delta = {result.delta:g}{exact}",
        fontsize=10,
    )
    return fig
