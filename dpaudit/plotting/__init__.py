"""Figures of audit results and of the papers' bounds, as :class:`matplotlib.figure.Figure` objects (the ``plots`` extra).

Every function here builds a ``Figure`` directly and never touches pyplot's global state, so the
figures are safe in scripts, tests, notebooks and servers alike. Show one in a notebook by leaving
it as a cell's value (with ``%matplotlib inline``), save it with ``fig.savefig(path)``, or embed it
with :func:`figure_png`.

* :func:`plot_privacy_region`: an audit's attack against the claimed (epsilon, delta) region;
* :func:`plot_bound_against_trials`, :func:`plot_bound_against`: the epsilon lower bound against the
  trials, or against a parameter of the audited mechanism (:func:`audits_over_trials` runs the audits);
* :func:`plot_bounds`, :func:`plot_bounds_panels`: :mod:`dpaudit.bounds` over one parameter, several
  papers on one set of axes, crossovers marked and the smallest bound as a band
  (:func:`find_crossovers`, :func:`best_regions` give the numbers);
* :func:`measure`, :func:`measure_excess_risk`, :func:`plot_measured`: measured error over a grid,
  beside the bounds.
"""

from dpaudit.plotting.audit_bounds import (
    audits_over_trials,
    plot_bound_against,
    plot_bound_against_trials,
)
from dpaudit.plotting.bound_curves import (
    LINF_AS_L2,
    BestRegion,
    BoundCurve,
    Crossover,
    best_regions,
    curve_values,
    find_crossovers,
    parameter_grid,
    plot_bounds,
    plot_bounds_panels,
    table_curves,
)
from dpaudit.plotting.export import figure_png
from dpaudit.plotting.measured import MeasuredSeries, measure, measure_excess_risk, plot_measured
from dpaudit.plotting.privacy_region import plot_privacy_region, privacy_region_bounds

__all__ = [
    "LINF_AS_L2",
    "BestRegion",
    "BoundCurve",
    "Crossover",
    "MeasuredSeries",
    "audits_over_trials",
    "best_regions",
    "curve_values",
    "figure_png",
    "find_crossovers",
    "measure",
    "measure_excess_risk",
    "parameter_grid",
    "plot_bound_against",
    "plot_bound_against_trials",
    "plot_bounds",
    "plot_bounds_panels",
    "plot_measured",
    "plot_privacy_region",
    "privacy_region_bounds",
    "table_curves",
]
