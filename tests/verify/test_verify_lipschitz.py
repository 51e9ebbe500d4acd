"""``dpaudit.verify.lipschitz`` / ``nonexpansive``: proofs for sympy maps (case split, Jacobian bound), exact counterexample
pairs, counterexample search for callables (never PROVED), norms, domains, tolerance, and argument errors."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from dpaudit.errors import InvalidArgument
from dpaudit.verify import Verdict, lipschitz, nonexpansive

X, Y, A, B = sp.symbols("x y a b", real=True)
CLAMP = sp.Min(sp.Max(X, -1), 1)


def _exact_norm(v, p):
    v = [abs(sp.Rational(t) if not isinstance(t, sp.Basic) else t) for t in v]
    return sum(v) if p == 1 else (max(v) if p == math.inf else sp.sqrt(sum(t**2 for t in v)))


def _check_pair(f, variables, L, p, cex):
    """Recompute the counterexample pair in exact arithmetic, independently of the checker."""
    xv = [sp.Rational(v) for v in cex["x"]]
    yv = [sp.Rational(v) for v in cex["y"]]
    fs = f if isinstance(f, (list, tuple)) else [f]
    fx = [e.subs(dict(zip(variables, xv, strict=True))) for e in fs]
    fy = [e.subs(dict(zip(variables, yv, strict=True))) for e in fs]
    gap = _exact_norm([a - b for a, b in zip(fx, fy, strict=True)], p)
    dist = _exact_norm([a - b for a, b in zip(xv, yv, strict=True)], p)
    assert sp.simplify(gap - L * dist).is_positive, (cex, gap, dist)


def test_verify_lipschitz_clamp_proved_without_premises():
    result = lipschitz(CLAMP, 1)
    assert result.verdict is Verdict.PROVED and not result.premises
    assert result.source == "dpaudit.verify.lipschitz" and result.method in ("kernel", "coverage+sympy", "exact+kernel")


@pytest.mark.parametrize("L", [sp.Rational(1, 2), sp.Rational(99, 100), 0.5])
def test_verify_lipschitz_clamp_below_one_disproved_with_an_exact_pair(L):
    result = lipschitz(CLAMP, L)
    assert result.verdict is Verdict.DISPROVED
    _check_pair(CLAMP, [X], sp.Rational(L), 1, result.counterexample)


def test_verify_lipschitz_parametric_clamp_needs_no_domain():
    # min(max(x, a), b) is 1-Lipschitz in x for every a, b (for a > b it is constant)
    assert lipschitz(sp.Min(sp.Max(X, A), B), 1, variables=[X]).proved
    assert lipschitz(sp.Min(sp.Max(X, A), B), 1, variables=[X], where=[A <= B]).proved


def test_verify_lipschitz_undeclared_symbols_are_read_as_real():
    t = sp.Symbol("t")
    result = lipschitz(sp.Min(sp.Max(t, -1), 1), 1)
    assert result.proved and any("t read as real" in a for a in result.assumptions)


def test_verify_lipschitz_piecewise_huber_proved():
    huber = sp.Piecewise((X**2 / 2, sp.Abs(X) <= 1), (sp.Abs(X) - sp.Rational(1, 2), True))
    assert lipschitz(huber, 1).proved
    bad = lipschitz(huber, sp.Rational(9, 10))
    assert bad.disproved
    _check_pair(huber, [X], sp.Rational(9, 10), 1, bad.counterexample)


def test_verify_lipschitz_discontinuous_step_is_disproved():
    step = sp.Piecewise((0, X < 0), (1, True))
    result = lipschitz(step, 1000)
    assert result.disproved
    _check_pair(step, [X], 1000, 1, result.counterexample)


@pytest.mark.parametrize("norm", [1, 2, "inf"])
def test_verify_lipschitz_box_projection_per_component(norm):
    box = (sp.Min(sp.Max(X, -1), 1), sp.Min(sp.Max(Y, -1), 1))
    result = lipschitz(box, 1, norm=norm)
    assert result.proved, result.details
    # l1/l2: the disjointness of the components' inputs is an exact step; l-infinity: the split is the norm's definition
    recorded = result.details.split("; ") if norm != "inf" else result.assumptions
    assert any("split per component" in s for s in recorded)


def test_verify_lipschitz_max_of_coordinates_in_each_norm():
    assert lipschitz(sp.Max(X, Y), 1, norm="inf").proved
    assert lipschitz(sp.Max(X, Y), 1, norm=1).proved
    result = lipschitz(X + Y, 1, norm="inf")  # ||grad||_1 = 2 > 1
    assert result.disproved
    _check_pair(X + Y, [X, Y], 1, math.inf, result.counterexample)


def test_verify_lipschitz_smooth_maps_by_the_jacobian():
    sine = lipschitz(sp.sin(X), 1)
    assert sine.proved and "mean value inequality" in sine.premises_text()
    assert lipschitz(sp.sin(X), sp.Rational(9, 10)).disproved
    # x^2 is 2-Lipschitz on [-1, 1] but on no unbounded domain
    assert lipschitz(X**2, 2, domain=(-1, 1)).proved
    assert lipschitz(X**2, 2).disproved
    # a rotation is an l2 isometry: the 2x2 PSD test proves it, the l-infinity claim fails
    c, s = sp.Rational(3, 5), sp.Rational(4, 5)
    rotation = (c * X - s * Y, s * X + c * Y)
    assert lipschitz(rotation, 1, norm=2).proved
    assert lipschitz(rotation, 1, norm="inf").disproved


def test_verify_lipschitz_kinks_outside_the_case_split_are_undecided_with_a_reason():
    ball = tuple(v * sp.Min(1, 1 / sp.sqrt(X**2 + Y**2)) for v in (X, Y))
    result = lipschitz(ball, 1)
    assert result.undecided and "compares two terms" in result.reason


def test_verify_lipschitz_callable_search_never_proves():
    result = nonexpansive(lambda v: np.clip(v, -1, 1), dim=2, norm="inf", budget=300)
    assert result.undecided and result.counterexample is None
    assert result.evidence["pairs searched"] == 300 and result.evidence["largest ratio (well-separated pairs)"] <= 1
    assert "never prove" in result.reason


def test_verify_lipschitz_callable_counterexample_is_the_exact_floats():
    f = lambda v: np.array([1.5 * v[0] if v[0] > 0.3 else v[0]])  # noqa: E731  steeper above 0.3
    result = lipschitz(f, 1, dim=1, domain=(0.0, 1.0), budget=500)
    assert result.disproved
    x, y = result.counterexample["x"][0], result.counterexample["y"][0]
    assert 0.0 <= min(x, y) and max(x, y) <= 1.0
    assert abs(Fraction(f([x])[0]) - Fraction(f([y])[0])) > abs(Fraction(x) - Fraction(y))


def test_verify_lipschitz_tolerance_separates_rounding_from_a_violation():
    # v -> (v / 3) * 3 is 1-Lipschitz in the reals; in floats it is off by an ulp now and then
    f = lambda v: (v / 3.0) * 3.0  # noqa: E731
    assert lipschitz(f, 1, dim=1, budget=400).undecided  # default tolerance: rounding is not a counterexample
    exact = lipschitz(f, 1, dim=1, budget=400, tolerance=0, seed=1)
    assert exact.verdict in (Verdict.DISPROVED, Verdict.UNDECIDED)
    if exact.disproved:  # an exact comparison may expose the map's own rounding
        x, y = exact.counterexample["x"][0], exact.counterexample["y"][0]
        assert abs(Fraction(f(np.array([x]))[0]) - Fraction(f(np.array([y]))[0])) > abs(Fraction(x) - Fraction(y))


def test_verify_lipschitz_is_reproducible_per_seed():
    f = lambda v: np.tanh(v)  # noqa: E731
    one, two = lipschitz(f, 1, dim=2, seed=3, budget=200), lipschitz(f, 1, dim=2, seed=3, budget=200)
    assert one.evidence == two.evidence


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"constant": 0}, "constant"), ({"constant": -1}, "constant"), ({"constant": 1, "norm": 3}, "norm"),
    ({"constant": 1, "tolerance": -1e-3}, "tolerance"), ({"constant": 1, "budget": 0}, "budget"),
])
def test_verify_lipschitz_rejects_bad_arguments(kwargs, name):
    with pytest.raises(InvalidArgument, match=name):
        lipschitz(CLAMP, **kwargs)


def test_verify_lipschitz_callable_needs_dim_and_a_valid_box():
    with pytest.raises(InvalidArgument, match="dim"):
        lipschitz(lambda v: v, 1)
    with pytest.raises(InvalidArgument, match="domain"):
        lipschitz(lambda v: v, 1, dim=2, domain=(1.0, 0.0))
    with pytest.raises(InvalidArgument, match="constant"):
        nonexpansive(lambda v: v, dim=1, constant=2)


MUTATIONS = {
    "case split: constant": (lambda: lipschitz(CLAMP, 1), lambda: lipschitz(CLAMP, sp.Rational(1, 2))),
    "case split: norm of a vector map": (lambda: lipschitz((CLAMP, CLAMP.subs(X, Y)), 1, norm="inf"),
                                         lambda: lipschitz((CLAMP + CLAMP.subs(X, Y), CLAMP), 1, norm="inf")),
    "Jacobian: constant": (lambda: lipschitz(sp.sin(X), 1), lambda: lipschitz(sp.sin(X), sp.Rational(9, 10))),
    "Jacobian: dropped domain": (lambda: lipschitz(X**2, 2, domain=(-1, 1)), lambda: lipschitz(X**2, 2)),
    "parameter hypothesis: dropped": (lambda: lipschitz(sp.Max(X, A) - sp.Max(X, B) + X, 1, variables=[X], where=[B <= A]),
                                      lambda: lipschitz(sp.Max(X, A) - sp.Max(X, B) + X, 1, variables=[X])),
}


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_verify_lipschitz_weakening_loses_proved(name):
    good, weak = MUTATIONS[name]
    assert good().verdict is Verdict.PROVED
    assert weak().verdict in (Verdict.UNDECIDED, Verdict.DISPROVED)


def test_verify_lipschitz_linf_case_split_refutes_a_sum_of_ramps():
    # max(x, 0) + max(y, 0) moves by 2h when both coordinates move by h: 2-Lipschitz in l-infinity, not 1
    f = sp.Max(X, 0) + sp.Max(Y, 0)
    assert lipschitz(f, 2, norm="inf").proved
    wrong = lipschitz(f, 1, norm="inf")
    assert wrong.disproved
    assert not [s for s in wrong.details.split("; ") if s.startswith("[sympy] component 0") and ": proved" in s], wrong.details
    _check_pair(f, [X, Y], 1, math.inf, wrong.counterexample)
