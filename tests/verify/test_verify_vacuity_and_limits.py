"""The kernel's last findings of issue 19: vacuous PROVED, the certified claim beside the verdict, a time limit per
decision, exact steps decided by the kernel, and NaN queries in sensitivity."""

from __future__ import annotations

import io
import textwrap
import time
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from dpaudit import bounds, verify
from dpaudit.errors import InvalidArgument
from dpaudit.neighbors import ItemReplace
from dpaudit.verify import LemmaCheck, Proof, Verdict, runner
from dpaudit.verify.kernel import core
from dpaudit.verify.kernel.evaluate import branch_and_bound

X = sp.Symbol("x", real=True)
Z = sp.Symbol("z", positive=True)
C = sp.Symbol("c", positive=True)
BETA = sp.Symbol("beta", positive=True)


# -- 1. vacuous PROVED ---------------------------------------------------------------------------------------------

def test_contradictory_where_makes_check_inequality_a_vacuous_proved():
    # before: "PROVED z <= z - 1 ... [on the domain: z > 2; z < 1]" and nothing said the domain is empty
    result = bounds.check_inequality(Z, Z - 1, where=[Z > 2, Z < 1])
    assert result.verdict is Verdict.PROVED and result.vacuous
    assert "vacuous: the hypotheses z > 2; z < 1 (with z > 0) have no common solution" in str(result)
    assert result.verdict_text() == "PROVED (vacuous)"
    nonlinear = bounds.check_inequality(Z, Z - 1, where=[Z**2 < Z, Z > 1])
    assert nonlinear.vacuous
    # a satisfiable domain is not marked
    honest = bounds.check_inequality(Z, Z + 1, where=[Z > 2, Z < 3])
    assert honest.verdict is Verdict.PROVED and honest.vacuity == "" and "vacuous" not in str(honest)


def test_contradictory_where_makes_lipschitz_a_vacuous_proved():
    result = verify.lipschitz(C * X**2, 1, variables=[X], where=[C > 2, C < 1])
    assert result.verdict is Verdict.PROVED and result.vacuous and "vacuous" in str(result)
    assert not verify.lipschitz(C * X, 1, variables=[X], where=[C < 1]).vacuity


def test_a_decision_on_contradictory_hypotheses_says_it_is_vacuous():
    d = verify.decision(X - 5, hypotheses=[X > 1, X < 0])
    assert d.verdict is Verdict.PROVED and d.vacuous
    assert "(vacuous: the hypotheses x > 1; x < 0 have no common solution)" in str(d)
    assert not verify.decision(X - 5, hypotheses=[X > 6, X < 7]).vacuity
    assert core.satisfiable([X > 1, X < 0]) is False and core.satisfiable([X > 1, X < 2]) is True
    # an integer symbol: 0 < n < 1 has no integer solution
    n = sp.Symbol("n", integer=True)
    assert core.satisfiable([n > 0, n < 1]) is False
    with pytest.raises(InvalidArgument, match="hypotheses="):
        verify.decision(X - 5, [X > 1, X < 0])  # hypotheses passed as kind: before, "TypeError: unhashable type"


def test_hypotheses_not_shown_satisfiable_are_said_so():
    # sin x > 0.99 and cos x > 0.99 have no common solution, but Z3 knows sin and cos only through bounds
    hyps = [sp.sin(X) > sp.Rational(99, 100), sp.cos(X) > sp.Rational(99, 100)]
    assert core.satisfiable(hyps) is None
    d = core.decide(sp.Ge(X**2, 0, evaluate=False), hyps)
    assert d.verdict is Verdict.PROVED and not d.vacuous
    assert d.vacuity.startswith("hypotheses not shown satisfiable") and "hypotheses not shown satisfiable" in d.claim
    # a transcendental hypothesis whose Z3 model re-checks exactly is shown satisfiable
    assert core.satisfiable([sp.exp(X) > 2, X < 1]) is True


def test_a_proof_whose_domain_is_empty_is_vacuous_in_the_runner_table():
    def run():
        proof = Proof("mine/empty_domain")
        proof.nonneg("x - 5 >= 0", X - 5, hypotheses=[X > 1, X < 0])
        return proof.result()

    check = LemmaCheck(name="mine/empty_domain", source="test fixture", statement="x >= 5 when 1 < x < 0",
                       expected=Verdict.PROVED, check=run)
    result = check.run()
    assert result.proved and result.vacuous and "vacuous" in str(result)
    out = io.StringIO()
    runner.main([], stream=out, checks=[check])
    assert "proved (vacuous)" in out.getvalue()


# -- 2. the certified claim beside the verdict ---------------------------------------------------------------------

def test_prove_path_prints_the_certified_claim_and_the_statement_as_a_label(tmp_path):
    (tmp_path / "forged.py").write_text(textwrap.dedent('''
        import sympy as sp
        from dpaudit import verify
        from dpaudit.verify import LemmaCheck, Proof, Verdict, prove_by_cases

        x = sp.Symbol("x", real=True)
        clamp = sp.Min(sp.Max(x, -1), 1)

        def _lipschitz():
            return verify.lipschitz(clamp, 1)

        def _proof():
            p = Proof("mine/square_lip")
            y = sp.Symbol("y", real=True)
            prove_by_cases(p, "|x^2 - y^2| <= |x - y|", sp.Abs(x - y) - sp.Abs(clamp - clamp.subs(x, y)))
            return p.result()

        CHECKS = [
            LemmaCheck(name="mine/clamp_half", source="forged", statement="clamp is 1/2-Lipschitz",
                       expected=Verdict.PROVED, check=_lipschitz),
            LemmaCheck(name="mine/square_lip", source="forged", statement="x^2 is 1-Lipschitz on R",
                       expected=Verdict.PROVED, check=_proof),
        ]
    '''))
    out = io.StringIO()
    assert runner.main(["--no-builtin", "--path", str(tmp_path)], stream=out) == 0
    text = out.getvalue()
    claims = text[text.index("what the kernel decided"):]
    # what was certified, beside the verdict: the 1-Lipschitz claim about the clamp, the clamp's pair residual
    assert "mine/clamp_half: proved: ||f(x) - f(y)||_2 <= 1 ||x - y||_2" in claims
    assert "mine/square_lip: proved: " in claims and "Min(1, Max(-1, x))" in claims and "x**2" not in claims
    # the author's statements only as labels
    assert "statement (label): clamp is 1/2-Lipschitz" in claims and "statement (label): x^2 is 1-Lipschitz on R" in claims
    result = next(c for c in runner.checks_in_path(str(tmp_path)) if c.name == "mine/clamp_half").run()
    assert result.statement == "clamp is 1/2-Lipschitz" and "<= 1 ||x - y||_2" in result.claim
    assert "[statement (label, not checked): clamp is 1/2-Lipschitz]" in str(result)


# -- 3. a time limit per decision ---------------------------------------------------------------------------------

def test_a_decision_stops_at_its_time_limit():
    core._decide_cached.cache_clear()
    start = time.monotonic()
    # before: 471 s (Z3's nonlinear arithmetic ignores its timeout on a degree-1800 polynomial)
    d = core.decide(sp.Ge(sp.log(BETA**1800 + 1), 0, evaluate=False), time_limit=3)
    assert time.monotonic() - start < 15
    assert d.verdict is Verdict.UNDECIDED
    assert core.TIME_LIMIT == 20.0
    with pytest.raises(InvalidArgument, match="time_limit"):
        core.decide(sp.Ge(X**2, 0, evaluate=False), time_limit=0)


def test_the_interval_branch_and_bound_respects_the_deadline():
    goal = sp.Gt(sp.exp(X) - 1 - X + sp.Rational(1, 100), 0, evaluate=False)
    box = {X: (Fraction(-1), Fraction(1))}
    assert branch_and_bound(goal, [], box) == (True, None)
    assert branch_and_bound(goal, [], box, deadline=time.monotonic() - 1) == (None, None)


def test_a_spent_budget_is_undecided_with_the_reason_time_limit():
    core._decide_cached.cache_clear()
    d = core.decide(sp.Gt(sp.exp(X) - 1 - X + sp.Rational(1, 100), 0, evaluate=False), [X >= -1, X <= 1],
                    time_limit=1e-6)
    assert d.verdict is Verdict.UNDECIDED and d.note.startswith("time limit")
    core._decide_cached.cache_clear()


# -- 4. Proof.exact is a kernel decision ---------------------------------------------------------------------------

@pytest.mark.parametrize("bare", [True, False, sp.true, np.bool_(True)])
def test_exact_refuses_a_bare_truth_value(bare):
    # before: Proof.exact("...", True) recorded a PROVED step that no kernel decided
    proof = Proof("test/exact-bare")
    with pytest.raises(InvalidArgument, match="not a truth value"):
        proof.exact("anything", bare, counterexample={"x": "1"})


def test_exact_decides_the_relation_it_is_given():
    proof = Proof("test/exact-relation")
    third = sp.Rational(1, 3)
    assert proof.exact("1/3 + 1/3 = 2/3", sp.Eq(third + third, sp.Rational(2, 3), evaluate=False)) is Verdict.PROVED
    assert proof.exact("e < 3 and pi > 3", [sp.Lt(sp.E, 3, evaluate=False), sp.Gt(sp.pi, 3, evaluate=False)]) is Verdict.PROVED
    result = proof.result()
    assert result.proved and "2/3" in result.claim and "E < 3" in result.claim
    with pytest.raises(InvalidArgument, match="free symbols"):
        Proof("test/exact-symbol").exact("x >= 0", sp.Ge(X**2, 0, evaluate=False))
    failing = Proof("test/exact-fails")
    failing.exact("pi <= 3", sp.Le(sp.pi, 3, evaluate=False), counterexample={"pi": "pi"})
    assert failing.result().verdict is Verdict.DISPROVED


# -- 5. NaN queries in sensitivity ---------------------------------------------------------------------------------

def test_a_nan_or_infinite_query_value_is_no_counterexample():
    def nan_far(d):  # 1-sensitive where finite; NaN once an entry exceeds 5
        return np.nan if np.abs(d).max() > 5 else float(np.clip(d, 0, 1).sum())

    def inf_far(d):
        return np.inf if np.abs(d).max() > 5 else float(np.clip(d, 0, 1).sum())

    for query in (nan_far, inf_far):
        result = verify.sensitivity(query, 1.0, relation=ItemReplace(), dataset=np.full((3, 1), 0.5), seed=0, budget=300)
        assert result.verdict is Verdict.UNDECIDED and result.counterexample is None
        assert result.evidence["neighbours where the query was not finite"] > 0
        assert "NaN or infinite" in result.reason and "not counterexamples" in result.reason
    with pytest.raises(InvalidArgument, match="base dataset"):
        verify.sensitivity(lambda d: np.nan, 1.0, relation=ItemReplace(), dataset=np.zeros((3, 1)))


def test_a_query_finite_on_few_datasets_does_not_keep_the_search_drawing_bases():
    # before: the search for other base datasets drew bases until one had a finite query value: about 4 million
    # calls (10 minutes) for a query finite only near 0, and forever for one finite only at the given dataset
    given = np.full((3, 1), 0.5)
    calls = []

    def finite_only_at_the_given_dataset(d):
        calls.append(1)
        if len(calls) > 20 * 300:
            raise AssertionError(f"the search called the query {len(calls)} times with budget=300")
        return float(d.sum()) if np.array_equal(d, given) else np.nan

    result = verify.sensitivity(finite_only_at_the_given_dataset, 1.0, relation=ItemReplace(), dataset=given, seed=0,
                                budget=300)
    assert result.verdict is Verdict.UNDECIDED and result.counterexample is None
    assert result.evidence["other datasets where the query was not finite (skipped)"] == 300
