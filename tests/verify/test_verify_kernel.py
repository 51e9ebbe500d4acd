"""Unit tests of the trusted kernel (dpaudit/verify/kernel): the Z3 translation, certified evaluation, the decision
procedure, the exact re-check and the C^1 whitelist. Each expectation is a mathematical fact checked by hand."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp
from flint import arb, ctx

from dpaudit.verify.kernel import (
    RLIMIT,
    KernelError,
    NotSmooth,
    c1_conditions,
    decide,
    number_sign,
    recheck,
    sign_of,
    value,
)
from dpaudit.verify.kernel.core import _box
from dpaudit.verify.kernel.evaluate import ball, branch_and_bound, enclose_constant, truth
from dpaudit.verify.kernel.translate import Translation, UnsupportedFormula
from dpaudit.verify.verdict import Verdict

X, Y = sp.symbols("x y", real=True)
P = sp.Symbol("p", positive=True)
N = sp.Symbol("n", integer=True)
P_, D_, U_ = Verdict.PROVED, Verdict.DISPROVED, Verdict.UNDECIDED
F = Fraction


pytestmark = pytest.mark.usefixtures("fresh_kernel")  # tests/verify/conftest.py


def ge(a, b=0):
    return sp.Ge(a, b, evaluate=False)


def le(a, b):
    return sp.Le(a, b, evaluate=False)


# -- decide: the translation read through its verdicts ---------------------------------------------

@pytest.mark.parametrize("goal, hyps, verdict", [
    (ge(sp.Abs(X)), [], P_),
    (ge(X, sp.Abs(X)), [], D_),
    (ge(sp.Max(X, Y), X), [], P_),
    (ge(sp.Max(X, Y, 0), Y), [], P_),
    (le(sp.Min(X, Y), X), [], P_),
    (le(sp.Min(X, Y, 0), Y), [], P_),
    (ge(sp.Min(X, Y), X), [], D_),
    (sp.Eq(sp.sign(X) * X, sp.Abs(X), evaluate=False), [], P_),
    (sp.Eq(sp.sign(X), 1, evaluate=False), [sp.Gt(X, 0, evaluate=False)], P_),
    (sp.Eq(sp.sign(X), -1, evaluate=False), [sp.Lt(X, 0, evaluate=False)], P_),
    (sp.Eq(sp.sign(X), 0, evaluate=False), [sp.Eq(X, 0, evaluate=False)], P_),
    (sp.Eq(sp.Heaviside(X), sp.Rational(1, 2), evaluate=False), [sp.Eq(X, 0, evaluate=False)], P_),
    (sp.Eq(sp.Heaviside(X, 1), 1, evaluate=False), [sp.Eq(X, 0, evaluate=False)], P_),
    (sp.Eq(sp.Heaviside(X), 0, evaluate=False), [sp.Lt(X, 0, evaluate=False)], P_),
    (sp.Eq(sp.Heaviside(X), 1, evaluate=False), [sp.Gt(X, 0, evaluate=False)], P_),
    (ge(sp.Piecewise((X, X >= 0), (-X, True))), [], P_),
    (ge(sp.Piecewise((X, X >= 0), (X, True))), [], D_),
    (ge(sp.floor(X), X - 1), [], P_),
    (le(sp.floor(X), X), [], P_),
    (ge(sp.floor(X), X), [], D_),
    (ge(sp.ceiling(X), X), [], P_),
    (ge(X + 1, sp.ceiling(X)), [], P_),
    (ge(X, sp.ceiling(X)), [], D_),
    (ge(X**2 - 2 * X + 1), [], P_),
    (ge(X**3), [], D_),
    (sp.Eq(X**0, 1, evaluate=False), [], P_),
    (ge(1 / X), [sp.Gt(X, 0, evaluate=False)], P_),
    (ge(1 / X**2), [sp.Ne(X, 0, evaluate=False)], P_),
    (ge(sp.sqrt(X), 0), [sp.Ge(X, 0, evaluate=False)], P_),
    (sp.Eq(sp.sqrt(X) ** 2, X, evaluate=False), [sp.Ge(X, 0, evaluate=False)], P_),
    (le(sp.sqrt(X), X), [sp.Ge(X, 1, evaluate=False)], P_),
    (ge(sp.sqrt(X), X), [sp.Ge(X, 1, evaluate=False)], D_),
    (ge(X ** sp.Rational(-1, 2)), [sp.Gt(X, 0, evaluate=False)], P_),
    (sp.Eq(sp.cbrt(X) ** 3, X, evaluate=False), [sp.Ge(X, 0, evaluate=False)], P_),
    (ge(2**P, 1), [], P_),
    (le(2 ** (-P), 1), [], P_),
    (ge(P**X), [], P_),
    (ge(sp.exp(X), 1 + X), [], P_),
    (le(sp.exp(X) * (1 - X), 1), [sp.Lt(X, 1, evaluate=False)], P_),
    (ge(sp.exp(X)), [], P_),
    (le(sp.exp(X), sp.exp(Y)), [le(X, Y)], P_),
    (sp.Lt(sp.exp(X), sp.exp(Y), evaluate=False), [sp.Lt(X, Y, evaluate=False)], P_),
    (le(sp.exp(X), sp.E), [le(X, 1)], P_),
    (ge(sp.exp(X), sp.E), [le(1, X)], P_),
    (le(sp.log(X), X - 1), [sp.Gt(X, 0, evaluate=False)], P_),
    (ge(sp.log(X), 1 - 1 / X), [sp.Gt(X, 0, evaluate=False)], P_),
    (le(sp.log(X), sp.log(Y)), [le(X, Y), sp.Gt(X, 0, evaluate=False)], P_),
    (sp.Lt(sp.tanh(X), 1, evaluate=False), [], P_),
    (sp.Gt(sp.tanh(X), -1, evaluate=False), [], P_),
    (ge(sp.tanh(X) * X), [], P_),
    (le(sp.tanh(X), X), [sp.Ge(X, 0, evaluate=False)], P_),
    (ge(sp.tanh(X), X), [sp.Le(X, 0, evaluate=False)], P_),
    (sp.Ne(sp.tanh(X), 0, evaluate=False), [sp.Ne(X, 0, evaluate=False)], P_),
    (sp.Lt(sp.erf(X), 1, evaluate=False), [], P_),
    (sp.Gt(sp.erf(X), -1, evaluate=False), [], P_),
    (ge(sp.erf(X) * X), [], P_),
    (sp.Gt(sp.erfc(X), 0, evaluate=False), [], P_),
    (sp.Lt(sp.erfc(X), 2, evaluate=False), [], P_),
    (sp.Lt(sp.atan(X), sp.pi / 2, evaluate=False), [], P_),
    (sp.Gt(sp.atan(X), -sp.pi / 2, evaluate=False), [], P_),
    (le(sp.atan(X), X), [sp.Ge(X, 0, evaluate=False)], P_),
    (ge(sp.atan(X), X), [sp.Le(X, 0, evaluate=False)], P_),
    (ge(sp.atan(X) * X), [], P_),
    (sp.Ne(sp.atan(X), 0, evaluate=False), [sp.Ne(X, 0, evaluate=False)], P_),
    (le(sp.sin(X), 1), [], P_),
    (ge(sp.sin(X), -1), [], P_),
    (le(sp.sin(X), X), [sp.Ge(X, 0, evaluate=False)], P_),
    (ge(sp.sin(X), X), [sp.Le(X, 0, evaluate=False)], P_),
    (le(sp.cos(X), 1), [], P_),
    (ge(sp.cos(X), -1), [], P_),
    (ge(sp.cos(X), 1 - X**2 / 2), [], P_),
    (ge(sp.pi, sp.Rational(314159, 100000)), [], P_),
    (le(sp.pi, sp.Rational(314160, 100000)), [], P_),
    (le(sp.sqrt(2), sp.Rational(14143, 10000)), [], P_),
    (le(sp.Function("g")(X), 10**6), [], U_),
    (sp.Implies(sp.Gt(X, 1, evaluate=False), sp.Gt(X**2, 1, evaluate=False), evaluate=False), [], P_),
    (sp.Implies(sp.Gt(X, -1, evaluate=False), sp.Gt(X**2, 1, evaluate=False), evaluate=False), [], D_),
    (le(sp.sin(X), -X), [sp.Le(X, 0, evaluate=False)], P_),
    (ge(sp.sin(X), -X), [sp.Ge(X, 0, evaluate=False)], P_),
    (sp.Eq(sp.erf(X), 0, evaluate=False), [sp.Eq(X, 0, evaluate=False)], P_),
    (sp.Gt(sp.erf(X), 0, evaluate=False), [sp.Gt(X, 0, evaluate=False)], P_),
    (sp.Lt(sp.tanh(X), 0, evaluate=False), [sp.Lt(X, 0, evaluate=False)], P_),
    (sp.Or(sp.Ge(X, 1, evaluate=False), sp.Lt(X, 2, evaluate=False)), [], P_),
    (sp.Or(sp.Ge(X, 1, evaluate=False), sp.Lt(X, -1, evaluate=False)), [], D_),
    (sp.And(sp.Ge(X, 0, evaluate=False), sp.Lt(X, 1, evaluate=False)), [], D_),
    (sp.Not(sp.Lt(X**2, 0, evaluate=False)), [], P_),
    (sp.Gt(X, Y, evaluate=False), [sp.Gt(X, Y + 1, evaluate=False)], P_),
    (sp.Lt(X, Y, evaluate=False), [sp.Lt(X, Y - 1, evaluate=False)], P_),
    (ge(P), [], P_),
    (sp.Ne(P, 0, evaluate=False), [], P_),
    (ge(N**2, N), [], P_),
    (ge(X**2, X), [], D_),
])
def test_decide_reads_every_construct_exactly(goal, hyps, verdict):
    d = decide(goal, hyps)
    assert d.verdict is verdict, d


def test_decide_reads_symbol_assumptions():
    assumed = {sp.Symbol("a", negative=True): "< 0", sp.Symbol("a", nonnegative=True): ">= 0",
               sp.Symbol("a", nonpositive=True): "<= 0", sp.Symbol("a", nonzero=True, real=True): "!= 0",
               sp.Symbol("a", positive=True): "> 0"}
    for a, text in assumed.items():
        d = decide(ge(a**2), [])
        assert d.verdict is P_ and f"a {text}" in d.hypotheses
    assert decide(sp.Lt(sp.Symbol("a", negative=True), 0, evaluate=False)).verdict is P_
    assert decide(le(sp.Symbol("a", nonpositive=True), 0)).verdict is P_
    assert decide(sp.Ne(sp.Symbol("a", nonzero=True, real=True), 0, evaluate=False)).verdict is P_
    assert "n integer" in decide(ge(N**2)).hypotheses
    half = sp.Symbol("k", integer=True)
    assert decide(sp.Ne(2 * half, 1, evaluate=False)).verdict is P_


def test_decide_counterexamples_are_exact_and_rechecked():
    d = decide(le(X**2, X))
    assert d.verdict is D_ and d.method == "z3+exact" and d.note == "counterexample re-checked exactly"
    x = Fraction(d.counterexample["x"])
    assert x * x > x
    d = decide(ge(X, 1), [le(X, 5)])
    assert d.verdict is D_ and Fraction(d.counterexample["x"]) < 1 and d.hypotheses == ("x <= 5",)


def test_decide_proof_method_and_note():
    d = decide(ge(X**2))
    assert d.verdict is P_ and d.method == "z3" and d.note == "Z3: the negation is unsatisfiable" and d.counterexample is None
    d = decide(ge(sp.exp(X), 1 + X))
    assert d.method == "z3+abstraction" and "exp(x)" in d.note


def test_decide_refuses_what_sympy_already_evaluated():
    d = decide(sp.true)
    assert d.verdict is U_ and d.method == "none" and "evaluate=False" in d.note
    assert decide(ge(X), [sp.false]).verdict is U_
    assert decide(ge(X), [], rewrites=[True]).verdict is U_


def test_decide_needs_the_goal_defined_everywhere():
    for goal in (ge(1 / X), ge(sp.sqrt(X)), ge(sp.log(X)), ge(sp.Piecewise((X, X > 0))), ge(X ** sp.Rational(-1, 2))):
        d = decide(goal)
        assert d.verdict is U_ and "defined" in d.note, goal
    assert decide(ge(sp.Piecewise((1, X > 0), (1, X <= 0)))).verdict is P_


def test_decide_refuses_floats_and_complex_numbers():
    for goal in (ge(sp.Float(0.5) * X), ge(sp.I * X), ge(X, sp.oo)):
        d = decide(goal)
        assert d.verdict is U_ and d.note, goal


def test_decide_rewrites_prove_only():
    hard = sp.Eq(sp.log(P**2), 2 * sp.log(P), evaluate=False)
    assert decide(hard).verdict is U_
    d = decide(hard, rewrites=[sp.Eq(2 * sp.log(P), 2 * sp.log(P), evaluate=False)])
    assert d.verdict is P_
    # a wrong "rewrite" cannot produce a counterexample: candidates are re-checked on the goal itself
    assert decide(ge(X**2), rewrites=[ge(X)]).verdict is P_


def test_decide_interval_arithmetic_on_a_box():
    box = [le(0, X), le(X, 1)]
    d = decide(ge(sp.sin(X) + sp.Rational(1, 100), X / 2), box)  # beyond Z3's facts about sin, certified by arb
    assert d.verdict is P_ and d.method == "interval" and "x in [0, 1]" in d.note
    d = decide(le(sp.sin(X), sp.Rational(9, 10)), [le(0, X), le(X, sp.Rational(6, 5))])  # sin(1.2) = 0.932
    assert d.verdict is D_ and Fraction(d.counterexample["x"]) > 1
    assert decide(ge(sp.sin(X), X - X**3 / 6), box).verdict is U_  # touches 0 at x = 0: no box certifies it
    far = decide(ge(sp.sin(X) + sp.Rational(1, 100), X / 2), [le(0, X)])  # false for x >= 2.02
    assert far.verdict is D_ and Fraction(far.counterexample["x"]) > 2
    unbounded = decide(ge(sp.sin(X) + sp.Rational(1, 100), X / 2), [le(0, X), le(X, 1), le(Y, X)])
    assert unbounded.verdict is U_ and "box" in unbounded.note


def test_decide_is_deterministic_and_independent_of_history():
    goal = le(X**2, X)
    first = decide(goal)
    decide(ge(sp.exp(Y), 1 + Y))
    from dpaudit.verify.kernel.core import _decide_cached

    _decide_cached.cache_clear()
    assert decide(goal) == first
    assert RLIMIT > 0


def test_kernel_error_is_a_dpaudit_error():
    from dpaudit.errors import DPAuditError

    assert issubclass(KernelError, DPAuditError)


# -- recheck ----------------------------------------------------------------------------------------

def test_recheck_needs_hypotheses_assumptions_and_a_certain_failure():
    goal = le(X**2, X)
    assert recheck(goal, [], {X: F(2)})
    assert not recheck(goal, [], {X: F(1, 2)})                     # the goal holds there
    assert not recheck(goal, [le(X, 1)], {X: F(2)})               # a hypothesis fails there
    assert not recheck(goal, [le(X, Y)], {X: F(2)})               # a hypothesis cannot be evaluated
    assert not recheck(ge(P, 1), [], {P: F(-1)})                  # the symbol's assumption fails there
    assert not recheck(ge(P, 1), [], {P: F(0)})                   # positive excludes 0
    assert recheck(ge(P, 1), [], {P: F(1, 2)})
    assert not recheck(ge(N, 1), [], {N: F(1, 2)})                # not an integer
    assert recheck(ge(N, 1), [], {N: F(0)})
    boundary = {"negative": ((F(0), False), (F(-1, 2), True)), "nonnegative": ((F(-1, 2), False), (F(0), True)),
                "nonpositive": ((F(1, 2), False), (F(0), True)), "nonzero": ((F(0), False), (F(1, 2), True))}
    for key, cases in boundary.items():
        a = sp.Symbol("a", real=True, **{key: True})
        for v, counterexample in cases:  # the goal a > 100 fails at each point: only the assumption decides
            assert recheck(sp.Gt(a, 100, evaluate=False), [], {a: v}) is counterexample, (key, v)
    assert not recheck(sp.Eq(sp.sqrt(2) ** 2, 2, evaluate=False), [], {})  # a zero no ball can certify
    assert recheck(sp.Ge(sp.pi, sp.Rational(355, 113), evaluate=False), [], {})  # pi < 355/113


def test_box_reads_simple_bounds():
    assert _box([X], [le(0, X), sp.Lt(X, 2, evaluate=False)]) == {X: (F(0), F(2))}
    assert _box([X], [sp.Ge(X, -1, evaluate=False), sp.Gt(3, X, evaluate=False), le(X, 5)]) == {X: (F(-1), F(3))}
    assert _box([X], [le(1, X), le(2, X), le(X, 4)]) == {X: (F(2), F(4))}
    assert _box([X], [le(0, X)]) is None
    assert _box([X, Y], [le(0, X), le(X, 1)]) is None
    assert _box([P], [le(P, 1)]) == {P: (F(0), F(1))}
    assert _box([N], [le(0, N), le(N, 1)]) is None
    assert _box([X], [sp.Eq(X, 1, evaluate=False), sp.Ne(X, 2, evaluate=False), le(0, X), le(X, 1), le(X + Y, 1)]) == {X: (F(0), F(1))}


# -- evaluation ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("expr, at, expected", [
    (X + 1, {X: F(1, 3)}, F(4, 3)),
    (X * Y, {X: F(2), Y: F(-3)}, F(-6)),
    (X**2, {X: F(-3)}, F(9)),
    (X**-2, {X: F(2)}, F(1, 4)),
    (sp.Max(X, Y, 1), {X: F(2), Y: F(3)}, F(3)),
    (sp.Min(X, Y, 1), {X: F(2), Y: F(3)}, F(1)),
    (sp.Abs(X), {X: F(-5, 2)}, F(5, 2)),
    (sp.sign(X), {X: F(-5, 2)}, F(-1)),
    (sp.sign(X), {X: F(0)}, F(0)),
    (sp.sign(X), {X: F(1, 9)}, F(1)),
    (sp.Heaviside(X), {X: F(0)}, F(1, 2)),
    (sp.Heaviside(X, 1), {X: F(0)}, F(1)),
    (sp.Heaviside(X), {X: F(-1)}, F(0)),
    (sp.Heaviside(X), {X: F(2)}, F(1)),
    (sp.floor(X), {X: F(-5, 2)}, F(-3)),
    (sp.floor(X), {X: F(5, 2)}, F(2)),
    (sp.ceiling(X), {X: F(-5, 2)}, F(-2)),
    (sp.ceiling(X), {X: F(5, 2)}, F(3)),
    (sp.Piecewise((X, X > 1), (2 * X, True)), {X: F(3)}, F(3)),
    (sp.Piecewise((X, X > 1), (2 * X, True)), {X: F(1)}, F(2)),
    (sp.sqrt(X), {X: F(0)}, F(0)),
])
def test_value_is_exact_on_rationals(expr, at, expected):
    assert value(expr, at) == expected


@pytest.mark.parametrize("expr, at", [
    (1 / X, {X: F(0)}),
    (sp.sqrt(X), {X: F(-1)}),
    (sp.log(X), {X: F(0)}),
    (sp.log(X), {X: F(-2)}),
    (X**Y, {X: F(-2), Y: F(1, 2)}),
    (X**Y, {X: F(0), Y: F(-1)}),
    (sp.Piecewise((X, X > 1)), {X: F(0)}),
    (sp.Function("g")(X), {X: F(1)}),
    (sp.tan(X), {X: ball(F(1), F(2))}),
    (X + Y, {X: F(1)}),
    (X * Y, {X: F(1)}),
    (sp.Max(X, Y), {X: F(1)}),
    (sp.Piecewise((Y, X > 1), (X, True)), {X: F(2)}),
])
def test_value_is_none_where_undefined_or_unknown(expr, at):
    assert value(expr, at) is None


def test_value_encloses_on_balls():
    ctx.prec = 100
    around = ball(F(-1), F(1))
    assert around.contains(-1) and around.contains(1) and not around.contains(2)
    assert ball(F(1, 2), F(1, 2)) == value(sp.Rational(1, 2), {}) or ball(F(1, 2), F(1, 2)).contains(arb(1) / 2)
    v = value(sp.sign(X), {X: around})
    assert v.contains(-1) and v.contains(1) and v.contains(0)
    h = value(sp.Heaviside(X), {X: around})
    assert h.contains(0) and h.contains(1) and h.contains(arb(1) / 2)
    m = value(sp.Max(X, 0), {X: around})
    assert (m.contains(0) and m.contains(1) and not m.contains(-1)) or m.contains(0)
    assert value(sp.Min(X, Y), {X: around, Y: F(3)}).contains(-1)
    assert value(sp.Max(X, Y), {X: around, Y: F(3)}).contains(3)
    assert value(sp.Abs(X), {X: around}).contains(1)
    assert value(sp.floor(X), {X: around}).contains(-1)
    assert value(sp.ceiling(X), {X: around}).contains(1)
    pw = value(sp.Piecewise((X, X > 0), (-X, True)), {X: around})
    assert pw.contains(1) and pw.contains(-1)
    for f, point, bounds in ((sp.exp, 1, (2.718, 2.719)), (sp.log, 2, (0.693, 0.694)), (sp.sin, 1, (0.841, 0.842)),
                             (sp.cos, 1, (0.540, 0.541)), (sp.tan, 1, (1.557, 1.558)), (sp.tanh, 1, (0.761, 0.762)),
                             (sp.atan, 1, (0.785, 0.786)), (sp.erf, 1, (0.842, 0.843)), (sp.erfc, 1, (0.157, 0.158)),
                             (sp.sinh, 1, (1.175, 1.176)), (sp.cosh, 1, (1.543, 1.544)), (sp.asinh, 1, (0.881, 0.882))):
        v = value(f(X), {X: F(point)})
        assert bounds[0] < float(v.mid()) < bounds[1], f
    assert bounds_of(value(sp.pi, {})) == pytest.approx(3.14159265)
    assert bounds_of(value(sp.E, {})) == pytest.approx(2.718281828)
    assert bounds_of(value(X**Y, {X: F(2), Y: F(1, 2)})) == pytest.approx(2**0.5)
    assert bounds_of(value(sp.sqrt(X), {X: F(2)})) == pytest.approx(2**0.5)
    assert bounds_of(value(X ** -2, {X: arb(2)})) == pytest.approx(0.25)
    assert value(X ** -2, {X: around}) is None
    assert value(sp.sqrt(X), {X: around}) is None
    assert value(sp.log(X), {X: around}) is None


def bounds_of(v):
    return float(v.mid()) if isinstance(v, arb) else float(v)


def test_sign_of_and_truth_are_certain_or_none():
    ctx.prec = 100
    assert sign_of(F(-1, 3)) == -1 and sign_of(F(0)) == 0 and sign_of(F(2)) == 1
    assert sign_of(arb(1) / 3) == 1 and sign_of(-arb(1) / 3) == -1 and sign_of(arb(0)) == 0
    assert sign_of(ball(F(-1), F(1))) is None and sign_of(None) is None and sign_of(arb.pos_inf()) is None
    assert sign_of(ball(F(0), F(1))) is None
    at = {X: F(1), Y: F(2)}
    for rel, want in ((sp.Eq(X, 1, evaluate=False), True), (sp.Ne(X, 1, evaluate=False), False), (le(X, Y), True),
                      (sp.Lt(X, 1, evaluate=False), False), (sp.Ge(X, 1, evaluate=False), True), (sp.Gt(Y, X, evaluate=False), True),
                      (sp.Lt(X, Y, evaluate=False), True), (sp.Gt(X, 1, evaluate=False), False)):
        assert truth(rel, at) is want, rel
    assert truth(sp.And(le(X, Y), le(Y, 3)), at) is True
    assert truth(sp.And(le(X, Y), le(Y, 1)), at) is False
    assert truth(sp.Or(le(Y, X), le(Y, 1)), at) is False
    assert truth(sp.Or(le(Y, X), le(Y, 3)), at) is True
    assert truth(sp.Not(le(Y, X)), at) is True
    assert truth(sp.Not(le(sp.Symbol("z"), X)), at) is None
    assert truth(sp.And(le(X, Y), le(sp.Symbol("z"), 1)), at) is None
    assert truth(sp.Or(le(Y, X), le(sp.Symbol("z"), 1)), at) is None
    assert truth(True, at) is True and truth(sp.false, at) is False and truth(X, at) is None
    assert truth(le(X, 0), {X: ball(F(-1), F(1))}) is None
    assert truth(le(sp.sqrt(X), 0), {X: F(-1)}) is None


def test_enclose_constant_is_tight_and_exact_for_rationals():
    lo, hi = enclose_constant(sp.pi)
    assert lo < F(355, 113) and F(333, 106) < lo and hi - lo < F(1, 2**190) and lo < hi
    assert enclose_constant(sp.Rational(3, 7)) == (F(3, 7), F(3, 7))
    assert enclose_constant(sp.Function("g")(1)) is None
    assert enclose_constant(sp.log(0)) is None if False else enclose_constant(sp.log(sp.Integer(-1), evaluate=False)) is None


def test_branch_and_bound_proves_refutes_and_gives_up():
    box = {X: (F(0), F(1))}
    assert branch_and_bound(le(X * (1 - X), sp.Rational(1, 3)), [], box) == (True, None)
    proved, point = branch_and_bound(le(X**2, sp.Rational(1, 2)), [], box)
    assert proved is False and point[X] ** 2 > F(1, 2)
    # the goal only has to hold where the hypotheses do
    assert branch_and_bound(le(X**2, sp.Rational(1, 2)), [le(X, sp.Rational(1, 2))], box) == (True, None)
    assert branch_and_bound(le(X * (1 - X), sp.Rational(1, 4)), [], box, max_boxes=50) == (None, None)
    assert branch_and_bound(ge(X - X), [sp.Ne(X, 2, evaluate=False)], {X: (F(1), F(1) + F(1, 2**70))}) == (True, None)
    assert branch_and_bound(sp.Gt(X, 0, evaluate=False), [], {X: (F(0), F(1, 2**70))}) == (None, None)


# -- numbers, C^1, translation refusals -------------------------------------------------------------------

def test_number_sign():
    assert number_sign(sp.pi - sp.Rational(355, 113)) == -1
    assert number_sign(sp.E - sp.Rational(2718, 1000)) == 1
    assert number_sign(sp.Integer(0)) == 0
    t = sp.Integer(10) ** -20
    assert number_sign(sp.log(1 + t) - t + t**2 / 2) == 1  # t^3/3 > 0: cancellation of 40 digits
    assert number_sign(sp.sqrt(2) + sp.sqrt(3) - sp.sqrt(5 + 2 * sp.sqrt(6))) is None  # an exact zero balls cannot certify
    assert number_sign(sp.oo) == 1 and number_sign(-sp.oo) == -1
    assert number_sign(X) is None


def test_c1_whitelist():
    assert c1_conditions(X**2 + sp.exp(X) * sp.sin(Y) + sp.tanh(X) + sp.atan(X) + sp.erf(X) + sp.cos(X)) == []
    assert c1_conditions(sp.Integer(3)) == [] and c1_conditions(sp.Abs(sp.pi)) == []
    assert c1_conditions(1 / X) == [sp.Ne(X, 0, evaluate=False)]
    assert c1_conditions(sp.sqrt(X)) == [sp.Gt(X, 0, evaluate=False)]
    assert c1_conditions(sp.log(X + 1)) == [sp.Gt(X + 1, 0, evaluate=False)]
    assert c1_conditions(sp.sin(sp.log(X))) == [sp.Gt(X, 0, evaluate=False)]
    assert c1_conditions(X**Y) == [sp.Gt(X, 0, evaluate=False)]
    for bad in (sp.Abs(X), sp.Max(X, 0), sp.sign(X), sp.floor(X), sp.tan(X), sp.acot(X), sp.Function("g")(X),
                sp.Piecewise((X, X > 0), (0, True)), sp.exp(sp.Abs(X))):
        with pytest.raises(NotSmooth, match="C\\^1"):
            c1_conditions(bad)


def test_translation_collects_definedness_and_refuses_floats():
    tr = Translation(enclose_constant)
    tr.term(1 / X + sp.sqrt(Y) + sp.log(X))
    assert len(tr.defined) == 3
    with pytest.raises(UnsupportedFormula, match="float"):
        tr.term(sp.Float(0.5))
    with pytest.raises(UnsupportedFormula, match="not a real number"):
        tr.term(sp.zoo)
    with pytest.raises(UnsupportedFormula, match="relation"):
        tr.formula(X)
    with pytest.raises(UnsupportedFormula, match="enclosure"):
        Translation(lambda e: None).term(sp.pi)
    tr2 = Translation(enclose_constant)
    tr2.term(sp.exp(X) + sp.exp(X))
    assert tr2.abstracted == [sp.exp(X)]


def test_branch_and_bound_budget_is_exact():
    goal = le(X * (1 - X), sp.Rational(1, 3))
    assert branch_and_bound(goal, [], {X: (F(0), F(1))}, max_boxes=11) == (True, None)  # 11 pieces certify it
    assert branch_and_bound(goal, [], {X: (F(0), F(1))}, max_boxes=10) == (None, None)


def test_more_constructs_read_exactly():
    nonneg = [sp.Ge(X, 0, evaluate=False)]
    assert decide(sp.Eq(X ** sp.Rational(3, 2), X * sp.sqrt(X), evaluate=False), nonneg).verdict is P_
    assert decide(sp.Eq(X ** sp.Rational(5, 3), X * sp.cbrt(X) ** 2, evaluate=False), nonneg).verdict is P_
    assert decide(sp.Eq(X ** sp.Rational(-3, 2) * X * sp.sqrt(X), 1, evaluate=False), [sp.Gt(X, 0, evaluate=False)]).verdict is P_
    assert decide(ge(X ** sp.Rational(3, 2), X), [sp.Ge(X, 1, evaluate=False)]).verdict is P_
    assert decide(ge(X, X ** sp.Rational(3, 2)), [sp.Ge(X, 2, evaluate=False)]).verdict is D_
    steps = sp.Piecewise((1, X < 0), (2, X < 1), (3, True))
    assert decide(sp.Eq(steps, 3, evaluate=False), [sp.Ge(X, 1, evaluate=False)]).verdict is P_
    assert decide(sp.Eq(steps, 2, evaluate=False), [sp.Ge(X, 0, evaluate=False), sp.Lt(X, 1, evaluate=False)]).verdict is P_
    assert decide(sp.Eq(steps, 1, evaluate=False), [sp.Lt(X, 0, evaluate=False)]).verdict is P_
    assert decide(sp.Eq(steps, 2, evaluate=False)).verdict is D_
    # monotone facts are exactly as strict as the order of the arguments
    assert decide(sp.Lt(sp.exp(X), sp.exp(Y), evaluate=False), [le(X, Y)]).verdict is D_
    assert decide(sp.Gt(sp.exp(X), sp.exp(Y), evaluate=False), [le(Y, X)]).verdict is D_
    assert decide(sp.Gt(sp.exp(X), sp.exp(Y), evaluate=False), [sp.Lt(Y, X, evaluate=False)]).verdict is P_
    assert decide(le(sp.exp(Y), sp.exp(X)), [le(Y, X)]).verdict is P_
    assert decide(sp.Eq(sp.exp(X), sp.exp(Y), evaluate=False), [sp.Eq(X, Y, evaluate=False)]).verdict is P_
    note = decide(ge(sp.sin(X) * sp.sin(Y) + sp.Rational(1, 10)), [le(0, X), le(X, 1), le(0, Y), le(Y, 1)]).note
    assert "x in [0, 1], y in [0, 1]" in note


def test_c1_conditions_are_unevaluated_relations():
    assert c1_conditions(2**X) == [sp.Gt(2, 0, evaluate=False)]
    assert c1_conditions(sp.log(P)) == [sp.Gt(P, 0, evaluate=False)]
    assert c1_conditions(P ** sp.Rational(1, 2)) == [sp.Gt(P, 0, evaluate=False)]
    assert c1_conditions(1 / P) == [sp.Ne(P, 0, evaluate=False)]
    assert c1_conditions(X**3) == []


def test_box_keeps_the_tightest_rational_bounds():
    half, three_halves = sp.Rational(1, 2), sp.Rational(3, 2)
    assert _box([X], [le(half, X), le(X, three_halves)]) == {X: (F(1, 2), F(3, 2))}
    assert _box([X], [le(2, X), le(1, X), le(X, 5), le(X, 4)]) == {X: (F(2), F(4))}
    assert _box([X], [le(half, X), le(sp.Rational(1, 3), X), le(X, three_halves), le(X, sp.Rational(7, 3))]) == {X: (F(1, 2), F(3, 2))}
    assert _box([P], [le(1, P), le(P, 2)]) == {P: (F(1), F(2))}


def test_value_of_powers():
    ctx.prec = 100
    assert bounds_of(value(X**-3, {X: arb(2)})) == pytest.approx(0.125)
    assert bounds_of(value(X**Y, {X: F(2), Y: F(-1)})) == pytest.approx(0.5)
    assert value(X ** (1 / Y), {X: F(2), Y: F(0)}) is None
    assert value(X**Y, {X: F(0), Y: F(1, 2)}) is None
    assert value(X ** sp.Rational(-1, 2), {X: F(0)}) is None
    assert value(X ** sp.Rational(3, 2), {X: F(0)}) == 0
    assert bounds_of(value(X ** sp.Rational(3, 2), {X: F(4)})) == pytest.approx(8.0)


def test_an_irrational_model_is_only_a_candidate():
    # Z3 answers x = sqrt(2) (an algebraic number); its 40-digit rational does not re-check, so nothing is concluded
    d = decide(sp.Ne(X**2, 2, evaluate=False))
    assert d.verdict is U_ and "did not re-check" in d.note
    assert decide(sp.Ne(X**2, 4, evaluate=False)).verdict is D_


def test_rational_reads_z3_numerals():
    import z3

    from dpaudit.verify.kernel.core import _rational

    assert _rational(z3.IntVal(-3)) == F(-3)
    assert _rational(z3.RealVal("7/3")) == F(7, 3)
    x = z3.Real("x")
    solver = z3.Solver()
    solver.add(x * x == 2, x > 0)
    assert solver.check() == z3.sat
    root = _rational(solver.model()[x])
    assert abs(root * root - 2) < F(1, 10**35) and root > 1
    assert _rational(x) is None


def test_box_with_negative_upper_bounds_and_a_power_value():
    assert _box([X], [le(-2, X), le(X, sp.Rational(-3, 2))]) == {X: (F(-2), F(-3, 2))}
    assert _box([X], [le(sp.Rational(-5, 2), X), le(X, 1)]) == {X: (F(-5, 2), F(1))}
    four = [sp.Eq(X, 4, evaluate=False)]
    assert decide(sp.Eq(X ** sp.Rational(-3, 2), sp.Rational(1, 8), evaluate=False), four).verdict is P_
    assert decide(sp.Eq(X ** sp.Rational(3, 2), 8, evaluate=False), four).verdict is P_
    assert decide(ge(X ** sp.Rational(-3, 2), 1), [sp.Gt(X, 0, evaluate=False), le(X, 1)]).verdict is P_
    assert decide(ge(X ** sp.Rational(-3, 2), 1), [sp.Ge(X, 2, evaluate=False)]).verdict is D_


def test_branch_and_bound_splits_the_widest_side():
    goal = le(X * (1 - X) + Y * (1 - Y), sp.Rational(2, 3))
    box = {X: (F(0), F(1)), Y: (F(0), F(1))}
    assert branch_and_bound(goal, [], box, max_boxes=47) == (True, None)
    assert branch_and_bound(goal, [], box, max_boxes=46) == (None, None)


@pytest.mark.parametrize("goal, hyps, verdict", [
    (sp.Eq(X**-2, sp.Rational(1, 4), evaluate=False), [sp.Eq(X, 2, evaluate=False)], P_),
    (sp.Eq(sp.sqrt(X), 1, evaluate=False), [sp.Eq(X, 0, evaluate=False)], D_),       # sqrt(0) = 0: the root may be 0
    (sp.Eq(sp.sqrt(X), 0, evaluate=False), [sp.Eq(X, 0, evaluate=False)], P_),
    (le(2**X, 3**X), [le(X, -1)], D_),                                            # 2^x > 3^x for x < 0
    (le(2**X, 3**X), [le(1, X)], P_),
    (sp.Gt(sp.exp(X), 0, evaluate=False), [], P_),
    (sp.Eq(sp.log(X), 1, evaluate=False), [sp.Eq(X, 1, evaluate=False)], D_),      # log 1 = 0: no fact may exclude it
    (sp.Eq(sp.log(X), 0, evaluate=False), [sp.Eq(X, 1, evaluate=False)], P_),
    (le(sp.exp(X), sp.exp(2)), [le(X, 2)], P_),
    (ge(sp.exp(X), sp.exp(2)), [le(2, X)], P_),
])
def test_decide_facts_are_exactly_true(goal, hyps, verdict):
    assert decide(goal, hyps).verdict is verdict


def test_decide_facts_do_not_overstate_ranges():
    # atan(x) < 11/10 is false (atan(10) = 1.47): the fact atan < pi/2 must not be strengthened into a proof
    assert decide(sp.Lt(sp.atan(X), sp.Rational(11, 10), evaluate=False)).verdict is not P_
    assert decide(sp.Lt(sp.atan(X), 1, evaluate=False)).verdict is not P_
    # x^(-1/2) and log x are not defined at 0
    for goal in (ge(X ** sp.Rational(-1, 2)), ge(sp.log(X), -(10**6))):
        d = decide(goal, [sp.Ge(X, 0, evaluate=False)])
        assert d.verdict is U_ and "defined" in d.note


def test_decide_prints_the_assumptions_of_every_answer():
    for a, text in ((sp.Symbol("a", positive=True), "a > 0"), (sp.Symbol("a", negative=True), "a < 0"),
                    (sp.Symbol("a", nonnegative=True), "a >= 0"), (sp.Symbol("a", nonpositive=True), "a <= 0"),
                    (sp.Symbol("a", nonzero=True, real=True), "a != 0")):
        d = decide(sp.Eq(a, 5, evaluate=False))  # fails somewhere under every assumption: DISPROVED
        assert d.verdict is D_ and d.hypotheses[0] == text, (text, d)
    d = decide(sp.Eq(N, 5, evaluate=False), [le(N, 9)])
    assert d.verdict is D_ and d.hypotheses == ("n integer", "n <= 9")


def test_truth_of_negations_and_implications():
    at = {X: F(1), Y: F(2)}
    both = sp.And(le(X, Y), le(Y, 3))
    assert truth(sp.Not(both, evaluate=False), at) is False
    assert truth(sp.Not(sp.And(le(X, Y), le(Y, 1)), evaluate=False), at) is True
    assert truth(sp.Not(sp.And(le(X, Y), le(sp.Symbol("z"), 1)), evaluate=False), at) is None
    assert truth(sp.Implies(le(X, Y), le(Y, 3), evaluate=False), at) is True
    assert truth(sp.Implies(le(X, Y), le(Y, 1), evaluate=False), at) is False
    assert truth(sp.Implies(le(Y, X), le(Y, 1), evaluate=False), at) is True


def test_value_of_floor_ceiling_on_balls_and_of_undefined_bases():
    ctx.prec = 100
    inside = ball(F(6, 5), F(7, 5))
    assert value(sp.floor(X), {X: inside}).contains(1) and not value(sp.floor(X), {X: inside}).contains(2)
    assert value(sp.ceiling(X), {X: inside}).contains(2) and not value(sp.ceiling(X), {X: inside}).contains(1)
    assert value((1 / X) ** 2, {X: F(0)}) is None
    assert value(sp.exp(1 / X), {X: F(0)}) is None
