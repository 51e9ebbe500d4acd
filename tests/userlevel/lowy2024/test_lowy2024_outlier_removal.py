"""The outlier-removal subroutine of Lowy et al. 2024: score sensitivity, rank stability, the ramp, the coupling.

Each property (Alg 1 lines 12-17 and Lemma B.2 of the paper) is checked here on random and
adversarial configurations; the explicit coupling constant of Lemma B.2 (refined in
:func:`~dpaudit.userlevel.lowy2024.privacy.alg1_coupling_sensitivity`) is checked by simulating the
coupling itself.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.userlevel.lowy2024.outlier_removal import (
    concentration_score,
    inclusion_probability,
    pairwise_sq_distances,
    point_scores,
    robust_mean,
)
from dpaudit.userlevel.lowy2024.privacy import alg1_phase_guarantee

coords = st.floats(-3.0, 3.0, allow_nan=False)


def _cloud(k: int, d: int, values: list[float]) -> np.ndarray:
    return np.asarray(values[: k * d], dtype=float).reshape(k, d)


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 14), st.integers(1, 3), st.lists(coords, min_size=45, max_size=45), st.integers(0, 13),
       st.lists(coords, min_size=3, max_size=3), st.floats(0.05, 2.0))
def test_score_sensitivity_and_rank_stability(k, d, values, j0, replacement, radius):
    """Replacing one point moves ``s`` by at most ``2(k-1)/k`` and any other point's ``h`` by at most 1 (note items 1-2)."""
    y = _cloud(k, d, values)
    y2 = y.copy()
    j0 %= k
    y2[j0] = replacement[:d]
    s, s2 = concentration_score(pairwise_sq_distances(y), radius), concentration_score(pairwise_sq_distances(y2), radius)
    assert abs(s - s2) <= 2 * (k - 1) / k + 1e-12
    h, h2 = point_scores(pairwise_sq_distances(y), radius), point_scores(pairwise_sq_distances(y2), radius)
    others = np.arange(k) != j0
    assert np.all(np.abs(h - h2)[others] <= 1)
    assert 1 <= s <= k  # ordered pairs with the diagonal: s in [1, k]


def test_score_matches_a_direct_double_loop():
    rng = np.random.default_rng(1)
    y = rng.normal(size=(9, 2))
    direct = sum(np.linalg.norm(a - b) <= 0.8 for a in y for b in y) / 9
    assert concentration_score(pairwise_sq_distances(y), 0.8) == direct


def test_ramp_shape():
    """p = 0 below k/2, 1 from 2k/3, linear between with slope 6/k, continuous (note item 3) [Alg 1 line 17]."""
    k = 30
    h = np.arange(0, k + 1)
    p = inclusion_probability(h, k)
    assert np.all(p[h < 15] == 0) and np.all(p[h >= 20] == 1)
    assert np.allclose(p[15:21], (h[15:21] - 15) / 5)
    assert np.max(np.abs(np.diff(p))) <= 6 / k + 1e-12


def test_full_concentration_keeps_everything():
    """Points pairwise within tau: s = k and every p = 1, so the robust mean is the mean (note item 7)."""
    rng = np.random.default_rng(2)
    y = rng.uniform(-0.1, 0.1, size=(4, 12, 3))
    d2 = pairwise_sq_distances(y)
    assert np.all(concentration_score(d2, 0.4) == 12)
    mean, kept = robust_mean(y, inclusion_probability(point_scores(d2, 0.8), 12), rng=rng)
    assert np.all(kept == 12) and np.allclose(mean, y.mean(axis=1))


def _stress(rng: np.random.Generator, c: int) -> tuple[np.ndarray, np.ndarray, int]:
    """A core spread over a disc of radius tau/2 and a ring at 1.9-2.4 tau whose ranks sit in the ramp zone."""
    core = int(rng.integers(int(0.8 * c), c - 1))
    pts = np.zeros((c, 2))
    ang = rng.uniform(0, 2 * np.pi, size=c)
    rad = np.r_[0.5 * np.sqrt(rng.random(core)), rng.uniform(1.9, 2.4, size=c - core)]
    pts[:] = rad[:, None] * np.c_[np.cos(ang), np.sin(ang)]
    j0 = int(rng.integers(0, c))
    other = pts.copy()
    other[j0] = rng.choice([[40.0, 0.0], [0.0, 0.0], [2.2, 0.0]])
    return pts, other, j0


@settings(max_examples=200, deadline=None)
@given(st.integers(20, 60), st.integers(0, 2**32 - 1))
def test_coupling_structure(c, seed):
    """The deterministic part of Lemma B.2 (refined): with both scores >= gamma C,
    g = ceil(gamma C) >= 2C/3 + 1, the >= g - 1 unchanged points within tau of y_a are kept on both
    sides, every point kept with positive probability lies within 3 tau of y_a on either side, at most
    C - g other indices have p != p', and for any coins the means differ by <= 6 tau (flips + 2)/(g - 1)."""
    rng = np.random.default_rng(seed)
    tau = 1.0
    pts, other, j0 = _stress(rng, c)
    gamma = (np.floor(2 * c / 3) + 2) / c
    g = int(np.ceil(gamma * c - 1e-12))
    d2 = [pairwise_sq_distances(p) for p in (pts, other)]
    if min(concentration_score(x, tau) for x in d2) < gamma * c:
        return
    h_tau = point_scores(d2[0], tau)
    a = int(np.argmax(h_tau))
    ball = np.flatnonzero(d2[0][a] <= tau * tau)
    probs = [inclusion_probability(point_scores(x, 2 * tau), c) for x in d2]
    unchanged = ball[ball != j0]
    assert np.all(probs[0][unchanged] == 1) and np.all(probs[1][unchanged] == 1)
    for p, pr in zip((pts, other), probs, strict=True):
        assert np.all(np.linalg.norm(p[pr > 0] - pts[a], axis=1) <= 3 * tau + 1e-9)
    differ = np.flatnonzero(probs[0] != probs[1])
    assert differ[differ != j0].size <= c - g
    for coins in rng.random((50, c)):
        keep = [coins < pr for pr in probs]
        flips = int(np.sum(keep[0] != keep[1])) - int(keep[0][j0] != keep[1][j0]) + int(keep[0][j0]) + int(keep[1][j0])
        gap = np.linalg.norm(pts[keep[0]].mean(axis=0) - other[keep[1]].mean(axis=0))
        assert gap <= 6 * tau * flips / (g - 1) + 1e-9


def test_flips_are_dominated_by_the_binomial():
    """The number of coupled flips X is dominated by Bin(C - g, 6/C) (the t of the explicit Lemma B.2).

    On stress configurations with many ranks in the ramp zone, the empirical P(X >= t) over 20 000
    coupled draws stays below the binomial tail plus a Hoeffding margin at failure probability 1e-6
    per comparison (union over at most 60 values of t).
    """
    from scipy import stats

    rng = np.random.default_rng(7)
    c, tau, draws = 48, 1.0, 20_000
    margin = np.sqrt(np.log(60 / 1e-6) / (2 * draws))
    checked = 0
    for _ in range(40):
        pts, other, j0 = _stress(rng, c)
        gamma = (np.floor(2 * c / 3) + 2) / c
        g = int(np.ceil(gamma * c - 1e-12))
        d2 = [pairwise_sq_distances(p) for p in (pts, other)]
        if min(concentration_score(x, tau) for x in d2) < gamma * c:
            continue
        probs = [inclusion_probability(point_scores(x, 2 * tau), c) for x in d2]
        mask = np.arange(c) != j0
        u = rng.random((draws, c))
        flips = ((u < probs[0]) != (u < probs[1]))[:, mask].sum(axis=1)
        tail_bound = stats.binom.sf(np.arange(c) - 1, c - g, 6 / c)
        empirical = (flips[:, None] >= np.arange(c)[None, :]).mean(axis=0)
        assert np.all(empirical <= tail_bound + margin)
        checked += 1
    assert checked >= 10


def test_phase_budget_adds_up():
    """One phase of Algorithm 1: eps = eps_test + eps_gaussian, delta = max(delta_G + zeta, e^eps_test * bad pass)."""
    g = alg1_phase_guarantee(groups=72, test_scale=2.0, threshold=0.9 * 72, sigma=1.0, tau=0.1, gamma=0.7,
                             delta_gaussian=5e-4, zeta=5e-4)
    assert np.isclose(g.epsilon_test, (2 * 71 / 72) / 2.0)
    assert np.isclose(g.epsilon, g.epsilon_test + g.epsilon_gaussian)
    assert np.isclose(g.bad_pass, 0.5 * np.exp(-(0.9 - 0.7) * 72 / 2.0))
    assert np.isclose(g.delta, max(1e-3, np.exp(g.epsilon_test) * g.bad_pass))
