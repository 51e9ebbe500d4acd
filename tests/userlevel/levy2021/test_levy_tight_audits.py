"""The correct components' audits are tight: a calibration off by a factor 2 is flagged by the same audit.

Every correct case of :func:`levy2021_audit_cases` is audited against the exact epsilon it spends on its
pair (:mod:`dpaudit.userlevel.levy2021.exact_laws`, computed from the paper's formulas, not from the
mechanisms' code). Here each case is audited again, with the *same* pair, claim, trial count and seed,
on a copy of the code whose Laplace noise scale is halved (``WinsorizedMean1D.noise_scale``: every
Algorithm 1 stage, so Algorithms 2-4 and Corollary 1 too) or whose exponential mechanism's weights are
doubled (``PrivateRange.log_weights``: the range stage's budget doubled). Every such audit must flag.

The reference laws themselves are checked against the mechanisms' samples (KS tests), so the claims
are the laws the code samples from, and the audits of the correct code are valid.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.userlevel.levy2021.audit_cases import levy2021_audit_cases
from dpaudit.userlevel.levy2021.exact_laws import (
    LaplaceMixture,
    algorithm_1_law,
    laplace_mixture_epsilon,
    sign_symmetrised,
)
from dpaudit.userlevel.levy2021.private_range import PrivateRange
from dpaudit.userlevel.levy2021.winsorized_1d import WinsorizedMean1D

CONFIDENCE = 0.999
SEED = 977
FAILURE_PROB = 1e-6

with warnings.catch_warnings():
    warnings.simplefilter("ignore", UnsoundMechanismWarning)
    CASES = [c for c in levy2021_audit_cases() if not c.broken]

#: Correct cases no calibration change can expose: the pair spends exactly 0 (the clamp puts both
#: datasets in the same bin), or the claim is the loose composed bound of 16 adaptive steps.
UNTIGHT = {"Levy PrivateRange, out-of-range user (correct)", "Levy Alg 3, 16 steps (correct)"}


def _knob(name: str) -> str:
    """Which calibration a case exercises: the range stage's weights, or the Laplace noise."""
    return "range" if ("PrivateRange" in name or "range stage" in name) else "noise"


def _miscalibrate(monkeypatch: pytest.MonkeyPatch, knob: str) -> None:
    if knob == "range":
        weights = PrivateRange.log_weights
        monkeypatch.setattr(PrivateRange, "log_weights", lambda self, counts: 2.0 * weights(self, counts))
    else:
        scale = WinsorizedMean1D.noise_scale
        monkeypatch.setattr(WinsorizedMean1D, "noise_scale", lambda self, n: 0.5 * scale(self, n))


def _audit(case):
    return dpaudit.audit(case.mechanism, case.d0, case.d1, epsilon=case.epsilon, delta=case.delta,
                         trials=case.trials, confidence=CONFIDENCE, seed=SEED)


def test_every_correct_case_but_two_is_audited_against_its_pair_budget():
    names = {c.name for c in CASES}
    assert UNTIGHT <= names
    assert len(names - UNTIGHT) >= 18


@pytest.mark.parametrize("case", [c for c in CASES if c.name not in UNTIGHT], ids=lambda c: c.name)
def test_a_factor_two_miscalibration_is_flagged_by_the_same_audit(case, monkeypatch):
    knob = _knob(case.name)
    _miscalibrate(monkeypatch, knob)
    res = _audit(case)
    assert res.violation, (
        f"{case.name} with the {'range weights doubled' if knob == 'range' else 'noise scale halved'}: "
        f"epsilon >= {res.epsilon_lower_bound:.4f} does not exceed the pair budget {case.epsilon:.4f} "
        f"(trials={case.trials}, seed={SEED})\n{res.to_text()}")


# ------------------------------------------------------------------------------------------------
# the reference laws are the laws the mechanisms sample from


def _mixture_cdf(law: LaplaceMixture, x: np.ndarray) -> np.ndarray:
    w = np.exp(law.log_weights)
    return (w[None, :] * stats.laplace.cdf(x[:, None], law.locations[None, :], law.scale)).sum(axis=1)


def _ks_critical(n: int) -> float:
    """One-sample KS critical value at FAILURE_PROB (DKW: P(sup|F_n - F| > t) <= 2 exp(-2 n t^2))."""
    return math.sqrt(math.log(2 / FAILURE_PROB) / (2 * n))


@pytest.mark.parametrize("mode", ["safe", "paper"])
def test_algorithm_1_samples_follow_the_reference_mixture(mode):
    rng = np.random.default_rng(SEED)
    values = np.array([-1.0, 2.0, 0.5, 0.5, 0.4, 0.7, 3.9, -4.0])
    mech = WinsorizedMean1D(2.0, 0.5, 4.0, mode=mode)
    out = mech.sample(values[:, None], 40_000, rng=rng)
    law = algorithm_1_law(values, 2.0, 0.5, 4.0, mode)
    d = stats.kstest(out, lambda x: _mixture_cdf(law, np.atleast_1d(x))).statistic
    assert d <= _ks_critical(out.size), f"n={out.size}, KS={d:.4g}, mode={mode}, seed={SEED}"


def test_mixture_epsilon_matches_a_dense_grid_and_the_single_laplace_closed_form():
    """Exact sup |log p0/p1| against a brute-force grid (never larger), and Lap shift s/b for one component."""
    one0 = LaplaceMixture(np.zeros(1), np.array([0.0]), 0.5)
    one1 = LaplaceMixture(np.zeros(1), np.array([0.3]), 0.5)
    assert laplace_mixture_epsilon(one0, one1) == pytest.approx(0.3 / 0.5, rel=1e-12)
    rng = np.random.default_rng(SEED)
    for _ in range(20):
        k = 5
        p0 = LaplaceMixture(np.log(rng.dirichlet(np.ones(k))), rng.normal(size=k), 0.7)
        p1 = LaplaceMixture(np.log(rng.dirichlet(np.ones(k))), rng.normal(size=k), 0.7)
        exact = laplace_mixture_epsilon(p0, p1)
        grid = np.linspace(-60, 60, 200_001)
        dens = [np.log(np.maximum(np.exp(p.log_weights)[None, :] * np.exp(-np.abs(grid[:, None] - p.locations) / 0.7),
                                  1e-300).sum(axis=1)) for p in (p0, p1)]
        brute = float(np.max(np.abs(dens[0] - dens[1])))
        assert brute <= exact + 1e-9 and exact - brute <= 1e-3, (exact, brute)


def test_sign_symmetrised_law_is_the_law_of_the_random_sign():
    """s A(s v) for a fair sign s: the equal mixture of A(v) and -A(-v)."""
    values = np.array([0.2, -0.9, 0.5])
    plus, minus = algorithm_1_law(values, 1.0, 0.4, 1.0), algorithm_1_law(-values, 1.0, 0.4, 1.0)
    law = sign_symmetrised(plus, minus)
    assert np.exp(law.log_weights).sum() == pytest.approx(1.0)
    np.testing.assert_allclose(law.locations[plus.locations.size:], -minus.locations)


def _mixture_sample(law: LaplaceMixture, size: int, rng: np.random.Generator) -> np.ndarray:
    p = np.exp(law.log_weights)
    k = rng.choice(law.locations.size, size=size, p=p / p.sum())
    return law.locations[k] + rng.laplace(0.0, law.scale, size=size)


def _two_sample_critical(n: int, tests: int) -> float:
    """sup|F_n - G_n| bound at FAILURE_PROB/tests: each sample within sqrt(ln(4 tests/alpha)/(2n)) of F (DKW)."""
    return 2.0 * math.sqrt(math.log(4 * tests / FAILURE_PROB) / (2 * n))


def test_algorithm_2_with_fixed_signs_samples_follow_the_reference_laws():
    """Algorithm 2 with fixed signs = U^T applied to independent Algorithm 1 runs on the rotated coordinates.

    Two-sample KS per output coordinate between the mechanism and draws from the reference laws
    (rotated with scipy's dense Hadamard matrix), Bonferroni over the 3 coordinates.
    """
    from scipy import linalg

    from dpaudit.userlevel.levy2021.exact_laws import _coordinate_parameters, rotated_coordinates
    from dpaudit.userlevel.levy2021.winsorized_highd import WinsorizedMeanHighD

    rng = np.random.default_rng(SEED)
    signs = np.array([1.0, -1.0, -1.0, 1.0])
    x = rng.uniform(-0.3, 0.3, size=(30, 1, 3)) + np.array([0.1, 0.0, -0.2])
    mech = WinsorizedMeanHighD(8.0, 1e-3, 0.2, 1.0, 1e-2, tau_rule="tight", signs=tuple(signs))
    n = 20_000
    out = mech.sample(x, n, rng=rng)
    eps1, tau1 = _coordinate_parameters(8.0, 1e-3, 0.2, 30, 4, 1e-2, "tight")
    rotated = rotated_coordinates(x[:, 0], signs)
    ybar = np.stack([_mixture_sample(algorithm_1_law(rotated[:, j], eps1, tau1, math.sqrt(3.0)), n, rng)
                     for j in range(4)], axis=1)
    reference = (ybar @ linalg.hadamard(4)) * signs / 2.0  # U^T ybar = D H ybar / sqrt(d')
    crit = _two_sample_critical(n, 3)
    for j in range(3):
        d = stats.ks_2samp(out[:, j], reference[:, j]).statistic
        assert d <= crit, f"coordinate {j}: n={n}, two-sample KS={d:.4g} > {crit:.4g}, seed={SEED}"


def test_one_gradient_query_in_one_dimension_follows_the_sign_symmetrised_law():
    """d' = 1: the released gradient is s A(s g) with a fresh fair sign s; one-sample KS against the mixture."""
    from dpaudit.userlevel.levy2021.exact_laws import (
        _coordinate_parameters,
        algorithm_3_step_privacy,
    )
    from dpaudit.userlevel.levy2021.first_order import WinsorizedFirstOrder
    from dpaudit.userlevel.losses import SquaredLoss

    rng = np.random.default_rng(SEED)
    labels = 0.6 + rng.uniform(-0.1, 0.1, size=200)  # gradients near -0.6: A(g) and -A(-g) sit together, A(-g) apart
    data = np.stack([np.ones((200, 1)), labels[:, None]], axis=-1)
    wfo = WinsorizedFirstOrder(SquaredLoss(), 3.0, 0.5, 1.0, 1.0, steps=1, tau=0.05, gamma=0.01)
    query = wfo.gradient_query([0.0], 200, 1)
    out = query.sample(data, 40_000, rng=rng)[:, 0]
    e1, d1 = algorithm_3_step_privacy(3.0, 0.5, 1)
    eps2, tau2 = _coordinate_parameters(e1, d1, 0.05, 200, 1, 0.01, "paper")
    g = -labels  # gradient of (theta - y)^2 / 2 at theta = 0
    law = sign_symmetrised(algorithm_1_law(g, eps2, tau2, 2.0), algorithm_1_law(-g, eps2, tau2, 2.0))
    d = stats.kstest(out, lambda t: _mixture_cdf(law, np.atleast_1d(t))).statistic
    assert d <= _ks_critical(out.size), f"n={out.size}, KS={d:.4g}, seed={SEED}"
