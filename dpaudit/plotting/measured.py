"""Measured error of several mechanisms over a grid of one parameter, and its figure beside the bounds.

:func:`measure` runs every mechanism of a list of ``(label, factory)`` entries on the same datasets
(one fresh dataset per grid value and replicate, shared by all mechanisms) and records the mean error
and its standard error; :func:`measure_excess_risk` is the special case of an optimisation problem
with a known optimum (``problem.sample`` and ``problem.excess_risk``, as
:class:`~dpaudit.userlevel.ghazi2025.utility.LinearUtilityProblem`), with factories
``(problem, epsilon, delta) -> mechanism``. :func:`plot_measured` draws the series on log-log axes,
each beside its bound (a :class:`~dpaudit.plotting.BoundCurve`, dashed, in the series' colour) and
any reference levels.

Randomness: the datasets come from one child of ``rng`` and each mechanism from its own child
(spawned in list order), so adding an entry to the end of the list changes neither the datasets nor
the other entries' draws.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._extras import require_extra
from dpaudit._validation import argument_error, check_count, check_int
from dpaudit.plotting.bound_curves import BoundCurve, curve_values, parameter_grid

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["MeasuredSeries", "measure", "measure_excess_risk", "plot_measured"]

_DODGE = 0.025
_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")


@dataclass(frozen=True)
class MeasuredSeries:
    """The mean error of one mechanism at each grid value, with its standard error over all runs.

    The standard error is ``sd / sqrt(runs)`` over the ``datasets x trials`` runs at a value; with
    few datasets it is conditional on the datasets drawn.
    """

    label: str
    x: tuple[float, ...]
    mean: tuple[float, ...]
    standard_error: tuple[float, ...]
    runs: int


def _entries(owner: str, mechanisms: Sequence[tuple[str, Callable[..., Any]]]) -> list[tuple[str, Callable[..., Any]]]:
    if isinstance(mechanisms, Mapping) or not isinstance(mechanisms, Sequence) or not mechanisms:
        raise argument_error(owner, "mechanisms", "a non-empty list of (label, factory) pairs", mechanisms)
    out = []
    for entry in mechanisms:
        if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str) and callable(entry[1])):
            raise argument_error(owner, "mechanisms", "(label, factory) pairs with a string label and a callable factory",
                                 entry)
        out.append(entry)
    labels = [label for label, _ in out]
    if len(set(labels)) != len(labels):
        raise argument_error(owner, "mechanisms", "entries with distinct labels", labels)
    return out


def measure(mechanisms: Sequence[tuple[str, Callable[[float], Any]]], values: Sequence[float],
            dataset: Callable[[float, np.random.Generator], Any], error: Callable[[Any, Any], Any], *,
            trials: int, rng: np.random.Generator, datasets: int = 1) -> tuple[MeasuredSeries, ...]:
    """Run every mechanism on the same datasets at every grid value and summarise its error.

    Parameters
    ----------
    mechanisms : list of (label, factory)
        ``factory(value)`` returns a mechanism with ``sample(data, size, *, rng)`` for that grid value.
    values : sequence of float
        The grid.
    dataset : callable
        ``dataset(value, rng)`` draws one dataset for that value.
    error : callable
        ``error(outputs, data)`` returns one non-negative error per output, shape ``(trials,)``.
    trials : int
        Mechanism runs per dataset.
    rng : numpy.random.Generator
        Root of the randomness (module docstring).
    datasets : int
        Datasets drawn per value.

    Returns
    -------
    tuple of MeasuredSeries
        One per mechanism, in list order.
    """
    owner = "measure"
    entries = _entries(owner, mechanisms)
    grid = [float(v) for v in values]
    if not grid:
        raise argument_error(owner, "values", "a non-empty sequence", values)
    trials = check_count(owner, "trials", trials, minimum=1)
    datasets = check_int(owner, "datasets", datasets, minimum=1)
    if not isinstance(rng, np.random.Generator):
        raise argument_error(owner, "rng", "a numpy.random.Generator", rng)
    data_root, mech_root = rng.spawn(2)
    data_rngs = data_root.spawn(len(grid) * datasets)
    mech_rngs = [child.spawn(len(grid) * datasets) for child in mech_root.spawn(len(entries))]
    errors: list[list[NDArray[np.float64]]] = [[np.empty(0)] * len(grid) for _ in entries]
    for i, value in enumerate(grid):
        runs: list[list[NDArray[np.float64]]] = [[] for _ in entries]
        mechs = [factory(value) for _, factory in entries]
        for r in range(datasets):
            data = dataset(value, data_rngs[i * datasets + r])
            for k, mech in enumerate(mechs):
                out = mech.sample(data, trials, rng=mech_rngs[k][i * datasets + r])
                err = np.asarray(error(out, data), dtype=float).reshape(-1)
                if err.size != trials or not np.all(np.isfinite(err)):
                    raise argument_error(owner, "error", f"a finite error per output ({trials} values)", err)
                runs[k].append(err)
        for k in range(len(entries)):
            errors[k][i] = np.concatenate(runs[k])
    out = []
    for (label, _), errs in zip(entries, errors, strict=True):
        means = tuple(float(e.mean()) for e in errs)
        ses = tuple(float(e.std(ddof=1) / math.sqrt(e.size)) if e.size > 1 else math.nan for e in errs)
        out.append(MeasuredSeries(label, tuple(grid), means, ses, trials * datasets))
    return tuple(out)


def measure_excess_risk(problem: Any, mechanisms: Sequence[tuple[str, Callable[[Any, float, float], Any]]],
                        n_values: Sequence[int], m_items: int, *, epsilon: float, delta: float, trials: int,
                        rng: np.random.Generator, datasets: int = 1,
                        excess: Callable[[Any], Any] | None = None) -> tuple[MeasuredSeries, ...]:
    """Excess risk of each ``factory(problem, epsilon, delta)`` against the number of users ``n``.

    ``problem`` has ``sample(n, m, *, rng)`` (a dataset of ``n`` users with ``m`` items each) and,
    unless ``excess`` is given, ``excess_risk(outputs)`` (one value per output); every mechanism runs
    on the same datasets (:func:`measure`).
    """
    owner = "measure_excess_risk"
    m = check_int(owner, "m_items", m_items, minimum=1)
    ns = [check_int(owner, "n_values", v, minimum=1) for v in n_values]
    entries = _entries(owner, mechanisms)
    built = {label: factory(problem, epsilon, delta) for label, factory in entries}

    def same(mech: Any) -> Callable[[float], Any]:
        return lambda _n: mech

    def dataset(n: float, g: np.random.Generator) -> Any:
        return problem.sample(int(n), m, rng=g)

    risk = problem.excess_risk if excess is None else excess

    def error(outputs: Any, _data: Any) -> Any:
        return risk(outputs)

    return measure([(label, same(mech)) for label, mech in built.items()], ns, dataset, error,
                   trials=trials, rng=rng, datasets=datasets)


def plot_measured(series: Sequence[MeasuredSeries], *, xlabel: str, ylabel: str,
                  bounds: Mapping[str, tuple[BoundCurve, str, Mapping[str, float]]] | None = None,
                  levels: Mapping[str, float] | None = None, title: str | None = None, log_y: bool | None = None,
                  figsize: tuple[float, float] = (7.2, 4.6)) -> Figure:
    """Measured series (markers with standard-error bars) on log-log axes, each beside its bound.

    Parameters
    ----------
    series : sequence of MeasuredSeries
        From :func:`measure` or :func:`measure_excess_risk`.
    xlabel, ylabel : str
        Axis labels.
    bounds : mapping, optional
        ``{series label: (curve, parameter, fixed)}``: the curve is evaluated over the series' range
        of ``parameter`` (the others at ``fixed``, :func:`~dpaudit.plotting.curve_values`) and drawn
        dashed in the series' colour.
    levels : mapping, optional
        ``{label: y}`` horizontal reference levels (e.g. the trivial output's excess risk).
    title : str, optional
        Axes title.
    log_y : bool, optional
        Logarithmic y axis; by default, unless a mean is not positive (a noisy output can leave the
        constraint set, where a linear loss goes below its constrained minimum).
    figsize : tuple of float
        Figure size in inches.

    Returns
    -------
    matplotlib.figure.Figure
        Markers (shifted by a factor ``1 +- 0.025 k`` in x so that series at the same value stay
        apart) have ``gid`` ``"measured:<label>"``, bound lines ``"bound:<label>"``, levels
        ``"level:<label>"``. No pyplot state is used.
    """
    owner = "plot_measured"
    if not series or not all(isinstance(s, MeasuredSeries) for s in series):
        raise argument_error(owner, "series", "a non-empty sequence of MeasuredSeries", series)
    fig: Figure = require_extra("matplotlib.figure", "plots").Figure(figsize=figsize, layout="constrained")
    ax = fig.subplots()
    bounds = dict(bounds or {})
    unknown = sorted(set(bounds) - {s.label for s in series})
    if unknown:
        raise argument_error(owner, "bounds", "keyed by the labels of the series", unknown)
    for k, s in enumerate(series):
        colour = _COLOURS[k % len(_COLOURS)]
        x = np.asarray(s.x)
        dodge = 1.0 + _DODGE * (k - (len(series) - 1) / 2.0)  # series at the same x side by side
        ax.errorbar(x * dodge, s.mean, yerr=s.standard_error, fmt="o", color=colour, capsize=3, ms=5, label=f"{s.label} (measured)",
                    gid=f"measured:{s.label}")
        if s.label in bounds:
            curve, parameter, fixed = bounds[s.label]
            grid = parameter_grid(parameter, float(x.min()), float(x.max()), 60)
            ax.plot(grid, curve_values(curve, parameter, grid, fixed), color=colour, ls="--", lw=1.2,
                    label=f"{curve.display_label} (bound, constant 1)", gid=f"bound:{s.label}")
    for j, (label, y) in enumerate((levels or {}).items()):
        ax.axhline(float(y), color="0.4", lw=1.0, ls=(0, (1, 1.5 + j)), label=label, gid=f"level:{label}")
    ax.set_xscale("log")
    if log_y is None:
        log_y = all(v > 0 for s in series for v in s.mean)
    if log_y:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, color="0.92", lw=0.6)
    ax.legend(fontsize=7, loc="best")
    if title is not None:
        ax.set_title(title, fontsize=9)
    return fig
