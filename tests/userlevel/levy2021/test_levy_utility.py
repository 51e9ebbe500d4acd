"""Utility against the rates of Levy et al. 2021: Corollary 1 (mean estimation) and Theorem 4 (Phased ERM).

Mean estimation. Corollary 1: ``E||A(S) - mu||^2 = Var(P_0)/(mn) + O~(d B^2 / (m n^2 eps^2))``. The
hidden logs enter only through ``log(n / gamma)`` (the user-mean radius) and ``log(d' n / gamma)``
(``tau'``); the grids below hold ``n / gamma`` fixed, so the exponents are exact: ``-1`` in ``m`` for
both terms, and ``-2`` in ``n`` for the privacy term (``-1`` for the statistical one). In the nice
event (PrivateRange picks a non-empty bin, nothing is clipped) Algorithm 2 returns the users' mean
plus ``U^{-1} xi`` with i.i.d. ``xi_j ~ Lap(b)``, so conditionally on the data

    E ||A - mu||^2 = ||mean - mu||^2 + 2 d b^2        (exact; U is orthogonal)

In ``d`` the privacy term is ``2 d b^2`` with ``b = 2 w / (n eps')`` independent of ``d'`` (``tau'`` and
``eps'`` both scale as ``1/sqrt(d')``), so its exponent is ``+1`` once ``d' / gamma`` is held fixed.
Each cell is checked against that formula, and the fitted log-log slopes against the slope of the
formula (which equals the theorem's exponent up to the share of the statistical term, bounded
below), with tolerances from the regression standard error at FAILURE_PROB.

Phased ERM. Theorem 4's excess risk ``O~(R sqrt(G G_) / sqrt(mn) + R G~ sqrt(d) / (n sqrt(m) eps))``
falls with ``m``; the same algorithm with item-level calibration (the concentration radius computed
as if ``m = 1``) does not.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.userlevel.levy2021.mean_estimation import UserMeanEstimator, user_mean_radius
from dpaudit.userlevel.levy2021.phased_erm import PhasedERM
from dpaudit.userlevel.losses import SquaredLoss

FAILURE_PROB = 1e-6
SEED = 8812
SPREAD = 0.5  # z = mu + SPREAD * u with u uniform on the unit sphere: support in B_2(0, 1), Var(P_0) = 0.25


def _mu(dim: int) -> np.ndarray:
    mu = np.zeros(dim)
    mu[:3] = [0.3, -0.2, 0.1][:dim]
    return mu


def _sphere_data(rng: np.random.Generator, n: int, m: int, dim: int) -> np.ndarray:
    u = rng.normal(size=(n, m, dim))
    u /= np.linalg.norm(u, axis=-1, keepdims=True)
    return _mu(dim) + SPREAD * u


def _cell(n: int, m: int, dim: int, gamma: float, tau: float | None, trials: int,
          rng: np.random.Generator) -> tuple[float, float, float, float]:
    """(measured MSE, its standard error, exact conditional MSE, statistical share of it)."""
    data = _sphere_data(rng, n, m, dim)
    mu = _mu(dim)
    est = UserMeanEstimator(4.0, 1e-6, 1.0, gamma=gamma, tau=tau, tau_rule="tight", project=False)
    out = est.sample(data, trials, rng=rng)
    sq = np.sum((out - mu) ** 2, axis=1)
    b = est.estimator(n, m, dim).coordinate_mechanism(n, dim).noise_scale(n)
    stat = float(np.sum((data.mean(axis=(0, 1)) - mu) ** 2))
    exact = stat + 2 * dim * b**2
    return float(sq.mean()), float(sq.std(ddof=1) / math.sqrt(trials)), exact, stat / exact


def _wls_slope(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """Weighted least-squares slope of y on x and its standard error (weights = 1 / Var(y))."""
    xm = np.sum(w * x) / np.sum(w)
    sxx = np.sum(w * (x - xm) ** 2)
    slope = np.sum(w * (x - xm) * y) / sxx
    return float(slope), float(1 / math.sqrt(sxx))


@pytest.mark.parametrize(("axis", "grid", "exponent"), [
    ("n", (1000, 2000, 4000, 8000), -2.0),
    ("m", (4, 16, 64, 256), -1.0),
    ("d", (2, 4, 8, 16), 1.0),
])
def test_mean_estimation_error_follows_corollary_1(axis, grid, exponent):
    rng = np.random.default_rng(SEED)
    trials = 300
    cells = []
    for value in grid:
        tau = None  # the user-mean radius of Corollary 1 (dimension-free)
        if axis == "n":
            n, m, dim, gamma = value, 64, 4, 1e-4 * value / 1000  # n / gamma fixed: the logs are constant
        elif axis == "m":
            n, m, dim, gamma = 2000, value, 4, 2e-4
        else:  # d' / gamma fixed in tau' and the radius held at its gamma = 1e-4 value (valid for every d)
            n, m, dim, gamma = 2000, 64, value, 1e-4 * value / 2
            tau = user_mean_radius(1.0, m, n, 1e-4)
        cells.append(_cell(n, m, dim, gamma, tau, trials, rng))
    mse, se, exact, share = (np.array(v) for v in zip(*cells, strict=True))
    # every cell matches the exact conditional MSE (Bonferroni over the grid)
    z_cell = stats.norm.isf(FAILURE_PROB / (2 * len(grid)))
    for value, a, s, e in zip(grid, mse, se, exact, strict=True):
        assert abs(a - e) <= z_cell * s, f"{axis}={value}: measured {a:.4g} +- {s:.2g} vs exact {e:.4g}, " \
                                         f"trials={trials}, z={z_cell:.2f}, seed={SEED}"
    # the fitted slope matches the slope of the exact rate (delta method: Var(log mse) = (se/mse)^2)
    x = np.log(np.array(grid, dtype=float))
    w = (mse / se) ** 2
    slope, slope_se = _wls_slope(x, np.log(mse), w)
    target, _ = _wls_slope(x, np.log(exact), w)
    z = stats.norm.isf(FAILURE_PROB / 2)
    assert abs(slope - target) <= z * slope_se, f"{axis}: slope {slope:.3f} +- {slope_se:.3f} vs {target:.3f}, " \
                                                f"grid={grid}, trials={trials}, seed={SEED}"
    # the exact rate's slope is the theorem's exponent, moved at most by the statistical share
    # (its exponent differs by at most 1): |target - exponent| <= max share
    assert abs(target - exponent) <= share.max() + 1e-12, (target, exponent, share)
    print(f"Cor 1 slope in {axis}: fitted {slope:.3f} +- {slope_se:.3f}, exact-rate {target:.3f}, theorem {exponent}")


def _binary_regression(rng: np.random.Generator, n: int, m: int, theta: np.ndarray, noise: float) -> np.ndarray:
    """x = (a, b)/sqrt(2) with Rademacher a, b; y = <theta, x> + noise * Rademacher. E[x x^T] = I/2."""
    x = rng.choice([-1.0, 1.0], size=(n, m, theta.size)) / math.sqrt(theta.size)
    y = x @ theta + noise * rng.choice([-1.0, 1.0], size=(n, m))
    return np.concatenate([x, y[..., None]], axis=-1)


def _erm_risks(m_grid: tuple[int, ...], trials: int, seed: int) -> dict[str, np.ndarray]:
    """Excess population risk ||theta - theta*||^2 / 4 (exact: E[x x^T] = I/2) for both calibrations.

    The users' average gradients are ``(Sigma_u - I/2)(theta - theta*) - noise * mean(xi x)``; every
    entry is a mean of m Rademacher variables, so with probability 1 - gamma (Hoeffding, union over
    3 sums and n users) they lie within ``tau(m) = (1 + noise) sqrt(2 ln(6 n / gamma) / m)`` of the
    population gradient, uniformly in theta (||theta - theta*|| <= 2). Item-level calibration uses
    tau(1). n eps = 4096 * 16 stands in for n = 65536 at eps = 1: the noise depends on n eps, and
    the larger n would need 16 times the memory.
    """
    rng = np.random.default_rng(seed)
    n, d, noise, gamma = 4096, 2, 0.3, 1e-3
    theta_star = np.array([0.4, -0.3])
    label_bound = float(np.abs(theta_star).sum() / math.sqrt(d) + noise)
    out: dict[str, list[float]] = {"user": [], "item": [], "user_se": [], "item_se": []}
    for m in m_grid:
        data = _binary_regression(rng, n, m, theta_star, noise)
        for name, m_cal in (("user", m), ("item", 1)):
            tau = (1 + noise) * math.sqrt(2 * math.log(6 * n / gamma) / m_cal)
            erm = PhasedERM(SquaredLoss(), 16.0, 1e-5, 1.0, 1.0, label_bound=label_bound, rounds=2, steps=2,
                            tau=tau, gamma=gamma, mode="paper", tau_rule="tight")
            risk = np.sum((erm.sample(data, trials, rng=rng) - theta_star) ** 2, axis=1) / 4
            out[name].append(float(risk.mean()))
            out[f"{name}_se"].append(float(risk.std(ddof=1) / math.sqrt(trials)))
    return {k: np.array(v) for k, v in out.items()}


def test_phased_erm_risk_falls_with_m_unlike_item_level_calibration():
    grid, trials = (16, 256), 60
    r = _erm_risks(grid, trials, SEED)
    z = stats.norm.isf(FAILURE_PROB)
    gap = r["item"][-1] - r["user"][-1]
    assert gap > z * math.hypot(r["item_se"][-1], r["user_se"][-1]), (r, trials, SEED)
    fall = r["user"][0] - r["user"][-1]
    assert fall > z * math.hypot(r["user_se"][0], r["user_se"][-1]), (r, trials, SEED)
    print(f"Phased ERM excess risk, m={grid}: user-level {r['user']}, item-level {r['item']}")


def test_phased_erm_risk_falls_at_least_at_the_theorem_4_rate():
    """Thm 4: excess risk O(1/sqrt(m)) at fixed n. The fitted slope in m is at most -1/2 (the squared
    loss here is strongly convex, so the privacy term falls like tau^2 ~ 1/m); item-level calibration
    does not fall at that rate. About 8 s of CPU: it runs by default (a smaller grid, m <= 512, loses
    the power to separate the slope from -1/2)."""
    grid, trials = (64, 256, 1024), 200
    r = _erm_risks(grid, trials, SEED + 1)
    x = np.log(np.array(grid, dtype=float))
    z = stats.norm.isf(FAILURE_PROB / 2)
    slope_u, se_u = _wls_slope(x, np.log(r["user"]), (r["user"] / r["user_se"]) ** 2)
    slope_i, se_i = _wls_slope(x, np.log(r["item"]), (r["item"] / r["item_se"]) ** 2)
    assert slope_u + z * se_u < -0.5, (slope_u, se_u, r)
    assert slope_i - z * se_i > -0.5, (slope_i, se_i, r)
    print(f"Phased ERM slope in m: user-level {slope_u:.3f} +- {se_u:.3f}, item-level {slope_i:.3f} +- {se_i:.3f}")
