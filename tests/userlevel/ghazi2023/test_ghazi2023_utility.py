"""Utility: excess risk against n and m on 1-d mean estimation (optimum known exactly), by fitted slopes.

SCOutputPert's stated rate (Thm 3.1 / Thm 4.3's first step) is ``d/(n^2 m)`` up to the factors
``O~_eps`` hides. With the certified threshold of App. C those factors are ``ln(n/beta)`` and
``(n/(n - 4 kappa - 1))^2`` (Delta ∝ sqrt(ln(n/beta)) / ((n - 4 kappa - 1) sqrt(m))): the tolerance on
the fitted slope in ``n`` is their own slope over the range, computed here from that definition, plus
the half-width of the slope's interval at failure probability ``ALPHA``; in ``m`` they are constant, so
-1 must lie in that interval. Each point is ``TRIALS`` excess risks ``(1 + l2) (theta_hat - theta*)^2 / 2`` (a scaled
chi-square with one degree of freedom), fitted as replicates by
:func:`~dpaudit.userlevel.comparison.fit_log_slope` (the log of a scaled chi-square shifts by a
constant, so the slope of ``E log`` is the slope of ``log E``).

Erratum E8(c): Phased-SCO's last phase adds noise ``sigma_T`` that does not decrease with ``m`` when
``m >> n``; the mechanism's own resolved ``sigma_T`` and its measured excess population risk both stay
flat, against the stated rate's slope of -1/2.
"""

from __future__ import annotations

import numpy as np

from dpaudit.userlevel.comparison import fit_log_slope
from dpaudit.userlevel.ghazi2023 import PhasedSCO, SCOutputPert
from dpaudit.userlevel.ghazi2023.utility import MeanProblem, last_phase_sigma

TRIALS = 2000
ALPHA = 1e-3  # declared failure probability of each slope interval (Student-t, dpaudit.userlevel.comparison)
SEED = 0
PROBLEM = MeanProblem()
EPS, DELTA, BETA = 1.0, 1e-5, 0.01


def _excess(mech, n, m, rng):
    data = PROBLEM.sample(n, m, rng)
    out = mech.sample(data, TRIALS, rng=rng)
    assert not out[:, 0].any(), "random data passed the certificate: no ⊥ expected"
    return PROBLEM.excess_empirical_risk(data, out[:, 1])


def _hidden_factor_slope(ns, kappa):
    """Slope in log n of ln(n/beta) (n/(n - 4 kappa - 1))^2: what O~ hides (certified Delta, squared)."""
    ns = np.asarray(ns, dtype=float)
    hidden = np.log(ns / BETA) * (ns / (ns - 4 * kappa - 1)) ** 2
    return fit_log_slope(ns, [[h] for h in hidden]).slope


def test_sc_output_pert_excess_risk_falls_like_one_over_n_squared():
    mech = SCOutputPert(PROBLEM.erm(), EPS, DELTA, beta=BETA)
    kappa = mech.parameters(300, 50, 1).alg1.kappa
    ns = [300, 600, 1200, 2400, 4800]
    rng = np.random.default_rng(SEED)
    risks = [_excess(mech, n, 50, rng) for n in ns]
    fit = fit_log_slope(ns, risks)
    hidden = _hidden_factor_slope(ns, kappa)
    lo, hi = fit.interval(ALPHA)
    tolerance = abs(hidden) + (hi - lo) / 2
    assert abs(fit.slope - (-2.0)) <= tolerance, (f"slope {fit.slope:.3f} in ({lo:.3f}, {hi:.3f}) vs -2 (hidden "
                                                  f"factors {hidden:+.3f}); mean risks {[float(r.mean()) for r in risks]}; "
                                                  f"seed {SEED}")
    assert lo <= -2.0 + hidden <= hi, f"slope {fit.slope:.3f} in ({lo:.3f}, {hi:.3f}) vs {-2 + hidden:.3f}"


def test_sc_output_pert_excess_risk_falls_like_one_over_m():
    mech = SCOutputPert(PROBLEM.erm(), EPS, DELTA, beta=BETA)
    ms = [25, 100, 400, 1600]
    rng = np.random.default_rng(SEED + 1)
    risks = [_excess(mech, 1000, m, rng) for m in ms]
    fit = fit_log_slope(ms, risks)
    lo, hi = fit.interval(ALPHA)
    assert lo <= -1.0 <= hi, f"slope {fit.slope:.3f} in ({lo:.3f}, {hi:.3f}); mean risks {[float(r.mean()) for r in risks]}"


def test_phased_sco_last_phase_noise_does_not_fall_with_m_e8c():
    """E8(c): sigma_T of the mechanism's own last phase is flat in m (the stated rate falls like m^-1/2),
    and so is the measured excess population risk; SCOutputPert on the same data falls like 1/m."""
    problem = MeanProblem(l2=0.0)
    mech = PhasedSCO(problem.erm(), 1.0, 0.5)
    n = 4 * mech.batch_zero()
    ms = np.array([10, 100, 1000, 4000])
    sigmas = np.array([last_phase_sigma(mech, n, int(m)) for m in ms])
    sigma_fit = fit_log_slope(ms, [[s] for s in sigmas])
    assert -0.1 <= sigma_fit.slope <= 0.1, f"sigma_T slope {sigma_fit.slope:.3f}: {sigmas}"  # the rate's is -1/2
    rng = np.random.default_rng(SEED + 2)
    risks, sc_risks = [], []  # replicates per m
    sc = SCOutputPert(MeanProblem(l2=1.0).erm(), 1.0, 0.5, beta=BETA)
    for m in ms:
        data = problem.sample(n, int(m), rng)
        risks.append(problem.excess_population_risk(mech.sample(data, 400, rng=rng))[:, 0])
        sc_risks.append(MeanProblem(l2=1.0).excess_empirical_risk(data, sc.sample(data, 400, rng=rng)[:, 1]))
    flat = fit_log_slope(ms, risks)
    assert flat.interval(ALPHA)[0] > -0.5, f"Phased-SCO slope {flat.slope:.3f} in {flat.interval(ALPHA)}"  # rate: -1/2
    falling = fit_log_slope(ms, sc_risks)
    lo, hi = falling.interval(ALPHA)
    assert lo <= -1.0 <= hi, f"SCOutputPert slope {falling.slope:.3f} in ({lo:.3f}, {hi:.3f})"


