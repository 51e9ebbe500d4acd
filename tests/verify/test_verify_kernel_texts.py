"""What the trusted kernel prints and refuses, stated as properties (found untested by ``make mutation-kernel``).

A verdict is only as useful as its text: the claim must say the domain it covers, a counterexample must name
each coordinate unambiguously, and a symbol the kernel cannot decide over must be refused with its assumptions
listed. ``surely_positive`` is the syntactic shortcut that spares Z3 a definedness query (``log`` of a
product of positive symbols): its contract is checked directly.
"""

from __future__ import annotations

import pytest
import sympy as sp

from dpaudit.errors import InvalidArgument
from dpaudit.verify.kernel import Decision, decide, point_keys
from dpaudit.verify.kernel.core import claim_text
from dpaudit.verify.kernel.translate import check_real_symbol, surely_positive
from dpaudit.verify.verdict import Verdict

X = sp.Symbol("x", real=True)
P = sp.Symbol("p", positive=True)


pytestmark = pytest.mark.usefixtures("fresh_kernel")  # tests/verify/conftest.py


def test_a_decision_prints_its_claim_then_its_hypotheses_then_its_counterexample():
    d = Decision(Verdict.DISPROVED, "z3", counterexample={"x": "2", "y": "-1/3"}, hypotheses=("x > 0", "y < 0"),
                 claim="x*y >= 0 for all real x, y")
    assert str(d) == "DISPROVED: x*y >= 0 for all real x, y [hypotheses: x > 0; y < 0] [counterexample: x=2, y=-1/3]"


def test_a_decision_without_a_claim_prints_its_verdict_alone():
    assert str(Decision(Verdict.UNDECIDED, "none")) == "UNDECIDED"


def test_the_claim_names_every_variable_it_covers_and_a_constant_claim_none():
    assert claim_text(sp.Ge(X + P, 0, evaluate=False)) == "p + x >= 0 for all real p, x"
    assert claim_text(sp.Ge(sp.Integer(2), 1, evaluate=False)) == "2 >= 1"
    assert claim_text(True) == "True"  # a goal with no free_symbols attribute prints as itself


def test_one_dummy_beside_a_symbol_of_its_name_is_underscored_and_two_dummies_are_numbered():
    x, d1, d2 = sp.Symbol("x"), sp.Dummy("x"), sp.Dummy("x")
    keys = point_keys([x, d1])
    assert keys == {x: "x", d1: "_x"}
    keys = point_keys([x, d1, d2])
    assert keys[x] == "x" and keys[d1] == f"_x{d1.dummy_index}" and keys[d2] == f"_x{d2.dummy_index}"
    assert len(set(keys.values())) == 3


def test_two_symbols_of_one_name_are_told_apart_by_their_assumptions():
    real, positive, plain = sp.Symbol("x", real=True), sp.Symbol("x", positive=True), sp.Symbol("x")
    assert point_keys([real, positive]) == {real: "x (x real)", positive: "x (x > 0)"}
    assert point_keys([plain, positive]) == {plain: "x (x read as real)", positive: "x (x > 0)"}


@pytest.mark.parametrize("assumptions", [{"imaginary": True}, {"extended_real": True}, {"complex": True}, {"infinite": True}])
def test_a_symbol_that_may_be_non_real_or_infinite_is_refused_with_its_assumptions(assumptions):
    w = sp.Symbol("w", **assumptions)
    with pytest.raises(InvalidArgument) as caught:
        check_real_symbol(w)
    message = str(caught.value)
    listed = message.split("got the assumptions ")[1].split(" (non-real")[0]
    assert listed == str(sorted(k for k, v in w.assumptions0.items() if v is True and k != "commutative"))
    assert next(iter(assumptions)) in listed and "commutative" not in listed


@pytest.mark.parametrize("assumptions", [{}, {"finite": True}, {"real": True}, {"nonnegative": True}, {"integer": True}])
def test_a_symbol_that_can_be_read_as_real_is_accepted(assumptions):
    check_real_symbol(sp.Symbol("z", **assumptions))  # no error


def test_decide_refuses_a_non_real_symbol_wherever_it_occurs():
    w = sp.Symbol("w", imaginary=True)
    for goal, hypotheses in [(sp.Ge(X**2, 0, evaluate=False), [sp.Eq(w, 0, evaluate=False)]),
                             (sp.Ge(sp.Abs(w), 0, evaluate=False), [])]:
        with pytest.raises(InvalidArgument, match="symbol 'w'"):
            decide(goal, hypotheses)


def test_a_hypothesis_already_true_restricts_nothing_and_a_goal_sympy_evaluated_is_refused_with_the_reason():
    assert decide(sp.Ge(X**2, 0, evaluate=False), [True, sp.true]).verdict is Verdict.PROVED
    d = decide(sp.Ge(2, 1))  # evaluated by sympy to True before the kernel saw it
    assert d.verdict is Verdict.UNDECIDED and "build it with evaluate=False" in d.note


@pytest.mark.parametrize("e", [sp.Rational(1, 2), sp.Integer(3), P, sp.pi, sp.E, sp.exp(X), P * sp.Rational(1, 2) + 1,
                               P ** sp.Rational(1, 3), (P + 1) ** -2])
def test_surely_positive_recognises_positive_rationals_symbols_and_their_sums_products_and_rational_powers(e):
    assert surely_positive(e) is True


@pytest.mark.parametrize("e", [sp.Integer(0), sp.Rational(-1, 2), X, sp.Symbol("n", nonnegative=True), P**X, P - 1,
                               sp.log(P), sp.sin(X)])
def test_surely_positive_never_vouches_for_what_may_be_zero_negative_or_unknown(e):
    assert surely_positive(e) is False


@pytest.mark.parametrize(("goal", "verdict"), [
    (sp.Lt(sp.floor(X), X, evaluate=False), Verdict.DISPROVED),  # equal at every integer
    (sp.Gt(sp.floor(X), X - 1, evaluate=False), Verdict.PROVED),
    (sp.Gt(sp.ceiling(X), X, evaluate=False), Verdict.DISPROVED),  # equal at every integer
    (sp.Lt(sp.ceiling(X), X + 1, evaluate=False), Verdict.PROVED),
])
def test_floor_and_ceiling_are_exact_at_the_integers_and_strictly_within_one_elsewhere(goal, verdict):
    """``floor(x) = k`` exactly when ``k <= x < k + 1`` (``ceiling``: ``k - 1 < x <= k``): an end left open or
    closed the wrong way either hides the integer counterexample or loses a true statement."""
    d = decide(goal)
    assert d.verdict is verdict, d
    if verdict is Verdict.DISPROVED:
        assert sp.Rational(d.counterexample["x"]).is_integer


@pytest.mark.parametrize("goal", [sp.Gt(X, -sp.oo, evaluate=False), sp.Lt(X, sp.oo, evaluate=False),
                                  sp.Ge(X + sp.I, 0, evaluate=False), sp.Ge(X * sp.zoo, 0, evaluate=False)])
def test_infinities_and_imaginary_numbers_are_not_real_arithmetic_and_are_left_undecided(goal):
    assert decide(goal).verdict is Verdict.UNDECIDED


def test_a_rational_exponent_too_large_to_expand_is_undecided_and_counted_in_the_degree():
    """``x**(p/q)`` is translated through ``t**q == x``: with q = 10**6 that polynomial cannot be built (a CI worker
    crashed building ``t**543339720``). It is UNDECIDED with the reason, and ``degree`` counts it, so a high one
    takes the forked, time-limited route."""
    from dpaudit.verify.kernel.core import degree
    from dpaudit.verify.kernel.translate import MAX_EXPONENT

    assert degree(P ** sp.Rational(7, 3)) == 7 and degree(P ** sp.Rational(2, 9)) == 9 and degree((X + P) ** 3) == 3
    d = decide(sp.Ge(P ** sp.Rational(10**6 + 1, 10**6), 0, evaluate=False))
    assert d.verdict is Verdict.UNDECIDED and str(MAX_EXPONENT) in d.note, d
