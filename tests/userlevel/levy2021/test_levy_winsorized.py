"""Winsorized mean estimators of Levy et al. 2021 (Algorithms 1 and 2, Corollary 1): properties and laws."""

from __future__ import annotations

import math
import re
import tracemalloc
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpaudit.errors import InvalidArgument
from dpaudit.guarantees import ApproxDP, PureDP
from dpaudit.neighbors import UserReplace
from dpaudit.userlevel.hadamard import rotate
from dpaudit.userlevel.levy2021.mean_estimation import UserMeanEstimator, user_mean_radius
from dpaudit.userlevel.levy2021.parameters import (
    alg2_coordinate_epsilon,
    alg2_epsilon_bound,
    alg2_tau_prime,
    alg3_step_privacy,
)
from dpaudit.userlevel.levy2021.winsorized_1d import WinsorizedMean1D
from dpaudit.userlevel.levy2021.winsorized_highd import WinsorizedMeanHighD

FAILURE_PROB = 1e-6
SEED = 1231


def _ks_critical(n: int) -> float:
    """One-sample KS critical value at FAILURE_PROB (DKW: P(sup|F_n - F| > t) <= 2 exp(-2 n t^2))."""
    return math.sqrt(math.log(2 / FAILURE_PROB) / (2 * n))


# ------------------------------------------------------------------------------------------------
# Algorithm 1


@given(st.integers(0, 2**32 - 1), st.sampled_from(["safe", "paper"]))
def test_clipped_mean_sensitivity_is_the_width_over_n(seed, mode):
    """L2: for a fixed [a, b], one user changes the clipped mean by at most w/n (= 4 tau/n in paper mode)."""
    rng = np.random.default_rng(seed)
    tau = rng.uniform(0.05, 1.0)
    wm = WinsorizedMean1D(1.0, tau, 5.0, mode=mode)
    n, m = int(rng.integers(1, 30)), int(rng.integers(1, 4))
    data = rng.normal(0, 2, size=(n, m))
    other = data.copy()
    other[rng.integers(n)] = rng.normal(0, 10, size=m)
    a = rng.uniform(-3, 3)
    stage = wm.laplace_stage(a, a + wm.width)
    gap = abs(stage.law(data)[0] - stage.law(other)[0])
    assert gap <= wm.width / n * (1 + 1e-12)
    if mode == "paper":
        assert math.isclose(wm.width, 4 * tau)


def test_clipped_mean_sensitivity_is_attained_at_the_edges():
    wm = WinsorizedMean1D(1.0, 0.5, 4.0)
    stage = wm.laplace_stage(-1.0, 2.0)
    d0, d1 = np.full((8, 1), 0.5), np.full((8, 1), 0.5)
    d0[0], d1[0] = -7.0, 9.0
    assert math.isclose(abs(stage.law(d1)[0] - stage.law(d0)[0]), 3.0 / 8)


def test_noise_scale_is_the_paper_formula_rounded_up():
    """Alg 1 line 2: Lap(8 tau / (n eps)) in paper mode; Lap(12 tau / (n eps)) in safe mode."""
    for mode, factor in (("paper", 8.0), ("safe", 12.0)):
        for eps, tau, n in ((1.0, 0.1, 7), (0.3, 2.5, 1000), (3.0, 1e-3, 3)):
            wm = WinsorizedMean1D(eps, tau, 10.0, mode=mode)
            b = wm.noise_scale(n)
            assert b >= factor * tau / (n * eps) and math.isclose(b, factor * tau / (n * eps), rel_tol=1e-14)
            assert b * (eps / 2) >= wm.width / n  # (w/n) / b <= eps/2 exactly


def test_laplace_stage_has_the_exact_laplace_law():
    rng = np.random.default_rng(SEED)
    wm = WinsorizedMean1D(1.0, 0.5, 4.0)
    stage = wm.laplace_stage(-1.0, 2.0)
    data = rng.normal(0.5, 1.0, size=(20, 3))
    loc, scale = stage.law(data)
    n = 20_000
    x = stage.sample(data, n, rng=rng)
    d = stats.kstest(x, stats.laplace(loc, scale).cdf).statistic
    assert d <= _ks_critical(n), f"n={n}, KS={d:.4g} > {_ks_critical(n):.4g}, loc={loc:.4g}, scale={scale:.4g}, seed={SEED}"


def test_theorem_1_closeness_in_safe_mode():
    """Thm 1 (safe mode): for concentrated data, A(X) ~_beta mean(X) + Lap(12 tau/(n eps)), beta tiny."""
    rng = np.random.default_rng(SEED + 1)
    tau, eps, bound, n = 0.2, 1.0, 4.0, 400
    x0 = 1.37
    data = (x0 + rng.uniform(-tau, tau, size=n))[:, None]
    wm = WinsorizedMean1D(eps, tau, bound)
    beta = (bound / tau) * math.exp(-n * eps / 8)  # Thm 1 with gamma = 0 (the data are concentrated)
    assert beta < 1e-15
    size = 20_000
    out = wm.sample(data, size, rng=rng)
    d = stats.kstest(out - data.mean(), stats.laplace(0.0, 12 * tau / (n * eps)).cdf).statistic
    assert d <= _ks_critical(size) + beta, f"n={size}, KS={d:.4g}, beta={beta:.3g}, seed={SEED + 1}"


def test_stages_claim_half_the_budget_each():
    wm = WinsorizedMean1D(2.0, 0.5, 4.0)
    assert wm.claimed_guarantee() == PureDP(2.0, UserReplace())
    assert wm.range_stage().claimed_guarantee() == PureDP(1.0, UserReplace())
    assert wm.laplace_stage(-1.0, 2.0).claimed_guarantee() == PureDP(1.0, UserReplace())
    assert wm.private_range().epsilon == 1.0


def test_users_contribute_their_mean():
    """Each user is reduced to the mean of their items: a user-level estimator, not an item-level one."""
    wm = WinsorizedMean1D(1.0, 0.5, 4.0)
    data = np.array([[0.0, 1.0], [1.0, 1.0], [0.2, 0.4]])
    stage = wm.laplace_stage(-1.0, 2.0)
    assert math.isclose(stage.law(data)[0], np.mean([0.5, 1.0, 0.3]))


# ------------------------------------------------------------------------------------------------
# Algorithm 2


def _mp_alg2(eps: float, delta: float, dp: int) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    """(eps', basic d' eps', advanced eps' sqrt(2 d' ln(1/delta)) + d' eps'(e^eps' - 1)) at 50 digits [LSA+21, Alg 2; DR14]."""
    with mpmath.workdps(50):
        e1 = mpmath.mpf(eps) / mpmath.sqrt(8 * dp * mpmath.log(1 / mpmath.mpf(delta)))
        return e1, dp * e1, e1 * mpmath.sqrt(2 * dp * mpmath.log(1 / mpmath.mpf(delta))) + dp * e1 * mpmath.expm1(e1)


def test_composition_constants_of_algorithm_2():
    """L8: eps' = eps / sqrt(8 d' ln(1/delta)), rounded down, and its composed total, against 50-digit mpmath.

    The total is the smaller of basic and advanced composition; both branches are exercised (basic
    at d' = 1, advanced at d' = 1024), and the first advanced term is eps/2 exactly in the reals.
    """
    branches = set()
    for eps, delta, dp in ((1.0, 1e-5, 1), (0.5, 1e-8, 16), (3.0, 1e-3, 1024), (1.0, 1e-5, 1024)):
        e1_exact, basic, advanced = _mp_alg2(eps, delta, dp)
        e1 = alg2_coordinate_epsilon(eps, delta, dp)
        assert e1 <= e1_exact and float(e1_exact - e1) <= 8 * math.ulp(e1)  # rounded down by a few ulps
        total = alg2_epsilon_bound(eps, delta, dp)
        assert math.isclose(total, float(min(basic, advanced)), rel_tol=1e-12), (eps, delta, dp)
        branches.add("basic" if basic < advanced else "advanced")
        with mpmath.workdps(50):
            assert mpmath.almosteq(e1_exact * mpmath.sqrt(2 * dp * mpmath.log(1 / mpmath.mpf(delta))), eps / 2, 1e-40)
    assert branches == {"basic", "advanced"}
    # tau' of Alg 2 line 3 as the paper prints it (dpaudit.bounds.levy2021's transcription) and the tight rule
    from dpaudit.bounds.levy2021 import TAU_PRIME_ALG2
    from dpaudit.bounds.symbols import d, gamma, n, tau

    printed = float(TAU_PRIME_ALG2.subs({tau: 1.0, n: 100, d: 4, gamma: 0.01}))
    assert math.isclose(alg2_tau_prime(1.0, 100, 4, 0.01, "paper"), printed, rel_tol=1e-14)
    assert math.isclose(alg2_tau_prime(1.0, 100, 4, 0.01, "tight"), math.sqrt(math.log(80_000) / 2), rel_tol=1e-14)
    whd = WinsorizedMeanHighD(1.0, 1e-5, 0.1, 1.0, 0.01)
    one = whd.coordinate_mechanism(50, 3)  # d = 3 is padded to d' = 4
    assert one.epsilon == alg2_coordinate_epsilon(1.0, 1e-5, 4)
    assert math.isclose(one.bound, math.sqrt(3.0))


def test_composition_constants_of_algorithm_3():
    """L8: sqrt(2 T ln(2/delta)) eps' = eps/2 and T delta' + delta/2 = delta."""
    for eps, delta, steps in ((1.0, 1e-5, 1), (0.7, 1e-9, 50)):
        e1, d1 = alg3_step_privacy(eps, delta, steps)
        assert e1 * math.sqrt(2 * steps * math.log(2 / delta)) <= eps / 2
        assert math.isclose(steps * d1 + delta / 2, delta)


def test_tight_guarantee_is_the_smaller_composition():
    whd = WinsorizedMeanHighD(1.0, 1e-5, 0.1, 1.0, 0.01)
    # d' = 1: basic composition gives eps / sqrt(8 ln(1/delta)), far below eps (P2' slack)
    assert math.isclose(whd.tight_guarantee(1).epsilon, 1.0 / math.sqrt(8 * math.log(1e5)), rel_tol=1e-12)
    # d = 1000 (d' = 1024): advanced composition, eps/2 + d' eps'(e^eps' - 1) = 0.5 + 0.0109..., below eps
    _, basic, advanced = _mp_alg2(1.0, 1e-5, 1024)
    assert advanced < basic and advanced < 1
    assert math.isclose(whd.tight_guarantee(1000).epsilon, float(advanced), rel_tol=1e-12)
    assert whd.claimed_guarantee() == ApproxDP(1.0, 1e-5, UserReplace())


def test_claims_outside_theorem_2_region_are_rejected():
    """B9: at (eps, delta) = (8, 0.1) and d' = 32 neither composition reaches eps; the claim is rejected.

    The note's example (5, 0.1) at d = 1 exceeds eps under advanced composition alone (5.07), but basic
    composition gives d' eps' = 1.165 there, so that claim holds and is accepted.
    """
    e1 = alg2_coordinate_epsilon(5.0, 0.1, 1)
    assert 2.5 + e1 * math.expm1(e1) > 5.0 and alg2_epsilon_bound(5.0, 0.1, 1) < 5.0
    WinsorizedMeanHighD(5.0, 0.1, 0.1, 1.0, 0.01)
    assert alg2_epsilon_bound(8.0, 0.1, 32) > 8.0
    with pytest.raises(InvalidArgument, match=re.escape(
            "`WinsorizedMeanHighD`: `epsilon` must be small enough for Theorem 2's composition at delta=0.1 "
            "(at d'=32 the composed total is 8.11")):
        WinsorizedMeanHighD(8.0, 0.1, 0.1, 1.0, 0.01)


def test_coordinate_stage_runs_algorithm_1_on_the_rotated_coordinate(rng):
    whd = WinsorizedMeanHighD(2.0, 1e-5, 0.1, 1.0, 0.01, tau_rule="tight")
    signs = (1.0, -1.0, -1.0, 1.0)
    stage = whd.coordinate_stage(10, 3, 2, signs)
    data = rng.uniform(-0.5, 0.5, size=(10, 2, 3))
    np.testing.assert_allclose(stage.rotated_values(data), rotate(data.mean(axis=1), np.array(signs))[:, 2])
    assert stage.claimed_guarantee() == PureDP(alg2_coordinate_epsilon(2.0, 1e-5, 4), UserReplace())
    assert stage.laplace_stage(-1.0, -1.0 + stage.inner.width).claimed_guarantee().epsilon == stage.claim_epsilon / 2
    assert stage.sample(data, 7, rng=rng).shape == (7,)


def test_fixed_signs_make_the_output_a_function_of_signs_and_noise(rng):
    """With omega fixed and no clipping, the output is mean + U^{-1} xi (DP holds conditionally on omega)."""
    whd = WinsorizedMeanHighD(4.0, 1e-5, 0.05, 1.0, 1e-3, tau_rule="tight", signs=(1.0, -1.0, 1.0, 1.0))
    data = 0.3 + rng.uniform(-0.01, 0.01, size=(4000, 1, 3))
    out = whd.sample(data, 4000, rng=rng)
    b = whd.coordinate_mechanism(4000, 3).noise_scale(4000)
    err = out - data.mean(axis=(0, 1))
    # U^{-1} xi has covariance 2 b^2 I: each coordinate has variance 2 b^2
    var = err.var(axis=0)
    # Var(s^2 / sigma^2) ~ (mu4 / sigma^4 - 1) / n. A unit-norm combination of i.i.d. Laplace variables
    # has kurtosis at most the Laplace's, 6, so the relative spread is at most sqrt(5 / n); two-sided
    # normal quantile with Bonferroni over the 3 coordinates
    z = stats.norm.isf(FAILURE_PROB / 6)
    tol = z * math.sqrt(5 / 4000)
    assert np.all(np.abs(var / (2 * b**2) - 1) < tol), f"n=4000, var={var}, 2b^2={2 * b**2:.4g}, tol={tol:.3g}"


def test_high_d_estimator_is_deterministic_given_the_generator_and_batches_large_sizes():
    data = np.random.default_rng(0).uniform(-0.2, 0.2, size=(50, 2, 5))
    whd = WinsorizedMeanHighD(1.0, 1e-5, 0.3, 1.0, 0.01)
    a = whd.sample(data, 3000, rng=np.random.default_rng(5))
    b = whd.sample(data, 3000, rng=np.random.default_rng(5))
    assert np.array_equal(a, b) and a.shape == (3000, 5)
    tracemalloc.start()
    try:
        big = whd.sample(data, 65_536, rng=np.random.default_rng(6))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert big.shape == (65_536, 5) and np.all(np.isfinite(big))
    assert peak < 1 << 30, f"peak traced memory {peak / 2**20:.0f} MiB"


# ------------------------------------------------------------------------------------------------
# Corollary 1


def test_user_mean_estimator_defaults():
    """gamma = 1 / (m (d n + n^2 eps^2)) as an exact rational, and the radius inverted back to n / gamma.

    tau_m = (B / sqrt(m)) (1 + sqrt(2 ln(n / gamma))) [``docs/papers/levy2021.md``, ALG-3] gives
    exp((tau_m sqrt(m) / B - 1)^2 / 2) = n / gamma = m n (d n + n^2 eps^2): checked in 40-digit mpmath
    against the exact integer, not by evaluating the same formula again.
    """
    est = UserMeanEstimator(1.0, 1e-6, 2.0)
    n, m, d = 1000, 50, 8
    gamma = Fraction(1, m * (d * n + n**2))  # eps = 1
    assert est.failure_probability(n, m, d) == float(gamma)
    with mpmath.workdps(40):
        r = mpmath.mpf(est.radius(n, m, d))
        recovered = mpmath.exp((r * mpmath.sqrt(m) / 2 - 1) ** 2 / 2)
        assert mpmath.almosteq(recovered, m * n * (d * n + n**2), 1e-12)
    inner = est.estimator(n, m, d)
    assert (inner.epsilon, inner.delta, inner.bound, inner.tau) == (1.0, 1e-6, 2.0, est.radius(n, m, d))


def test_user_mean_radius_holds_by_monte_carlo():
    """L11: max_u ||mean_u - mu|| <= tau_m in at least a 1 - gamma fraction of datasets (binomial count)."""
    rng = np.random.default_rng(SEED + 2)
    n, m, d, gamma, reps = 50, 16, 3, 0.05, 400
    tau = user_mean_radius(1.0, m, n, gamma)
    z = rng.normal(size=(reps, n, m, d))
    z /= np.linalg.norm(z, axis=-1, keepdims=True)  # uniform on the unit sphere: mean 0, support in B(0, 1)
    worst = np.linalg.norm(z.mean(axis=2), axis=-1).max(axis=1)
    k = int(np.count_nonzero(worst > tau))
    limit = stats.binom.isf(FAILURE_PROB, reps, gamma)
    assert k <= limit, f"n={reps}, k={k} exceedances of tau={tau:.3g}, limit={limit}, seed={SEED + 2}"


def test_user_mean_estimator_projects_on_the_support_ball(rng):
    data = rng.normal(size=(20, 3, 4))
    data /= np.linalg.norm(data, axis=-1, keepdims=True)
    out = UserMeanEstimator(0.5, 1e-5, 1.0, gamma=0.01).sample(data, 500, rng=rng)
    assert np.all(np.linalg.norm(out, axis=1) <= 1.0 + 1e-12)
    raw = UserMeanEstimator(0.5, 1e-5, 1.0, gamma=0.01, project=False).sample(data, 500, rng=rng)
    assert np.any(np.linalg.norm(raw, axis=1) > 1.0)


# ------------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(("build", "message"), [
    (lambda: WinsorizedMean1D(-1, 1.0, 1.0), "`WinsorizedMean1D`: `epsilon` must be in (0, inf); got epsilon=-1."),
    (lambda: WinsorizedMean1D(1.0, 0.0, 1.0), "`WinsorizedMean1D`: `tau` must be in (0, inf); got tau=0.0."),
    (lambda: WinsorizedMeanHighD(1.0, 1.0, 0.1, 1.0, 0.01), "`WinsorizedMeanHighD`: `delta` must be in (0, 1); got delta=1.0."),
    (lambda: WinsorizedMeanHighD(1.0, 1e-5, 0.1, 1.0, 1.5), "`WinsorizedMeanHighD`: `gamma` must be in (0, 1); got gamma=1.5."),
    (lambda: WinsorizedMeanHighD(1.0, 1e-5, 0.1, 1.0, 0.1, signs=(1.0, 2.0)),
     "`WinsorizedMeanHighD`: `signs` must be a tuple of +1/-1 of power-of-two length d'; got signs=(1.0, 2.0)."),
    (lambda: UserMeanEstimator(1.0, 0.0, 1.0), "`UserMeanEstimator`: `delta` must be in (0, 1); got delta=0.0."),
    (lambda: WinsorizedMean1D(1.0, 1.0, 1.0).laplace_stage(0.0, 1.0),
     "`LaplaceStage`: `high` must be low + 6.0 (the estimator's interval width); got high=1.0."),
])
def test_bad_parameters(build, message):
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        build()


@pytest.mark.parametrize(("mech", "data", "message"), [
    (WinsorizedMean1D(1.0, 1.0, 1.0), np.array([[1.0, np.nan]]),
     "`WinsorizedMean1D.sample`: `data` must be finite (it has 1 NaN or infinite entries); "
     "got data=array(shape=(1, 2), dtype=float64)."),
    (WinsorizedMean1D(1.0, 1.0, 1.0), np.zeros(5),
     "`WinsorizedMean1D.sample`: `data` must be an array with at least 2 dimension(s) (shape (5,)); "
     "got data=array(shape=(5,), dtype=float64)."),
    (WinsorizedMeanHighD(1.0, 1e-5, 0.1, 1.0, 0.01), np.zeros((5, 2)),
     "`WinsorizedMeanHighD.sample`: `data` must be shaped (n_users, m_items, d) (got shape (5, 2)); "
     "got data=array(shape=(5, 2), dtype=float64)."),
    (WinsorizedMeanHighD(1.0, 1e-5, 0.1, 1.0, 0.01, signs=(1.0, 1.0)), np.zeros((5, 2, 3)),
     "`WinsorizedMeanHighD`: `signs` must be of length d'=4 for this data; got signs=(1.0, 1.0)."),
    (UserMeanEstimator(1.0, 1e-5, 1.0), np.full((3, 2, 2), np.inf),
     "`UserMeanEstimator.sample`: `data` must be finite (it has 12 NaN or infinite entries)"),
])
def test_bad_data(mech, data, message):
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        mech.sample(data, 3, rng=np.random.default_rng(0))
