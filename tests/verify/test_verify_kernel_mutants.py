"""Kernel properties that mutation testing (``make mutation-kernel``) found untested.

Each test states a property of the trusted kernel (dpaudit/verify/kernel) that a surviving mutant broke; none is
written to a mutant's text. The mutants that survive on purpose (equivalent ones: a ``Pow`` with exponent 0,
which sympy never builds; ``value(e, None)`` on a constant; a zero radius) are listed in the report of the branch
that added this file, not pinned here.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp

from dpaudit.verify.kernel.evaluate import branch_and_bound

X = sp.Symbol("x", real=True)
Y = sp.Symbol("y", real=True)


pytestmark = pytest.mark.usefixtures("fresh_kernel")  # tests/verify/conftest.py


_AROUND_MINUS = sp.Ge(X**2 + 3 * X + sp.Rational(226, 100), 0, evaluate=False)  # minimum 0.01 at x = -3/2
_AROUND_PLUS = sp.Ge(X**2 - 3 * X + sp.Rational(226, 100), 0, evaluate=False)  # minimum 0.01 at x = 3/2


@pytest.mark.parametrize(("goal", "lo", "hi"), [(_AROUND_MINUS, -2, -1), (_AROUND_PLUS, 1, 2), (_AROUND_MINUS, -2, 1)])
def test_branch_and_bound_proves_a_strict_inequality_that_needs_splitting_wherever_the_box_lies(goal, lo, hi):
    """``x^2 + 3x + 2.26 > 0`` everywhere, but the enclosure of the whole box ``[-2, -1]`` (x^2 in [1, 4], 3x in
    [-6, -3]) contains negative values: the box must be split, on negative boxes as on positive ones and across 0,
    until every piece is certified."""
    assert branch_and_bound(goal, [], {X: (Fraction(lo), Fraction(hi))}) == (True, None)


def test_truth_reads_python_booleans_as_themselves():
    """A hypothesis that is already a Python bool (a where= condition built by code) is taken at its value."""
    from dpaudit.verify.kernel.evaluate import truth

    assert truth(False, {}) is False and truth(True, {}) is True
    assert truth(sp.false, {}) is False and truth(sp.true, {}) is True


def test_each_symbol_assumption_is_printed_once_in_its_strongest_form():
    """``p`` positive also has sympy's implied ``nonnegative`` and ``nonzero``: the answer lists ``p > 0`` alone."""
    from dpaudit.verify.kernel import decide

    p = sp.Symbol("p", positive=True)
    d = decide(sp.Ge(p + 1, 1, evaluate=False))
    assert [h for h in d.hypotheses if h.startswith("p ")] == ["p > 0"], d.hypotheses
    d = decide(sp.Ge(p, 1, evaluate=False))  # DISPROVED: the other route that prints the assumptions
    assert [h for h in d.hypotheses if h.startswith("p ")] == ["p > 0"], d.hypotheses


def test_a_power_with_a_symbolic_exponent_keeps_the_facts_of_exp_and_log():
    """``2**n = exp(n log 2)``: Z3 knows exp only through true facts (``exp(u) >= 1 + u``), so ``2**n >= 1`` for
    ``n >= 0`` is proved on the unbounded domain (no box for interval arithmetic) only if the power is read as that
    exp; and ``2**n <= 1`` stays unproved there."""
    from dpaudit.verify.kernel import decide
    from dpaudit.verify.verdict import Verdict

    n = sp.Symbol("n", real=True)
    assert decide(sp.Ge(2**n, 1, evaluate=False), [sp.Ge(n, 0, evaluate=False)]).verdict is Verdict.PROVED
    assert decide(sp.Le(2**n, 1, evaluate=False), [sp.Ge(n, 0, evaluate=False)]).verdict is not Verdict.PROVED


def test_a_constant_is_enclosed_on_both_sides_and_pinned_to_neither_end():
    """Z3 knows ``pi`` through its certified enclosure ``lo <= pi <= hi`` (200 bits): both ends must be facts (so
    ``x pi <= x 22/7`` for ``x >= 0`` is proved without a box), and neither end may be taken as pi's value (pi is
    irrational: ``pi >= hi`` and ``pi <= lo`` are false, and must be DISPROVED, never PROVED)."""
    from dpaudit.verify.kernel import decide
    from dpaudit.verify.kernel.evaluate import enclose_constant
    from dpaudit.verify.verdict import Verdict

    lo, hi = (sp.Rational(v.numerator, v.denominator) for v in enclose_constant(sp.pi))
    assert decide(sp.Ge(sp.pi, hi, evaluate=False)).verdict is Verdict.DISPROVED
    assert decide(sp.Le(sp.pi, lo, evaluate=False)).verdict is Verdict.DISPROVED
    assert decide(sp.Le(sp.pi, hi, evaluate=False)).verdict is Verdict.PROVED
    nonneg = [sp.Ge(X, 0, evaluate=False)]
    assert decide(sp.Le(X * sp.pi, X * sp.Rational(22, 7), evaluate=False), nonneg).verdict is Verdict.PROVED
    assert decide(sp.Ge(X * sp.pi, X * sp.Rational(3), evaluate=False), nonneg).verdict is Verdict.PROVED


def _abs_of(e: sp.Expr) -> sp.Basic:
    """``|e| >= 0``: true for every value of ``e``, so PROVED exactly when ``e`` is shown defined everywhere."""
    return sp.Ge(sp.Abs(e, evaluate=False), 0, evaluate=False)


_Q_NEG = sp.Symbol("q", negative=True)
_P_POS = sp.Symbol("p", positive=True)


@pytest.mark.parametrize("inner", [
    sp.sqrt(sp.sin(X)),                                          # sin(x) < 0 somewhere: not a positive base
    sp.sqrt(sp.Pow(X - 1, 3)),                                   # a power of a base that may be negative
    sp.sqrt(_Q_NEG),                                             # a negative symbol is not a positive one
    sp.Pow(sp.Mul(0, _P_POS, evaluate=False), -1, evaluate=False),  # 1/(0 p): a zero factor is not positive
])
def test_a_goal_that_is_undefined_somewhere_is_never_proved_whatever_its_base(inner):
    """The shortcut that skips the definedness query for a syntactically positive base (``surely_positive``) must
    never call a base positive that may be negative or zero: an even root or a division there is undefined, and
    ``|e| >= 0`` (true for *any* value Z3 picks for the undefined e) would become PROVED."""
    from dpaudit.verify.kernel import decide
    from dpaudit.verify.verdict import Verdict

    d = decide(_abs_of(inner))
    assert d.verdict is Verdict.UNDECIDED and "defined" in d.note, d


@pytest.mark.parametrize("inner", [sp.sqrt(_P_POS), sp.sqrt(sp.exp(X)), sp.sqrt(_P_POS**3 + sp.pi * _P_POS), 1 / (2 * _P_POS)])
def test_a_goal_on_surely_positive_bases_is_proved(inner):
    """The control: the same goal on positive bases (positive symbols, exp, pi, their sums, products, powers)."""
    from dpaudit.verify.kernel import decide
    from dpaudit.verify.verdict import Verdict

    assert decide(_abs_of(inner)).verdict is Verdict.PROVED


def test_smoothness_conditions_are_relations_for_the_kernel_never_decided_by_sympy():
    """``c1_conditions`` hands its conditions (``p > 0`` under a log, a real power; ``p != 0`` under a division) to the
    kernel unevaluated: sympy would turn ``p > 0`` into True from ``p``'s assumptions, a decision the kernel must take."""
    from dpaudit.verify.kernel import c1_conditions

    for e in (sp.log(_P_POS + X**2), sp.sqrt(_P_POS), 1 / _P_POS, sp.log(_P_POS)):
        conditions = c1_conditions(e)
        assert conditions and all(isinstance(c, sp.core.relational.Relational) for c in conditions), (e, conditions)


@pytest.mark.parametrize("goal", [
    sp.Ge(sp.Pow(sp.Add(sp.pi, -sp.pi, evaluate=False), -1, evaluate=False), 0, evaluate=False),  # 1/(pi - pi)
    sp.Ge(sp.besselj(0, 1), 0, evaluate=False),  # a function the kernel does not know
])
def test_a_closed_form_goal_the_kernel_cannot_read_is_undecided_not_a_crash(goal):
    """No symbol, no box to split: interval arithmetic has nothing to try, and the answer is UNDECIDED."""
    from dpaudit.verify.kernel import decide
    from dpaudit.verify.verdict import Verdict

    assert decide(goal).verdict is Verdict.UNDECIDED


@pytest.mark.parametrize("inner", [sp.tan(_P_POS), sp.acosh(_P_POS), sp.asin(_P_POS)])
def test_a_function_outside_its_real_domain_is_undefined_even_at_a_positive_argument(inner):
    """Only ``log`` of a positive argument needs no definedness query: ``tan(p)`` (cos p = 0 at p = pi/2),
    ``acosh(p)`` (p < 1) and ``asin(p)`` (p > 1) are undefined for some positive p, so ``|f(p)| >= 0`` is not PROVED."""
    from dpaudit.verify.kernel import decide
    from dpaudit.verify.verdict import Verdict

    d = decide(_abs_of(inner))
    assert d.verdict is Verdict.UNDECIDED and "defined" in d.note, d


@pytest.mark.parametrize("f", [sp.tanh, sp.atan, sp.erf])
def test_the_facts_about_odd_increasing_functions_are_true_at_zero_and_on_both_sides(f):
    """The facts Z3 gets about tanh, atan, erf (sign of the value = sign of the argument, value 0 at 0) must be true:
    a false one would make some point impossible for Z3, and a false statement PROVED."""
    from dpaudit.verify.kernel import decide
    from dpaudit.verify.verdict import Verdict

    at_zero = decide(sp.Gt(X**2 + f(X) ** 2, 0, evaluate=False))  # fails at x = 0 only
    assert at_zero.verdict is Verdict.DISPROVED and Fraction(at_zero.counterexample["x"]) == 0
    assert decide(sp.Le(f(X), 0, evaluate=False)).verdict is Verdict.DISPROVED  # f(1) > 0
    assert decide(sp.Ge(f(X), 0, evaluate=False)).verdict is Verdict.DISPROVED  # f(-1) < 0
    assert decide(sp.Ge(f(X) * X, 0, evaluate=False)).verdict is Verdict.PROVED


@pytest.mark.parametrize(("constant", "exact"), [(sp.cos(0, evaluate=False), 1), (sp.sin(0, evaluate=False), 0),
                                                 (sp.exp(0, evaluate=False), 1)])
def test_a_constant_whose_enclosure_is_exact_is_pinned_to_its_value(constant, exact):
    """``cos(0)`` written unevaluated is enclosed by the exact ball [1, 1]: the fact ``lo <= c <= hi`` must keep both
    ends (a strict end would be false, Z3 would find no value, and every statement about it would be PROVED)."""
    from dpaudit.verify.kernel import decide
    from dpaudit.verify.verdict import Verdict

    assert decide(sp.Eq(constant, exact, evaluate=False)).verdict is Verdict.PROVED
    assert decide(sp.Gt(constant, exact, evaluate=False)).verdict is not Verdict.PROVED
    assert decide(sp.Lt(constant, exact, evaluate=False)).verdict is not Verdict.PROVED


def test_an_unspecified_function_is_an_arbitrary_real_printed_as_an_assumption():
    """``g(x)`` (a sympy Function without definition) is any real value: ``g(x)**2 >= 0`` is PROVED with the assumption
    printed, ``g(x) >= 0`` is not; a known function outside the kernel's list is refused by name."""
    from dpaudit.verify.kernel import decide
    from dpaudit.verify.verdict import Verdict

    g = sp.Function("g")
    d = decide(sp.Ge(g(X) ** 2, 0, evaluate=False))
    assert d.verdict is Verdict.PROVED
    assert any("g(x) real (an unspecified function" in h for h in d.hypotheses), d.hypotheses
    assert decide(sp.Ge(g(X), 0, evaluate=False)).verdict is not Verdict.PROVED
    refused = decide(sp.Ge(sp.besselj(0, X) ** 2, 0, evaluate=False))
    assert refused.verdict is Verdict.UNDECIDED and "besselj" in refused.note, refused.note
