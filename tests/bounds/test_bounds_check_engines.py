"""The check engines: identities, inequalities, rates; sympy's None is never turned into False."""

from __future__ import annotations

import re

import numpy as np
import pytest
import sympy as sp

from dpaudit import InvalidArgument
from dpaudit.bounds import Verdict, check_identity, check_inequality, check_rate, random_points
from dpaudit.bounds.symbols import T, d, delta, epsilon, m, n
from dpaudit.verify import exact_sign


def test_identity_proved_and_disproved(rng):
    ok = check_identity(sp.log(n * m), sp.log(n) + sp.log(m), claim="log product", source="[test]", rng=rng)
    assert ok.verdict is Verdict.PROVED and ok.cases > 1
    bad = check_identity(sp.log(n + m), sp.log(n) + sp.log(m), claim="log sum", source="[test]", rng=rng)
    assert bad.verdict is Verdict.DISPROVED
    ce = bad.counterexample
    assert ce is not None and abs(ce["approx"]["lhs"] - ce["approx"]["rhs"]) > 0
    # the counterexample is a real one, at its exact coordinates: re-check it exactly (log(n + m) - log(n m) != 0)
    at = {n: sp.Rational(ce["n"]), m: sp.Rational(ce["m"])}
    assert exact_sign(sp.log(n + m).xreplace(at) - (sp.log(n) + sp.log(m)).xreplace(at)) != 0


def test_inequality_proved_disproved_and_tightness(rng):
    ok = check_inequality(sp.sqrt(n * m), (n + m) / 2, claim="AM-GM", source="[test]", rng=rng,
                          region={n: (2, 1e6), m: (2, 1e6)})
    assert ok.verdict in (Verdict.PROVED, Verdict.UNDECIDED)  # sympy may not see AM-GM ...
    assert ok.counterexample is None  # ... but no point violates it
    assert "max lhs/rhs = 1" in ok.details  # the corners n = m reach equality
    bad = check_inequality(n, sp.sqrt(n) * 3, claim="n <= 3 sqrt(n)", source="[test]", rng=rng)
    assert bad.verdict is Verdict.DISPROVED and sp.Rational(bad.counterexample["n"]) > 9


def test_kernel_undecided_stays_undecided_without_a_counterexample(rng):
    # true (1 + x + x^2/2 + x^3/6 <= e^x for x >= 0), but beyond the kernel's facts about exp on an unbounded domain
    res = check_inequality(1 + epsilon + epsilon**2 / 2 + epsilon**3 / 6, sp.exp(epsilon), claim="taylor <= e^x",
                           source="[test]", rng=rng)
    assert res.verdict is Verdict.UNDECIDED and res.counterexample is None
    assert "kernel" in res.details


def test_points_outside_the_assumptions_are_not_counterexamples(rng):
    # f is declared nonnegative, so sympy proves f >= 0 - but a sampling box that leaves the domain finds
    # "counterexamples": the engine must say the two disagree instead of picking one
    f = sp.Symbol("f", nonnegative=True)
    res = check_inequality(sp.Integer(0), f, claim="f >= 0", source="[test]", rng=rng, region={f: (-1.0, 1.0)})
    # the kernel's re-check keeps f's assumption: a point with f < 0 is no counterexample
    assert res.verdict is Verdict.PROVED and res.counterexample is None


def test_where_and_extra_points(rng):
    # n <= m is false in general, true where n <= m
    res = check_inequality(n, m, claim="n <= m", source="[test]", rng=rng, where=(n <= m,))
    assert res.counterexample is None
    res2 = check_inequality(n, 10 * m, claim="n <= 10 m", source="[test]", rng=rng, count=0, extra_points=[{n: 100.0, m: 2.0}])
    assert res2.verdict is Verdict.DISPROVED and sp.Rational(res2.counterexample["n"]) == 100


def test_reparametrize_helps_sympy_and_is_recorded(rng):
    # 2 ln(1.25/delta) <= 4 ln(2/delta) for 0 < delta < 1: with delta = 1/(1+u) sympy decides it
    u = sp.Symbol("u", positive=True)
    lhs, rhs = 2 * sp.log(sp.Rational(5, 4) / delta), 4 * sp.log(2 / delta)
    res = check_inequality(lhs, rhs, claim="Gaussian constant", source="[test]", rng=rng, reparametrize={delta: 1 / (1 + u)})
    assert res.verdict is Verdict.PROVED
    assert any("delta = 1/(u + 1)" in a for a in res.assumptions)


def test_rate_check_proves_disproves_and_confirms_numerically(rng):
    ok = check_rate(2 * sp.sqrt(d) / (n * epsilon), sp.sqrt(d) / (n * epsilon) + 1 / sp.sqrt(n), claim="ok",
                    source="[test]", rng=rng)
    assert ok.verdict is Verdict.PROVED and ok.cases > 2
    bad = check_rate(d / (n * epsilon), sp.sqrt(d) / (n * epsilon), claim="bad", source="[test]", rng=rng)
    assert bad.verdict is Verdict.DISPROVED
    assert bad.residual == d / (epsilon * n)  # the offending term
    assert sp.Rational(bad.counterexample["exponent margin"]) > 0  # along the kernel's log-direction (re-checked)
    assert "numeric slope" in bad.details  # the rate engine's reading, kept as evidence


def test_rate_check_with_a_lower_bound_never_proves(rng):
    res = check_rate(1 / n, 1 / sp.sqrt(n), claim="lower bound only", source="[test]", rng=rng,
                     derived_is_lower_bound=True)
    assert res.verdict is Verdict.UNDECIDED


def test_rate_check_reports_unsupported_expressions_as_undecided(rng):
    res = check_rate(sp.exp(n), n, claim="exp", source="[test]", rng=rng)
    assert res.verdict is Verdict.UNDECIDED and "rate extraction failed" in res.details


def test_random_points_are_reproducible_and_in_range():
    pts1 = random_points([n, epsilon, T], np.random.default_rng(5), 20, region={epsilon: (0.1, 1.0)})
    pts2 = random_points([n, epsilon, T], np.random.default_rng(5), 20, region={epsilon: (0.1, 1.0)})
    assert pts1 == pts2
    assert len(pts1) == 8 + 20  # 2^3 corners plus the random points
    assert all(0.1 <= p[epsilon] <= 1.0 and p[n] == int(p[n]) and p[T] >= 1 for p in pts1)


def test_random_points_validates_its_arguments():
    with pytest.raises(InvalidArgument, match=re.escape("`random_points`: `rng` must be a numpy.random.Generator; got rng=0.")):
        random_points([n], 0, 3)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match=re.escape("`random_points`: `count` must be an integer >= 0; got count=-1.")):
        random_points([n], np.random.default_rng(0), -1)
    with pytest.raises(InvalidArgument, match=re.escape("`random_points`: `symbols` must be canonical dpaudit.bounds symbols or "
                                                        "positive/real symbols; got symbols='z'.")):
        random_points([sp.Symbol("z")], np.random.default_rng(0), 1)
