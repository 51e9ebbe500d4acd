"""Naive user-level baselines (dpaudit.userlevel.baselines): calibration, tight audits, and error against m.

* Calibration against closed forms written here: the Gaussian curve of Balle & Wang (2018, Thm 8) with
  scipy's normal CDF, the Laplace scale ``2C sqrt(d)/(n eps)``, and group privacy's chain sum.
* Each baseline is audited at its *tight* budget on the worst-case user-replace pair (confidence
  0.999, so a correct baseline is falsely flagged with probability at most 1e-3 per audit), and a
  copy whose sensitivity is understated by a factor 2 is flagged on the same pair.
* The privacy error ``E||A(S) - mean(S)||^2`` equals the noise variance and does not fall with ``m``
  (the fitted log-log slope's interval at FAILURE_PROB lies inside (-0.1, 0.25)).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.errors import InvalidArgument
from dpaudit.neighbors import UserReplace
from dpaudit.userlevel.baselines import (
    ClippedUserMeanGaussian,
    ClippedUserMeanLaplace,
    GroupPrivateItemMean,
    clip_to_ball,
    gaussian_epsilon,
)
from dpaudit.userlevel.comparison import fit_log_slope

CONFIDENCE = 0.999
FAILURE_PROB = 1e-6
SEED = 515


def _bw18_delta(eps: float, sigma: float, sens: float) -> float:
    """delta(eps) of the Gaussian mechanism, Balle & Wang (2018), Thm 8, written out here."""
    a, b = sens / (2 * sigma), eps * sigma / sens
    return float(stats.norm.cdf(a - b) - math.exp(eps) * stats.norm.cdf(-a - b))


def _worst_pair(n: int, m: int, dim: int, clip: float) -> tuple[np.ndarray, np.ndarray]:
    """All users at 0 except user 0, whose items sit at C u or -C u, u = (1, .., 1)/sqrt(d): the clipped
    user mean moves by 2C in l2 and 2C sqrt(d) in l1."""
    d0 = np.zeros((n, m, dim))
    d1 = np.zeros((n, m, dim))
    d0[0] = clip / math.sqrt(dim)
    d1[0] = -clip / math.sqrt(dim)
    return d0, d1


def test_gaussian_baseline_is_the_smallest_sigma_of_the_exact_curve():
    mech = ClippedUserMeanGaussian(1.0, 1e-5, clip=2.0)
    n = 50
    sigma = mech.noise_scale(n)
    sens = 2 * 2.0 / n
    assert _bw18_delta(1.0, sigma, sens) <= 1e-5
    assert _bw18_delta(1.0, sigma * (1 - 1e-6), sens) > 1e-5  # no slack: the claim is tight


def test_laplace_baseline_scale_and_sensitivity_are_the_closed_form():
    n, dim, clip, eps = 40, 4, 1.5, 0.7
    mech = ClippedUserMeanLaplace(eps, clip)
    assert math.isclose(mech.noise_scale(n, dim), 2 * clip * math.sqrt(dim) / (n * eps), rel_tol=1e-15)
    # the released centre (read with a negligible noise) moves by exactly 2C sqrt(d)/n in l1 on the worst pair
    sharp = ClippedUserMeanLaplace(1e12, clip)
    d0, d1 = _worst_pair(n, 3, dim, clip)
    rng = np.random.default_rng(SEED)
    shift = np.abs(sharp.sample(d0, 1, rng=rng) - sharp.sample(d1, 1, rng=rng)).sum()
    assert math.isclose(shift, 2 * clip * math.sqrt(dim) / n, rel_tol=1e-9)


@pytest.mark.parametrize("m", [1, 2, 10, 100])
def test_group_privacy_budget_composes_to_the_user_level_claim(m):
    eps, delta = 1.0, 1e-6
    mech = GroupPrivateItemMean(eps, delta, clip=1.0)
    e_item, d_item = mech.item_budget(m)
    # chain argument over the m items of a user: P0 <= e^{e_item} P1 + d_item <= ... [DR14, Thm 2.2]
    total_delta = sum(math.exp(i * e_item) for i in range(m)) * d_item
    assert math.isclose(m * e_item, eps, rel_tol=1e-12)
    assert math.isclose(total_delta, delta, rel_tol=1e-9)
    assert total_delta <= m * math.exp((m - 1) * e_item) * d_item * (1 + 1e-12)  # Vadhan's form is looser
    n = 30
    sigma = mech.noise_scale(n, m)
    item_sens = 2.0 / (n * m)
    assert _bw18_delta(e_item, sigma, item_sens) <= d_item * (1 + 1e-9)
    assert _bw18_delta(e_item, sigma * (1 - 1e-6), item_sens) > d_item
    tight = mech.tight_guarantee(n, m)
    assert tight.epsilon <= eps
    assert math.isclose(_bw18_delta(tight.epsilon, sigma, 2.0 / n), delta, rel_tol=1e-6)


def test_gaussian_epsilon_inverts_the_curve():
    for sigma, sens, delta in [(1.0, 1.0, 1e-5), (3.0, 0.5, 1e-3), (0.2, 1.0, 1e-8)]:
        eps = gaussian_epsilon(sigma, sens, delta)
        assert _bw18_delta(eps, sigma, sens) <= delta
        assert _bw18_delta(eps * (1 - 1e-6), sigma, sens) > delta
    assert gaussian_epsilon(100.0, 1.0, 0.5) == 0.0  # delta(0) = 2 Phi(1/200) - 1 < 1/2


class _HalfSensitivityGaussian(ClippedUserMeanGaussian):
    """Broken on purpose: noise for sensitivity C/n instead of 2C/n."""

    def sensitivity(self, n_users):
        return super().sensitivity(n_users) / 2


class _HalfSensitivityLaplace(ClippedUserMeanLaplace):
    """Broken on purpose: the l2 sensitivity 2C/n used as if it were the l1 one (misses sqrt(d))."""

    def sensitivity(self, n_users, dim):
        return super().sensitivity(n_users, dim) / math.sqrt(dim)


class _HalfBudgetGroup(GroupPrivateItemMean):
    """Broken on purpose: the item-level budget eps/(m/2) (a group of m/2, not m)."""

    def item_budget(self, m_items):
        return super().item_budget(max(1, m_items // 2))


def _cases():
    n, m = 20, 4
    g0, g1 = _worst_pair(n, m, 1, 1.0)
    l0, l1 = _worst_pair(n, m, 4, 1.0)
    group = GroupPrivateItemMean(1.0, 1e-3, 1.0)
    return [
        ("gaussian", ClippedUserMeanGaussian(1.0, 1e-3, 1.0), _HalfSensitivityGaussian(1.0, 1e-3, 1.0), g0, g1, 1.0, 1e-3),
        ("laplace d=4", ClippedUserMeanLaplace(1.0, 1.0), _HalfSensitivityLaplace(1.0, 1.0), l0, l1, 1.0, 0.0),
        ("group-private item mean", group, _HalfBudgetGroup(1.0, 1e-3, 1.0), g0, g1,
         group.tight_guarantee(n, m).epsilon, 1e-3),
    ]


@pytest.mark.parametrize("index", range(3), ids=["gaussian", "laplace", "group"])
def test_baseline_passes_its_tight_audit_and_a_miscalibrated_copy_is_flagged(index):
    name, mech, broken, d0, d1, eps, delta = _cases()[index]
    assert mech.claimed_guarantee().relation == UserReplace()
    assert mech.claimed_guarantee().relation.is_neighbor(d0, d1)
    seeds = np.random.SeedSequence([SEED, index]).spawn(2)
    ok = dpaudit.audit(mech, d0, d1, epsilon=eps, delta=delta, trials=200_000, confidence=CONFIDENCE, seed=seeds[0])
    assert not ok.violation, f"{name}: {ok.to_text()}"
    assert ok.epsilon_lower_bound > 0.6 * eps, f"{name}: the audit learns little on this pair\n{ok.to_text()}"
    bad = dpaudit.audit(broken, d0, d1, epsilon=eps, delta=delta, trials=200_000, confidence=CONFIDENCE,
                        seed=seeds[1])
    assert bad.violation, f"{name} (miscalibrated copy): {bad.to_text()}"


@pytest.mark.parametrize("mech", [ClippedUserMeanGaussian(1.0, 1e-6, 1.0), ClippedUserMeanLaplace(1.0, 1.0),
                                  GroupPrivateItemMean(1.0, 1e-6, 1.0)], ids=lambda m: type(m).__name__)
def test_privacy_error_equals_the_noise_variance_and_does_not_fall_with_m(mech):
    rng = np.random.default_rng(SEED)
    n, dim, trials, grid = 200, 3, 4000, (1, 4, 16, 64)
    z = stats.norm.isf(FAILURE_PROB / (2 * len(grid)))
    samples = []
    for m in grid:
        u = rng.normal(size=(n, m, dim))
        data = 0.3 + 0.5 * u / np.linalg.norm(u, axis=-1, keepdims=True) / math.sqrt(dim)  # inside B_2(0, 1)
        out = mech.sample(data, trials, rng=rng)
        err = np.sum((out - data.mean(axis=(0, 1))) ** 2, axis=1)
        if isinstance(mech, ClippedUserMeanLaplace):
            expected = 2 * dim * mech.noise_scale(n, dim) ** 2
        elif isinstance(mech, GroupPrivateItemMean):
            expected = dim * mech.noise_scale(n, m) ** 2
        else:
            expected = dim * mech.noise_scale(n) ** 2
        se = err.std(ddof=1) / math.sqrt(trials)
        assert abs(err.mean() - expected) <= z * se, (type(mech).__name__, m, err.mean(), expected, se, SEED)
        samples.append(err[: trials // 10 * 10].reshape(10, -1).mean(axis=1))  # 10 replicate means per m
    fit = fit_log_slope(grid, samples)
    lo, hi = fit.interval(FAILURE_PROB)
    # no fall with m: the interval excludes any slope below -0.1 (Corollary 1's privacy term has -1); the
    # group-private noise even grows slowly (its item-level delta shrinks with m)
    assert -0.1 < lo and hi < 0.25, (type(mech).__name__, fit, lo, hi, SEED)
    print(f"{type(mech).__name__}: privacy-error slope in m {fit.slope:.4f} ({lo:.4f}, {hi:.4f})")


def test_extreme_finite_inputs_stay_inside_the_ball_and_invalid_data_are_refused():
    huge = np.full((5, 3, 2), 1e308)
    huge[1] = -1e308
    for mech in (ClippedUserMeanGaussian(1.0, 1e-6, 1.0), ClippedUserMeanLaplace(1.0, 1.0),
                 GroupPrivateItemMean(1.0, 1e-6, 1.0)):
        out = mech.sample(huge, 10, rng=np.random.default_rng(0))
        assert np.all(np.isfinite(out))
        with pytest.raises(InvalidArgument, match="finite"):
            mech.sample(np.full((5, 3, 2), np.inf), 1, rng=np.random.default_rng(0))
    x = np.array([[0.3, -0.4], [0.9, 1.2], [3.0, 4.0], [1e308, 1e308]])
    np.testing.assert_allclose(clip_to_ball(x, 1.0),
                               [[0.3, -0.4], [0.6, 0.8], [0.6, 0.8], [math.sqrt(0.5), math.sqrt(0.5)]], rtol=1e-12)
