"""Leading-rate extraction and rate comparison (dpaudit.bounds.rates)."""

from __future__ import annotations

import math
import re

import pytest
import sympy as sp

from dpaudit import InvalidArgument
from dpaudit.bounds import (
    RateError,
    Verdict,
    compare_rates,
    evaluate,
    find_bound,
    format_rate,
    leading_rate,
)
from dpaudit.bounds.rates import canonical_log_argument
from dpaudit.bounds.symbols import L, R, d, delta, epsilon, m, n

HALF = sp.Rational(1, 2)


def test_single_monomial_exponents_and_log_powers():
    r = leading_rate(L * R * sp.sqrt(d * sp.log(1 / delta)) / (n * sp.sqrt(m) * epsilon))
    assert r.is_single
    assert (r.exponent(n), r.exponent(m), r.exponent(d), r.exponent(epsilon)) == (-1, -HALF, HALF, -1)
    assert r.terms[0].log_power(1 / delta) == HALF
    assert r.terms[0].coefficient == L * R


def test_sum_reports_every_possibly_dominant_term():
    # which term dominates depends on the regime: both are kept, and the exponent of n is not unique
    r = leading_rate(1 / sp.sqrt(n * m) + sp.sqrt(d) / (n * sp.sqrt(m) * epsilon))
    assert len(r.terms) == 2 and not r.dominated
    with pytest.raises(RateError, match=re.escape("the exponent of n depends on the regime")):
        r.exponent(n)
    assert r.exponent(m) == -HALF  # the same in both terms
    assert str(r) == "1/(√n √m) + √d/(n √m ε)"


def test_dominated_terms_are_dropped_with_the_direction_of_epsilon():
    # sqrt(d)/(sqrt(nm) eps) >= 1/sqrt(nm eps) because d >= 1 and eps <= 1 [LLA24, Thm 2.1]
    r = leading_rate(1 / sp.sqrt(n * m * epsilon) + sp.sqrt(d) / (sp.sqrt(n * m) * epsilon))
    assert r.is_single and r.exponent(epsilon) == -1
    assert len(r.dominated) == 1 and r.dominated[0].exponent(epsilon) == -HALF
    # with epsilon declared growing instead, the other term dominates in eps
    r2 = leading_rate(1 / sp.sqrt(n * m * epsilon) + sp.sqrt(d) / (sp.sqrt(n * m) * epsilon), small=())
    assert len(r2.terms) == 2


def test_regime_dependent_sum_in_epsilon():
    # mn(1 + n^(3/8) m^(1/4) eps^(1/4)): for tiny eps the first term wins [LLA24, Thm 4.1]
    r = leading_rate(m * n * (1 + n ** sp.Rational(3, 8) * m ** sp.Rational(1, 4) * epsilon ** sp.Rational(1, 4)))
    assert {t.exponent(n) for t in r.terms} == {1, sp.Rational(11, 8)}


def test_log_factors_are_kept_and_compared():
    r = leading_rate(d / n + d * sp.log(n) / n)
    assert r.is_single and r.terms[0].log_power(n) == 1
    # a log factor in a variable is not beaten by a larger exponent in another variable
    r2 = leading_rate(n + sp.log(m))
    assert len(r2.terms) == 2
    assert leading_rate(n + sp.log(m), ignore_logs=True).is_single


def test_canonical_log_arguments():
    assert canonical_log_argument(20 * n * m * sp.exp(epsilon) / delta) == m * n / delta
    assert canonical_log_argument(2 * d**4 * m**3 * n**4) == d * m * n
    assert canonical_log_argument(n / d) == n / d  # decreasing in d: left alone
    assert canonical_log_argument(m * (d * n + n**2 * epsilon**2)) == m * (d * n + n**2 * epsilon**2)


def test_ceiling_negative_terms_and_max():
    assert leading_rate(sp.ceiling(n * m)).exponent(n) == 1
    assert leading_rate(n - 1).exponent(n) == 1
    assert len(leading_rate(sp.Max(n, m)).terms) == 2
    assert leading_rate(sp.Min(n, 2 * n)).exponent(n) == 1


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        (sp.exp(n), "exponential in a rate variable has no polynomial rate: exp(n)"),
        (1 / (n + m), "negative power of a sum with several dominant terms (a minimum, not a maximum): 1/(m + n)"),
        (n**m, "exponent depends on a rate variable (super-polynomial or regime-dependent): n**m"),
        (1 - n, "negative term -n is not dominated by a positive term in 1 - n"),
        (sp.Min(n, m), "Min of different rates is not a maximum of monomials: Min(m, n)"),
    ],
)
def test_rate_errors_name_the_offending_expression(expr, message):
    with pytest.raises(RateError, match=re.escape(message)):
        leading_rate(expr)


def test_bad_arguments_raise_invalid_argument():
    with pytest.raises(InvalidArgument, match=re.escape(
            "`leading_rate`: `variables` must be a non-empty sequence of sympy Symbols; got variables=[].")):
        leading_rate(n, variables=[])
    with pytest.raises(InvalidArgument, match=re.escape(
            "`leading_rate`: `small` must be a subset of the rate variables; got small=['m'].")):
        leading_rate(n, variables=[n], small=[m])
    with pytest.raises(InvalidArgument, match=re.escape("`leading_rate`: `variables` must be a non-empty sequence")):
        leading_rate(n, variables=n)  # type: ignore[arg-type]


def test_bound_hidden_variables_are_left_out():
    b = find_bound("ghazi2023.thm51.risk")  # O~_eps hides 1/eps
    r = leading_rate(b)
    assert epsilon not in r.variables
    assert r.ignore_logs


def test_compare_single_monomials():
    cmp = compare_rates(sp.sqrt(d) / (n * epsilon), d / (n * epsilon))
    assert cmp.a_le_b.verdict is Verdict.PROVED
    assert cmp.b_le_a.verdict is Verdict.DISPROVED
    point = cmp.point_where_b_larger()
    assert point is not None and point[d] > 1e5  # B is larger when d is large
    assert evaluate(d / (n * epsilon), point) > evaluate(sp.sqrt(d) / (n * epsilon), point)


def test_compare_needs_a_convex_combination_not_a_single_term():
    # sqrt(nm) <= max(n, m) everywhere (AM-GM) but no single term of B dominates it
    cmp = compare_rates(sp.sqrt(n * m), n + m, (n, m))
    assert cmp.a_le_b.verdict is Verdict.PROVED
    assert cmp.a_le_b.certificates[0] == (HALF, HALF) or sum(cmp.a_le_b.certificates[0]) == 1
    # n^0.6 m^0.6 is not: along n = m it exceeds max(n, m)
    cmp2 = compare_rates((n * m) ** sp.Rational(3, 5), n + m, (n, m))
    assert cmp2.a_le_b.verdict is Verdict.DISPROVED
    pt = cmp2.point_where_a_larger(scale=1e20)  # n = m = 1e10: (nm)^0.6 / (n + m) = 50
    assert pt is not None
    assert evaluate((n * m) ** sp.Rational(3, 5), pt) > 10 * evaluate(n + m, pt)


def test_compare_regime_dependent_rates_gives_both_witnesses():
    a = 1 / sp.sqrt(n * m)
    b = sp.sqrt(d) / (n * sp.sqrt(m) * epsilon)
    cmp = compare_rates(a, b)
    assert cmp.a_le_b.verdict is Verdict.DISPROVED and cmp.b_le_a.verdict is Verdict.DISPROVED
    assert cmp.summary.startswith("regime-dependent")
    pa, pb = cmp.point_where_a_larger(), cmp.point_where_b_larger()
    assert evaluate(a, pa) > evaluate(b, pa)
    assert evaluate(b, pb) > evaluate(a, pb)


def test_regime_constraints_restrict_the_comparison():
    # 1/(n eps) vs 1/sqrt(n): incomparable on the orthant, but 1/(n eps) <= 1/sqrt(n) once n >= 1/eps^2
    a, b = 1 / (n * epsilon), 1 / sp.sqrt(n)
    assert compare_rates(a, b, (n, epsilon)).a_le_b.verdict is Verdict.DISPROVED
    constrained = compare_rates(a, b, (n, epsilon), constraints=[n >= 1 / epsilon**2])
    assert constrained.a_le_b.verdict is Verdict.PROVED
    with pytest.raises(InvalidArgument, match=re.escape("`compare_rates`: `constraints` must be inequalities between monomials")):
        compare_rates(a, b, (n, epsilon), constraints=[sp.Eq(n, 1 / epsilon)])
    with pytest.raises(InvalidArgument, match=re.escape("`compare_rates`: `constraints` must be a ratio that is one monomial")):
        compare_rates(a, b, (n, m, epsilon), constraints=[n + 1 / epsilon >= m])


def test_log_factors_decide_only_when_not_ignored():
    a, b = d * sp.log(n) / n, d / n
    # an O statement counts log factors: the kernel refutes d log(n)/n <= C d/n along a log-direction
    assert compare_rates(a, b).a_le_b.verdict is Verdict.DISPROVED
    assert compare_rates(a, b, ignore_logs=True).a_le_b.verdict is Verdict.PROVED


def test_rates_from_the_papers_have_the_expected_exponents():
    # [LLA24, Thm 3.2]: optimal rate; [GKLM25, Thm 3.1]: d^{3/2}/(n eps^2 sqrt(m)) privacy term
    r = leading_rate(find_bound("lowy2024.thm32.risk"))
    assert {(t.exponent(n), t.exponent(epsilon)) for t in r.terms} == {(-HALF, 0), (-1, -1)}
    g = leading_rate(find_bound("ghazi2025.thm31.risk"))
    assert any(t.exponent(d) == sp.Rational(3, 2) and t.exponent(epsilon) == -2 for t in g.terms)
    assert format_rate(g) == "d/(√n √m) + d√d/(n √m ε^2)"


def test_numeric_slope_agrees_with_extracted_exponents():
    # along n -> oo the log-log slope of the Levy et al. privacy term is the extracted exponent -1
    expr = find_bound("levy2021.thm5.risk").expression.subs({sp.Min(L, sp.Symbol("sigma_sg", positive=True)): L})
    expr = sp.sqrt(d) / (n * sp.sqrt(m) * epsilon)
    r = leading_rate(expr)
    vals = {"m": 7, "d": 3, "epsilon": 0.3}
    slope = (math.log(evaluate(expr, {**vals, "n": 10**9})) - math.log(evaluate(expr, {**vals, "n": 10**5}))) / math.log(1e4)
    assert slope == pytest.approx(float(r.exponent(n)), abs=1e-9)


def test_a_numeric_coefficient_whose_sign_the_kernel_cannot_decide_must_be_dominated():
    # sin(1)^2 + cos(1)^2 - 1 is exactly 0, so n^2 + c n^3 is Theta(n^2): counting the n^3 term as positive
    # would overstate the rate, and a check of a claim n^2 would then be falsely refuted
    from dpaudit.bounds.rates import RateError, leading_rate

    hidden_zero = sp.sin(1) ** 2 + sp.cos(1) ** 2 - 1
    for expr in (n**2 + hidden_zero * n**3, n**2 - hidden_zero * n**3):
        with pytest.raises(RateError, match="not dominated"):
            leading_rate(expr)
