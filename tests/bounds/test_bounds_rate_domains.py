"""A rate refutation stays inside the rate variables' declared domains (red team s31, finding F3).

A refuting log-direction moves every rate variable to its end of the regime (to infinity, or to 0). A variable whose
declared domain is bounded on that side (``n >= 1`` cannot shrink to 0, ``delta < 1`` cannot grow) is refused up front
with an ``InvalidArgument`` naming it, its domain and the direction asked; before the fix the red team got
``1/n = O(1)`` DISPROVED "over the regime n <= 1" (a regime meeting the domain only at n = 1, where the claim holds)
and ``n delta = O(n)`` DISPROVED along ``delta -> infinity``.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from dpaudit import InvalidArgument
from dpaudit.bounds import Verdict, check_rate, compare_rates, leading_rate
from dpaudit.bounds.rate_kernel import kernel_rate_check
from dpaudit.bounds.symbols import delta, epsilon, gamma, n
from dpaudit.verify import certified


def _check(derived, claimed, **kwargs):
    return check_rate(derived, claimed, claim=f"{derived} = O({claimed})", source="[test]",
                      rng=np.random.default_rng(0), **kwargs)


def test_integer_variable_cannot_be_small_in_check_rate():
    with pytest.raises(InvalidArgument, match=r"`check_rate`: `small`.*n is declared an integer >= 1.*cannot be among small="):
        _check(1 / n, 1, variables=(n,), small=[n])


def test_integer_variable_cannot_be_small_in_compare_rates():
    with pytest.raises(InvalidArgument, match=r"`compare_rates`: `small`.*n is declared an integer >= 1"):
        compare_rates(1 / n, 1, (n,), small=[n])
    with pytest.raises(InvalidArgument, match=r"`leading_rate`: `small`.*n is declared an integer >= 1"):
        leading_rate(1 / n, (n,), small=[n])


def test_bounded_variable_cannot_grow():
    with pytest.raises(InvalidArgument, match=r"`check_rate`: `small`.*delta is declared in \(0, 1\): list it in small="):
        _check(n * delta, n, variables=(n, delta), small=[])
    with pytest.raises(InvalidArgument, match=r"`compare_rates`: `small`.*delta is declared in \(0, 1\)"):
        compare_rates(n * delta, n, (n, delta), small=[])
    # gamma (a failure probability, in (0, 1)) has no declared direction: by default it would grow
    with pytest.raises(InvalidArgument, match=r"gamma is declared in \(0, 1\).*got small=None"):
        leading_rate(n * gamma, (n, gamma))


def test_kernel_refuses_a_direction_out_of_the_domain():
    # the trusted kernel itself never follows such a direction, whoever builds the question
    with pytest.raises(InvalidArgument, match=r"`kernel_rate_check`.*n is declared an integer >= 1"):
        kernel_rate_check(1 / n, sp.Integer(1), key="t", variables=(n,), directions=(-1,), ignore_logs=False)
    with pytest.raises(InvalidArgument, match=r"`kernel_rate_check`.*delta is declared in \(0, 1\)"):
        kernel_rate_check(n * delta, n, key="t", variables=(n, delta), directions=(1, 1), ignore_logs=False)


def test_non_canonical_symbols_use_their_sympy_assumptions():
    t = sp.Symbol("t", positive=True, integer=True)
    with pytest.raises(InvalidArgument, match=r"t is declared an integer"):
        _check(1 / t, 1, variables=(t,), small=[t])
    u = sp.Symbol("u", positive=True)  # a positive real reaches 0: 1/u = O(1) fails as u -> 0
    res = _check(1 / u, 1, variables=(u,), small=[u])
    assert res.verdict is Verdict.DISPROVED and certified(res), res


def test_allowed_directions_decide_and_print_the_domains():
    proved = _check(n * delta, n, variables=(n, delta), small=[delta])
    assert proved.verdict is Verdict.PROVED and certified(proved), proved
    refuted = _check(n / delta, n, variables=(n, delta), small=[delta])  # along delta -> 0, inside (0, 1)
    assert refuted.verdict is Verdict.DISPROVED and certified(refuted), refuted
    for res in (proved, refuted):
        regime = next(a for a in res.assumptions if a.startswith("the regime: "))
        assert "n an integer >= 1" in regime and "delta in (0, 1)" in regime, res.assumptions
    # epsilon is declared in (0, inf): it may grow as well as shrink
    assert _check(n * epsilon, n, variables=(n, epsilon), small=[]).verdict is Verdict.DISPROVED
    assert _check(n * epsilon, n, variables=(n, epsilon)).verdict is Verdict.PROVED
