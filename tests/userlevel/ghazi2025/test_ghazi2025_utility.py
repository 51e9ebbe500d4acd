"""Utility of Ghazi et al. (2025) on the linear instance with a known optimum (Sec. 4, Eq. (5)).

Theorem 3.1's rate comes from Lemma 3.11 (SGD via Lemma A.6) plus the output noise of each phase.
What is measurable at sizes that fit in memory:

* the algorithm with its privacy noise removed follows Theorem 3.1's second term: its excess
  ``~ d D^2 / (2 eta T)`` is ``50 G D d^{3/2} polylog / (n sqrt(m) eps^2)`` for Theorem 3.1's step size, so
  the log-log slopes are those of that expression (about -1 in n, -1/2 in m, +3/2 in d); the
  sweeps (in the default run; the d sweep also at n = 80000 in the slow run) fit them with a
  Student-t interval at FAILURE_PROB, widened by the computed bias of the
  discrete transient (the step function's sum against its integral), never by a hand-set margin;
* the released output is exactly that point smeared by the calibrated Gaussian (checked against a
  closed form), and with the default ``tau`` the noise (sigma ~ 500 D at eps = 1) dominates.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.errors import InvalidArgument
from dpaudit.userlevel.comparison import LinearUtilityProblem, fit_log_slope
from dpaudit.userlevel.ghazi2025.algorithms import RobustStatsLocalization, RobustStatsSGD
from dpaudit.userlevel.ghazi2025.utility import (
    lemma_a6_bound,
    noise_free_output,
    theorem_3_1_rate,
    transient_excess,
)

FAILURE_PROB = 1e-6
SEED = 31415
EPS, DELTA = 1.0, 1e-3


class _NoNoise:
    def laplace(self, loc, scale, size=None):
        return np.zeros(size)

    def normal(self, loc, scale, size=None):
        return np.zeros(size)


def _expected_clip(a: float, sigma: float, big_d: float) -> float:
    """E[clip(a + sigma Z, -D, D)] via E[(Y - c)_+] = (a - c) Phi((a - c)/sigma) + sigma phi((a - c)/sigma)."""
    def plus(c):
        u = (a - c) / sigma
        return (a - c) * stats.norm.cdf(u) + sigma * stats.norm.pdf(u)

    def minus(c):  # E[(c - Y)_+]
        u = (c - a) / sigma
        return (c - a) * stats.norm.cdf(u) + sigma * stats.norm.pdf(u)

    return a - plus(big_d) + minus(-big_d)


def test_excess_risk_formula_matches_monte_carlo():
    """F(theta) - F(x*) = sum |mu_j| (D - sign(mu_j) theta_j): against the empirical loss of 2e5 items."""
    rng = np.random.default_rng(SEED)
    prob = LinearUtilityProblem((0.3, -0.2), spread=0.6)
    theta = np.array([0.4, 0.9])
    items = prob.sample(200_000, 1, rng=rng)[:, 0, :]
    diff = prob.loss.value(theta, items) - prob.loss.value(prob.optimum, items)  # per-item F difference
    n = diff.size
    z = stats.norm.isf(FAILURE_PROB / 2)
    half = z * diff.std(ddof=1) / math.sqrt(n)
    exact = float(prob.excess_risk(theta))
    assert abs(diff.mean() - exact) <= half, f"n={n}, mean={diff.mean():.5f}, exact={exact:.5f}, half-width={half:.5f}, seed={SEED}"
    assert exact == pytest.approx(0.3 * 0.6 + 0.2 * 1.9)
    assert prob.trivial_excess == pytest.approx(0.5)
    assert prob.excess_risk(np.array([[5.0, -5.0]]))[0] == 0.0  # projected onto the box first


@pytest.mark.parametrize("cls", [RobustStatsSGD, RobustStatsLocalization])
def test_noise_free_output_is_the_mechanism_without_noise(cls):
    """With every Laplace and Gaussian draw zero, the mechanism releases noise_free_output's point exactly.

    Both branches run unconditionally. Passing: B = 1000 puts the safe threshold
    (c0 B + 24 ln(2 e^eps/delta)/eps ~ 995) below the score of a concentrated batch at tau = 1e-3
    (~ B e^{-tau * 0.5}). Failing: tau = 50 spreads the scores, the first test fails, and the release
    is the starting point x_0 = 0 [GKLM25, Alg. 1, lines 10-15].
    """
    rng = np.random.default_rng(SEED)
    prob = LinearUtilityProblem((0.25, -0.4), spread=0.5)
    data = prob.sample(4000, 3, rng=rng)
    passing = cls(prob.loss, EPS, DELTA, batch_size=1000, tau=1e-3)
    x, ok = noise_free_output(passing, data)
    run = passing.sample_with_info(data, 2, rng=_NoNoise())
    assert ok and run.passed.all()
    assert np.all(np.abs(x) > 1e-3)  # the iterates moved: the comparison is not between two zero vectors
    np.testing.assert_allclose(run.outputs, np.broadcast_to(x, (2, 2)), rtol=0, atol=1e-15)
    failing = cls(prob.loss, EPS, DELTA, batch_size=1000, tau=50.0)
    x, ok = noise_free_output(failing, data)
    run = failing.sample_with_info(data, 2, rng=_NoNoise())
    assert not ok and not run.passed[:, 0].any()
    assert np.array_equal(run.outputs, np.zeros((2, 2)))


def test_noise_free_excess_is_the_drift_transient_on_noiseless_items():
    """Items equal to mu (spread 1e-12): every step moves by eta |mu_j|, so the excess is transient_excess exactly."""
    rng = np.random.default_rng(SEED)
    prob = LinearUtilityProblem((0.25,), spread=1e-12)
    data = prob.sample(40_000, 1, rng=rng)
    mech = RobustStatsSGD(prob.loss, EPS, DELTA)
    p = mech.parameters(40_000, 1, 1)
    x, ok = noise_free_output(mech, data)
    assert ok
    assert float(prob.excess_risk(x)) == pytest.approx(transient_excess(prob, p.step_size, p.phase_steps[0]), abs=1e-9)
    # ... which is below Lemma A.6's bound as Lemma 3.11 applies it
    assert float(prob.excess_risk(x)) <= lemma_a6_bound(p.step_size, p.phase_steps[0], 1, 1.0, 1.0, p.batch_size, 1)


@pytest.mark.parametrize("tau", [50.0, None], ids=["tau=50", "default-tau"])
def test_released_excess_is_the_noise_free_point_smeared_by_the_gaussian(tau):
    """Released x = clip(x_bar + N(0, sigma^2)) when every test passes (safe preset projects the output).

    Mean excess over trials against the closed form |mu| (D - E clip(x_bar + sigma Z)), z * SE at
    FAILURE_PROB. With the default tau (sigma ~ 500 D) the prediction is the trivial level.
    """
    rng = np.random.default_rng(SEED)
    prob = LinearUtilityProblem((0.25,), spread=1e-12)
    data = prob.sample(20_000, 1, rng=rng)
    mech = RobustStatsSGD(prob.loss, EPS, DELTA, tau=tau)
    p = mech.parameters(20_000, 1, 1)
    x, ok = noise_free_output(mech, data)
    run = mech.sample_with_info(data, 600, rng=rng)
    passed = run.passed[:, 0]
    assert ok and passed.mean() > 0.99
    ex = prob.excess_risk(run.outputs[passed])
    sigma = p.phase_sigmas[0]
    predicted = 0.25 * (1.0 - _expected_clip(float(x[0]), sigma, 1.0))
    z = stats.norm.isf(FAILURE_PROB / 2)
    se = ex.std(ddof=1) / math.sqrt(ex.size)
    assert abs(ex.mean() - predicted) <= z * se, f"n={ex.size}, mean={ex.mean():.4f}, predicted={predicted:.4f}, se={se:.4f}, sigma={sigma:.3g}, seed={SEED}"
    if tau is None:
        assert sigma > 100 and predicted > 0.99 * prob.trivial_excess


def test_slope_fit_recovers_a_power_law_with_calibrated_intervals():
    """Coverage: over 400 synthetic experiments the 95% slope interval misses at most a binomial bound of times."""
    rng = np.random.default_rng(SEED)
    x = np.geomspace(1e3, 1e5, 5)
    misses, reps = 0, 400
    for _ in range(reps):
        samples = [3.0 * xi**-0.5 * np.exp(0.1 * rng.standard_normal(4)) for xi in x]
        lo, hi = fit_log_slope(x, samples).interval(0.05)
        misses += not lo <= -0.5 <= hi
    upper = stats.binom.isf(FAILURE_PROB, reps, 0.05)
    assert misses <= upper, f"n={reps}, k={misses}, bound={upper}, p0=0.05, alpha={FAILURE_PROB}, seed={SEED}"
    exact = fit_log_slope(x, [[2 * xi**1.5, 2 * xi**1.5 * (1 + 1e-9)] for xi in x])
    assert exact.slope == pytest.approx(1.5, abs=1e-6) and exact.dof == 8


def test_theorem_3_1_second_term_is_the_transient_of_theorem_3_1_step_size():
    """d D^2 / (2 eta T) with eta = (D/G) sqrt(m) eps / sqrt(d ln(1/delta) ln(nmd)), T = n/B, B = 100 ln(mnd/delta)/eps
    equals theorem_3_1_rate's second term with the proof's factors (algebra, at unrounded B and T)."""
    for n, m, d in ((80_000, 16, 1), (1e7, 3, 5)):
        nmd = n * m * d
        b = 100 * math.log(nmd / DELTA) / EPS
        eta = math.sqrt(m) * EPS / math.sqrt(d * math.log(1 / DELTA) * math.log(nmd))
        assert d / (2 * eta * (n / b)) == pytest.approx(theorem_3_1_rate(n, m, d, EPS, DELTA)[1], rel=1e-12)


def test_input_validation_messages():
    import re

    with pytest.raises(InvalidArgument, match=re.escape("`LinearUtilityProblem`: `spread` must be at most feature_bound - max|mu| = 0.5; got spread=0.75.")):
        LinearUtilityProblem((0.5,), spread=0.75)
    with pytest.raises(InvalidArgument, match=re.escape("`LinearUtilityProblem`: `mu` must be a non-empty vector with non-zero "
                                                        "entries (a unique optimum); got mu=(0.0,).")):
        LinearUtilityProblem((0.0,))
    with pytest.raises(InvalidArgument, match=re.escape("`fit_log_slope`: `samples` must be positive replicates (a log-log fit)")):
        fit_log_slope([1.0, 2.0], [[1.0, 0.0], [1.0, 2.0]])
    with pytest.raises(InvalidArgument, match=re.escape("`fit_log_slope`: `x` must be at least two distinct positive values")):
        fit_log_slope([1.0, 1.0], [[1.0], [2.0]])


# ---------------------------------------------------------------------------------------------
# Sweeps: fitted slopes against Theorem 3.1's second term (all but one in the default run)
# ---------------------------------------------------------------------------------------------

DATASETS = 3


def _theorem_3_1_schedule(n: int, m: int, d: int) -> tuple[float, int]:
    """Theorem 3.1's step size and step count, from the theorem (D = G = 1), not from the mechanism.

    eta = min(B sqrt(m) / sqrt(n), sqrt(m) eps / sqrt(d ln(1/delta) ln(nmd))) with
    B = ceil(100 ln(mnd/delta) / eps), and T = floor(n / B) [GKLM25, Thm 3.1, read as in Lemma 3.12].
    """
    nmd = n * m * d
    b = math.ceil(100 * math.log(nmd / DELTA) / EPS)
    eta = min(b * math.sqrt(m) / math.sqrt(n), math.sqrt(m) * EPS / math.sqrt(d * math.log(1 / DELTA) * math.log(nmd)))
    return eta, n // b


def _sweep(grid, make):
    """For each grid value: (noise-free excesses over datasets, theorem term, drift transient, Lemma A.6 bound).

    The drift transient, whose slope is the discretisation bias allowed around the theorem's slope, is
    taken at the theorem's own step size and step count: a mechanism whose step size is off cannot
    widen its own tolerance.
    """
    rng = np.random.default_rng(SEED)
    rows = []
    for v in grid:
        n, m, d = make(v)
        prob = LinearUtilityProblem((0.25,) * d, spread=0.75)
        mech = RobustStatsSGD(prob.loss, EPS, DELTA)
        p = mech.parameters(n, m, d)
        ex = []
        for _ in range(DATASETS):
            x, ok = noise_free_output(mech, prob.sample(n, m, rng=rng))
            assert ok, (n, m, d)
            ex.append(float(prob.excess_risk(x)))
        eta, steps = _theorem_3_1_schedule(n, m, d)
        # the mechanism runs Theorem 3.1's schedule (beta = 0 here, so the safe cap 1/(6 beta B) is inactive)
        assert p.step_size == pytest.approx(eta, rel=1e-12) and p.phase_steps[0] == steps, (n, m, d, p.step_size, eta)
        drift = transient_excess(prob, eta, steps)
        bound = lemma_a6_bound(p.step_size, p.phase_steps[0], d, 1.0, 1.0, p.batch_size, m)
        rows.append((ex, theorem_3_1_rate(n, m, d, EPS, DELTA)[1], drift, bound))
    return rows


def _slope_of(grid, values):
    return float(np.polyfit(np.log(grid), np.log(values), 1)[0])


@pytest.mark.parametrize(
    ("axis", "grid", "make", "nominal"),
    [
        ("n", [40_000, 80_000, 160_000, 320_000], lambda v: (v, 16, 1), -1.0),
        ("m", [4, 16, 64], lambda v: (80_000, v, 1), -0.5),
        # d > 1 pays B^2 d per step for the scores: the default run sweeps d at n = 40000, the slow one at 80000
        ("d", [1, 2, 4], lambda v: (40_000, 16, v), 1.5),
        pytest.param("d", [1, 2, 4], lambda v: (80_000, 16, v), 1.5, marks=pytest.mark.slow),
    ],
    ids=["n", "m", "d", "d-large-n"],
)
def test_noise_free_excess_follows_theorem_3_1_second_term(axis, grid, make, nominal):
    rows = _sweep(grid, make)
    fit = fit_log_slope(grid, [r[0] for r in rows])
    theorem_slope = _slope_of(grid, [r[1] for r in rows])
    # discrete steps: the transient is a step function's sum, not its integral; its slope offset is computed
    bias = _slope_of(grid, [r[2] / r[1] for r in rows])
    lo, hi = fit.interval(FAILURE_PROB / 4)  # Bonferroni over the four sweeps
    msg = (f"{axis}: grid={grid}, fitted slope={fit.slope:.4f} (se {fit.standard_error:.2g}, t-interval [{lo:.4f}, {hi:.4f}] "
           f"at alpha={FAILURE_PROB / 4:.2g}), Theorem 3.1 term slope={theorem_slope:.4f} (nominal {nominal}), "
           f"discretisation bias={bias:.4f}, seed={SEED}")
    print(msg)
    assert lo - abs(bias) <= theorem_slope <= hi + abs(bias), msg
    for ex, _, _, bound in rows:  # Lemma A.6 (as Lemma 3.11 applies it) bounds the noise-free excess
        assert np.mean(ex) <= bound, msg
