"""The certified claim is the formula decided, never the caller's text (red team s29: r4-r6, r8-r10, checks3/4).

* ``claim=`` of :func:`check_inequality` / :func:`check_identity` / :func:`check_rate` is a label
  (``CheckResult.statement``); ``CheckResult.claim`` is what the kernel decided.
* A regime constraint with log factors of the rate variables refutes only along a log-direction that satisfies it
  strictly in log space (``log(n) <= epsilon n <= 1`` forces ``n <= 2``: ``n = O(1)`` there, not DISPROVED).
* An O~ comparison (``ignore_logs``) says so in its claim, and ``K`` holding log factors is not called a constant.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

from dpaudit import InvalidArgument
from dpaudit.bounds import Verdict, check_identity, check_inequality, check_rate, compare_rates
from dpaudit.bounds.calibration import check_gaussian_noise
from dpaudit.bounds.symbols import Delta, d, delta, epsilon, m, n

x = sp.Symbol("x", real=True)
LABEL = "[statement (label, not checked): "


def _rate(derived, claimed, label="a label", **kwargs):
    return check_rate(derived, claimed, claim=label, source="[test]", rng=np.random.default_rng(0), **kwargs)


# item 1: the printed, certified claim is the formula the kernel decided ------------------------------------------


def test_inequality_claim_is_the_formula_decided_and_the_text_a_label():
    res = check_inequality(x**2, x**2 + 1, claim="x^2 + 1 <= x^2", source="[test]")
    assert res.verdict is Verdict.PROVED
    assert res.claim == "x**2 <= x**2 + 1 for all x"
    assert res.statement == "x^2 + 1 <= x^2"
    text = str(res)
    assert text.startswith(f"{'PROVED':<10} x**2 <= x**2 + 1 for all x  "), text
    assert LABEL + "x^2 + 1 <= x^2]" in text
    strict = check_inequality(x**2, x**2 + 1, strict=True, source="[test]")
    assert strict.claim == "x**2 < x**2 + 1 for all x" and strict.statement == ""


def test_identity_claim_is_the_formula_decided():
    res = check_identity(x**2, x**2 + 1, claim="(x+1)^2 = x^2 + 2x + 1", source="[test]")
    assert res.verdict is Verdict.DISPROVED
    assert res.claim == "x**2 = x**2 + 1 for all x"
    assert res.statement == "(x+1)^2 = x^2 + 2x + 1"
    assert LABEL + "(x+1)^2 = x^2 + 2x + 1]" in str(res)


def test_rate_claim_is_the_formula_decided():
    res = _rate(n, n**2, label="n^2 = O(n)")
    assert res.verdict is Verdict.PROVED
    assert res.claim.startswith("n = O(n**2)"), res.claim
    assert res.statement == "n^2 = O(n)"
    assert "n^2 = O(n)" not in res.claim


@pytest.mark.parametrize("check", [check_inequality, check_identity])
def test_claim_that_is_not_a_string_is_refused(check):
    with pytest.raises(InvalidArgument, match="claim"):
        check(x**2, x**2 + 1, claim=3)
    with pytest.raises(InvalidArgument, match="claim"):
        _rate(n, n**2, label=3)


def test_default_points_do_not_depend_on_the_claim_wording():
    # without a label the random points are seeded from the formula, as before the claim became the formula: the
    # same counterexample whether or not the caller labels the check with that formula
    bare = check_inequality(x**2 + 1, x**2)
    labelled = check_inequality(x**2 + 1, x**2, claim="x**2 + 1 <= x**2")
    assert bare.verdict is labelled.verdict is Verdict.DISPROVED
    assert bare.counterexample == labelled.counterexample
    assert bare.claim == labelled.claim == "x**2 + 1 <= x**2 for all x"


# item 2: a regime constraint with log factors refutes only along a direction strictly inside it -----------------


@pytest.mark.parametrize(("derived", "constraints"), [
    (n, [epsilon * n >= sp.log(n), epsilon * n <= 1]),  # log n <= eps n <= 1 forces n <= 2 (r9, r10)
    (n, [n * sp.log(n) <= n]),  # log n <= 1 (r9)
    (d, [n >= d * sp.log(d), n <= d]),  # d log d <= d (r9)
    (n**5, [d >= n * sp.log(n), d <= n]),  # n log n <= d <= n (r8)
])
def test_log_factor_constraint_on_its_boundary_does_not_refute(derived, constraints):
    # every point of these regimes has n (or d) <= 2: the claim "derived = O(1)" is true there
    res = _rate(derived, sp.Integer(1), constraints=constraints)
    assert res.verdict is Verdict.UNDECIDED, res
    assert "strictly in log space" in res.reason
    assert res.counterexample is None


@pytest.mark.parametrize("certify", [True, False])
def test_compare_rates_log_factor_constraint_on_its_boundary_does_not_refute(certify):
    # the kernel (certify=True) and the LP's uncertified reading (certify=False) alike: no witness on the boundary
    cmp = compare_rates(n, sp.Integer(1), constraints=[epsilon * n >= sp.log(n), epsilon * n <= 1], certify=certify)
    assert cmp.a_le_b.verdict is Verdict.UNDECIDED, cmp.a_le_b
    assert cmp.a_le_b.witness is None
    assert "strictly in log space" in cmp.a_le_b.note
    assert "larger along" not in cmp.summary


def test_compare_rates_lp_reading_never_proves_with_a_log_factor_constraint():
    # n <= C d given d >= n log(n): the LP reads the constraint as y_d >= y_n, which drops log(n); not a proof
    cmp = compare_rates(d, n, constraints=[d >= n * sp.log(n)], certify=False)
    assert cmp.b_le_a.verdict is Verdict.UNDECIDED, cmp.b_le_a
    assert cmp.a_le_b.verdict is Verdict.DISPROVED  # along y_d > y_n, strictly inside the constraint


def _holds_far_along(relation, direction: dict, t: int) -> bool:
    """``relation`` at ``v = e^{t y_v}`` (``e^{-t y_v}`` for epsilon), evaluated with 60 digits."""
    with mpmath.workdps(60):
        point = {v: mpmath.e ** (t * (-y if v is epsilon else y)) for v, y in direction.items()}
        lhs, rhs = (mpmath.mpf(sp.N(side.subs(point), 60)) for side in (relation.lhs, relation.rhs))
    return bool(relation.func(lhs, rhs))


@pytest.mark.parametrize(("derived", "claimed", "constraints"), [
    (d, n, [d >= n * sp.log(n)]),  # d/n unbounded there (r9, last case)
    (n, sp.Integer(1), [epsilon * n >= sp.log(n)]),  # n = 1/eps^2 satisfies it
    (n / epsilon, n, [n >= sp.log(n) / epsilon]),
])
def test_log_factor_constraint_strictly_inside_still_refutes(derived, claimed, constraints):
    res = _rate(derived, claimed, constraints=constraints)
    assert res.verdict is Verdict.DISPROVED, res
    names = {"n": n, "m": m, "d": d, "epsilon": epsilon}
    text = res.counterexample["log-direction y"]
    direction = {names[k.strip()]: sp.Rational(v.strip()) for k, v in (p.split(":") for p in text.split(","))}
    # the refuting ray is inside the regime far along it: the constraint's log factors are powers of t there
    for relation in constraints:
        assert _holds_far_along(relation, {v: y for v, y in direction.items() if v in relation.free_symbols}, 200)
    cmp = compare_rates(derived, claimed, constraints=constraints)
    assert cmp.a_le_b.verdict is Verdict.DISPROVED, cmp.a_le_b
    # the LP's uncertified reading keeps a witness only when it is strictly inside (it may stop at the boundary)
    lp = compare_rates(derived, claimed, constraints=constraints, certify=False).a_le_b
    assert lp.verdict is not Verdict.PROVED
    if lp.verdict is Verdict.DISPROVED:
        assert all(_holds_far_along(rel, {v: y for v, y in lp.witness.items() if v in rel.free_symbols}, 200)
                   for rel in constraints), lp.witness


# item 3: O~ is printed as O~, and K with log factors is not called a constant -------------------------------------


def test_soft_o_claim_says_log_factors_are_ignored():
    res = _rate(n * sp.log(n) ** 100, n, label="n log(n)^100 = O(n)", ignore_logs=True)
    assert res.verdict is Verdict.PROVED
    assert res.claim.startswith("n*log(n)**100 = Õ(n) (log factors of the rate variables ignored)"), res.claim
    assert "= O(n)" not in res.claim
    assert "free of the rate variables" not in res.details
    assert "K = log(n)**100, which holds log factors of the rate variables n" in res.details
    # counted, the log factors refute the plain O statement
    assert _rate(n * sp.log(n) ** 100, n).verdict is Verdict.DISPROVED


def test_plain_o_constant_is_free_of_the_rate_variables():
    res = _rate(3 * n, n**2)
    assert res.verdict is Verdict.PROVED
    assert res.claim.startswith("3*n = O(n**2)")
    assert "K = 3, free of the rate variables" in res.details


def test_compare_rates_soft_o_summary_says_log_factors():
    cmp = compare_rates(n, 2 * n, ignore_logs=True)
    assert cmp.summary == "same rate (up to constants and log factors)"
    assert compare_rates(2 * n, n).summary == "same rate (up to constants, log factors equal)"


def test_constant_is_not_claimed_on_the_whole_domain_when_the_regime_drops_constants():
    # eps n <= 1 and eps >= 1/2 are read as y_n <= y_eps and y_eps <= 0 (constants dropped): K = 1 holds there, but at
    # n = 2, eps = 1/2 (in the regime) n/eps = 4, so "n/eps <= 1 * 1 on the whole domain" would be false
    res = _rate(n / epsilon, sp.Integer(1), constraints=[epsilon * n <= 1, epsilon >= sp.Rational(1, 2)])
    assert res.verdict is Verdict.PROVED
    assert "on the whole domain" not in res.details
    assert "the constraints' constants enter K" in res.details
    assert "derived <= K * claimed on the whole domain, K = 1," in _rate(n, n**2).details


def test_check_gaussian_noise_certifies_what_it_decided_and_keeps_the_caller_s_words_as_a_label():
    r = check_gaussian_noise(sp.Integer(1), sensitivity=Delta, eps_budget=epsilon, delta_budget=delta,
                             claim="sigma = 1 is always private", source="a user", rng=np.random.default_rng(0),
                             region={epsilon: (0.5, 0.9), Delta: (1, 2), delta: (1e-6, 1e-3)})
    from dpaudit.verify.verdict import certified

    assert r.verdict is Verdict.DISPROVED and certified(r)
    assert "sigma = 1 is always private" not in r.claim and r.statement == "sigma = 1 is always private"
    # the certified claim is the exact margin the kernel signed at the point, with the region checked there
    assert ">= 0: the margin given for the point" in r.claim
    assert "epsilon >= 1/2" in r.claim and "epsilon <= 9/10" in r.claim
    assert [p.key for p in r.premises] == ["[BW18] Thm 8"]


# run_checks' one path (CheckSpec.__call__): a PROVED / DISPROVED the kernel did not issue is UNDECIDED ------------


def _spec(run):
    from dpaudit.bounds.checks import CheckSpec

    return CheckSpec("test.hand_built", "consistency", "a check that builds its verdict by hand", run)


@pytest.mark.parametrize("verdict", [Verdict.PROVED, Verdict.DISPROVED])
def test_checkspec_downgrades_a_hand_built_verdict_to_undecided(verdict):
    from dpaudit.bounds.verdict import CheckResult

    hand = CheckResult(verdict, "1 <= 2", "[test]", "by hand", counterexample={"x": 1} if verdict is Verdict.DISPROVED else None)
    out = _spec(lambda rng: hand)(rng=np.random.default_rng(0))
    assert out.verdict is Verdict.UNDECIDED
    assert "did not get from the kernel" in out.reason and "test.hand_built" in out.reason
    assert out.counterexample is None


def test_checkspec_keeps_a_certified_verdict_and_a_kernel_result_edited_by_hand_is_downgraded():
    import dataclasses

    from dpaudit.verify.verdict import certified

    kernel = check_inequality(x**2, x**2 + 1, source="[test]")
    assert kernel.verdict is Verdict.PROVED and certified(kernel)
    kept = _spec(lambda rng: kernel)(rng=np.random.default_rng(0))
    assert kept is kernel
    edited = dataclasses.replace(kernel, claim="something else")  # the certificate no longer matches its fields
    assert _spec(lambda rng: edited)(rng=np.random.default_rng(0)).verdict is Verdict.UNDECIDED


def test_checkspec_refuses_a_run_that_returns_no_checkresult():
    from dpaudit.errors import ArgumentTypeError

    with pytest.raises(ArgumentTypeError, match="not a CheckResult"):
        _spec(lambda rng: Verdict.PROVED)(rng=np.random.default_rng(0))
