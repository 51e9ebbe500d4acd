"""Case analyses: slack parametrisations reach their regions, coverage is decided exactly, and every proof
helper can fail (a weakened step turns PROVED into UNDECIDED or DISPROVED)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import sympy as sp

from dpaudit.verify import Proof, Region, Verdict, coverage, eq, le, lt, orderings
from dpaudit.verify.geometry import (
    COS,
    NORM_X,
    NORM_Y,
    RADIUS,
    A,
    B,
    X,
    Y,
    ball_regions,
    clamp,
    clamp_regions,
    distance_sq,
    prove_clamp_properties,
)

U, W = sp.symbols("u w", real=True)


def test_verify_orderings_count_the_weak_orders():
    assert [sum(1 for _ in orderings(k)) for k in range(1, 5)] == [1, 3, 13, 75]  # ordered Bell numbers


def test_verify_region_parametrisation_reaches_its_region():
    region = Region.chain("x <= a <= y", X, A, Y)
    assert region.verify() == (True, "")
    back = {s: v for s, v in region.inverse.items()}
    for var, value in region.substitution.items():  # substituting the inverses gives back each variable
        assert sp.simplify(value.xreplace(back) - var) == 0
    # a wrong inverse is caught
    slack = sp.Symbol("s", nonnegative=True)
    bad = Region("x <= a (wrong inverse)", (le(X, A),), {A: X + slack}, {slack: A - X + 1})
    ok, why = bad.verify()
    assert not ok and "not shown" in why


def test_verify_strict_integer_conditions_leave_a_gap_of_one():
    m, n = sp.symbols("m n", positive=True, integer=True)
    region = Region.where("m < n", lt(m, n))
    assert region.verify()[0]
    (value,) = region.substitution.values()
    assert sp.simplify(value - m - 1).is_nonnegative  # n = m + 1 + s


def test_verify_interval_regions_are_parametrised_exactly():
    for conds in ([le(-1, U), lt(U, 0)], [lt(0, U), le(U, 1)], [le(U, 1), lt(0, U)]):
        region = Region.where("interval", *conds)
        assert region.verify() == (True, "")
    with pytest.raises(ValueError, match="cannot parametrise"):
        Region.where("closed interval", le(0, U), le(U, 1))  # split an end point off as its own region


def test_verify_coverage_is_exact_and_reports_the_gap():
    regions = clamp_regions(X, Y)
    verdict, note, count = coverage(regions, [le(A, B)])
    # weak orderings of x, y, a, b with a <= b: the 13 with a = b, and half of the other 75 - 13
    assert verdict is Verdict.PROVED and count == 13 + (75 - 13) // 2
    verdict, note, _ = coverage(regions[:-1], [le(A, B)])
    assert verdict is Verdict.UNDECIDED and "lies in no region" in note
    # an integer term cannot lie strictly between consecutive integers: no gap is claimed there (m = 4, 5 or >= 6)
    m = sp.Symbol("m", positive=True, integer=True)
    split = [Region.where("m = 4", eq(m, 4)), Region.where("m = 5", eq(m, 5)), Region.where("m >= 6", le(6, m))]
    assert coverage(split, [le(4, m)])[0] is Verdict.UNDECIDED  # opaque terms: 4 < m < 5 is not excluded, so not claimed


# -- every helper can fail: weakening a step makes it UNDECIDED or DISPROVED ----------------------------

P = sp.Symbol("p", positive=True)
Z = sp.Symbol("z", nonnegative=True)


def _clamp_lipschitz(const: sp.Expr, regions: list[Region]) -> Callable[[Proof], None]:
    def run(proof: Proof) -> None:
        proof.cases("|Pi(x) - Pi(y)| <= c |x - y|", const * sp.Abs(X - Y) - sp.Abs(clamp(X, A, B) - clamp(Y, A, B)),
                    regions, domain=[le(A, B)])
    return run


def _ball(const: sp.Expr, drop: int = 0) -> Callable[[Proof], None]:
    def run(proof: Proof) -> None:
        regions = ball_regions(NORM_X, NORM_Y)
        residual = const * distance_sq(NORM_X, NORM_Y) - distance_sq(sp.Min(NORM_X, RADIUS), sp.Min(NORM_Y, RADIUS))
        proof.cases("ball projection", residual, regions[drop:], domain=[le(COS, 1)])
    return run


MUTATIONS: dict[str, tuple[Callable[[Proof], object], Callable[[Proof], object]]] = {
    "nonneg: constant": (lambda p: p.nonneg("(x - 1)^2 + 1 >= 1", (X - 1) ** 2 + 1 - 1),
                         lambda p: p.nonneg("(x - 1)^2 + 1 >= 2", (X - 1) ** 2 + 1 - 2)),
    "nonneg: direction": (lambda p: p.nonneg("x^2 >= 0", X**2), lambda p: p.nonneg("x^2 <= 0", -(X**2))),
    "zero: constant": (lambda p: p.zero("(x+1)^2 = x^2 + 2x + 1", (X + 1) ** 2 - (X**2 + 2 * X + 1)),
                       lambda p: p.zero("(x+1)^2 = x^2 + 2x + 2", (X + 1) ** 2 - (X**2 + 2 * X + 2))),
    "equal: constant": (lambda p: p.equal("e^(2 log p) = p^2", sp.exp(2 * sp.log(P)), P**2),
                        lambda p: p.equal("e^(2 log p) = 2 p^2", sp.exp(2 * sp.log(P)), 2 * P**2)),
    "zeros: one case": (lambda p: p.zeros("both", [(X + 1) ** 2 - X**2 - 2 * X - 1, X - X * 1]),
                        lambda p: p.zeros("both", [(X + 1) ** 2 - X**2 - 2 * X - 1, X - X / 2])),
    "certificate: constant": (lambda p: p.certificate("2ab <= a^2 + b^2", X**2 + U**2 - 2 * X * U, (X - U) ** 2),
                              lambda p: p.certificate("3ab <= a^2 + b^2", X**2 + U**2 - 3 * X * U, (X - U) ** 2)),
    "monotone_nonneg: constant": (lambda p: p.monotone_nonneg("e^z >= 1 + z", sp.exp(Z) - 1 - Z, Z, 0),
                                  lambda p: p.monotone_nonneg("e^z >= 1 + 2z", sp.exp(Z) - 1 - 2 * Z, Z, 0)),
    "concave_nonneg: interval": (lambda p: p.concave_nonneg("e^x - 1 <= (e - 1) x on [0, 1]", (sp.E - 1) * U - (sp.exp(U) - 1), U, 0, 1),
                                 lambda p: p.concave_nonneg("e^x - 1 <= (e - 1) x on [0, 2]", (sp.E - 1) * U - (sp.exp(U) - 1), U, 0, 2)),
    "show: direction": (lambda p: p.show("y^2 <= y^2 + r", le(U, W), where={U: X**2, W: X**2 + Z}),
                        lambda p: p.show("y^2 + r <= y^2", le(W, U), where={U: X**2, W: X**2 + Z})),
    "exact: constant": (lambda p: p.exact("1/2 + 1/3 = 5/6", sp.Eq(sp.Rational(1, 2) + sp.Rational(1, 3), sp.Rational(5, 6), evaluate=False)),
                        lambda p: p.exact("1/2 + 1/3 = 4/6", sp.Eq(sp.Rational(1, 2) + sp.Rational(1, 3), sp.Rational(4, 6), evaluate=False),
                                          counterexample={"sum": "5/6"})),
    "cases: constant": (_clamp_lipschitz(sp.Integer(1), clamp_regions(X, Y)), _clamp_lipschitz(sp.Rational(1, 2), clamp_regions(X, Y))),
    "cases: dropped region": (_clamp_lipschitz(sp.Integer(1), clamp_regions(X, Y)), _clamp_lipschitz(sp.Integer(1), clamp_regions(X, Y)[1:])),
    "geometry ball: constant": (_ball(sp.Integer(1)), _ball(sp.Rational(1, 2))),
    "geometry ball: dropped region": (_ball(sp.Integer(1)), _ball(sp.Integer(1), drop=1)),
}


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_verify_weakening_a_step_loses_proved(name):
    good, weak = MUTATIONS[name]
    proof = Proof(f"test/{name}")
    good(proof)
    assert proof.result().verdict is Verdict.PROVED, proof.result().details
    mutated = Proof(f"test/{name}/mutated")
    weak(mutated)
    assert mutated.result().verdict in (Verdict.UNDECIDED, Verdict.DISPROVED), mutated.result().details


def test_verify_clamp_properties_are_proved_without_symmetry_assumptions():
    proof = Proof("test/clamp")
    prove_clamp_properties(proof)
    result = proof.result()
    assert result.verdict is Verdict.PROVED and not result.premises  # every ordering of x, y, a, b is a case
    assert sum(1 for s in proof.steps if s.method == "coverage") == 6
