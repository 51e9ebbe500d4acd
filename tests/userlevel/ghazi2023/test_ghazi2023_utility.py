"""Utility: excess risk against n and m on 1-d mean estimation (optimum known exactly), by fitted slopes.

SCOutputPert's stated rate (Thm 3.1 / Thm 4.3's first step) is ``d/(n^2 m)`` up to the factors
``O~_eps`` hides. With the certified threshold of App. C those factors are ``ln(n/beta)`` and
``(n/(n - 4 kappa - 1))^2`` (Delta ∝ sqrt(ln(n/beta)) / ((n - 4 kappa - 1) sqrt(m))): the tolerance on
the fitted slope in ``n`` is their own slope over the range, computed here from that definition, plus
4 standard errors of the fit; in ``m`` they are constant, so the slope must be -1 within 4 standard
errors. Each point averages ``TRIALS`` excess risks ``(1 + l2) (theta_hat - theta*)^2 / 2``, whose
relative standard error is ``sqrt(2 / TRIALS)`` (a chi-square with one degree of freedom).

Erratum E8(c): Phased-SCO's last phase adds noise ``sigma_T`` that does not decrease with ``m`` when
``m >> n``; the mechanism's own resolved ``sigma_T`` and its measured excess population risk both stay
flat, against the stated rate's slope of -1/2.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.userlevel.ghazi2023 import PhasedSCO, SCOutputPert
from dpaudit.userlevel.ghazi2023.utility import MeanProblem, fit_slope, last_phase_sigma

TRIALS = 2000
SEED = 0
PROBLEM = MeanProblem()
EPS, DELTA, BETA = 1.0, 1e-5, 0.01


def _excess(mech, n, m, rng):
    data = PROBLEM.sample(n, m, rng)
    out = mech.sample(data, TRIALS, rng=rng)
    assert not out[:, 0].any(), "random data passed the certificate: no ⊥ expected"
    return float(PROBLEM.excess_empirical_risk(data, out[:, 1]).mean())


def _hidden_factor_slope(ns, kappa):
    """Slope in log n of ln(n/beta) / (n - 4 kappa - 1)^2 times n^2: what O~ hides (certified Delta, squared)."""
    ns = np.asarray(ns, dtype=float)
    hidden = np.log(ns / BETA) * (ns / (ns - 4 * kappa - 1)) ** 2
    return fit_slope(ns, hidden).slope


def test_sc_output_pert_excess_risk_falls_like_one_over_n_squared():
    mech = SCOutputPert(PROBLEM.erm(), EPS, DELTA, beta=BETA)
    kappa = mech.parameters(300, 50, 1).alg1.kappa
    ns = [300, 600, 1200, 2400, 4800]
    rng = np.random.default_rng(SEED)
    risks = [_excess(mech, n, 50, rng) for n in ns]
    fit = fit_slope(np.array(ns), np.array(risks), np.full(len(ns), math.sqrt(2 / TRIALS)))
    hidden = _hidden_factor_slope(ns, kappa)
    tolerance = abs(hidden) + 4 * fit.stderr
    assert abs(fit.slope - (-2.0)) <= tolerance, (f"slope {fit.slope:.3f} +- {fit.stderr:.3f} vs -2 (hidden factors "
                                                  f"{hidden:+.3f}); risks {risks}; seed {SEED}")
    assert abs(fit.slope - (-2.0 + hidden)) <= 4 * fit.stderr, f"slope {fit.slope:.3f} vs {-2 + hidden:.3f}"


def test_sc_output_pert_excess_risk_falls_like_one_over_m():
    mech = SCOutputPert(PROBLEM.erm(), EPS, DELTA, beta=BETA)
    ms = [25, 100, 400, 1600]
    rng = np.random.default_rng(SEED + 1)
    risks = [_excess(mech, 1000, m, rng) for m in ms]
    fit = fit_slope(np.array(ms), np.array(risks), np.full(len(ms), math.sqrt(2 / TRIALS)))
    assert abs(fit.slope - (-1.0)) <= 4 * fit.stderr, f"slope {fit.slope:.3f} +- {fit.stderr:.3f}; risks {risks}"


def test_phased_sco_last_phase_noise_does_not_fall_with_m_e8c():
    """E8(c): sigma_T of the mechanism's own last phase is flat in m (the stated rate falls like m^-1/2),
    and so is the measured excess population risk; SCOutputPert on the same data falls like 1/m."""
    problem = MeanProblem(l2=0.0)
    mech = PhasedSCO(problem.erm(), 1.0, 0.5)
    n = 4 * mech.batch_zero()
    ms = np.array([10, 100, 1000, 4000])
    sigmas = np.array([last_phase_sigma(mech, n, int(m)) for m in ms])
    sigma_fit = fit_slope(ms, sigmas)
    assert -0.1 <= sigma_fit.slope <= 0.1, f"sigma_T slope {sigma_fit.slope:.3f}: {sigmas}"  # the rate's is -1/2
    rng = np.random.default_rng(SEED + 2)
    risks, sc_risks = [], []
    sc = SCOutputPert(MeanProblem(l2=1.0).erm(), 1.0, 0.5, beta=BETA)
    for m in ms:
        data = problem.sample(n, int(m), rng)
        risks.append(float(problem.excess_population_risk(mech.sample(data, 400, rng=rng)).mean()))
        sc_risks.append(float(MeanProblem(l2=1.0).excess_empirical_risk(data, sc.sample(data, 400, rng=rng)[:, 1]).mean()))
    assert fit_slope(ms, np.array(risks)).slope > -0.1, f"Phased-SCO risks {risks}"
    assert fit_slope(ms, np.array(sc_risks)).slope < -0.8, f"SCOutputPert risks {sc_risks}"


def test_fit_slope_recovers_a_power_law():
    x = np.array([1.0, 10.0, 100.0])
    fit = fit_slope(x, 3.0 * x**-1.5)
    assert fit.slope == pytest.approx(-1.5) and fit.stderr == pytest.approx(0.0, abs=1e-12)
