"""One regression test per failure reported against dpaudit.verify (false PROVED, false DISPROVED, a crash,
weak verdicts, missed refutations). Every test here failed on the code before the trusted kernel
(dpaudit/verify/kernel); the comment above each says how."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from dpaudit.errors import InvalidArgument
from dpaudit.neighbors import ItemReplace
from dpaudit.verify import Fact, LemmaCheck, Proof, Verdict, exact_sign, le, lipschitz, sensitivity
from dpaudit.verify.decide import decision

X, Y, A, B = sp.symbols("x y a b", real=True)
X1, X2 = sp.symbols("x1 x2", real=True)

# -- false PROVED -------------------------------------------------------------------------------


TINY = sp.Integer(10) ** -20  # a violation this small is invisible to floating point: only the proof decides


@pytest.mark.parametrize("second", [(1 + TINY) * X2, X2 + TINY * X2**3], ids=["(1 + 1e-20) x2", "x2 + 1e-20 x2^3"])
def test_jacobian_psd_test_sees_every_entry(second):
    # before: the 2x2 test looked at the (1, 1) entry (0 here) and the determinant (0): PROVED
    result = lipschitz([X1, second], 1, norm=2, domain=(-1, 1))
    assert result.verdict is Verdict.DISPROVED, result.line()


@pytest.mark.parametrize("f", [X / 2 + TINY * sp.floor(X), X / 2 + TINY * sp.atan(sp.tan(X)), X / 2 + TINY * sp.acot(X)],
                         ids=["floor", "atan(tan)", "acot"])
def test_no_derivative_bound_for_maps_with_jumps(f):
    # derivative 1/2 (+ 1e-20 * 1), jumps of 1e-20: before, sympy's derivative ignored the jump and the mean value
    # inequality "proved" 1-Lipschitz (the float search cannot see a jump of 1e-20)
    result = lipschitz(f, 1)
    assert result.verdict is not Verdict.PROVED, result.line()
    assert result.verdict is Verdict.DISPROVED or "C^1" in result.reason


def test_positive_symbol_restricts_the_printed_claim():
    # before: the proof used x > 0 while the claim said "for all x, y in R^1"
    xp = sp.Symbol("x", positive=True)
    result = lipschitz(xp / 2 + sp.Abs(xp) / 2, 1)
    assert result.verdict is Verdict.PROVED
    assert "0 < x" in result.claim


def test_an_inequation_is_not_an_order():
    # slope 1/2 + 1e-20 (max(a, b) - b): 1/2-Lipschitz iff a <= b. Before: Ne(a, b) in where= was read as a <= b by
    # the case split (PROVED), and the float search cannot see a slope excess of 1e-20
    result = lipschitz(X / 2 + TINY * (sp.Max(A, B) - B) * X, sp.Rational(1, 2), variables=[X], where=[sp.Ne(A, B)])
    assert result.verdict is Verdict.DISPROVED, result.line()
    assert sp.Rational(result.counterexample["a"]) > sp.Rational(result.counterexample["b"])


GAP_IN, GAP_OUT = sp.symbols("gap_in gap_out", nonnegative=True)


def _lemma(name: str, establish: bool) -> LemmaCheck:
    def run():
        proof = Proof(name)
        t = sp.Symbol("t", real=True)
        proof.nonneg("something else: t^2 >= 0", t**2)
        if establish:  # the map t -> t/2: its gap is half the input gap
            proof.establish("contraction", le(GAP_OUT, GAP_IN), where={GAP_OUT: GAP_IN / 2})
        return proof.result()

    return LemmaCheck(name=name, source="test fixture", statement="the map is a contraction", expected=Verdict.PROVED,
                      check=run, facts=(Fact("contraction", le(GAP_OUT, GAP_IN)),))


def test_a_fact_the_dependency_did_not_establish_is_a_printed_premise():
    # before: Proof.depends trusted every declared Fact of a PROVED dependency and printed nothing
    a, b = sp.symbols("a b", nonnegative=True)
    # an established Fact is used as it was proved (gap_out = gap_in/2 by where=, so only gap_in is instantiated);
    # a declared one the proof did not establish is taken as stated, and printed as a premise
    uses = {False: (le(b, a), {GAP_OUT: b, GAP_IN: a}), True: (le(a / 2, a), {GAP_IN: a})}
    for establish, premise in ((False, True), (True, False)):
        dep = _lemma(f"test/fact-{establish}", establish)
        proof = Proof(f"test/uses-fact-{establish}")
        goal, subs = uses[establish]
        assert proof.depends("the contraction's gaps", goal, [dep.fact("contraction", subs)]) is Verdict.PROVED
        result = proof.result()
        assert result.verdict is Verdict.PROVED
        assert ("unproved Fact test/fact-False:contraction" in result.verdict_text()) is premise


# -- false DISPROVED ----------------------------------------------------------------------------


def test_exact_sign_survives_cancellation():
    # log(1 + t) - t + t^2/2 = t^3/3 - ... > 0 at t = 1e-20; before: exact_sign trusted sympy's low-precision
    # evalf and answered -1, so a refutation with this margin became a false DISPROVED
    t = sp.Integer(10) ** -20
    margin = sp.log(1 + t) - t + t**2 / 2
    assert exact_sign(margin) == 1
    proof = Proof("test/cancellation")
    assert not proof.refute("log(1 + t) >= t - t^2/2 at t = 1e-20", {"t": "1e-20"}, margin)
    assert proof.result().verdict is not Verdict.DISPROVED


def test_a_float_cross_check_is_evidence_not_a_counterexample():
    # (a + b) - a = b exactly, but in floats (1e16 + 3) - 1e16 = 4: before, numeric_le called this a counterexample
    a, b = np.array([1e16]), np.array([3.0])
    proof = Proof("test/float-rounding")
    assert not proof.numeric_le("(a + b) - a <= b", (a + b) - a, b, {"a": a, "b": b})
    result = proof.result()
    assert result.verdict is Verdict.UNDECIDED and "evidence only" in result.details


def test_exact_refuses_a_float_comparison():
    # before: Proof.exact accepted the Python bool of a float comparison and recorded a "counterexample"
    proof = Proof("test/exact-float")
    with pytest.raises(ValueError, match="not a truth value"):
        proof.exact("0.1 + 0.2 <= 0.3", 0.1 + 0.2 <= 0.3, counterexample={"a": 0.1, "b": 0.2})


# -- the crash, and inputs ----------------------------------------------------------------------


def test_a_float_coefficient_is_read_as_an_exact_rational():
    # before: TypeError deep inside (a sympy Float reached exact_sign)
    result = lipschitz(sp.Float(0.5) * X, 1)
    assert result.verdict is Verdict.PROVED
    assert any("1/2" in a for a in result.assumptions)


def test_bad_variables_and_trivial_hypotheses_are_invalid_arguments():
    # before: a variable f does not contain was silently an input, and a where= of True was accepted
    with pytest.raises(InvalidArgument, match="variables"):
        lipschitz(X, 1, variables=[X, Y])
    with pytest.raises(InvalidArgument, match="where"):
        lipschitz(X, 1, where=[sp.Le(1, 2)])


def test_a_symbolic_lipschitz_constant_is_accepted():
    # before: InvalidArgument (the constant had to be a number)
    c = sp.Symbol("c", positive=True)
    assert lipschitz(c * X, c, variables=[X]).verdict is Verdict.PROVED
    assert lipschitz(2 * c * X, c, variables=[X]).verdict is Verdict.DISPROVED


# -- weak verdicts: true statements now decided --------------------------------------------------


def _weak_statements():
    c, d = sp.Symbol("c", positive=True), sp.Symbol("delta", positive=True)
    return {
        "clip(x, -c, c), c > 0": lambda: lipschitz(sp.Min(sp.Max(X, -c), c), 1, variables=[X]),
        "Huber derivative, threshold delta": lambda: lipschitz(sp.Piecewise((X, sp.Abs(X) <= d), (d * sp.sign(X), True)), 1,
                                                               variables=[X]),
        "tanh": lambda: lipschitz(sp.tanh(X), 1),
        "exp on [0, 1], constant e": lambda: lipschitz(sp.exp(X), sp.E, domain=(0, 1)),
        "max(x1, x2) in l2": lambda: lipschitz(sp.Max(X1, X2), 1, norm=2),
    }


@pytest.mark.parametrize("name", list(_weak_statements()))
def test_weak_statements_are_proved(name):
    # before: UNDECIDED (sympy could not decide the cases, or the constant/threshold was symbolic)
    result = _weak_statements()[name]()
    assert result.verdict is Verdict.PROVED, result.line()


# -- missed refutations ----------------------------------------------------------------------------


def test_search_reaches_far_magnitudes():
    # before: the search stopped at |x| ~ 1e6 and missed a map that is steeper beyond 1e7
    result = lipschitz(lambda v: np.array([v[0] if abs(v[0]) < 1e7 else 2 * v[0]]), 1, dim=1)
    assert result.verdict is Verdict.DISPROVED


def test_sensitivity_varies_the_base_dataset():
    # (number of positive entries)^2 moves by 1 around the zeros, by 2k + 1 around k positives:
    # before, only rows of the given dataset were moved and the claim "sensitivity 1" was left UNDECIDED
    result = sensitivity(lambda d: float((d > 0).sum()) ** 2, 1.0, relation=ItemReplace(), dataset=np.zeros(5), domain=(0, 1))
    assert result.verdict is Verdict.DISPROVED


def test_tolerance_scales_with_the_distance_not_the_values():
    # a violation of size 1 (distance 2 > 1) on a query offset by 1e12: before, 1e-9 * |q| = 1000 hid it
    result = sensitivity(lambda d: 1e12 + 2 * np.clip(d, 0, 1).sum(), 1.0, relation=ItemReplace(), dataset=np.zeros(5),
                         domain=(0, 1))
    assert result.verdict is Verdict.DISPROVED


def test_search_results_do_not_depend_on_imports(tmp_path, monkeypatch):
    # hypothesis mixes constants collected from local modules into its draws: with that switched off, the seeded
    # hypothesis phase of a search tries the same neighbours whatever else the program imported
    from fractions import Fraction

    from dpaudit.verify.sensitivity import _hypothesis, _Search

    def tried() -> list[float]:
        seen: list[float] = []

        def query(d):
            seen.append(float(d.sum()))
            return float(np.clip(d, -3, 3).sum())

        search = _Search(query, np.zeros(3), ItemReplace(), Fraction(100), 1.0, Fraction(0), 10**6)
        _hypothesis(search, 60, 12345, -3.0, 3.0)
        return seen

    before = tried()
    (tmp_path / "many_constants.py").write_text("VALUES = [" + ", ".join(f"{k / 97 - 1.5!r}" for k in range(300)) + "]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import many_constants  # noqa: F401

    assert tried() == before


def test_a_negative_power_of_a_positive_base_is_a_reciprocal():
    # before: the translation skipped the reciprocal when the base was syntactically positive, so
    # 1/(u + 1) > 1/2 was PROVED for all u > 0 (false at u = 1), and [DR14]'s eps < 1 "held" on a box reaching 1
    u = sp.Symbol("u", positive=True)
    assert decision(1 / (u + 1) - sp.Rational(1, 2), ">").verdict is Verdict.DISPROVED
    assert decision(1 / (u + 1), ">").verdict is Verdict.PROVED
    assert decision(sp.Rational(1, 2) - 1 / (u + 1)**2, ">=").verdict is Verdict.DISPROVED
