"""The rate comparisons decided by the trusted kernel (:mod:`dpaudit.bounds.rate_kernel`): certified verdicts,
the log-direction of a DISPROVED, and mutated bounds that must not stay PROVED."""

from __future__ import annotations

import sympy as sp

from dpaudit.bounds import Verdict, check_rate, ghazi2023
from dpaudit.bounds.rate_kernel import kernel_rate_check
from dpaudit.bounds.symbols import L, R, c, d, delta, epsilon, lam, m, n, p, q, tau
from dpaudit.verify import certified

RATE = ghazi2023.THM51.bounds[0]


def _direction(result) -> dict[str, sp.Rational]:
    text = result.counterexample["log-direction y"]
    return {k.strip(): sp.Rational(v) for k, v in (part.split(":") for part in text.split(","))}


def test_thm51_erratum_pairs_are_kernel_certified(rng):
    printed = ghazi2023.check_thm51_generalisation(rng=rng)
    corrected = ghazi2023.check_thm51_corrected(rng=rng)
    last = ghazi2023.check_thm51_last_phase(rng=rng)
    kept = ghazi2023.check_thm51_last_phase_corrected(rng=rng)
    assert [r.verdict for r in (printed, corrected, last, kept)] == [Verdict.DISPROVED, Verdict.PROVED,
                                                                      Verdict.DISPROVED, Verdict.PROVED]
    assert all(certified(r) for r in (printed, corrected, last, kept))
    # E8(b) fails where n >> d, E8(c) where m >> n; both directions lie inside the regime (every coordinate > 0)
    y = _direction(printed)
    assert min(y.values()) > 0 and y["n"] > y["d"]
    y = _direction(last)
    assert min(y.values()) > 0 and y["m"] > y["n"]
    assert any(p.key == "polynomial growth beats polylog factors" for p in printed.premises)
    assert "derived <= K * claimed on the whole domain" in corrected.details


def test_the_corrected_lambda_with_the_printed_one_in_the_generalisation_term_is_disproved(rng):
    """Mutation of the corrected chain: 1/max(a, b) <= 1/a (not 1/b) in the generalisation term brings back
    16 G R/sqrt(dm) (erratum E8(b)): the check must not stay PROVED."""
    a = sp.sqrt(d) / (n * sp.sqrt(m))
    _, privacy = ghazi2023._privacy_sum()
    mutated = (L / R) * sp.Max(a, 1 / sp.sqrt(n * m)) * R**2 + ghazi2023._generalisation_total((L / R) * a) \
        + privacy.subs(lam, (L / R) * a)
    res = check_rate(mutated, RATE, claim="mutated", source="[test]", rng=rng)
    assert res.verdict is Verdict.DISPROVED and certified(res)


def test_the_last_phase_without_its_term_is_disproved(rng):
    """Mutation of E8(c)'s corrected rate: drop the log(1/delta)/(eps n) term and the last phase is not covered."""
    term = 2 * c**2 * L * R * sp.log(1 / delta) / (epsilon * n)
    kept = ghazi2023.THM51_WITH_LAST_PHASE
    assert check_rate(term, kept, claim="kept", source="[test]", rng=rng).verdict is Verdict.PROVED
    dropped = kept.with_expression(R * L * (sp.sqrt(d) / (n * sp.sqrt(m)) + 1 / sp.sqrt(n * m)))
    assert check_rate(term, dropped, claim="dropped", source="[test]", rng=rng).verdict is Verdict.DISPROVED


def test_constants_and_negative_terms_are_decided_by_the_kernel():
    # n - 1 <= n and 3 n <= 3 n: PROVED (O allows constants); a negative coefficient hidden in a sum is not a monomial
    ok = kernel_rate_check(3 * n - 1, n, key="t1", variables=(n,), directions=(1,), ignore_logs=False)
    assert ok.verdict is Verdict.PROVED and certified(ok)
    bad = kernel_rate_check(n * sp.sqrt(n), n + sp.sqrt(n), key="t2", variables=(n,), directions=(1,), ignore_logs=False)
    assert bad.verdict is Verdict.DISPROVED and certified(bad)
    # epsilon shrinks: 1/eps^2 is not O(1/eps)
    eps = kernel_rate_check(1 / epsilon**2, 1 / epsilon, key="t3", variables=(epsilon,), directions=(-1,), ignore_logs=False)
    assert eps.verdict is Verdict.DISPROVED
    assert kernel_rate_check(1 / epsilon, 1 / epsilon**2, key="t4", variables=(epsilon,), directions=(-1,),
                             ignore_logs=False).verdict is Verdict.PROVED


def test_log_factors_are_counted_or_left_undecided():
    # O~: n log(n) <= K n log(n) with the log in the constant; as an O statement the extra log power refutes it
    tilde = kernel_rate_check(n * sp.log(n), n, key="t5", variables=(n,), directions=(1,), ignore_logs=True)
    assert tilde.verdict is Verdict.PROVED
    plain = kernel_rate_check(n * sp.log(n), n, key="t6", variables=(n,), directions=(1,), ignore_logs=False)
    assert plain.verdict is Verdict.DISPROVED and certified(plain)
    assert plain.counterexample["log-power margin"] == "1"
    in_rate = kernel_rate_check(n, n * sp.log(n), key="t7", variables=(n,), directions=(1,), ignore_logs=True)
    assert in_rate.verdict is Verdict.UNDECIDED


def test_a_lower_bound_can_refute_but_never_prove():
    low = kernel_rate_check(1 / n, 1 / sp.sqrt(n), key="t8", variables=(n,), directions=(1,), ignore_logs=False,
                            derived_is_lower_bound=True)
    assert low.verdict is Verdict.UNDECIDED
    high = kernel_rate_check(n, sp.sqrt(n), key="t9", variables=(n,), directions=(1,), ignore_logs=False,
                             derived_is_lower_bound=True)
    assert high.verdict is Verdict.DISPROVED


def test_the_regime_constraint_is_used_and_printed():
    # sqrt(n)/eps <= n/eps... only where n >= 1/eps^2: 1/eps^2 <= n makes 1/eps <= sqrt(n)
    derived, claimed = 1 / epsilon**2, sp.sqrt(n) / epsilon
    free = kernel_rate_check(derived, claimed, key="t10", variables=(n, epsilon), directions=(1, -1), ignore_logs=False)
    assert free.verdict is Verdict.DISPROVED
    cone = kernel_rate_check(derived, claimed, key="t11", variables=(n, epsilon), directions=(1, -1), ignore_logs=False,
                             regime=[n >= 1 / epsilon**2], regime_vectors=[[1, -2]])
    assert cone.verdict is Verdict.PROVED
    assert any(p.key == "regime read in log space" for p in cone.premises)


def test_symbolic_exponents_are_undecided_or_decided_by_their_declared_domain(rng):
    """A paper's constant exponent (Lowy et al.'s p, q; a radius tau) is a symbol: the kernel either decides the
    comparison with the exponent's declared domain as a hypothesis (delta < 1) or leaves it UNDECIDED with the
    reason, and never refutes along a ray on which the exponent gap has no fixed sign (it used to raise a raw
    TypeError, "cannot determine truth value of Relational: tau - 1 > 0")."""
    for derived, claimed in [(n**tau, n), (n**p, n**q), (n, n**p)]:
        res = check_rate(derived, claimed, claim="symbolic", source="[test]", rng=rng)
        assert res.verdict is Verdict.UNDECIDED, res.line()
        assert "symbolic exponents" in res.reason
    # n**delta <= n because delta < 1 (declared): the kernel proves it with that hypothesis, printed in the domain
    proved = check_rate(n**delta, n, claim="delta < 1", source="[test]", rng=rng)
    assert proved.verdict is Verdict.PROVED and certified(proved)
    assert "delta < 1" in proved.domain
    assert check_rate(n, n**delta, claim="no", source="[test]", rng=rng).verdict is Verdict.UNDECIDED
