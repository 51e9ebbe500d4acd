"""Calibration checks: Laplace, Gaussian (classical, analytic), GDP, AboveThreshold, composition.

Each check compares the sympy closed form with dpaudit.accounting numerically; the mutated
calibrations (halved noise, miscalibrated AboveThreshold) must turn the verdict to DISPROVED.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

from dpaudit import accounting
from dpaudit.bounds import Verdict
from dpaudit.bounds import calibration as cal
from dpaudit.bounds.symbols import Delta, delta, epsilon
from dpaudit.verify.verdict import certified


def test_laplace_calibration_proved_and_halved_scale_disproved(rng):
    good = cal.check_laplace_calibration(rng=rng)
    assert good.verdict is Verdict.PROVED
    halved = cal.check_laplace_calibration(Delta / (2 * epsilon), rng=rng)
    assert halved.verdict is Verdict.DISPROVED
    assert halved.counterexample is not None


def test_classical_gaussian_inside_and_outside_its_hypothesis(rng):
    inside = cal.check_gaussian_classical(rng=rng)
    assert inside.verdict is Verdict.PROVED and certified(inside)
    # the classical formula stops being private for large epsilon (e.g. eps = 10, delta = 1e-5)
    outside = cal.check_gaussian_classical(rng=rng, eps_range=(1.0, 20.0))
    assert outside.verdict is Verdict.DISPROVED and certified(outside)
    ce = outside.counterexample  # exact rationals, re-checked by the kernel; checked here again with accounting's curve
    eps_ce, dl_ce, sens_ce, sig_ce = (sp.Rational(ce[k]) if k != "sigma" else sp.sympify(ce[k])
                                      for k in ("epsilon", "delta", "Delta", "sigma"))
    assert 1 <= eps_ce <= 20 and "epsilon >= 1" in outside.claim and "epsilon <= 20" in outside.claim
    assert accounting.analytic_gaussian_delta(float(eps_ce), float(sig_ce), float(sens_ce)) > float(dl_ce)
    # independently of the check: the exact curve at eps = 10, delta = 1e-5
    sigma10 = float(cal.gaussian_sigma_classical_expr().subs({Delta: 1, epsilon: 10, delta: sp.Rational(1, 10**5)}))
    assert accounting.analytic_gaussian_delta(10.0, sigma10, 1.0) > 1e-5


def test_gaussian_noise_check_detects_halved_sigma(rng):
    sigma = cal.gaussian_sigma_classical_expr(Delta, epsilon, delta)
    res = cal.check_gaussian_noise(sigma / 2, sensitivity=Delta, eps_budget=epsilon, delta_budget=delta,
                                   claim="half the classical sigma", source="[test]", rng=rng,
                                   region={epsilon: (1e-3, 0.999)})
    assert res.verdict is Verdict.DISPROVED


def test_gaussian_curve_closed_form_matches_accounting(rng):
    expr = cal.gaussian_delta_expr()
    f = sp.lambdify((epsilon, sp.Symbol("sigma", positive=True), Delta), expr, "mpmath")
    for _ in range(20):
        e, s, dl = float(rng.uniform(0.01, 5)), float(rng.uniform(0.3, 5)), float(rng.uniform(0.1, 3))
        with mpmath.workdps(30):
            ours = float(f(e, s, dl))
        theirs = accounting.analytic_gaussian_delta(e, s, dl)
        assert ours == pytest.approx(theirs, rel=1e-8, abs=1e-300)


def test_analytic_sigma_independent_bisection_matches_reference_values():
    # reference values of the analytic Gaussian sigma at delta = 1e-5 (Balle & Wang 2018)
    for eps, ref in [(0.1, 30.7496), (0.5, 7.0318), (1.0, 3.7306), (2.0, 1.9938), (4.0, 1.0812), (8.0, 0.6002)]:
        assert cal.analytic_gaussian_sigma(eps, 1e-5) == pytest.approx(ref, abs=6e-5)
    assert cal.analytic_gaussian_sigma(1.0, 1e-6) == pytest.approx(4.2247, abs=6e-5)


def test_gdp_epsilon_from_curve_reference_values():
    for mu, ref in [(0.5, 1.993), (1.0, 4.377), (2.0, 9.997)]:
        assert cal.gdp_epsilon_from_curve(mu, 1e-5) == pytest.approx(ref, abs=6e-4)


def test_analytic_check_is_never_proved_by_sampling(rng):
    ana = cal.check_analytic_gaussian(rng=rng, count=8)
    # a universally quantified claim about a root finder can only be sampled: never PROVED
    assert ana.verdict in (Verdict.UNDECIDED, Verdict.DISPROVED)
    if ana.verdict is Verdict.DISPROVED:  # then the reported problem must be real
        assert ana.counterexample["exact_delta/delta - 1"] > 0 or "problem" in ana.counterexample


def test_advanced_composition_matches_accounting(rng):
    res = cal.check_advanced_composition(rng=rng)
    assert res.counterexample is None and res.cases >= 32
    expr = cal.advanced_composition_expr()
    value = float(expr.subs({epsilon: 0.1, sp.Symbol("T", positive=True, integer=True): 10, delta: 1e-6}))
    assert value == pytest.approx(accounting.advanced_composition(0.1, 0.0, 10, 1e-6).epsilon, rel=1e-12)


def test_above_threshold_loss_reaches_the_budget_formula():
    # [DR14, Thm 3.23]: Lap(2/eps), Lap(4/eps) on sensitivity-1 queries costs 1/b_th + 2/b_q = eps
    eps = 0.7
    loss = cal.above_threshold_loss(2 / eps, 4 / eps, 1.0)
    budget = float(cal.above_threshold_budget(1, 2 / epsilon, 4 / epsilon).subs(epsilon, eps))
    assert budget == pytest.approx(eps)
    assert loss <= budget * (1 + 1e-9)
    assert loss > 0.99 * budget  # the stream is (near) worst case: the bound is tight
    # with sensitivity 2 and the same scales the loss doubles
    assert cal.above_threshold_loss(2 / eps, 4 / eps, 2.0) == pytest.approx(2 * eps, rel=1e-2)


def test_above_threshold_check_detects_miscalibration(rng):
    ok = cal.check_above_threshold(sensitivity=sp.Integer(1), threshold_scale=2 / epsilon, query_scale=4 / epsilon,
                                   budget=epsilon, claim="standard AT", source="[DR14, Thm 3.23]", rng=rng,
                                   region={epsilon: (0.1, 2.0)}, count=2)
    assert ok.verdict is Verdict.PROVED
    # threshold noise halved: the budget is exceeded, shown by a certified (Arb) lower bound on a stream's loss
    bad = cal.check_above_threshold(sensitivity=sp.Integer(1), threshold_scale=1 / epsilon, query_scale=4 / epsilon,
                                    budget=epsilon, claim="halved threshold noise", source="[test]", rng=rng,
                                    region={epsilon: (0.1, 2.0)}, count=2)
    assert bad.verdict is Verdict.DISPROVED and bad.method == "kernel+exact" and certified(bad)
    ce = bad.counterexample  # an exact point: the scales there are exact, the loss bound's ends exact binary rationals
    eps_ce = sp.Rational(ce["epsilon"])
    assert sp.Rational("0.1") <= eps_ce <= 2 and sp.Rational(ce["threshold scale"]) == 1 / eps_ce
    assert sp.Rational(ce["query scale"]) == 4 / eps_ce and sp.Rational(ce["budget"]) == eps_ce
    for key in ("threshold scale", "query scale"):  # exact binary numbers: the Arb law integrated is that of these scales
        assert sp.Rational(float(sp.Rational(ce[key]))) == sp.Rational(ce[key])
    lower = sp.log(sp.Rational(ce["P(pattern), lower end"]) / sp.Rational(ce["P'(pattern), upper end"]))
    assert float(lower) > float(eps_ce)  # the certified loss lower bound exceeds the budget
    assert ok.premises[0].key == "[DR14] Thm 3.23" and certified(ok)


def test_the_stream_loss_is_a_certified_lower_bound_below_the_coupling_bound():
    # Ghazi et al. 2025's printed scales at eps = 1: Lap(4), Lap(8) on sensitivity-2 scores; [DR14, Thm 3.23]'s coupling
    # bound is 2/4 + 2 * 2/8 = 1, the budget 1/2
    lower, stream = cal.certified_stream_loss(4.0, 8.0, 2.0)
    assert lower.rad() < 1e-40 and 0.9996 < float(lower.lower()) <= 1.0
    assert "20 queries" in stream
    # the doubled scales spend at most eps/2 = 1/2: the certified lower bound stays below it
    assert float(cal.certified_stream_loss(8.0, 16.0, 2.0)[0].upper()) <= 0.5


def test_gaussian_noise_needs_eps_below_one_on_the_whole_region_not_on_samples(rng):
    """[DR14, Thm A.1] needs eps < 1: decided symbolically over the region, never from the sampled points.

    The budget 4 eps (1 - eps) reaches 1 at eps = 1/2 only, which random points (and the box corners)
    miss: deciding from samples would say PROVED; the theorem does not apply at eps = 1/2, so the
    verdict is UNDECIDED.
    """
    claim = dict(sensitivity=Delta, delta_budget=delta, claim="c", source="s", rng=rng, count=4)
    inside = cal.check_gaussian_noise(cal.gaussian_sigma_classical_expr(), eps_budget=epsilon, region={epsilon: (1e-3, 0.999)}, **claim)
    assert inside.verdict is Verdict.PROVED and inside.premises_text() == "[DR14] Thm A.1"
    past_one = cal.check_gaussian_noise(cal.gaussian_sigma_classical_expr(), eps_budget=epsilon, region={epsilon: (1e-3, 1.000001)}, **claim)
    assert past_one.verdict is Verdict.UNDECIDED and "eps_budget < 1" in past_one.reason
    peak = 4 * epsilon * (1 - epsilon)
    touching = cal.check_gaussian_noise(cal.gaussian_sigma_classical_expr(Delta, peak, delta), eps_budget=peak,
                                        region={epsilon: (0.1, 0.9)}, **claim)
    assert touching.verdict is Verdict.UNDECIDED and "eps_budget < 1" in touching.reason


def test_numerical_counterexamples_are_confirmed_exactly():
    from dpaudit.bounds.checks import _confirmed

    x = sp.Symbol("x", positive=True)
    assert _confirmed(x**2, x, {x: 2.0}, "le")  # 4 <= 2 fails exactly
    assert not _confirmed(x**2, x, {x: 0.5}, "le")  # 1/4 <= 1/2 holds
    assert _confirmed(x, x, {x: 0.5}, "lt")  # x < x fails
    assert not _confirmed(sp.sqrt(x) ** 2, x, {x: 0.3}, "eq")  # an identity: no counterexample


def test_a_disagreement_with_accounting_is_evidence_that_makes_the_verdict_undecided(rng, monkeypatch):
    """The kernel proves the formula; dpaudit's own code computing a larger scale is reported, never DISPROVED."""
    assert cal.check_laplace_calibration(rng=np.random.default_rng(3)).verdict is Verdict.PROVED
    monkeypatch.setattr(cal.accounting, "laplace_scale", lambda sens, eps: 2 * sens / eps)
    res = cal.check_laplace_calibration(rng=np.random.default_rng(3))
    assert res.verdict is Verdict.UNDECIDED and not certified(res)
    assert "accounting.laplace_scale disagrees" in res.reason and res.counterexample is None
