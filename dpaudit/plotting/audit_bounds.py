"""The auditor's epsilon lower bound against the number of trials, or against any swept parameter.

An audit's bound is a lower confidence bound: with few trials the Clopper-Pearson intervals are wide
and the bound sits well below the true epsilon; it rises towards the truth as the trials grow, and
it crosses the claim only for a mechanism that breaks it. :func:`audits_over_trials` runs the audits
(one call of :func:`dpaudit.audit` per trial count, all with the same seed);
:func:`plot_bound_against_trials` and :func:`plot_bound_against` draw precomputed results, so the
drawing never reruns an audit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dpaudit._extras import require_extra
from dpaudit._validation import argument_error, check_count
from dpaudit.auditor.result import AuditResult

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["audits_over_trials", "plot_bound_against", "plot_bound_against_trials"]

_COLOURS = ("#08519c", "#de2d26", "#31a354", "#756bb1", "#e6550d", "#636363")

Results = Sequence[AuditResult] | Mapping[str, Sequence[AuditResult]]


def audits_over_trials(mechanism: Any, d0: Any, d1: Any, trials: Sequence[int], *, seed: int = 0,
                       **audit_options: Any) -> tuple[AuditResult, ...]:
    """Audit ``mechanism`` on ``(d0, d1)`` once per entry of ``trials``, every audit with ``seed``.

    ``audit_options`` go to :func:`dpaudit.audit` (``epsilon``, ``delta``, ``confidence``, ...).
    """
    from dpaudit.auditor.runner import audit

    owner = "audits_over_trials"
    if isinstance(trials, (str, bytes)) or not isinstance(trials, Sequence) or not trials:
        raise argument_error(owner, "trials", "a non-empty sequence of trial counts", trials)
    counts = [check_count(owner, "trials", t, minimum=1) for t in trials]
    if "trials" in audit_options or "seed" in audit_options:
        raise argument_error(owner, "audit_options", "options other than trials and seed (given separately)",
                             sorted(audit_options))
    return tuple(audit(mechanism, d0, d1, trials=t, seed=seed, **audit_options) for t in counts)


def _series(owner: str, results: Results) -> list[tuple[str, list[AuditResult]]]:
    if isinstance(results, Mapping):
        series = [(str(k), list(v)) for k, v in results.items()]
    else:
        series = [("", list(results))]
    if not series or any(not rs or not all(isinstance(r, AuditResult) for r in rs) for _, rs in series):
        raise argument_error(owner, "results", "a non-empty sequence of AuditResult, or a mapping from labels to such "
                             "sequences", results)
    return series


def _truths(owner: str, true_epsilon: Any, series: Sequence[tuple[str, Sequence[Any]]]) -> dict[str, list[float] | None]:
    """``true_epsilon`` per series label: a float, a sequence aligned with the values, or a mapping of either."""
    out: dict[str, list[float] | None] = {}
    for label, values in series:
        t = true_epsilon.get(label) if isinstance(true_epsilon, Mapping) else true_epsilon
        if t is None:
            out[label] = None
        elif isinstance(t, (int, float)):
            out[label] = [float(t)] * len(values)
        else:
            arr = [float(v) for v in t]
            if len(arr) != len(values):
                raise argument_error(owner, "true_epsilon", f"one value per point ({len(values)})", t)
            out[label] = arr
    return out


def _draw(series: Sequence[tuple[str, Sequence[float], Sequence[AuditResult]]],
          truths: Mapping[str, list[float] | None], *, xlabel: str, log_x: bool, title: str | None,
          figsize: tuple[float, float]) -> Figure:
    fig: Figure = require_extra("matplotlib.figure", "plots").Figure(figsize=figsize, layout="constrained")
    ax = fig.subplots()
    confidence = {r.confidence for _, _, rs in series for r in rs}
    for k, (label, xs, rs) in enumerate(series):
        colour = _COLOURS[k % len(_COLOURS)]
        name = f"{label}: " if label else ""
        order = np.argsort(xs)
        x = np.asarray(xs, dtype=float)[order]
        bounds = np.asarray([rs[i].epsilon_lower_bound for i in order], dtype=float)
        violated = np.asarray([rs[i].violation for i in order], dtype=bool)
        ax.plot(x, bounds, "-", color=colour, lw=1.6, label=f"{name}epsilon lower bound", gid=f"bound:{label}")
        ax.plot(x[violated], bounds[violated], "o", color=colour, ms=7, ls="none", gid=f"violation:{label}",
                label=f"{name}violation (bound > claim)" if violated.any() else None)
        ax.plot(x[~violated], bounds[~violated], "o", color=colour, mfc="white", ms=6, ls="none", gid=f"ok:{label}")
        claims = np.asarray([rs[i].claimed_epsilon for i in order], dtype=float)
        if np.all(claims == claims[0]):
            if math.isfinite(claims[0]):
                ax.axhline(claims[0], color=colour, lw=1.1, ls="--", label=f"{name}claim epsilon = {claims[0]:g}",
                           gid=f"claim:{label}")
        else:
            ax.step(x, claims, where="mid", color=colour, lw=1.1, ls="--", label=f"{name}claim", gid=f"claim:{label}")
        truth = truths.get(label)
        if truth is not None:
            ax.plot(x, np.asarray(truth)[order], color=colour, lw=1.0, ls=":", label=f"{name}true epsilon",
                    gid=f"truth:{label}")
    if log_x:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    level = ", ".join(f"{c:g}" for c in sorted(confidence))
    ax.set_ylabel(f"epsilon lower bound (confidence {level})")
    ax.set_ylim(bottom=0.0)
    ax.grid(True, color="0.92", lw=0.6)
    ax.legend(fontsize=8, loc="best")
    if title is not None:
        ax.set_title(title, fontsize=10)
    return fig


def plot_bound_against_trials(results: Results, *, true_epsilon: Any = None, title: str | None = None,
                              figsize: tuple[float, float] = (6.8, 4.2)) -> Figure:
    """The epsilon lower bound of each audit against its trials per dataset, with the claim line.

    Parameters
    ----------
    results : sequence of AuditResult, or mapping from label to such a sequence
        Precomputed audits (e.g. from :func:`audits_over_trials`); the x value is each result's
        ``trials``. A mapping draws one series per mechanism.
    true_epsilon : float, sequence or mapping, optional
        The true epsilon, when known (a dotted line): one float, one value per result, or a
        mapping from label to either.
    title : str, optional
        Axes title.
    figsize : tuple of float
        Figure size in inches.

    Returns
    -------
    matplotlib.figure.Figure
        Filled markers are violations (bound above the claim). Lines have ``gid``
        ``"bound:<label>"``, ``"claim:<label>"`` and ``"truth:<label>"`` (``<label>`` is empty for a
        single series). No pyplot state is used.
    """
    owner = "plot_bound_against_trials"
    series = [(label, [float(r.trials) for r in rs], rs) for label, rs in _series(owner, results)]
    truths = _truths(owner, true_epsilon, [(label, xs) for label, xs, _ in series])
    return _draw(series, truths, xlabel="trials per dataset", log_x=True, title=title, figsize=figsize)


def plot_bound_against(values: Sequence[float] | Mapping[str, Sequence[float]], results: Results, *, xlabel: str,
                       true_epsilon: Any = None, log_x: bool = True, title: str | None = None,
                       figsize: tuple[float, float] = (6.8, 4.2)) -> Figure:
    """The epsilon lower bound of each audit against a parameter of the audited mechanism or data.

    ``values[i]`` is the parameter of ``results[i]`` (both mappings with the same labels for
    several series); otherwise as :func:`plot_bound_against_trials`. A claim that changes with
    the parameter is drawn as a step line.
    """
    owner = "plot_bound_against"
    named = _series(owner, results)
    if isinstance(values, Mapping) != isinstance(results, Mapping):
        raise argument_error(owner, "values", "a mapping exactly when results is one", values)
    series = []
    for label, rs in named:
        xs = values[label] if isinstance(values, Mapping) else values
        xs = [float(v) for v in xs]
        if len(xs) != len(rs):
            raise argument_error(owner, "values", f"one value per result ({len(rs)})", xs)
        series.append((label, xs, rs))
    truths = _truths(owner, true_epsilon, [(label, xs) for label, xs, _ in series])
    return _draw(series, truths, xlabel=xlabel, log_x=log_x, title=title, figsize=figsize)
