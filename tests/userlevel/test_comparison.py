"""The error-against-m comparison (dpaudit.userlevel.comparison.plot_error_vs_m): series, rates, crossover.

On the same data for every estimator: Levy et al.'s Corollary 1 estimator (tight tau') has privacy
error ``2 d b^2`` in PrivateRange's good event, falling like ``1/m`` (exactly ``-1`` up to the slowly
growing ``log(n/gamma)`` of the user-mean radius, gamma ~ 1/m); the baselines' is flat. Tolerances:
two-sided z at FAILURE_PROB (Bonferroni over the cells) for each cell, and the weighted least-squares
slope's standard error (delta method, Var(log mean) = (se/mean)^2) for the slopes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.errors import InvalidArgument
from dpaudit.userlevel.comparison import (
    SphereMeanProblem,
    default_mean_estimators,
    plot_error_vs_m,
    predicted_privacy_error,
)

FAILURE_PROB = 1e-6
SEED = 77
M_GRID = (64, 256, 1024)
N, EPS, DELTA = 2000, 4.0, 1e-6
PROBLEM = SphereMeanProblem((0.3, -0.2), spread=0.5)


def _wls_slope(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    xm = np.sum(w * x) / np.sum(w)
    sxx = np.sum(w * (x - xm) ** 2)
    return float(np.sum(w * (x - xm) * y) / sxx), float(1 / math.sqrt(sxx))


@pytest.fixture(scope="module")
def figure():
    return plot_error_vs_m(PROBLEM, M_GRID, N, rng=np.random.default_rng(SEED), epsilon=EPS, delta=DELTA, trials=300,
                           extrapolate_to=1e10)


def test_the_figure_has_one_series_per_estimator_on_log_axes(figure):
    from matplotlib.figure import Figure

    assert isinstance(figure, Figure)
    labels = [s[0] for s in figure.dpaudit_series]
    assert labels == list(default_mean_estimators(PROBLEM, EPS, DELTA))
    for _, xs, means, ses in figure.dpaudit_series:
        assert xs == [float(m) for m in M_GRID] and len(means) == len(ses) == len(M_GRID)
        assert all(v > 0 for v in means)
    ax = figure.axes[0]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert {t.get_text() for t in ax.get_legend().get_texts()} >= set(labels)
    assert set(figure.dpaudit_crossover) == {labels[0], labels[1]}


def test_measured_privacy_error_matches_the_closed_form(figure):
    mechs = default_mean_estimators(PROBLEM, EPS, DELTA)
    z = stats.norm.isf(FAILURE_PROB / (2 * len(M_GRID) * (len(mechs) - 1)))
    for label, xs, means, ses in figure.dpaudit_series:
        if "defaults" in label:
            continue  # its noise exceeds the ball at these m: the projection binds and the closed form does not apply
        for m, mean, se in zip(xs, means, ses, strict=True):
            predicted = predicted_privacy_error(mechs[label], N, int(m), PROBLEM.dim)
            assert abs(mean - predicted) <= z * se, f"{label}, m={m}: {mean:.4g} +- {se:.2g} vs {predicted:.4g}, seed={SEED}"


def test_levy_error_falls_like_one_over_m_and_the_baselines_do_not(figure):
    x = np.log(np.array(M_GRID, dtype=float))
    z = stats.norm.isf(FAILURE_PROB / 2)
    slopes = {}
    for label, _, means, ses in figure.dpaudit_series:
        mu, se = np.array(means), np.array(ses)
        slopes[label] = _wls_slope(x, np.log(mu), (mu / se) ** 2)
    label = "Levy et al. 2021, Cor. 1 (tight tau')"
    levy, levy_se = slopes[label]
    mech = default_mean_estimators(PROBLEM, EPS, DELTA)[label]
    # the closed form's slope: -1 (tau_m ~ 1/sqrt(m)) plus the share of log(n/gamma) with gamma ~ 1/m,
    # which the (sqrt-)log terms keep below 0.1 on this grid
    target = float(np.polyfit(x, np.log([predicted_privacy_error(mech, N, m, PROBLEM.dim) for m in M_GRID]), 1)[0])
    assert -1.0 < target < -0.9, target
    assert abs(levy - target) <= z * levy_se, (levy, levy_se, target, SEED)
    for label, (slope, se) in slopes.items():
        if not label.startswith("Levy"):
            assert abs(slope) <= z * se, (label, slope, se)
    print({k: f"{v[0]:.3f} +- {v[1]:.3f}" for k, v in slopes.items()})


def test_crossover_is_where_the_closed_forms_meet(figure):
    mechs = default_mean_estimators(PROBLEM, EPS, DELTA)
    baselines = [v for k, v in mechs.items() if not k.startswith("Levy")]
    for label, m_star in figure.dpaudit_crossover.items():
        assert math.isfinite(m_star)
        m = int(m_star)
        best = min(predicted_privacy_error(b, N, m, PROBLEM.dim) for b in baselines)
        assert predicted_privacy_error(mechs[label], N, m, PROBLEM.dim) <= best
        before = int(m / 1.2)  # the grid has 16 points a decade: one point back is above the baselines
        assert predicted_privacy_error(mechs[label], N, before, PROBLEM.dim) > min(
            predicted_privacy_error(b, N, before, PROBLEM.dim) for b in baselines)
    assert figure.dpaudit_crossover["Levy et al. 2021, Cor. 1 (tight tau')"] < figure.dpaudit_crossover[
        "Levy et al. 2021, Cor. 1 (defaults)"]


def test_bad_arguments_are_refused():
    with pytest.raises(InvalidArgument, match="m_values"):
        plot_error_vs_m(PROBLEM, [0, 4], N, rng=np.random.default_rng(0))
    with pytest.raises(InvalidArgument, match="spread"):
        SphereMeanProblem((0.1,), spread=-1.0)
    with pytest.raises(InvalidArgument, match="mechanism"):
        predicted_privacy_error(object(), 10, 2, 1)
