"""Every PROVED / DISPROVED of the rate checks is the kernel's (issue 19: red-team findings on check_rate)."""

from __future__ import annotations

import re

import numpy as np
import pytest
import sympy as sp

from dpaudit import InvalidArgument
from dpaudit.bounds import Verdict, check_rate, compare_rates
from dpaudit.bounds.symbols import L, d, n


def _check(derived, claimed, **kwargs):
    return check_rate(derived, claimed, claim=f"{derived} = O({claimed})", source="[test]",
                      rng=np.random.default_rng(0), **kwargs)


@pytest.mark.parametrize(("derived", "claimed"), [
    (1 / n, sp.log(L) / n),  # false at L = 1 (log L = 0)
    (1 / n, -sp.log(L) / n),  # false for L >= 1
    (sp.Integer(1), sp.log(n / d)),  # false at n = d
    (n, d * n - d),  # false at d = 1... and d*n - d = 0 at n = 1
])
def test_kernel_undecided_is_never_the_engines_proved(derived, claimed):
    # the kernel does not decide these; the rate engine's LP reading (PROVED, wrongly) is evidence only
    res = _check(derived, claimed)
    assert res.verdict is Verdict.UNDECIDED, res
    assert "rate engine (evidence, not a decision)" in res.details


@pytest.mark.parametrize("sign", [1, -1])
def test_compare_rates_verdicts_pass_through_the_kernel(sign):
    cmp = compare_rates(1 / n, sign * sp.log(L) / n)
    # 1/n <= C log(L)/n fails at L = 1 and 1/n <= -C log(L)/n fails for L > 1: neither is PROVED
    assert cmp.a_le_b.verdict is not Verdict.PROVED
    assert "LP's reading" in cmp.a_le_b.note
    uncertified = compare_rates(1 / n, sign * sp.log(L) / n, certify=False)
    assert uncertified.a_le_b.verdict is Verdict.PROVED  # the LP alone: evidence, not a decision


def test_compare_rates_keeps_kernel_decided_verdicts():
    cmp = compare_rates(sp.sqrt(n * d), n + d, (n, d))
    assert (cmp.a_le_b.verdict, cmp.b_le_a.verdict) == (Verdict.PROVED, Verdict.DISPROVED)
    assert cmp.b_le_a.witness is not None


def test_constraint_already_evaluated_is_refused():
    assert (d < 1) is sp.false  # sympy evaluated it: d is a positive integer
    with pytest.raises(InvalidArgument, match=re.escape("`check_rate`: `constraints` must be inequalities")):
        _check(d / n, 1 / n, constraints=[d < 1])
    with pytest.raises(InvalidArgument, match=re.escape("`check_rate`: `constraints`")):
        _check(d / n, 1 / n, constraints=[sp.false])


def test_empty_regime_is_refused():
    with pytest.raises(InvalidArgument, match=r"a regime with points in the domain.*vacuous"):
        _check(d / n, 1 / n, constraints=[sp.Lt(d, 1, evaluate=False)])
    with pytest.raises(InvalidArgument, match=r"a regime with points in the domain.*vacuous"):
        _check(n**5, sp.Integer(1), constraints=[sp.Le(n, sp.Rational(1, 2), evaluate=False)])


def test_nonempty_regime_still_proves():
    res = _check(d / n, 1 / n, constraints=[sp.Le(d, 5, evaluate=False)])
    assert res.verdict is not Verdict.DISPROVED
    res = _check(sp.sqrt(d) / n, d / n, constraints=[sp.Ge(n, d, evaluate=False)])
    assert res.verdict is Verdict.PROVED and not res.vacuous, res


@pytest.mark.parametrize("constraint", [d <= sp.log(n), d <= sp.log(n) ** 2, d**2 <= sp.log(n)])
def test_regime_with_log_factors_never_proves(constraint):
    # read in log space, d <= log n becomes y_d <= 0 (d bounded), but d/n = O(1/n) fails with d = log n
    res = _check(d / n, 1 / n, constraints=[constraint])
    assert res.verdict is Verdict.UNDECIDED, res
    assert "log factors" in res.reason


def test_regime_with_log_factors_not_needed_still_proves():
    res = _check(sp.sqrt(d) / n, d / n, constraints=[d <= sp.log(n)])
    assert res.verdict is Verdict.PROVED, res


def test_compare_rates_refuses_a_certify_that_is_not_a_bool():
    import sympy as sp

    from dpaudit.bounds.rate_comparison import compare_rates
    from dpaudit.errors import InvalidArgument

    n = sp.Symbol("n", positive=True)
    with pytest.raises(InvalidArgument, match="certify"):
        compare_rates(n, n**2, (n,), certify="no")  # a truthy string would have meant True
