"""Log factors of the rate variables decided by the kernel (:mod:`dpaudit.bounds.rate_logs`, :mod:`.rate_kernel`).

The five rate comparisons of the papers that used to fall back on the rate engine's uncertified reading, the
``log(nmd)`` versus ``sqrt(log(nmd))`` reading of Ghazi et al. 2025 (DISPROVED), and wrong rates (a log factor
dropped from the claim, a log factor squared) that must not be PROVED.
"""

from __future__ import annotations

import pytest
import sympy as sp

from dpaudit.bounds import Verdict, check_rate, compare_rates, ghazi2025, lowy2024
from dpaudit.bounds.rate_kernel import kernel_rate_check
from dpaudit.bounds.rate_logs import log_factors
from dpaudit.bounds.symbols import G, d, delta, epsilon, eta, m, n
from dpaudit.verify import certified

P, D_, U = Verdict.PROVED, Verdict.DISPROVED, Verdict.UNDECIDED
VARS, DIRS = (n, m, d, epsilon), (1, 1, 1, -1)

FIVE = {
    "lowy2024.thm21_risk": (lambda rng: lowy2024.check_thm21_risk(rng=rng), P),
    "lowy2024.thm41_gradient_count": (lambda rng: lowy2024.check_thm41_gradient_count(rng=rng), D_),
    "ghazi2025.lemma312_rate": (lambda rng: ghazi2025.check_lemma312_rate(rng=rng), P),
    "ghazi2025.lemma312_rate_literal": (lambda rng: ghazi2025.check_lemma312_rate(rng=rng, literal=True), P),
    "ghazi2025.noise_hoeffding_radius": (lambda rng: ghazi2025.check_noise_scale_reading(rng=rng, radius="hoeffding"), P),
}


@pytest.mark.parametrize("name", sorted(FIVE))
def test_the_five_comparisons_are_kernel_certified(name, rng):
    run, expected = FIVE[name]
    res = run(rng)
    assert res.verdict is expected, f"{name}: {res.line()}\n{res.details}"
    assert certified(res), f"{name}: {res.method} is not kernel-certified"
    assert res.method == "kernel+rates"
    assert "disagrees with the kernel" not in res.details  # the engine's reading (evidence) agrees


def test_paper_radius_reading_is_disproved_by_the_log_power(rng):
    res = ghazi2025.check_noise_scale_reading(rng=rng, radius="paper")
    assert res.verdict is D_ and certified(res)
    assert res.counterexample["exponent margin"] == "0" and res.counterexample["log-power margin"] == "1/2"
    assert any(p.key == "polynomial growth beats polylog factors" for p in res.premises)


def _noise(log_power: sp.Expr) -> sp.Expr:
    """sigma_s's shape with ``log(nmd)`` to the given power (Ghazi et al. 2025, Alg 5 line 6)."""
    return eta * G * sp.sqrt(d * sp.log(sp.exp(epsilon) / delta)) * sp.log(n * m * d) ** log_power / (sp.sqrt(m) * epsilon)


def test_dropping_the_log_factor_from_the_claim_is_disproved():
    derived = ghazi2025.SIGMA_PHASE.subs(ghazi2025.tau, 1 / (G * sp.sqrt(2 * sp.log(2 * n * d * (n * m * d) ** 3) / m)))
    kept = kernel_rate_check(derived, _noise(sp.Rational(1, 2)), key="kept", variables=VARS, directions=DIRS, ignore_logs=False)
    assert kept.verdict is P and certified(kept)
    assert "where every log v >= 1" in kept.details
    dropped = kernel_rate_check(derived, _noise(0), key="dropped", variables=VARS, directions=DIRS, ignore_logs=False)
    assert dropped.verdict is D_ and certified(dropped)
    assert dropped.counterexample["log-power margin"] == "1/2"


def test_squaring_a_log_factor_is_caught_on_the_right_side():
    # the derived noise with log(nmd) squared is not O(sigma_s); a claim with the log squared is (a weaker claim)
    squared = kernel_rate_check(_noise(2), _noise(sp.Rational(1, 2)), key="sq", variables=VARS, directions=DIRS,
                                ignore_logs=False)
    assert squared.verdict is D_ and squared.counterexample["log-power margin"] == "3/2"
    weaker = kernel_rate_check(_noise(sp.Rational(1, 2)), _noise(2), key="weak", variables=VARS, directions=DIRS,
                               ignore_logs=False)
    assert weaker.verdict is P and certified(weaker)


def test_equal_log_powers_are_proved_and_negative_ones_too():
    same = kernel_rate_check(n * sp.log(n), 2 * n * sp.log(n), key="eq", variables=(n,), directions=(1,), ignore_logs=False)
    assert same.verdict is P and certified(same)
    fewer = kernel_rate_check(n / sp.log(n), n, key="neg", variables=(n,), directions=(1,), ignore_logs=False)
    assert fewer.verdict is P
    # a log factor of a power is a constant multiple of the log: log(n^3 m) <= 3 log(n m)
    power = kernel_rate_check(n * sp.log(n**3 * m), n * sp.log(n * m), key="pow", variables=(n, m), directions=(1, 1),
                              ignore_logs=False)
    assert power.verdict is P
    # but log(n) is not O(log(m)): along a direction where n grows faster... both grow, the powers tie; n alone:
    other = kernel_rate_check(n * sp.log(n), n * sp.log(m), key="other", variables=(n, m), directions=(1, 1), ignore_logs=False)
    assert other.verdict is not P


def test_a_faster_polynomial_still_beats_the_log_powers():
    # sqrt(n) log(n)^5 <= K n: a polynomial gap; n log(n) vs sqrt(n) log(n)^5: DISPROVED by the exponent
    res = kernel_rate_check(n * sp.log(n), sp.sqrt(n) * sp.log(n) ** 5, key="gap", variables=(n,), directions=(1,),
                            ignore_logs=False)
    assert res.verdict is D_ and certified(res)
    assert res.counterexample["exponent margin"] == "1/2"


def test_log_factors_that_are_not_log_linear_are_left_undecided():
    assert isinstance(log_factors(((n + 1, sp.Integer(1)),), (n,), (1,)), str)
    res = kernel_rate_check(n * sp.log(n + 1), n * sp.log(n), key="nl", variables=(n,), directions=(1,), ignore_logs=False)
    assert res.verdict is U
    assert "log-linear" in res.details
    forms = log_factors(((2 * d**4 * m**3 * n**4, sp.Rational(1, 2)),), VARS, DIRS)
    assert [(v, str(a)) for v, a in forms[0].coefficients] == [(n, "4"), (m, "3"), (d, "4")]


def test_lemma_a6_gaussian_is_proved_through_the_exact_criterion(rng):
    res = lowy2024.check_gaussian_lemma_a6(rng=rng)
    assert res.verdict is P and certified(res)
    assert {p.key for p in res.premises} == {"[BW18] Thm 8", "Mills' ratio"}
    # the tail step fails for a range the argument does not cover (e^(eps/2) outgrows the linear bound): not PROVED
    wide = lowy2024.check_gaussian_lemma_a6(rng=rng, max_epsilon=5.0)
    assert wide.verdict is U and "the tail c >= 8/5" in wide.reason


@pytest.mark.parametrize(("derived", "claimed", "end"), [
    (sp.Integer(1), sp.log(n), "n >= E"),
    (sp.Integer(1), sp.log(n) ** 2, "n >= E"),
    (sp.log(n) + 1, sp.log(n), "n >= E"),
    (sp.Integer(1), sp.log(1 / epsilon), "epsilon <= exp(-1)"),
])
def test_a_comparison_proved_only_where_the_logs_are_at_least_one_says_so(derived, claimed, end, rng):
    """``1 <= K log n`` fails at ``n = 1`` for every ``K`` (``log(1/epsilon)`` at ``epsilon = 1``): the kernel proves it
    where ``log n >= 1``, and the certified claim and the comparison's summary must name that domain, never "over the
    regime n >= 1" or "everywhere" (both used to)."""
    res = check_rate(derived, claimed, claim="label", source="[test]", rng=rng)
    assert res.verdict is P and certified(res)
    assert res.claim.endswith(f"restricted to {end} (where every log of those variables is >= 1)"), res.claim
    assert end in res.domain
    cmp = compare_rates(derived, claimed, (n, epsilon))
    assert cmp.a_le_b.verdict is P and cmp.a_le_b.restricted == (end,)
    assert "everywhere" not in cmp.summary and f" where {end} (not on the whole regime" in cmp.summary, cmp.summary


def test_a_comparison_that_holds_on_the_whole_regime_is_claimed_there(rng):
    """``log n <= 2 log n`` and ``n log n <= n log n`` hold at ``n = 1`` too: proved with every ``log v >= 0``."""
    for derived, claimed in [(sp.log(n), 2 * sp.log(n)), (n * sp.log(n), n * sp.log(n))]:
        res = check_rate(derived, claimed, claim="label", source="[test]", rng=rng)
        assert res.verdict is P and certified(res)
        assert res.claim.endswith("over the regime n >= 1") and "n >= E" not in res.domain, (res.claim, res.domain)
        assert "on the whole domain (every log v >= 0)" in res.details
    cmp = compare_rates(sp.log(n), 2 * sp.log(n), (n,))
    assert cmp.a_le_b.restricted == () and cmp.summary.startswith("same rate") and "where" not in cmp.summary
