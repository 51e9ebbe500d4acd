"""The plotting helpers the notebooks use: figures hold the expected artists and data, crossovers are where
the curves cross (checked against closed forms and exact arithmetic), and no figure touches pyplot."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
import sympy as sp

import dpaudit
from dpaudit.bounds import Bound, Citation, Kind, Quantity
from dpaudit.bounds.symbols import SYMBOLS, d, epsilon, m, n
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms import LaplaceMechanism
from dpaudit.mechanisms.faulty import HistogramWrongScale

pytest.importorskip("matplotlib")

from dpaudit.plotting import (
    BoundCurve,
    MeasuredSeries,
    audits_over_trials,
    best_regions,
    curve_values,
    find_crossovers,
    measure,
    measure_excess_risk,
    plot_bound_against,
    plot_bound_against_trials,
    plot_bounds,
    plot_bounds_panels,
    plot_measured,
    table_curves,
)
from dpaudit.userlevel.ghazi2025.utility import LinearUtilityProblem

POINT = {"n": 10**6, "m": 100, "d": 100, "epsilon": 1.0, "delta": 1e-24}


def _bound(name: str, expr: sp.Expr, kind: Kind = Kind.UPPER_O) -> Bound:
    return Bound(name, Quantity.EXCESS_RISK, expr, kind, Citation("TEST", name))


def _lines(fig):
    return {line.get_gid(): line for ax in fig.axes for line in ax.get_lines() if line.get_gid()}


def _exact(curve: BoundCurve, values: dict[str, float]) -> sp.Float:
    """The curve's expression at ``values`` in 40-digit sympy arithmetic (not the lambdified path)."""
    subs = {SYMBOLS[k].symbol: sp.Float(v, 40) for k, v in values.items()}
    return sp.N(curve.expression.subs(subs), 40)


def _fast_curves() -> list[BoundCurve]:
    return [c for c in table_curves("convex SCO", "risk", linf_as_l2=True)
            if not c.is_lower and not c.label.startswith("Ghazi et al. 2023")]


# --- bound curves ------------------------------------------------------------------------------


def test_curve_values_are_the_papers_formula_in_the_tables_normalisation():
    levy = next(c for c in table_curves() if c.bound.name == "levy2021.thm4.risk")
    ns = np.array([10.0, 1e3, 1e6])
    got = curve_values(levy, "n", ns, POINT)
    # Levy et al. 2021, Thm 4 with L = R = sigma = 1: sqrt(min(1, sqrt d)) / sqrt(mn) + d / (eps sqrt(m) n)
    want = 1 / np.sqrt(100 * ns) + 100 / (1.0 * 10 * ns)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_values_outside_a_bounds_conditions_are_not_drawn():
    levy = next(c for c in table_curves() if c.bound.name == "levy2021.thm4.risk")
    ns = np.array([10.0, 999.0, 1000.0, 1001.0, 1e5])
    got = curve_values(levy, "n", ns, POINT | {"delta": 1e-6})  # Thm 4 needs delta <= 1/n^2, i.e. n <= 1000
    assert np.isfinite(got).tolist() == [True, True, True, False, False]
    assert np.isfinite(curve_values(levy, "n", ns, POINT | {"delta": 1e-6}, conditions=False)).all()


def test_the_box_class_conversion_of_ghazi_et_al_2025():
    ghazi = next(c for c in table_curves(linf_as_l2=True) if c.bound.name == "ghazi2025.thm31.risk")
    # G D = 1/(2d) in Thm 3.1's G D (d^{3/2}/(eps^2 sqrt(m) n) + d/sqrt(mn))
    want = (sp.sqrt(d) / (epsilon**2 * sp.sqrt(m) * n) + 1 / sp.sqrt(m * n)) / 2
    assert sp.simplify(ghazi.expression - want) == 0


def test_a_crossover_of_two_rates_is_where_they_are_equal():
    """1/sqrt(n) against sqrt(d)/n: equal at n = d; the second is the larger before, the smaller after."""
    first = BoundCurve("statistical", _bound("t.a", 1 / sp.sqrt(n)))
    second = BoundCurve("privacy", _bound("t.b", sp.sqrt(d) / n))
    found = find_crossovers([first, second], "n", (1.0, 1e6), {"d": 400})
    assert len(found) == 1
    assert found[0].value == pytest.approx(400.0, rel=1e-9)
    assert found[0].bound_value == pytest.approx(1 / 20, rel=1e-9)
    assert (found[0].lower_before, found[0].lower_after) == ("statistical", "privacy")
    regions = best_regions([first, second], "n", (1.0, 1e6), {"d": 400})
    assert [(r.label, round(r.low, 6), round(r.high, 6)) for r in regions] == [
        ("statistical", 1.0, 400.0), ("privacy", 400.0, 1e6)]


def test_levy_and_lowy_cross_at_d_equal_log_one_over_delta():
    """Same statistical term; privacy terms d and sqrt(d log(1/delta)) (times 1/(eps sqrt(m) n)) meet at d = ln(1/delta)."""
    found = [c for c in find_crossovers(_fast_curves(), "d", (1, 1e6), POINT)
             if {c.lower_before, c.lower_after} == {"Levy et al. 2021 Phased ERM",
                                                    "Lowy, Liu, Asi 2024 Alg 3 (smooth) ≡ Lowy, Liu, Asi 2024 smoothed Alg 3"}]
    assert len(found) == 1
    assert found[0].value == pytest.approx(math.log(1e24), rel=1e-9)
    assert found[0].lower_before == "Levy et al. 2021 Phased ERM"


@pytest.mark.parametrize("parameter, values", [("d", (1, 1e6)), ("epsilon", (1e-2, 1.0)), ("m", (1, 1e6))])
def test_every_crossover_of_the_papers_is_a_sign_change_in_exact_arithmetic(parameter, values):
    curves = {c.display_label: c for c in _fast_curves()}
    found = find_crossovers(_fast_curves(), parameter, values, POINT)
    if parameter in ("d", "epsilon"):
        assert found, f"expected crossovers across {parameter}"
    for c in found:
        low, high = curves[c.lower_before.split(" ≡ ")[0]], curves[c.lower_after.split(" ≡ ")[0]]

        def gap(x: float, low: BoundCurve = low, high: BoundCurve = high) -> sp.Float:
            at = POINT | {parameter: x}
            return _exact(low, at) - _exact(high, at)

        scale = _exact(low, POINT | {parameter: c.value})
        assert abs(gap(c.value)) < 1e-9 * scale
        assert gap(c.value * (1 - 1e-4)) < 0 < gap(c.value * (1 + 1e-4))


def test_best_regions_name_the_smallest_bound_and_cover_the_range():
    regions = best_regions(_fast_curves(), "epsilon", (1e-2, 1.0), POINT)
    assert regions[0].low == pytest.approx(1e-2) and regions[-1].high == pytest.approx(1.0)
    for a, b in itertools.pairwise(regions):
        assert a.high == b.low and a.label != b.label
    curves = {c.display_label: c for c in _fast_curves()}
    for r in regions:
        mid = math.sqrt(r.low * r.high)
        values = {label.split(" ≡ ")[0]: float(_exact(c, POINT | {"epsilon": mid})) for label, c in curves.items()}
        assert min(values, key=values.get) == r.label.split(" ≡ ")[0]


def test_plot_bounds_draws_each_curve_its_crossovers_and_the_best_band():
    first = BoundCurve("statistical", _bound("t.a", 1 / sp.sqrt(n)))
    second = BoundCurve("privacy", _bound("t.b", sp.sqrt(d) / n))
    lower = BoundCurve("lower", _bound("t.c", 1 / (2 * sp.sqrt(n)), Kind.LOWER_OMEGA))
    fig = plot_bounds([first, second, lower], "n", (1.0, 1e6), {"d": 400})
    lines = _lines(fig)
    grid = lines["curve:statistical"].get_xdata()
    np.testing.assert_allclose(lines["curve:statistical"].get_ydata(), 1 / np.sqrt(grid), rtol=1e-12)
    np.testing.assert_allclose(lines["curve:privacy"].get_ydata(), 20 / grid, rtol=1e-12)
    assert lines["curve:lower"].get_linestyle() != "-"
    np.testing.assert_allclose(lines["crossovers"].get_xdata(), [400.0], rtol=1e-9)
    bands = {p.get_gid(): p for p in fig.axes[0].patches if (p.get_gid() or "").startswith("best:")}
    assert set(bands) == {"best:statistical", "best:privacy"}  # a lower bound is never "best"
    assert fig.axes[0].get_xscale() == "log" and fig.axes[0].get_yscale() == "log"
    assert fig.canvas.manager is None  # built without pyplot


def test_equal_curves_are_drawn_once_and_panels_share_colours():
    curves = _fast_curves()
    fig = plot_bounds_panels(curves, {"n": (1e2, 1e10), "d": (1, 1e6)}, POINT)
    assert len([ax for ax in fig.axes if ax.get_visible()]) == 2
    per_panel = [{ln.get_gid(): ln.get_color() for ln in ax.get_lines() if (ln.get_gid() or "").startswith("curve:")}
                 for ax in fig.axes]
    merged = "curve:Lowy, Liu, Asi 2024 Alg 3 (smooth) ≡ Lowy, Liu, Asi 2024 smoothed Alg 3"
    assert all(merged in panel for panel in per_panel)
    assert per_panel[0] == per_panel[1]
    assert fig.canvas.manager is None


def test_bad_parameters_are_refused_with_the_parameter_named():
    curve = _fast_curves()[0]
    with pytest.raises(InvalidArgument, match="parameter"):
        curve_values(curve, "users", [1.0, 2.0], POINT)
    with pytest.raises(InvalidArgument, match="missing: delta"):
        curve_values(next(c for c in _fast_curves() if "Lowy" in c.label), "n", [10.0, 20.0],
                     {k: v for k, v in POINT.items() if k != "delta"})
    with pytest.raises(InvalidArgument, match="values"):
        plot_bounds([curve], "n", [10.0, 5.0], POINT)


# --- the bound against trials ------------------------------------------------------------------


def _broken() -> HistogramWrongScale:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpaudit.UnsoundMechanismWarning)
        return HistogramWrongScale(epsilon=0.5)


def test_audits_over_trials_are_the_audits_at_each_count():
    results = audits_over_trials(LaplaceMechanism(1.0), 0.0, 1.0, [1_000, 4_000], seed=5)
    assert [r.trials for r in results] == [1_000, 4_000]
    again = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, trials=4_000, seed=5)
    assert results[1].epsilon_lower_bound == again.epsilon_lower_bound


def test_plot_bound_against_trials_draws_bounds_claims_truths_and_violations():
    counts = [1_000, 5_000, 50_000]
    results = {"correct": audits_over_trials(LaplaceMechanism(1.0), 0.0, 1.0, counts, seed=0),
               "broken": audits_over_trials(_broken(), [3.0, 5.0], [4.0, 5.0], counts, seed=0)}
    assert results["broken"][-1].violation and not any(r.violation for r in results["correct"])
    fig = plot_bound_against_trials(results, true_epsilon={"correct": 1.0, "broken": 2.0})
    lines = _lines(fig)
    for label, rs in results.items():
        np.testing.assert_array_equal(lines[f"bound:{label}"].get_xdata(), counts)
        np.testing.assert_array_equal(lines[f"bound:{label}"].get_ydata(), [r.epsilon_lower_bound for r in rs])
        flagged = [r.trials for r in rs if r.violation]
        np.testing.assert_array_equal(lines[f"violation:{label}"].get_xdata(), flagged)
    assert set(lines["claim:correct"].get_ydata()) == {1.0}
    assert set(lines["claim:broken"].get_ydata()) == {0.5}
    assert set(lines["truth:broken"].get_ydata()) == {2.0}
    assert fig.axes[0].get_xscale() == "log" and fig.canvas.manager is None


def test_plot_bound_against_a_parameter_checks_its_values():
    results = audits_over_trials(LaplaceMechanism(1.0), 0.0, 1.0, [1_000, 2_000], seed=0)
    fig = plot_bound_against([1, 2], results, xlabel="m", true_epsilon=[1.0, 1.0])
    np.testing.assert_array_equal(_lines(fig)["bound:"].get_xdata(), [1, 2])
    with pytest.raises(InvalidArgument, match="values"):
        plot_bound_against([1, 2, 3], results, xlabel="m")
    with pytest.raises(InvalidArgument, match="true_epsilon"):
        plot_bound_against([1, 2], results, xlabel="m", true_epsilon=[1.0])


# --- measured error -----------------------------------------------------------------------------


class _Recorder:
    """Releases the data plus Laplace noise of a given scale and records the datasets it saw."""

    def __init__(self, scale: float) -> None:
        self.scale, self.seen = scale, []

    def sample(self, data, size, *, rng):
        self.seen.append(float(data))
        return float(data) + rng.laplace(0.0, self.scale, size=size)


def _dataset(value, rng):
    return value + rng.normal()


def _squared(out, data):
    return (out - data) ** 2


def test_measure_runs_every_mechanism_on_the_same_datasets():
    a, b = _Recorder(0.1), _Recorder(1.0)
    measure([("a", lambda _v: a), ("b", lambda _v: b)], [1.0, 2.0], _dataset, _squared, trials=10,
            rng=np.random.default_rng(0), datasets=3)
    assert len(a.seen) == 6 and a.seen == b.seen and len(set(a.seen)) == 6


def test_adding_an_entry_changes_neither_the_datasets_nor_the_other_entries():
    entries = [("a", lambda _v: _Recorder(0.5)), ("b", lambda _v: _Recorder(2.0))]
    two = measure(entries, [1.0, 3.0], _dataset, _squared, trials=50, rng=np.random.default_rng(7))
    three = measure([*entries, ("c", lambda _v: _Recorder(1.0))], [1.0, 3.0], _dataset, _squared, trials=50,
                    rng=np.random.default_rng(7))
    assert three[:2] == two


def test_measured_mean_and_standard_error_of_laplace_noise():
    """Lap(b) noise: E X^2 = 2 b^2 and sd(X^2) = sqrt(20) b^2. Failure probability of the mean check: about 1e-4
    (3.9 standard errors, two-sided, the mean of 40000 squares being close to normal)."""
    b, runs = 0.5, 40_000
    (series,) = measure([("laplace", lambda _v: _Recorder(b))], [1.0], _dataset, _squared, trials=runs,
                        rng=np.random.default_rng(11))
    se = math.sqrt(20.0) * b**2 / math.sqrt(runs)
    assert abs(series.mean[0] - 2 * b**2) < 3.9 * se, (series, "seed 11")
    assert series.standard_error[0] == pytest.approx(se, rel=0.15)
    assert series.runs == runs


class _Constant:
    def __init__(self, point) -> None:
        self.point = np.asarray(point, dtype=float)

    def sample(self, data, size, *, rng):
        return np.broadcast_to(self.point, (size, self.point.size)).copy()


def test_measure_excess_risk_on_the_linear_instance():
    problem = LinearUtilityProblem((0.25, -0.5), spread=0.5)
    series = measure_excess_risk(problem, [("zero", lambda p, e, dl: _Constant([0.0, 0.0])),
                                           ("optimum", lambda p, e, dl: _Constant([1.0, -1.0]))],
                                 [4, 8], 3, epsilon=1.0, delta=1e-6, trials=2, rng=np.random.default_rng(0))
    # excess risk sum_j |mu_j| (D - sign(mu_j) theta_j) [GKLM25, Eq. (5)]: 0.75 at theta = 0, 0 at the corner
    assert series[0].mean == (0.75, 0.75) and series[1].mean == (0.0, 0.0)
    # another risk, given explicitly: the squared distance to the corner (1, -1)
    (other,) = measure_excess_risk(problem, [("zero", lambda p, e, dl: _Constant([0.0, 0.0]))], [4], 3, epsilon=1.0,
                                   delta=1e-6, trials=2, rng=np.random.default_rng(0),
                                   excess=lambda out: np.sum((out - np.array([1.0, -1.0])) ** 2, axis=-1))
    assert other.mean == (2.0,)


def test_plot_measured_draws_series_bounds_and_levels():
    series = (MeasuredSeries("a", (10.0, 100.0), (0.5, 0.05), (0.01, 0.001), 4),
              MeasuredSeries("b", (10.0, 100.0), (0.4, 0.3), (0.02, 0.02), 4))
    curve = BoundCurve("rate", _bound("t.r", 1 / sp.sqrt(n)))
    fig = plot_measured(series, xlabel="n", ylabel="error", bounds={"a": (curve, "n", {})}, levels={"trivial": 0.45})
    lines = _lines(fig)
    np.testing.assert_allclose(lines["bound:a"].get_ydata(), 1 / np.sqrt(lines["bound:a"].get_xdata()), rtol=1e-12)
    assert lines["level:trivial"].get_ydata()[0] == 0.45
    containers = {c.get_label(): c for c in fig.axes[0].containers}
    np.testing.assert_allclose(np.asarray(containers["a (measured)"].lines[0].get_ydata(), dtype=float), [0.5, 0.05])
    np.testing.assert_allclose(np.asarray(containers["b (measured)"].lines[0].get_xdata(), dtype=float) / [10.0, 100.0],
                               [1.0125, 1.0125])
    with pytest.raises(InvalidArgument, match="bounds"):
        plot_measured(series, xlabel="n", ylabel="e", bounds={"c": (curve, "n", {})})
    assert fig.canvas.manager is None
    assert fig.axes[0].get_yscale() == "log"
    below = (MeasuredSeries("c", (10.0, 100.0), (0.1, -0.01), (0.05, 0.05), 4),)  # a noisy output off the domain
    assert plot_measured(below, xlabel="n", ylabel="error").axes[0].get_yscale() == "linear"

