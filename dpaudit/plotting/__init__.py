"""Figures of audit results, as :class:`matplotlib.figure.Figure` objects (the ``plots`` extra).

Every function here builds a ``Figure`` directly and never touches pyplot's global state, so the
figures are safe in scripts, tests, notebooks and servers alike. Show one in a notebook by leaving
it as a cell's value, save it with ``fig.savefig(path)``, or embed it with :func:`figure_png`.
"""

from dpaudit.plotting.export import figure_png
from dpaudit.plotting.privacy_region import plot_privacy_region, privacy_region_bounds

__all__ = ["figure_png", "plot_privacy_region", "privacy_region_bounds"]
