"""Where Ghazi et al. (2025)'s safe preset starts to beat the trivial output (dpaudit.userlevel.ghazi2025.usefulness).

* the closed form of sigma_1 / D against the mechanism's resolved parameters, in both branches of
  Theorem 3.1's step size, and sigma_s = sigma_1 kappa^-(s-1);
* the drift model against the real algorithm: with the noise removed it reproduces
  :func:`noise_free_output` (the real robust-SGD path on real data), and with the noise its mean
  excess matches the released outputs' (two-sided z-test at FAILURE_PROB);
* the usefulness scan returns a size where the predicted excess is clearly below the trivial level
  and 32 times fewer users are not.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.userlevel.ghazi2025.algorithms import RobustStatsLocalization
from dpaudit.userlevel.ghazi2025.losses import LinearLoss
from dpaudit.userlevel.ghazi2025.usefulness import (
    drift_excess,
    phase_noise_ratio,
    smallest_useful_users,
)
from dpaudit.userlevel.ghazi2025.utility import LinearUtilityProblem, noise_free_output

FAILURE_PROB = 1e-6
SEED = 2025


@pytest.mark.parametrize(("n", "m", "d", "eps", "delta"), [
    (8000, 16, 1, 1.0, 1e-3), (10**6, 4, 3, 0.5, 1e-6), (10**13, 16, 1, 1.0, 1e-3), (10**9, 1000, 2, 0.3, 1e-5),
])
@pytest.mark.parametrize(("g", "radius"), [(1.0, 1.0), (3.0, 0.25)])
def test_closed_form_noise_ratio_matches_the_resolved_parameters(n, m, d, eps, delta, g, radius):
    p = RobustStatsLocalization(LinearLoss(g), eps, delta, radius=radius).parameters(n, m, d)
    assert math.isclose(p.phase_sigmas[0] / radius, phase_noise_ratio(n, m, d, eps, delta), rel_tol=1e-9)
    kappa = max(math.log(m), 4.0)
    for s, sigma in enumerate(p.phase_sigmas):
        assert math.isclose(sigma, p.phase_sigmas[0] * kappa ** (-s), rel_tol=1e-9)


def test_noise_ratio_is_flat_in_n_until_the_first_branch():
    ratios = [phase_noise_ratio(n, 16, 1, 1.0, 1e-3) for n in (10**4, 10**6, 10**9)]
    assert max(ratios) / min(ratios) < 1.02 and min(ratios) > 400  # ~500 D whatever n, below ~10^11
    assert phase_noise_ratio(10**14, 16, 1, 1.0, 1e-3) < 10  # the B / sqrt(n) branch


@pytest.mark.parametrize(("n", "d"), [(8000, 1), (64000, 1), (32000, 2)])
def test_noise_free_drift_model_reproduces_the_real_path(n, d):
    rng = np.random.default_rng(SEED)
    prob = LinearUtilityProblem((0.25, -0.5)[:d], spread=0.5)
    mech = RobustStatsLocalization(prob.loss, 1.0, 1e-3)
    data = prob.sample(n, 16, rng=rng)
    xbar, ok = noise_free_output(mech, data)
    assert ok
    model = drift_excess(mech, prob, n, 16, rng=rng, trials=1, noise=False)[0]
    real = float(prob.excess_risk(xbar))
    # the model uses E grad = -mu; the batch means of B m features deviate by about a / sqrt(3 B m)
    assert abs(model - real) <= 0.01 * prob.trivial_excess, (n, d, model, real)
    if n == 64000:
        assert real < 0.9 * prob.trivial_excess  # without the noise the drift is visible at this size


def test_released_excess_matches_the_drift_model():
    rng = np.random.default_rng(SEED)
    prob = LinearUtilityProblem((0.25,), spread=0.75)
    mech = RobustStatsLocalization(prob.loss, 1.0, 1e-3)
    n, m, trials = 64000, 16, 200
    out = mech.sample(prob.sample(n, m, rng=rng), trials, rng=rng)
    measured = prob.excess_risk(out)
    model = drift_excess(mech, prob, n, m, rng=rng, trials=100_000)
    se = math.hypot(measured.std(ddof=1) / math.sqrt(trials), model.std(ddof=1) / math.sqrt(model.size))
    z = stats.norm.isf(FAILURE_PROB / 2)
    assert abs(measured.mean() - model.mean()) <= z * se, (measured.mean(), model.mean(), se, SEED)
    # the share of releases strictly inside the box (not projected onto a face) is set by the last
    # phases' noise: compare it too (two-proportion z-test)
    inside_meas = float(np.mean(np.abs(out[:, 0]) < prob.radius))
    inside_model = float(np.mean((model > 0) & (model < 2 * prob.trivial_excess)))
    se_p = math.sqrt(inside_model * (1 - inside_model) * (1 / trials + 1 / model.size))
    assert abs(inside_meas - inside_model) <= z * se_p, (inside_meas, inside_model, se_p, SEED)
    # at this size the release is at the trivial level: the model says so too
    assert abs(model.mean() - prob.trivial_excess) <= 0.02 * prob.trivial_excess


def test_usefulness_scan_finds_a_size_where_the_excess_clearly_drops():
    rng = np.random.default_rng(SEED)
    prob = LinearUtilityProblem((0.25,), spread=0.75)
    mech = RobustStatsLocalization(prob.loss, 1.0, 1e-3)
    point = smallest_useful_users(mech, prob, 1024, rng=rng, trials=4000)
    assert point is not None
    assert point.predicted_excess + 3 * point.standard_error < 0.9 * prob.trivial_excess
    # the drop is gradual in n: 32 times fewer users are within 5% of the trivial level
    earlier = drift_excess(mech, prob, point.n_users // 32, 1024, rng=rng, trials=20_000)
    assert earlier.mean() - 3 * earlier.std(ddof=1) / math.sqrt(earlier.size) > 0.95 * prob.trivial_excess
    assert point.n_users * 1024 > 10**10  # far beyond what fits in memory here
    assert smallest_useful_users(mech, prob, 1024, rng=rng, max_log2_users=20) is None
