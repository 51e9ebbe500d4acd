"""Papers' bounds over one parameter, the others fixed, on one set of axes, with their crossovers.

A :class:`BoundCurve` is a :class:`~dpaudit.bounds.Bound` of :mod:`dpaudit.bounds` with the
substitutions that put it in a common setting (the normalisations of :mod:`dpaudit.bounds.table`).
:func:`curve_values` evaluates it with :func:`dpaudit.bounds.evaluate` (parameter domains and the
bound's checkable conditions validated; an asymptotic bound's hidden constant is 1, its displayed log
factors are kept). :func:`find_crossovers` finds where two upper bounds cross (roots of the
continuous extension in the parameter, so a crossover in ``n`` need not be an integer);
:func:`best_regions` splits the parameter's range where each upper bound is the smallest;
:func:`plot_bounds` and :func:`plot_bounds_panels` draw them on log-log axes (lower bounds dashed, the
crossovers marked, the best curve as a coloured band along the bottom). Curves equal on the whole
grid are drawn once, their labels joined with "≡".

What the pictures mean: the bounds are rates with their hidden constants set to 1, so a crossover is
where the *displayed expressions* cross, not where one implementation starts to beat another; the
notebook ``02_rates.ipynb`` puts measured excess risk beside them.

Ghazi, Kumar, Liu and Manurangsi (2025) state their rate for ``l1``-Lipschitz losses (constant ``G``)
on the box ``[-D, D]^d``; as an ``l2`` problem that class has Lipschitz constant ``L = G sqrt(d)``
and diameter ``R = 2 D sqrt(d)``, so ``L R = 2 G D d`` (the note of :mod:`dpaudit.bounds.table`).
:func:`table_curves` with ``linf_as_l2=True`` evaluates their bounds on box problems normalised to
``L R = 1`` (the ``l2`` rows' setting), that is with the loss scaled by ``1/(2d)`` (``G D = 1/(2d)``,
and the smoothness ``beta`` scaled with it): there every ``l2`` upper bound holds too, so the upper
bounds compare on a common class; their lower bound is over that smaller class.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import mpmath
import numpy as np
import sympy as sp
from numpy.typing import ArrayLike, NDArray
from scipy import optimize

from dpaudit._extras import require_extra
from dpaudit._validation import argument_error, check_int
from dpaudit.bounds.evaluate import evaluate, normalize_values
from dpaudit.bounds.symbols import SYMBOLS, D, G, beta, d
from dpaudit.bounds.table import ENTRIES, TableEntry, normalised
from dpaudit.bounds.theorem import Bound, Quantity

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "LINF_AS_L2",
    "BestRegion",
    "BoundCurve",
    "Crossover",
    "best_regions",
    "curve_values",
    "find_crossovers",
    "parameter_grid",
    "plot_bounds",
    "plot_bounds_panels",
    "table_curves",
]

LINF_AS_L2: Mapping[sp.Symbol, sp.Expr] = MappingProxyType({G: 1 / (2 * d), D: sp.Integer(1), beta: 1 / (2 * d)})
"""The table's ``l_inf`` setting (``G = D = 1``, ``beta = 1``) with the loss scaled by ``1/(2d)``, so that
``L R = 2 G D d = 1`` (module docstring); the smoothness ``beta`` scales with the loss."""

_NAMES = {"epsilon": "ε", "delta": "δ"}
_UPPER_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
_LOWER_STYLES = ((0, (5, 2)), (0, (1, 1.5)), (0, (6, 2, 1, 2)))


def _symbol(owner: str, name: str | sp.Symbol) -> sp.Symbol:
    key = name.name if isinstance(name, sp.Symbol) else name
    info = SYMBOLS.get(key) if isinstance(key, str) else None
    if info is None:
        raise argument_error(owner, "parameter", "the name of a canonical dpaudit.bounds symbol (e.g. 'n', 'epsilon')", name)
    return info.symbol


def _sympify(owner: str, value: Any) -> sp.Expr:
    local = {name: info.symbol for name, info in SYMBOLS.items()}
    try:
        return sp.sympify(value, locals=local)
    except (sp.SympifyError, TypeError) as exc:
        raise argument_error(owner, "substitutions", "values that are numbers or sympy expressions", value) from exc


@dataclass(frozen=True)
class BoundCurve:
    """A bound to draw, with the substitutions that put it in a common setting.

    Parameters
    ----------
    label : str
        Legend text (e.g. ``"Levy et al. 2021 Phased ERM"``).
    bound : Bound
        The bound, from :mod:`dpaudit.bounds`.
    substitutions : mapping
        Symbol (or its name) to a number or expression in the canonical symbols, applied in order
        before evaluation (e.g. ``{"L": 1, "R": 1}``).
    """

    label: str
    bound: Bound
    substitutions: Mapping[Any, Any] = field(default_factory=dict, hash=False, compare=False)

    def __post_init__(self) -> None:
        owner = "BoundCurve"
        if not isinstance(self.label, str) or not self.label:
            raise argument_error(owner, "label", "a non-empty string", self.label)
        if not isinstance(self.bound, Bound):
            raise argument_error(owner, "bound", "a dpaudit.bounds Bound (see dpaudit.bounds.find_bound)", self.bound)
        if not isinstance(self.substitutions, Mapping):
            raise argument_error(owner, "substitutions", "a mapping from symbols (or their names) to values",
                                 self.substitutions)
        # keys: canonical symbols by name, or any sympy expression (the table substitutes Min(L, sqrt(d) sigma))
        subs = {(k if isinstance(k, sp.Basic) else _symbol(owner, k)): _sympify(owner, v)
                for k, v in self.substitutions.items()}
        object.__setattr__(self, "substitutions", MappingProxyType(subs))

    @property
    def expression(self) -> sp.Expr:
        """The bound's expression with the substitutions applied (in order)."""
        return normalised(self.bound, self.substitutions)

    @property
    def is_lower(self) -> bool:
        """Whether the bound is a lower bound (drawn dashed; never "best")."""
        return self.bound.kind.is_lower

    @property
    def display_label(self) -> str:
        """The label, with the rate variables the statement hides (their curves are flat)."""
        text = self.label
        if self.bound.quantity is Quantity.RUNTIME:
            text += " (running time)"
        if self.bound.hidden_variables:
            hidden = ", ".join(sorted(_NAMES.get(v.name, v.name) for v in self.bound.hidden_variables))
            text += f" [{hidden} hidden]"
        return text


def table_curves(problem: str = "convex SCO", quantity: str = "risk", *, linf_as_l2: bool = False,
                 entries: Sequence[TableEntry] = ENTRIES) -> tuple[BoundCurve, ...]:
    """The rows of the comparison table (:mod:`dpaudit.bounds.table`) as curves, with its normalisations.

    Parameters
    ----------
    problem : str
        ``"convex SCO"`` or ``"strongly convex SCO"``.
    quantity : str
        ``"risk"`` (the excess-risk bounds, lower bounds included) or ``"gradients"`` (the
        gradient-count or running-time bounds; rows that state none are left out).
    linf_as_l2 : bool
        Evaluate the ``l_inf`` rows of Ghazi et al. 2025 on box problems with ``L R = 1``
        (:data:`LINF_AS_L2`, module docstring) instead of at ``G = D = 1``.
    entries : sequence of TableEntry
        The rows to draw from (default: the table's).
    """
    owner = "table_curves"
    problems = sorted({e.problem for e in entries})
    if problem not in problems:
        raise argument_error(owner, "problem", "one of " + ", ".join(repr(p) for p in problems), problem)
    if quantity not in ("risk", "gradients"):
        raise argument_error(owner, "quantity", "'risk' or 'gradients'", quantity)
    out = []
    for e in entries:
        bound = e.risk if quantity == "risk" else e.gradients
        if e.problem != problem or bound is None:
            continue
        subs: dict[Any, Any] = dict(e.normalisation)
        label = f"{e.paper.short} {e.label}"
        if linf_as_l2 and G in subs:
            subs = {k: v for k, v in subs.items() if k not in LINF_AS_L2} | dict(LINF_AS_L2)
            label += " (box, G·D = 1/(2d))"
        out.append(BoundCurve(label, bound, subs))
    return tuple(out)


def parameter_grid(parameter: str, low: float, high: float, num: int = 240) -> NDArray[np.float64]:
    """``num`` log-spaced values from ``low`` to ``high``, rounded to distinct integers for ``n``, ``m``, ``d``."""
    owner = "parameter_grid"
    info = SYMBOLS[_symbol(owner, parameter).name]
    num = check_int(owner, "num", num, minimum=2)
    checked = normalize_values({info.name: np.array([low, high], dtype=float)}, owner)[info.symbol]
    lo, hi = float(checked[0]), float(checked[1])
    if not lo < hi:
        raise argument_error(owner, "high", f"greater than low = {lo:g}", high)
    grid = np.geomspace(lo, hi, num)
    if info.integer:
        grid = np.unique(np.round(grid))
    return np.asarray(grid, dtype=float)


def _as_grid(owner: str, parameter: str, values: ArrayLike | tuple[float, float]) -> NDArray[np.float64]:
    if isinstance(values, tuple) and len(values) == 2:
        return parameter_grid(parameter, float(values[0]), float(values[1]))
    grid = np.asarray(values, dtype=float)
    if grid.ndim != 1 or grid.size < 2 or np.any(np.diff(grid) <= 0):
        raise argument_error(owner, "values", "an increasing 1-d sequence of at least two values, or a (low, high) pair",
                             values)
    return grid


def _fixed_without(owner: str, parameter: sp.Symbol, fixed: Mapping[str, float]) -> dict[str, float]:
    if not isinstance(fixed, Mapping):
        raise argument_error(owner, "fixed", "a mapping from parameter names to numbers", fixed)
    return {(k.name if isinstance(k, sp.Symbol) else k): v for k, v in fixed.items()
            if (k.name if isinstance(k, sp.Symbol) else k) != parameter.name}


def _conditions_hold(curve: BoundCurve, sym: sp.Symbol, grid: NDArray[np.float64],
                     known: Mapping[sp.Symbol, Any]) -> NDArray[np.bool_]:
    """Where every checkable condition of the curve's bound holds.

    A condition with a symbol that has no value counts as holding: it cannot be checked here.
    """
    ok = np.ones(grid.shape, dtype=bool)
    for cond in curve.bound.conditions:
        if cond.relation is None:
            continue
        relation = normalised(curve.bound.with_expression(cond.relation), curve.substitutions)
        free = relation.free_symbols
        if not free <= set(known) | {sym}:
            continue
        scalars = {s: sp.Float(v, 30) for s, v in known.items() if s in free and s != sym}
        relation = relation.subs(scalars)
        if relation in (sp.true, sp.false):
            holds = np.full(grid.shape, bool(relation))
        else:
            with np.errstate(all="ignore"):
                holds = np.asarray(sp.lambdify((sym,), relation, modules="numpy")(grid), dtype=bool)
            holds = np.broadcast_to(holds, grid.shape)
        ok &= holds
    return ok


def curve_values(curve: BoundCurve, parameter: str, values: ArrayLike, fixed: Mapping[str, float], *,
                 conditions: bool = True) -> NDArray[np.float64]:
    """The curve at each of ``values`` of ``parameter``, every other symbol at ``fixed``.

    Evaluated with :func:`dpaudit.bounds.evaluate` (every value checked against its symbol's
    domain). With ``conditions``, values at which one of the bound's checkable conditions fails
    (e.g. Levy et al.'s ``delta <= 1/n^2``) are NaN, so they are not drawn. A value of
    ``parameter`` in ``fixed`` is ignored.
    """
    owner = "curve_values"
    sym = _symbol(owner, parameter)
    grid = np.asarray(values, dtype=float)
    vals: dict[str, Any] = _fixed_without(owner, sym, fixed)
    vals[sym.name] = grid
    out = evaluate(curve.expression, vals)
    y = np.array(np.broadcast_to(np.asarray(out, dtype=float), grid.shape), dtype=float)
    y[~np.isfinite(y)] = np.nan  # overflow (e.g. n^(c log(1/delta)/epsilon)) is not drawn
    if conditions:
        known = normalize_values(_fixed_without(owner, sym, fixed), owner)
        y[~_conditions_hold(curve, sym, grid, known)] = np.nan
    return y


def _continuous(curve: BoundCurve, parameter: sp.Symbol, fixed: Mapping[str, float]) -> Callable[[float], float]:
    """``x -> log curve(x)`` on the continuous extension (integrality of ``n``, ``m``, ``d`` dropped)."""
    values = normalize_values(fixed, "find_crossovers")
    expr = curve.expression.subs({s: sp.Float(v, 30) for s, v in values.items() if s != parameter})
    fn = sp.lambdify((parameter,), expr, modules="mpmath")

    def log_value(x: float) -> float:
        with mpmath.workdps(30):
            return float(mpmath.log(fn(mpmath.mpf(x))))

    return log_value


@dataclass(frozen=True)
class _Drawn:
    """A curve as drawn: merged labels of equal curves, its values on the grid and its style index."""

    curves: tuple[BoundCurve, ...]
    label: str
    values: NDArray[np.float64]
    is_lower: bool


def _merge(owner: str, curves: Sequence[BoundCurve], parameter: str, grid: NDArray[np.float64],
           fixed: Mapping[str, float], conditions: bool) -> list[_Drawn]:
    if not curves or not all(isinstance(c, BoundCurve) for c in curves):
        raise argument_error(owner, "curves", "a non-empty sequence of BoundCurve", curves)
    drawn: list[_Drawn] = []
    for c in curves:
        y = curve_values(c, parameter, grid, fixed, conditions=conditions)
        for i, other in enumerate(drawn):
            if other.is_lower == c.is_lower and np.allclose(other.values, y, rtol=1e-12, atol=0.0):
                drawn[i] = _Drawn((*other.curves, c), f"{other.label} ≡ {c.display_label}", other.values, c.is_lower)
                break
        else:
            drawn.append(_Drawn((c,), c.display_label, y, c.is_lower))
    return drawn


@dataclass(frozen=True)
class Crossover:
    """Two upper bounds cross at ``value`` of ``parameter``; ``lower_before`` is below them just before it."""

    parameter: str
    value: float
    bound_value: float
    lower_before: str
    lower_after: str


@dataclass(frozen=True)
class BestRegion:
    """On ``[low, high]`` of the parameter, the upper bound ``label`` is the smallest."""

    label: str
    low: float
    high: float


def _root(first: BoundCurve, second: BoundCurve, parameter: sp.Symbol, fixed: Mapping[str, float],
          a: float, b: float) -> float:
    f, g = _continuous(first, parameter, fixed), _continuous(second, parameter, fixed)
    h = lambda t: f(math.exp(t)) - g(math.exp(t))  # noqa: E731 - the log-difference in log x
    return math.exp(optimize.brentq(h, math.log(a), math.log(b), xtol=1e-13, rtol=1e-13))


def _crossovers(drawn: Sequence[_Drawn], sym: sp.Symbol, grid: NDArray[np.float64],
                fixed: Mapping[str, float]) -> list[Crossover]:
    upper = [c for c in drawn if not c.is_lower]
    out = []
    for i, a in enumerate(upper):
        for b in upper[i + 1:]:
            with np.errstate(divide="ignore", invalid="ignore"):
                h = np.log(a.values) - np.log(b.values)
            ok = np.flatnonzero(np.isfinite(h))
            sign = np.sign(h[ok])
            nonzero = ok[sign != 0]
            for k0, k1 in itertools.pairwise(nonzero):
                if np.sign(h[k0]) == np.sign(h[k1]):
                    continue
                x = _root(a.curves[0], b.curves[0], sym, fixed, float(grid[k0]), float(grid[k1]))
                y = float(np.exp(_continuous(a.curves[0], sym, fixed)(x)))
                first, second = (a, b) if h[k0] < 0 else (b, a)
                out.append(Crossover(sym.name, x, y, first.label, second.label))
    return sorted(out, key=lambda c: c.value)


def _best(drawn: Sequence[_Drawn], sym: sp.Symbol, grid: NDArray[np.float64],
          fixed: Mapping[str, float]) -> list[BestRegion]:
    upper = [c for c in drawn if not c.is_lower]
    if not upper:
        return []
    with np.errstate(invalid="ignore"):
        stacked = np.vstack([np.where(np.isfinite(c.values), c.values, np.inf) for c in upper])
    winner = np.where(np.isfinite(stacked).any(axis=0), np.argmin(stacked, axis=0), -1)  # -1: no bound applies
    regions: list[BestRegion] = []
    start = float(grid[0])
    for k in range(1, grid.size + 1):
        if k < grid.size and winner[k] == winner[k - 1]:
            continue
        last = int(winner[k - 1])
        if k == grid.size:
            edge = float(grid[-1])
        elif last >= 0 and winner[k] >= 0 and np.isfinite(stacked[[last, winner[k]]][:, [k - 1, k]]).all():
            edge = _root(upper[last].curves[0], upper[int(winner[k])].curves[0], sym, fixed,
                         float(grid[k - 1]), float(grid[k]))
        else:  # a bound's conditions start or stop holding between the two grid points
            edge = math.sqrt(float(grid[k - 1]) * float(grid[k]))
        if last >= 0:
            regions.append(BestRegion(upper[last].label, start, edge))
        start = edge
    return regions


def find_crossovers(curves: Sequence[BoundCurve], parameter: str, values: ArrayLike | tuple[float, float],
                    fixed: Mapping[str, float], *, conditions: bool = True) -> tuple[Crossover, ...]:
    """Where two of the upper bounds cross over the range of ``values`` (``fixed`` for the other symbols).

    A sign change of the log-difference between two grid points is refined by Brent's method on
    the continuous extension; curves equal on the whole grid count as one.
    """
    owner = "find_crossovers"
    sym = _symbol(owner, parameter)
    grid = _as_grid(owner, sym.name, values)
    fixed = _fixed_without(owner, sym, fixed)
    return tuple(_crossovers(_merge(owner, curves, sym.name, grid, fixed, conditions), sym, grid, fixed))


def best_regions(curves: Sequence[BoundCurve], parameter: str, values: ArrayLike | tuple[float, float],
                 fixed: Mapping[str, float], *, conditions: bool = True) -> tuple[BestRegion, ...]:
    """The parameter's range split where each upper bound is the smallest (edges at the crossovers)."""
    owner = "best_regions"
    sym = _symbol(owner, parameter)
    grid = _as_grid(owner, sym.name, values)
    fixed = _fixed_without(owner, sym, fixed)
    return tuple(_best(_merge(owner, curves, sym.name, grid, fixed, conditions), sym, grid, fixed))


def _axis_label(sym: sp.Symbol) -> str:
    info = SYMBOLS[sym.name]
    return f"{_NAMES.get(sym.name, sym.name)}  ({info.description})"


def _fixed_text(fixed: Mapping[str, float]) -> str:
    return ", ".join(f"{_NAMES.get(k, k)} = {v:g}" for k, v in fixed.items())


def _draw(ax: Axes, drawn: Sequence[_Drawn], colours: Mapping[str, str], sym: sp.Symbol, grid: NDArray[np.float64],
          fixed: Mapping[str, float], annotate: bool) -> tuple[list[Crossover], list[BestRegion]]:
    lower_k = 0
    for c in drawn:
        if c.is_lower:
            label = c.label if "lower bound" in c.label else f"{c.label} (lower bound)"
            ax.plot(grid, c.values, color="0.25", lw=1.2, ls=_LOWER_STYLES[lower_k % len(_LOWER_STYLES)],
                    label=label, gid=f"curve:{c.label}")
            lower_k += 1
        else:
            ax.plot(grid, c.values, color=colours[c.label], lw=1.8, label=c.label, gid=f"curve:{c.label}")
    crossings = _crossovers(drawn, sym, grid, fixed)
    if crossings:
        ax.plot([c.value for c in crossings], [c.bound_value for c in crossings], "o", ms=6, mfc="white", mec="black",
                mew=1.2, ls="none", label="crossover", gid="crossovers", zorder=5)
        if annotate:
            for cross in crossings:
                ax.annotate(f"{_NAMES.get(sym.name, sym.name)} ≈ {cross.value:.3g}", (cross.value, cross.bound_value),
                            xytext=(4, 6), textcoords="offset points", fontsize=7)
    regions = _best(drawn, sym, grid, fixed)
    for r in regions:
        ax.axvspan(r.low, r.high, ymin=0.0, ymax=0.035, color=colours[r.label], alpha=0.85, lw=0, gid=f"best:{r.label}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(float(grid[0]), float(grid[-1]))
    ax.set_xlabel(_axis_label(sym))
    ax.grid(True, which="major", color="0.92", lw=0.6)
    return crossings, regions


_BAND = "band along the bottom: the smallest upper bound there"


def _band_key() -> list[Any]:
    from matplotlib.patches import Patch

    return [Patch(facecolor="0.55", edgecolor="none")]


def _colours(drawn_sets: Sequence[Sequence[_Drawn]]) -> dict[str, str]:
    colours: dict[str, str] = {}
    for drawn in drawn_sets:
        for c in drawn:
            if not c.is_lower and c.label not in colours:
                colours[c.label] = _UPPER_COLOURS[len(colours) % len(_UPPER_COLOURS)]
    return colours


def _quantity_label(curves: Sequence[BoundCurve]) -> str:
    quantities = list(dict.fromkeys(str(c.bound.quantity) for c in curves))
    return " / ".join(quantities) + " (hidden constants = 1)"


def plot_bounds(curves: Sequence[BoundCurve], parameter: str, values: ArrayLike | tuple[float, float],
                fixed: Mapping[str, float], *, title: str | None = None, annotate: bool = True,
                conditions: bool = True, figsize: tuple[float, float] = (7.5, 4.8)) -> Figure:
    """The curves against ``parameter`` on log-log axes, crossovers marked, the best bound as a band.

    Parameters
    ----------
    curves : sequence of BoundCurve
        Upper bounds are solid and coloured; lower bounds dashed grey. Curves equal on the whole
        grid are drawn once.
    parameter : str
        The canonical symbol on the x axis (``"n"``, ``"m"``, ``"d"``, ``"epsilon"``, ...).
    values : array_like or (low, high)
        The x values (increasing), or a range for :func:`parameter_grid`.
    fixed : mapping
        Values of every other symbol the curves use.
    title : str, optional
        Default: the fixed values.
    annotate : bool
        Write the parameter's value beside each crossover.
    conditions : bool
        Leave out values outside a bound's checkable conditions (:func:`curve_values`).
    figsize : tuple of float
        Figure size in inches.

    Returns
    -------
    matplotlib.figure.Figure
        Lines have ``gid`` ``"curve:<label>"``, the crossover markers ``"crossovers"``, the bands
        ``"best:<label>"``. Uses :class:`matplotlib.figure.Figure` directly (no pyplot state).
    """
    owner = "plot_bounds"
    sym = _symbol(owner, parameter)
    grid = _as_grid(owner, sym.name, values)
    fixed = _fixed_without(owner, sym, fixed)
    drawn = _merge(owner, curves, sym.name, grid, fixed, conditions)
    fig: Figure = require_extra("matplotlib.figure", "plots").Figure(figsize=figsize, layout="constrained")
    ax = fig.subplots()
    _draw(ax, drawn, _colours([drawn]), sym, grid, fixed, annotate)
    ax.set_ylabel(_quantity_label(curves))
    ax.set_title(title if title is not None else _fixed_text(fixed), fontsize=9)
    handles, labels = ax.get_legend_handles_labels()
    ax.legend([*handles, *_band_key()], [*labels, _BAND], fontsize=7, loc="best")
    return fig


def plot_bounds_panels(curves: Sequence[BoundCurve], sweeps: Mapping[str, ArrayLike | tuple[float, float]],
                       fixed: Mapping[str, float], *, ncols: int = 2, title: str | None = None,
                       annotate: bool = False, conditions: bool = True,
                       panel_size: tuple[float, float] = (4.6, 3.4)) -> Figure:
    """One :func:`plot_bounds` panel per swept parameter, the others at ``fixed``; one shared legend.

    ``sweeps`` maps each parameter to its values or ``(low, high)``; ``fixed`` holds the common
    point (its value of the swept parameter is ignored in that parameter's panel). A curve has
    the same colour in every panel.
    """
    owner = "plot_bounds_panels"
    if not isinstance(sweeps, Mapping) or not sweeps:
        raise argument_error(owner, "sweeps", "a non-empty mapping from parameter names to values or (low, high)", sweeps)
    ncols = check_int(owner, "ncols", ncols, minimum=1)
    panels = []
    for name, values in sweeps.items():
        sym = _symbol(owner, name)
        grid = _as_grid(owner, sym.name, values)
        rest = _fixed_without(owner, sym, fixed)
        panels.append((sym, grid, rest, _merge(owner, curves, sym.name, grid, rest, conditions)))
    colours = _colours([p[3] for p in panels])
    nrows = math.ceil(len(panels) / ncols)
    cols = min(ncols, len(panels))
    fig: Figure = require_extra("matplotlib.figure", "plots").Figure(
        figsize=(panel_size[0] * cols, panel_size[1] * nrows + 1.2), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, cols, squeeze=False)).ravel()
    handles: dict[str, Any] = {}
    for ax, (sym, grid, rest, drawn) in zip(axes, panels, strict=False):
        _draw(ax, drawn, colours, sym, grid, rest, annotate)
        ax.set_ylabel(_quantity_label(curves), fontsize=8)
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(lab, h)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    fig.legend([*handles.values(), *_band_key()], [*handles.keys(), _BAND], loc="outside lower center",
               ncols=2 if cols > 1 else 1, fontsize=7, frameon=False)
    separator = ";\n" if len(panels) < 2 else "; "
    default = f"each panel varies one parameter{separator}the others at {_fixed_text(fixed)}"
    fig.suptitle(title if title is not None else default, fontsize=10)
    return fig
