"""Soundness fuzzer of the trusted kernel (dpaudit/verify/kernel) and of the statements built on it.

hypothesis draws statements from a grammar (polynomials, Max/Min/Abs/Piecewise, sqrt, log/exp/tanh/atan/sin, and
discontinuous pieces: sign, floor, atan(tan(.))) with random claims (inequalities, identities, Lipschitz constants
in l1/l2/l_inf) on random domains (all of R, a box, a sign assumption, a where= condition, plain symbols declared without assumptions,
which the kernel reads as real and must print as the premise "x read as real"). The oracle evaluates
the claim exactly (rationals, or arb balls at 200 bits that must exclude 0) on dense points: rationals of every
magnitude from 1e-300 to 1e300, and points next to every kink of the expression. A PROVED claim with a violation
found by the oracle fails the test; so does a DISPROVED claim whose point does not re-check in an independent
evaluation (mpmath at 60 digits through sympy). The verdict counts are printed (run with ``-s``).

Default: 500 statements; ``-m slow``: 10^4 (``DPAUDIT_FUZZ_PROGRESS=1`` prints the counts every 500 statements).
"""

from __future__ import annotations

import itertools
import os
import sys
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
import sympy as sp
from flint import ctx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpaudit.verify import Verdict, lipschitz
from dpaudit.verify.decide import decision
from dpaudit.verify.kernel import value
from dpaudit.verify.kernel.evaluate import sign_of

X = sp.Symbol("x", real=True)
Y = sp.Symbol("y", real=True)
XP = sp.Symbol("x", positive=True)
#: Plain symbols (no assumptions: sympy allows complex values); the kernel reads them as real and must say so.
XPLAIN = sp.Symbol("x")
YPLAIN = sp.Symbol("y")

SMALL = [Fraction(v) for v in (0, 1, -1, 2, -2, 3, Fraction(1, 2), Fraction(-1, 3), Fraction(7, 5), 10, -10)]
FAR = [Fraction(10) ** k * s for k in (-300, -20, -6, 6, 20, 300) for s in (1, -1)]

COUNTS: Counter[str] = Counter()

#: Functions compared with their argument (``e <= |e|``, ``floor(e) <= e``, ``tanh(e) <= e``, ...).
RELATED = (sp.Abs, lambda e: sp.Max(e, 0), lambda e: sp.Min(e, 0), lambda e: sp.sign(e) * e, sp.floor, lambda e: e**2,
           lambda e: sp.sqrt(e**2 + 1), sp.tanh, sp.atan, sp.sin, lambda e: sp.exp(sp.Min(e, 5)), lambda e: sp.log(e**2 + 1),
           lambda e: e + sp.Rational(1, 10**9), lambda e: sp.Piecewise((e, sp.Le(e, 1)), (2 - e, True)))


def _rational(draw_value: Fraction) -> sp.Rational:
    return sp.Rational(draw_value.numerator, draw_value.denominator)


def _leaves(variables: list[sp.Symbol]) -> st.SearchStrategy[sp.Expr]:
    return st.one_of(st.sampled_from(variables), st.sampled_from([_rational(v) for v in SMALL[:9]]))


def _extend(variables: list[sp.Symbol]) -> Any:
    """The grammar's operators over ``variables`` (a Piecewise on a constant branch is conditioned on the first of them:
    never on a different symbol that shares its name)."""
    return lambda children: _operators(children, variables[0])


def _operators(children: st.SearchStrategy[sp.Expr], first: sp.Symbol) -> st.SearchStrategy[sp.Expr]:
    pairs = st.tuples(children, children)
    return st.one_of(
        pairs.map(lambda p: p[0] + p[1]),
        pairs.map(lambda p: p[0] * p[1]),
        pairs.map(lambda p: p[0] - p[1]),
        children.map(lambda e: e**2),
        pairs.map(lambda p: sp.Max(*p)),
        pairs.map(lambda p: sp.Min(*p)),
        children.map(sp.Abs),
        st.tuples(children, children, st.sampled_from([-1, 0, 1, sp.Rational(1, 2)])).map(
            lambda t: sp.Piecewise((t[0], sp.Le(sp.Add(*t[0].free_symbols) if t[0].free_symbols else first, t[2])), (t[1], True))),
        children.map(lambda e: sp.sqrt(e**2 + 1)),
        children.map(lambda e: sp.log(e**2 + 1)),
        children.map(lambda e: sp.exp(sp.Min(e, 5))),
        children.map(sp.tanh),
        children.map(sp.atan),
        children.map(sp.sin),
        children.map(sp.sign),
        children.map(sp.floor),
        children.map(lambda e: sp.atan(sp.tan(e))),
    )


_STRATEGIES: dict[tuple[sp.Symbol, ...], st.SearchStrategy[sp.Expr]] = {}


def expressions(variables: list[sp.Symbol]) -> st.SearchStrategy[sp.Expr]:
    key = tuple(variables)
    if key not in _STRATEGIES:
        _STRATEGIES[key] = st.recursive(_leaves(variables), _extend(variables), max_leaves=5)
    return _STRATEGIES[key]


def _kinks(expr: sp.Expr) -> list[Fraction]:
    """Points next to the kinks of expr in its (first) variable: thresholds of Piecewise, integers (floor, sign), odd
    multiples of pi/2 (tan), each with neighbours at 1e-12."""
    out: list[Fraction] = []
    for rel in expr.atoms(sp.core.relational.Relational):
        if rel.rhs.is_Rational:
            out.append(Fraction(int(rel.rhs.p), int(rel.rhs.q)))
    if expr.has(sp.floor, sp.sign, sp.Abs, sp.Max, sp.Min):
        out += [Fraction(k) for k in (-2, -1, 0, 1, 2, 3)]
    if expr.has(sp.tan):
        half_pi = Fraction(3141592653589793238462643383279, 2 * 10**30)
        out += [half_pi, -half_pi, 3 * half_pi]
    eps = Fraction(1, 10**12)
    return [p + d for p in out for d in (-eps, Fraction(0), eps)]


def _points(variables: list[sp.Symbol], exprs: list[sp.Expr]) -> list[dict[sp.Symbol, Fraction]]:
    base = SMALL + FAR + [k for e in exprs for k in _kinks(e)]
    if len(variables) == 1:
        return [{variables[0]: v} for v in base]
    grid = SMALL[:7] + FAR[::3] + [k for e in exprs for k in _kinks(e)][:6]
    return [dict(zip(variables, combo, strict=True)) for combo in itertools.product(grid, repeat=len(variables))]


def _admissible(point: dict[sp.Symbol, Fraction], hypotheses: list) -> bool:
    from dpaudit.verify.kernel.evaluate import truth

    if any(s.is_positive and v <= 0 for s, v in point.items()):
        return False
    return all(truth(h, point) is True for h in hypotheses)


def _violated(goal_expr: sp.Expr, kind: str, point: dict[sp.Symbol, Fraction]) -> bool:
    """The claim ``goal_expr >= 0`` (``==``: ``== 0``) certainly fails at the point (arb at 200 bits)."""
    old = ctx.prec
    ctx.prec = 200
    try:
        s = sign_of(value(goal_expr, point))
    finally:
        ctx.prec = old
    return s is not None and (s < 0 if kind == ">=" else s != 0)


def _independent_failure(goal_expr: sp.Expr, kind: str, point: dict[str, str], symbols: list[sp.Symbol]) -> bool | None:
    """Does the point fail the claim in an evaluation independent of the kernel (mpmath, 60 digits)? None: too close."""
    at = {s: sp.Rational(point[s.name]) for s in symbols if s.name in point}
    try:
        v = sp.N(goal_expr.xreplace(at), 60)
    except (sp.core.evalf.PrecisionExhausted, KeyError, TypeError):
        return None  # the independent evaluation gives up: inconclusive
    if not v.is_real or not v.is_Number:
        return None
    if abs(v) < sp.Float("1e-40"):
        return None
    return bool(v < 0) if kind == ">=" else True


@st.composite
def statements(draw: st.DrawFn) -> tuple:
    kind = draw(st.sampled_from(["ineq"] * 5 + ["identity"] * 2 + ["lipschitz"]))
    domain = draw(st.sampled_from(["R", "box", "positive", "where", "plain"]))
    var = {"positive": XP, "plain": XPLAIN}.get(domain, X)
    variables = [var] if kind == "lipschitz" or draw(st.booleans()) else [var, YPLAIN if domain == "plain" else Y]
    hypotheses: list = []
    if domain == "box":
        lo = draw(st.sampled_from([-3, -1, 0, sp.Rational(1, 2)]))
        hypotheses = [sp.Le(lo, var, evaluate=False), sp.Le(var, lo + draw(st.sampled_from([1, 2, 5])), evaluate=False)]
    elif domain == "where":
        hypotheses = [draw(st.sampled_from([sp.Ge(var, 1, evaluate=False), sp.Le(var, 0, evaluate=False),
                                             sp.Ne(var, 0, evaluate=False)]))]
    e1, e2 = draw(expressions(variables)), draw(expressions(variables))
    if draw(st.booleans()):  # a function against its own argument: true and false claims right at the kinks
        related = draw(st.sampled_from(RELATED))(e1)
        e1, e2 = (e1, related) if draw(st.booleans()) else (related, e1)
    if kind == "identity":
        e2 = draw(st.sampled_from([e1, sp.expand(e1), e1 + 0 * e2, e2]))
    if kind == "lipschitz":
        constant = draw(st.sampled_from([sp.Rational(1, 2), 1, 2, 10]))
        norm = draw(st.sampled_from([1, 2, "inf"]))
        return kind, e1, constant, norm, hypotheses, [var]
    return kind, e1, e2, None, hypotheses, variables


def _check_statement(statement: tuple) -> None:
    _check_one(statement)
    total = sum(COUNTS.values())
    if total and total % 500 == 0 and os.environ.get("DPAUDIT_FUZZ_PROGRESS"):  # long runs: counts so far, on stderr
        print(f"kernel fuzzer, {total} statements decided: {dict(sorted(COUNTS.items()))}", file=sys.stderr, flush=True)


def _check_one(statement: tuple) -> None:
    kind, e1, e2, norm, hypotheses, variables = statement
    symbols = set().union(*(sp.sympify(e).free_symbols for e in (e1, e2, *hypotheses)))
    # two symbols that share a name (x real, x positive) make a counterexample keyed by name ambiguous: not a statement
    assert len({s.name for s in symbols}) == len(symbols), f"the grammar mixed symbols of one name: {symbols}"
    if kind == "lipschitz":
        _check_lipschitz(e1, e2, norm, hypotheses, variables)
        return
    claim_kind = "==" if kind == "identity" else ">="
    goal = e1 - e2
    d = decision(goal, claim_kind, hypotheses)
    COUNTS[f"{kind} {d.verdict.name}"] += 1
    for s in symbols & goal.free_symbols:  # a symbol without assumptions is read as real: printed with every answer
        if s.is_real is None:
            assert f"{s} read as real" in d.hypotheses, f"{d}: the premise '{s} read as real' is missing"
    if d.verdict is Verdict.PROVED:
        for point in _points(variables, [e1, e2]):
            if _admissible(point, hypotheses) and _violated(goal, claim_kind, point):
                pytest.fail(f"PROVED {goal} {claim_kind} 0 under {hypotheses}, but it fails at {point} ({d.method}: {d.note})")
    elif d.verdict is Verdict.DISPROVED and d.counterexample:
        point = {s: Fraction(d.counterexample[s.name]) for s in variables if s.name in d.counterexample}
        assert _admissible(point, hypotheses), f"DISPROVED at {point}, outside the domain {hypotheses}"
        failure = _independent_failure(goal, claim_kind, d.counterexample, variables)
        assert failure is not False, f"DISPROVED {goal} {claim_kind} 0 at {d.counterexample}, which does not re-check"


def _check_lipschitz(f: sp.Expr, constant: sp.Expr, norm: object, hypotheses: list, variables: list) -> None:
    result = lipschitz(f, constant, norm=norm, where=hypotheses, variables=variables if f.free_symbols else None, budget=30) \
        if f.free_symbols & set(variables) else None
    if result is None:
        return
    COUNTS[f"lipschitz {result.verdict.name}"] += 1
    (var,) = variables
    if var.is_real is None:
        assert any(f"{var} read as real" in a for a in result.assumptions), f"{result}: the premise '{var} read as real' is missing"
    # f's values at the two points are separate symbols: sympy must not evaluate f at a huge rational itself
    fa, fb, gap = sp.symbols("f_a f_b gap", real=True)
    margin = sp.Rational(constant) * gap - sp.Abs(fa - fb)
    if result.verdict is Verdict.PROVED:
        pts = [p[var] for p in _points(variables, [f]) if _admissible(p, hypotheses)]
        old = ctx.prec
        ctx.prec = 200
        try:
            values = {a: value(f, {var: a}) for a in pts[:40]}
        finally:
            ctx.prec = old
        for a, b in itertools.combinations(pts[:40], 2):
            if values[a] is None or values[b] is None:
                continue
            if _violated(margin, ">=", {fa: values[a], fb: values[b], gap: abs(a - b)}):
                pytest.fail(f"PROVED {f} is {constant}-Lipschitz, but x={a}, y={b} violates it")
    elif result.verdict is Verdict.DISPROVED and "x" in (result.counterexample or {}) and isinstance(result.counterexample["x"], list):
        xv, yv = (sp.Rational(str(result.counterexample[k][0])) for k in ("x", "y"))
        try:
            v = sp.N(sp.Rational(constant) * sp.Abs(xv - yv) - sp.Abs(f.xreplace({var: xv}) - f.xreplace({var: yv})), 60)
        except (sp.core.evalf.PrecisionExhausted, KeyError, TypeError):
            return  # the independent evaluation gives up: inconclusive
        assert not (v.is_Number and v > sp.Float("1e-40")), f"DISPROVED {f} at {xv}, {yv}, which does not re-check ({v})"


_SETTINGS = dict(derandomize=True, database=None, deadline=None, print_blob=False,
                 suppress_health_check=list(HealthCheck))


@settings(max_examples=500, **_SETTINGS)
@given(statements())
def test_kernel_soundness_fuzz(statement):
    _check_statement(statement)


@pytest.mark.slow
@settings(max_examples=10_000, **_SETTINGS)
@given(statements())
def test_kernel_soundness_fuzz_long(statement):
    _check_statement(statement)


def _report_counts() -> None:
    """Print the verdict counts per kind (inequalities, identities, Lipschitz) of the fuzzer run in this session (shown
    with ``pytest -s``); some must be decided."""
    if not COUNTS:
        pytest.skip("the fuzzer did not run in this session")
    table = {kind: {v: COUNTS.get(f"{kind} {v}", 0) for v in ("PROVED", "DISPROVED", "UNDECIDED")}
             for kind in ("ineq", "identity", "lipschitz")}
    print("\nkernel fuzzer verdicts (statements per kind):")
    for kind, row in table.items():
        print(f"  {kind:<10} " + "  ".join(f"{v} {c}" for v, c in row.items()) + f"  (total {sum(row.values())})")
    assert any("PROVED" in k and "DISPROVED" not in k for k in COUNTS)
    assert any("DISPROVED" in k for k in COUNTS)


def test_kernel_soundness_fuzz_counts():
    """The verdict counts of the default run (``pytest -s``)."""
    _report_counts()


@pytest.mark.slow
def test_kernel_soundness_fuzz_long_counts():
    """The verdict counts of the 10^4-statement run (``pytest -s -m slow``)."""
    _report_counts()
