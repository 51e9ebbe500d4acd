"""Regression tests for the false PROVED verdicts a red team found in the verification kernel after it landed
(findings F1-F8 and the lemma-file attacks). Every test here failed on the code before the fix: the comment above
each says how."""

from __future__ import annotations

import io
import textwrap
from pathlib import Path

import pytest
import sympy as sp

from dpaudit.bounds import check_identity, check_inequality
from dpaudit.errors import InvalidArgument
from dpaudit.verify import (
    CheckResult,
    Fact,
    LemmaCheck,
    Proof,
    Verdict,
    certified,
    combine_results,
    combine_verdicts,
    decide_nonneg,
    decide_zero,
    le,
    lipschitz,
    prove_by_cases,
)
from dpaudit.verify.lemma import CircularDependency
from dpaudit.verify.runner import main

X, Y, A = sp.symbols("x y a", real=True)

# -- F1: functions with a restricted real domain --------------------------------------------------


@pytest.mark.parametrize("expr, where", [
    (sp.acosh(X) ** 2, [X >= -1, X <= 0]),          # acosh(0)**2 = -pi^2/4
    (sp.acos(X) ** 2, [X >= 2, X <= 3]),            # acos(2)**2 < 0
    (sp.exp(sp.acosh(X)), [X >= -1, X <= 0]),       # exp(acosh(0)) = i
    (sp.asin(X) ** 2, [X >= 2, X <= 3]),
    (sp.atanh(X) ** 2, [X >= 1, X <= 2]),
    (sp.sec(X) ** 2 - 1, []),                        # sec(pi/2) is undefined
    (sp.tan(X) ** 2, []),
    (1 / X**2, []),
], ids=["acosh", "acos", "exp(acosh)", "asin", "atanh", "sec", "tan", "1/x^2"])
def test_functions_outside_their_real_domain_are_not_proved(expr, where):
    # before: acosh, acos, sec, ... were unconstrained reals for Z3, so a square of one was ">= 0": PROVED
    assert decide_nonneg(expr, where) is not Verdict.PROVED


def test_functions_inside_their_real_domain_are_still_proved():
    assert decide_nonneg(sp.acosh(X) ** 2, [X >= 1, X <= 3]) is Verdict.PROVED
    assert decide_nonneg(sp.acos(X) ** 2, [X >= -1, X <= 1]) is Verdict.PROVED
    assert decide_nonneg(sp.log(X) ** 2, [X > 0]) is Verdict.PROVED


def test_an_unknown_sympy_function_is_refused_but_a_user_function_is_a_real():
    assert decide_nonneg(sp.besselj(0, X) ** 2) is Verdict.UNDECIDED  # not on the kernel's list
    g = sp.Function("g")
    assert decide_nonneg(g(X) ** 2) is Verdict.PROVED  # a user's function: assumed real and defined (printed)


# -- F8: undefined points removed by rewriting ----------------------------------------------------


@pytest.mark.parametrize("expr", [sp.tan(X) * sp.cos(X) - sp.sin(X), (X**2 - 1) / (X - 1) - (X + 1)],
                         ids=["tan cos - sin", "(x^2-1)/(x-1) - (x+1)"])
def test_an_identity_is_decided_where_the_expression_is_written(expr):
    # before: sympy's simplify turned the expression into 0 and decide_zero said PROVED; it is undefined at pi/2 / 1
    assert decide_zero(expr) is not Verdict.PROVED
    assert decide_zero(expr, [X >= 2, X <= 3] if expr.has(sp.Pow) else [X >= 0, X <= 1]) is Verdict.PROVED


def test_lipschitz_of_a_map_with_a_removable_singularity_is_not_proved():
    # before: (x^2 - y^2)/(x - y) was simplified to x + y and proved sqrt(2)-Lipschitz; it is undefined on x = y
    assert lipschitz((X**2 - Y**2) / (X - Y), sp.sqrt(2)).verdict is not Verdict.PROVED


# -- F2: a symbolic Lipschitz constant that may be negative ----------------------------------------


def test_a_symbolic_constant_must_be_nonnegative():
    # before: the Jacobian bound a^2 - (a sigma(x))^2 >= 0 lost the sign of a: PROVED for every real a
    assert lipschitz(A * sp.log(1 + sp.exp(X)), A, variables=[X]).verdict is not Verdict.PROVED
    e = sp.Rational(1, 10**40)
    r = lipschitz(((A - e) * sp.tanh(X), (A - e) * sp.tanh(Y)), A - e, variables=[X, Y], where=[A > 0])
    assert r.verdict is not Verdict.PROVED
    assert lipschitz(A * sp.log(1 + sp.exp(X)), A, variables=[X], where=[A >= 0]).verdict is Verdict.PROVED


# -- F5: symbol assumptions ----------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [{"imaginary": True}, {"extended_real": True}, {"complex": True},
                                    {"extended_positive": True}])
def test_non_real_symbols_are_refused(kwargs):
    # before: an imaginary w was a real for Z3 (w^2 >= 0 PROVED, false at w = i); an extended real x was printed
    # "real" although x = oo was allowed
    w = sp.Symbol("w", **kwargs)
    with pytest.raises(InvalidArgument, match="real"):
        decide_nonneg(w**2)
    proof = Proof("test/ext")
    with pytest.raises(InvalidArgument):
        proof.positive("1/(1 + w^2) > 0", 1 / (1 + w**2))


# -- F6: fresh names of the second point -----------------------------------------------------------


def test_a_parameter_named_like_the_second_point_is_not_captured():
    # before: the copy of x for the second point was Symbol("x'"), the very parameter of the map: PROVED
    xp = sp.Symbol("x'", real=True)
    result = lipschitz(X * xp, 1, variables=[X], where=[X**2 <= 1])
    assert result.verdict is Verdict.DISPROVED, result.line()


# -- F7: sympy Floats ------------------------------------------------------------------------------


def test_floats_are_read_at_their_exact_binary_value():
    # before: Float(0.1) was rounded to 1/10 (or compared in floating point) and both claims were PROVED
    r = check_inequality(sp.Rational(1, 10) + sp.Rational(1, 10**17), sp.Float(0.1))
    assert r.verdict is Verdict.DISPROVED
    assert any("exact value" in a for a in r.assumptions)
    c = sp.Rational(1000000000000000055511151231257828, 10**34)
    import numpy as np
    r = check_identity(c * X, 0.1 * X, claim="c x == 0.1 x", source="test", rng=np.random.default_rng(0))
    assert r.verdict is Verdict.DISPROVED
    assert check_identity(sp.Rational(0.1) * X, 0.1 * X, claim="exact", source="test",
                          rng=np.random.default_rng(0)).verdict is Verdict.PROVED
    assert decide_zero(sp.Float(0.5) * X - X / 2) is Verdict.PROVED  # 0.5 is exactly 1/2
    assert decide_nonneg(sp.Float(0.1) - sp.Rational(1, 10)) is Verdict.PROVED  # binary 0.1 > 1/10
    proof = Proof("test/float")
    proof.nonneg("0.1 x^2 >= 0", 0.1 * X**2)
    assert any("exact value" in h for h in proof.result().assumptions)


# -- Facts: what was proved, and only that -----------------------------------------------------------

G, D = sp.symbols("gap dist", nonnegative=True)
H = sp.Symbol("h", real=True)


def _clamp() -> LemmaCheck:
    def run() -> CheckResult:
        p = Proof("test/clamp_lip")
        p.establish("lip", le(G, D), where={G: sp.Abs(sp.Min(sp.Max(X, -1), 1) - sp.Min(sp.Max(Y, -1), 1)), D: sp.Abs(X - Y)})
        return p.result()
    return LemmaCheck(name="test/clamp_lip", source="test", statement="clamp is 1-Lipschitz", expected=Verdict.PROVED,
                      check=run, facts=(Fact("lip", le(G, D)),))


def _dependent(goal, premises_of) -> CheckResult:
    p = Proof("test/dependent")
    p.depends("goal", goal, premises_of())
    return p.result()


def test_a_fact_established_with_where_cannot_be_reused_for_other_quantities():
    # before: gap, dist were free to be replaced: |2x - 2y| <= |x - y| and u <= v were PROVED from the clamp's Fact
    clamp = _clamp()
    r = _dependent(le(sp.Abs(2 * X - 2 * Y), sp.Abs(X - Y)), lambda: [clamp.fact("lip", {G: sp.Abs(2 * X - 2 * Y), D: sp.Abs(X - Y)})])
    assert r.verdict is Verdict.UNDECIDED and "defined by where=" in r.details
    # instantiating its quantified symbols is allowed
    u, v = sp.symbols("u v", real=True)
    goal = le(sp.Abs(sp.Min(sp.Max(2 * u, -1), 1) - sp.Min(sp.Max(v, -1), 1)), sp.Abs(2 * u - v))
    assert _dependent(goal, lambda: [clamp.fact("lip", {X: 2 * u, Y: v})]).verdict is Verdict.PROVED


def test_a_facts_hypotheses_are_obligations_of_the_dependent():
    # before: sqrt(x^2) <= x, proved under x >= 0, gave |x| <= x for every real x
    def run() -> CheckResult:
        p = Proof("test/sqrt_sq")
        p.establish("sq", le(H, X), where={H: sp.sqrt(X**2)}, hypotheses=[X >= 0])
        return p.result()
    a = LemmaCheck(name="test/sqrt_sq", source="test", statement="sqrt(x^2) <= x for x >= 0", expected=Verdict.PROVED,
                   check=run, facts=(Fact("sq", le(H, X)),))
    t = sp.Symbol("t", real=True)
    r = _dependent(le(sp.sqrt(t**2), t), lambda: [a.fact("sq", {X: t})])
    assert r.verdict is Verdict.UNDECIDED and "obligation" in r.details
    assert _dependent(le(sp.sqrt((t**2 + 1) ** 2), t**2 + 1), lambda: [a.fact("sq", {X: t**2 + 1})]).verdict is Verdict.PROVED


def test_a_positive_symbol_is_instantiated_only_at_positive_values():
    # before: a Fact proved for a positive x was used at a real x (|x| <= x "for every real x")
    xp = sp.Symbol("x", positive=True)

    def run() -> CheckResult:
        p = Proof("test/pos")
        p.establish("pos", le(0, H), where={H: xp})  # 0 <= x, true for x > 0 only
        return p.result()
    a = LemmaCheck(name="test/pos", source="test", statement="0 <= x for x > 0", expected=Verdict.PROVED, check=run,
                   facts=(Fact("pos", le(0, H)),))
    r = _dependent(le(0, X), lambda: [a.fact("pos", {xp: X})])
    assert r.verdict is Verdict.UNDECIDED and "obligation" in r.details
    assert _dependent(le(0, X**2 + 1), lambda: [a.fact("pos", {xp: X**2 + 1})]).verdict is Verdict.PROVED


def test_a_local_fact_is_what_show_proved():
    # before: show() returned c <= n in the named quantities, which depends() then read for all real c, n
    p = Proof("test/show")
    c, n = sp.symbols("c n", real=True)
    f = p.show("c <= n", le(c, n), where={c: sp.Abs(sp.Min(sp.Max(X, -1), 1)), n: sp.Abs(X)})
    p.depends("c <= n for all c, n", le(c, n), [f])
    assert p.result().verdict is Verdict.UNDECIDED


# -- forged results, cycles, shadowed names, hidden domains ------------------------------------------


def _run_user(tmp_path: Path, source: str, *args: str) -> tuple[int, str]:
    (tmp_path / "mine.py").write_text(textwrap.dedent(source))
    out = io.StringIO()
    status = main(["--no-builtin", "--path", str(tmp_path), *args], stream=out)
    return status, out.getvalue()


def test_a_check_cannot_build_its_own_proved(tmp_path):
    # before: CheckResult(Verdict.PROVED, "1 <= 0") returned by a check was reported PROVED
    forged = LemmaCheck(name="test/forged", source="test", statement="1 <= 0", expected=Verdict.PROVED,
                        check=lambda: CheckResult(Verdict.PROVED, "1 <= 0"))
    assert forged.run().verdict is Verdict.UNDECIDED
    r = lipschitz(sp.sin(X), sp.Rational(1, 2))
    assert r.verdict is Verdict.DISPROVED and certified(r)
    by_hand = LemmaCheck(name="test/by_hand", source="test", statement="s", expected=Verdict.PROVED,
                         check=lambda: CheckResult(combine_verdicts(Verdict.PROVED), "s"))
    assert by_hand.run().verdict is Verdict.UNDECIDED
    combined = combine_results("both", lipschitz(sp.Min(sp.Max(X, -1), 1), 1), r)
    assert combined.verdict is Verdict.DISPROVED and certified(combined)
    honest = LemmaCheck(name="test/honest", source="test", statement="s", expected=Verdict.DISPROVED, check=lambda: combined)
    assert honest.run().verdict is Verdict.DISPROVED


def test_circular_dependencies_are_an_error_naming_the_cycle():
    # before: RecursionError
    def run_a() -> CheckResult:
        p = Proof("test/circ_a")
        p.depends("u <= v", le(A, X), [B_CHECK.fact("fb")], establishes="fa")
        return p.result()

    def run_b() -> CheckResult:
        p = Proof("test/circ_b")
        p.depends("u <= v", le(A, X), [A_CHECK.fact("fa")], establishes="fb")
        return p.result()
    A_CHECK = LemmaCheck(name="test/circ_a", source="t", statement="s", expected=Verdict.PROVED, check=run_a,
                         facts=(Fact("fa", le(A, X)),))
    B_CHECK = LemmaCheck(name="test/circ_b", source="t", statement="s", expected=Verdict.PROVED, check=run_b,
                         facts=(Fact("fb", le(A, X)),))
    with pytest.raises(CircularDependency, match="test/circ_a -> test/circ_b -> test/circ_a"):
        A_CHECK.run()


def test_a_user_check_cannot_take_a_builtin_name(tmp_path):
    status, out = _run_user(tmp_path, '''
        import sympy as sp
        from dpaudit.verify import LemmaCheck, Proof, Verdict
        def _run():
            p = Proof("x")
            p.nonneg("x^2 >= 0", sp.Symbol("x", real=True) ** 2)
            return p.result()
        CHECK = LemmaCheck(name="ghazi2025/lemma_3_5_euclidean_balls_2d", source="mine", statement="shadow",
                           expected=Verdict.PROVED, check=_run)
    ''')
    assert status == 2 and "built-in" in out


def test_the_domain_of_a_case_split_is_printed(tmp_path):
    # before: prove_by_cases(..., domain=[x >= 0]) was PROVED for the statement "for all real x", domain not shown
    def run() -> CheckResult:
        proof = Proof("test/heaviside")
        prove_by_cases(proof, "H(x) >= 1/2", sp.Heaviside(X) - sp.Rational(1, 2), domain=[X >= 0])
        return proof.result()
    check = LemmaCheck(name="test/heaviside", source="t", statement="H(x) >= 1/2 for all real x", expected=Verdict.PROVED,
                       check=run)
    result = check.run()
    assert result.domain and "x >= 0" in result.claim.replace("0 <= x", "x >= 0")
    status, out = _run_user(tmp_path, '''
        import sympy as sp
        from dpaudit.verify import LemmaCheck, Proof, Verdict, prove_by_cases
        def _run():
            proof = Proof("mine/h")
            x = sp.Symbol("x", real=True)
            prove_by_cases(proof, "H(x) >= 1/2", sp.Heaviside(x) - sp.Rational(1, 2), domain=[x >= 0])
            return proof.result()
        CHECK = LemmaCheck(name="mine/h", source="mine", statement="H(x) >= 1/2", expected=Verdict.PROVED, check=_run)
    ''')
    assert status == 0 and "domain:" in out


def test_a_fact_established_from_a_given_relation_keeps_it_as_a_hypothesis():
    # a Fact established by depends() from a hypothesis of the statement holds only under it: a dependent
    # instantiating it at a value that breaks the hypothesis gets no proof
    def run() -> CheckResult:
        p = Proof("test/given")
        f = p.given_fact("x >= 0", sp.Ge(X, 0))
        p.depends("x >= 0", sp.Ge(X, 0), [f], establishes="nonneg")
        return p.result()
    a = LemmaCheck(name="test/given", source="t", statement="x >= 0 for x >= 0", expected=Verdict.PROVED, check=run,
                   facts=(Fact("nonneg", sp.Ge(X, 0)),))
    assert _dependent(sp.Ge(-Y**2 - 1, 0, evaluate=False), lambda: [a.fact("nonneg", {X: -Y**2 - 1})]).verdict is Verdict.UNDECIDED
    assert _dependent(sp.Ge(Y**2, 0, evaluate=False), lambda: [a.fact("nonneg", {X: Y**2})]).verdict is Verdict.PROVED
