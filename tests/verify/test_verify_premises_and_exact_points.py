"""The second red team's findings, closed: a symbol without assumptions is decided over the reals *and says so*; every
counterexample exposed is the exact point the kernel re-checked (a float only as a labelled approximation).

Each exposed point is re-checked here exactly (rationals / arb balls through :func:`dpaudit.verify.exact_sign`), never by
comparing floats.
"""

from __future__ import annotations

import json

import pytest
import sympy as sp

from dpaudit import InvalidArgument
from dpaudit.bounds import check_identity, check_inequality
from dpaudit.verify import Proof, Verdict, decide_nonneg, decision, exact_sign, lipschitz
from dpaudit.verify.kernel import decide

Z = sp.Symbol("z")  # no assumptions: sympy allows complex values
X = sp.Symbol("x", real=True)

# -- finding 1: a plain symbol is read as real, and the verdict prints it --------------------------------------------


@pytest.mark.parametrize(("expr", "kind"), [(Z**2, ">="), (sp.Abs(Z) ** 2 - Z**2, "=="), (sp.sqrt(Z**2) - sp.Abs(Z), "==")])
def test_plain_symbol_proved_over_the_reals_prints_the_premise(expr, kind):
    d = decision(expr, kind)
    assert d.verdict is Verdict.PROVED
    assert "z read as real" in d.hypotheses
    assert "for all real z" in d.claim
    assert "z read as real" in str(d) and "for all real z" in str(d)


def test_plain_symbol_premise_also_on_disproved_and_undecided_answers():
    d = decision(Z**2 - 1)
    assert d.verdict is Verdict.DISPROVED and "z read as real" in d.hypotheses
    x = sp.Rational(d.counterexample["z"])
    assert x**2 < 1  # the exact point fails z**2 >= 1
    raw = decide(sp.Ge(sp.exp(Z) * sp.sin(Z**3), -1, evaluate=False))  # beyond the kernel: undecided, premise still there
    assert raw.verdict is Verdict.UNDECIDED and "z read as real" in raw.hypotheses


def test_declared_real_symbol_has_no_read_as_real_premise():
    d = decision(X**2)
    assert d.verdict is Verdict.PROVED and not any("read as real" in h for h in d.hypotheses)
    assert d.claim == "x**2 >= 0 for all real x"


def test_complex_symbol_still_refused():
    w = sp.Symbol("w", complex=True)
    with pytest.raises(InvalidArgument, match="real"):
        decide_nonneg(w**2)
    with pytest.raises(InvalidArgument, match="real"):
        decision(w**2)


def test_proof_step_and_lipschitz_print_the_premise():
    proof = Proof("test/plain_symbol")
    proof.nonneg("z**2 >= 0", Z**2)
    result = proof.result()
    assert result.verdict is Verdict.PROVED
    assert any("z read as real" in a for a in result.assumptions)
    assert "z read as real" in result.line()
    lip = lipschitz(sp.Min(sp.Max(Z, -1), 1), 1)
    assert lip.proved and any("z read as real" in a for a in lip.assumptions) and "z read as real" in lip.line()


def test_bounds_engines_refuse_a_plain_symbol():
    # the bounds engines sample points in declared domains: a symbol without one is refused up front
    with pytest.raises(InvalidArgument, match="symbols"):
        check_inequality(Z**2, Z**2 + 1)


# -- finding 2: exposed counterexamples are exact ---------------------------------------------------------------------


def test_check_inequality_counterexample_is_the_exact_point():
    p = sp.Symbol("p", positive=True)
    r = check_inequality(p, 1, where=[p <= 1 + sp.Rational(1, 10**20)])
    assert r.verdict is Verdict.DISPROVED
    exact = sp.Rational(r.counterexample["p"])
    assert exact == sp.Rational(10**20 + 1, 10**20)  # the kernel's own point, not its float 1.0
    assert exact > 1 and exact <= 1 + sp.Rational(1, 10**20)  # re-checked exactly: where= holds, the claim fails
    assert r.counterexample["approx"]["p"] == 1.0  # the float is there only as a labelled approximation
    assert "p=100000000000000000001/100000000000000000000" in r.line() and "approx." in r.line()
    assert json.loads(json.dumps(r.counterexample))["p"] == r.counterexample["p"]  # JSON keeps it exact


def test_check_inequality_numerical_counterexample_is_exact_too():
    n = sp.Symbol("n", positive=True)
    r = check_inequality(n, 10 * n / 11 + sp.Rational(1, 3), count=32, region={n: (1, 10)})
    assert r.verdict is Verdict.DISPROVED
    at = sp.Rational(r.counterexample["n"])
    assert exact_sign(10 * at / 11 + sp.Rational(1, 3) - at) == -1


def test_check_identity_counterexample_is_exact():
    a = sp.Symbol("a", positive=True)
    r = check_identity(sp.sqrt(a**2 + 1), a + sp.Rational(1, 10**25), claim="bad", source="[test]",
                       rng=__import__("numpy").random.default_rng(0))
    assert r.verdict is Verdict.DISPROVED
    at = sp.Rational(r.counterexample["a"])
    assert exact_sign(sp.sqrt(at**2 + 1) - at - sp.Rational(1, 10**25)) != 0
    assert set(r.counterexample) == {"a", "approx"}


def test_refutation_margin_and_values_are_exact_closed_forms():
    proof = Proof("test/refute_exact")
    proof.given("x real")
    # x = sqrt(2) fails x**2 < 2: the point and the margin are closed forms, recorded exactly
    assert proof.refute("x = sqrt(2)", {"x": sp.sqrt(2)}, 2 - sp.sqrt(2) ** 2 - sp.Rational(1, 10**30))
    ce = proof.result().counterexample
    assert ce["x"] == "sqrt(2)"
    margin = sp.sympify(ce["margin (negative = statement fails)"])
    assert margin == sp.Rational(-1, 10**30) and exact_sign(margin) == -1
    assert isinstance(ce["approx"]["margin"], float)


def test_lipschitz_counterexample_values_are_exact():
    result = lipschitz(sp.tanh(2 * X), 1)
    assert result.disproved
    ce = result.counterexample
    x, y = sp.Rational(ce["x"][0]), sp.Rational(ce["y"][0])
    assert exact_sign(sp.Abs(x - y) - sp.Abs(sp.tanh(2 * x) - sp.tanh(2 * y))) == -1  # the pair re-checks exactly
    assert sp.sympify(ce["|f(x) - f(y)|"]) == sp.Abs(sp.tanh(2 * x) - sp.tanh(2 * y))  # exact closed form, not a float
    assert isinstance(ce["approx"]["|f(x) - f(y)|"], float)


def test_to_dict_and_json_keep_the_exact_point():
    p = sp.Symbol("p", positive=True)
    r = check_inequality(p, 1, where=[p <= 1 + sp.Rational(1, 10**20)])
    record = json.loads(r.to_json())
    assert record["verdict"] == "disproved" and record["certified"] is True
    exact = sp.Rational(record["counterexample"]["p"])
    assert exact > 1 and exact <= 1 + sp.Rational(1, 10**20)  # re-checked exactly from the JSON
    proof = Proof("test/json_refute")
    proof.refute("x = sqrt(2)", {"x": sp.sqrt(2)}, sp.Rational(-1, 3))
    assert json.loads(proof.result().to_json())["counterexample"]["x"] == "sqrt(2)"
