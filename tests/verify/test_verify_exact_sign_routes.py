"""No sign on a PROVED path of dpaudit.verify or dpaudit.bounds comes from sympy's assumptions or a float evalf.

Each route that used to ask sympy (``is_positive``, ``is_negative``, ``is_nonnegative``) or round with ``sp.N`` now
asks the verification kernel (exact rationals, arb balls, Z3). Every test below is a cancellation example: the
old route's answer is shown first (wrong, or no answer where the claim needs one), then the new route's.

The numbers: ``sin(1)**2 + cos(1)**2 - 1`` and ``atan(1/2) + atan(1/3) - pi/4`` are exactly 0 (Machin's formula
for the second), so adding ``+- 10**-k`` gives a number whose sign needs ~3.3k bits: sympy's two-digit evalf
cancels to nothing and its ``is_negative`` is None; arb balls at 1000 bits and more settle it.
"""

from __future__ import annotations

import pytest
import sympy as sp

from dpaudit.bounds.rate_comparison import compare_rates
from dpaudit.bounds.rates import RateError, canonical_log_argument, leading_rate
from dpaudit.bounds.symbols import m, n
from dpaudit.bounds.verdict import Verdict
from dpaudit.verify.regions import Region, le

ZERO_TRIG = sp.sin(1) ** 2 + sp.cos(1) ** 2 - 1
ZERO_MACHIN = sp.atan(sp.Rational(1, 2)) + sp.atan(sp.Rational(1, 3)) - sp.pi / 4
TINY = sp.Rational(1, 10**200)


def test_rate_exponents_are_compared_exactly_not_after_rounding():
    """compare_rates rounded an irrational exponent to a rational within 1e-18 (``sp.N`` then limit_denominator):
    ``n**sqrt(2)`` and ``n**q`` with q that rational were "the same rate", though q > sqrt(2) makes
    ``n**q <= C n**sqrt(2)`` false for every constant C."""
    q = sp.Rational(sp.N(sp.sqrt(2), 30)).limit_denominator(10**9)  # the old route's value of sqrt(2)
    assert q != sp.sqrt(2) and sp.Rational(768398401, 543339720) == q  # q - sqrt(2) = 1.2e-18 > 0
    # every verdict is the kernel's: an exponent with a denominator of 5e8 is beyond its exact translation, so the
    # true direction is left UNDECIDED (it was PROVED by the LP's exact reading before the kernel decided rates);
    # the false one must never be PROVED, and the two rates are never "the same"
    cmp = compare_rates(n ** sp.sqrt(2), n**q, (n,))
    assert cmp.a_le_b.verdict is not Verdict.DISPROVED  # n^sqrt(2) <= n^q: true (sqrt(2) < q)
    assert cmp.b_le_a.verdict is not Verdict.PROVED  # n^q <= C n^sqrt(2): false
    assert "same rate" not in cmp.summary
    below = q - sp.Rational(1, 10**17)  # now below sqrt(2): the other way round
    cmp = compare_rates(n ** sp.sqrt(2), n**below, (n,))
    assert cmp.a_le_b.verdict is not Verdict.PROVED and cmp.b_le_a.verdict is not Verdict.DISPROVED


def test_rate_of_a_sum_certifies_the_sign_of_each_coefficient():
    """``n**2 + c n**3`` with ``c = -10**-200`` written as ``sin(1)**2 + cos(1)**2 - 1 - 10**-200``: sympy's
    ``c.is_negative`` is None, and the old route counted the term as positive (rate n**3). The sum is negative
    for large n: it has no rate, and its n**3 term is not dominated."""
    c = ZERO_TRIG - TINY
    assert c.is_negative is None  # the old route's question: no answer, read as "not negative"
    with pytest.raises(RateError, match="not dominated"):
        leading_rate(n**2 + c * n**3, (n,))
    # the same sum with c = +10**-200 is a sum of positive terms: rate n**3
    rate = leading_rate(n**2 + (ZERO_TRIG + TINY) * n**3, (n,))
    assert rate.is_single and rate.terms[0].exponent(n) == 3


def test_log_argument_drops_a_constant_factor_only_when_its_sign_is_certified():
    """A constant factor of a log's argument is dropped only when the kernel certifies it positive (sympy: None)."""
    positive, negative = ZERO_TRIG + TINY, ZERO_TRIG - TINY
    assert positive.is_positive is None and negative.is_positive is None
    assert canonical_log_argument(positive * n * m) == m * n
    arg = negative * n * m  # log of a negative number: nothing to canonicalise
    assert canonical_log_argument(arg) == arg


def test_power_of_a_sum_distributes_only_over_a_certified_positive_exponent():
    """``(n + m)**e`` is ``max(n**e, m**e)`` up to constants for e > 0 only; e's sign comes from the kernel."""
    rate = leading_rate((n + m) ** (ZERO_TRIG + TINY), (n, m))
    assert len(rate.terms) == 2
    with pytest.raises(RateError, match="negative power of a sum"):
        leading_rate((n + m) ** (ZERO_TRIG - TINY), (n, m))


def test_region_skips_a_condition_only_when_the_kernel_proves_it_implied():
    """``x <= a + c`` after ``x <= a`` is implied when c >= 0. With c = Machin's zero + 10**-k, sympy's
    ``simplify(c + s).is_nonnegative`` is None (the old route: "cannot parametrise"); the kernel proves it implied.
    With c = Machin's zero - 10**-k the condition is a real restriction: it is never dropped."""
    k = 30
    x, a = sp.symbols("x a", real=True)
    s = sp.Dummy("s", nonnegative=True)
    implied = ZERO_MACHIN + sp.Rational(1, 10**k)
    assert sp.simplify(implied + s).is_nonnegative is None  # the old route's answer
    region = Region.where("x <= a, x <= a + c", le(x, a), le(x, a + implied))
    assert region.verify() == (True, "")
    assert len(region.inverse) == 1  # one slack: the second condition added no restriction
    restricting = ZERO_MACHIN - sp.Rational(1, 10**k)
    with pytest.raises(ValueError, match="cannot parametrise"):
        Region.where("x <= a, x <= a - 10^-k", le(x, a), le(x, a + restricting))
