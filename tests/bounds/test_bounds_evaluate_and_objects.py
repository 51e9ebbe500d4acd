"""Symbols, bound objects and numerical evaluation (dpaudit.bounds.symbols, theorem, evaluate)."""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest
import sympy as sp

from dpaudit import InvalidArgument
from dpaudit.bounds import SYMBOLS, Bound, Citation, Kind, Quantity, evaluate, find_bound
from dpaudit.bounds.ghazi2023 import DELTA_BAR, KAPPA
from dpaudit.bounds.symbols import Delta, d, delta, epsilon, m, n, symbol_info, tau


def test_symbols_are_created_once_with_assumptions():
    assert n is SYMBOLS["n"].symbol
    assert n.is_positive and n.is_integer
    assert epsilon.is_positive and not epsilon.is_integer
    assert symbol_info("delta").constraint_text() == "in (0, 1)"
    assert symbol_info(n).constraint_text() == "an integer >= 1"
    with pytest.raises(KeyError, match=re.escape("'eps' is not a canonical dpaudit.bounds symbol")):
        symbol_info("eps")
    # a symbol with the same name but other assumptions is not the canonical one
    with pytest.raises(KeyError):
        symbol_info(sp.Symbol("n"))


def test_every_declared_typical_range_lies_in_its_domain():
    for info in SYMBOLS.values():
        lo, hi = info.typical
        assert lo < hi, info.name
        assert info.contains(lo) and info.contains(hi), info.name


def test_bound_is_frozen_and_mutation_makes_a_copy():
    b = find_bound("levy2021.thm2.variance")
    with pytest.raises(dataclasses.FrozenInstanceError):
        b.expression = sp.Integer(1)  # type: ignore[misc]
    mutated = b.with_expression(b.expression / d, note="dropped d")
    assert mutated.expression != b.expression
    assert b.expression.has(d)
    assert mutated.citation == b.citation and "dropped d" in mutated.notes


def test_citation_needs_paper_and_location():
    with pytest.raises(ValueError, match="a Citation needs both a paper key and a location"):
        Citation("LLA24", "")
    assert str(Citation("LLA24", "Thm 3.2", "eq. (4)")) == "[LLA24, Thm 3.2, eq. (4)]"


def test_settings_are_substituted_by_with_settings():
    b = Bound("demo.rate", Quantity.EXCESS_RISK, tau / n, Kind.UPPER_O, Citation("X", "Thm 1"), settings={tau: 4 * Delta})
    assert b.with_settings() == 4 * Delta / n
    assert b.expression == tau / n


def test_evaluate_scalar_matches_hand_computation():
    assert evaluate(1 / (n * epsilon), {"n": 10, "epsilon": 0.5}) == pytest.approx(0.2, rel=1e-15)
    # Thm 2's variance constant c_0 = 102,400 at a hand-checkable point [LSAKKMS21, Thm 2]
    b = find_bound("levy2021.thm2.variance")
    vals = {"d": 4, "tau": 1.0, "n": 100, "gamma": 0.01, "delta": 1e-5, "epsilon": 1.0}
    expected = 102400 * 4 * math.log(4 * 100 / 0.01) * math.log(1e5) / 100**2
    assert evaluate(b, vals) == pytest.approx(expected, rel=1e-14)


def test_evaluate_ghazi2023_parameters_match_the_notes_spot_checks():
    # kappa(eps_bar, delta_bar) = 27 and sigma/Delta = 3174.59 at (eps, delta) = (1, 1e-5) [GKKMMZ23, Alg 1]
    assert evaluate(KAPPA, {"epsilon": 1.0, "delta": 1e-5}) == 27
    sigma = evaluate(find_bound("ghazi2023.alg1.sigma"), {"epsilon": 1.0, "delta": 1e-5, "Delta": 1.0})
    assert sigma == pytest.approx(3174.59, abs=0.01)
    assert evaluate(DELTA_BAR, {"epsilon": 1.0, "delta": 1e-5}) == pytest.approx(2.741e-6, rel=1e-3)


def test_evaluate_arrays_broadcast():
    out = evaluate(m / n, {"n": np.array([1, 2, 4]), "m": 2})
    np.testing.assert_allclose(out, [2.0, 1.0, 0.5])


def test_evaluate_applies_settings_on_request():
    b = Bound("demo.rate", Quantity.EXCESS_RISK, tau / n, Kind.UPPER_O, Citation("X", "Thm 1"), settings={tau: 4 * Delta})
    assert evaluate(b, {"n": 2, "Delta": 3.0}, apply_settings=True) == pytest.approx(6.0)
    with pytest.raises(InvalidArgument, match=re.escape("missing: tau")):
        evaluate(b, {"n": 2, "Delta": 3.0})


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"n": 10}, "`evaluate`: `values` must be a mapping that gives every free symbol (missing: epsilon); got values={'n': 10.0}."),
        ({"n": 0, "epsilon": 1}, "`evaluate`: `n` must be an integer >= 1; got n=0."),
        ({"n": 2.5, "epsilon": 1}, "`evaluate`: `n` must be an integer >= 1; got n=2.5."),
        ({"n": 10, "epsilon": -1}, "`evaluate`: `epsilon` must be in (0, inf); got epsilon=-1."),
        ({"n": 10, "epsilon": float("nan")}, "`evaluate`: `epsilon` must be a real number, not NaN; got epsilon=nan."),
        ({"n": 10, "epsilon": True}, "`evaluate`: `epsilon` must be a real number; got epsilon=True."),
        ({"n": 3, "epsilon": 1, "delta": 1.5}, "`evaluate`: `delta` must be in (0, 1); got delta=1.5."),
    ],
)
def test_evaluate_rejects_bad_values_with_the_standard_message(values, message):
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        evaluate(1 / (n * epsilon), values)


def test_evaluate_rejects_unknown_names_and_non_mappings():
    with pytest.raises(InvalidArgument, match=re.escape("`values` must be keyed by canonical symbol names (")):
        evaluate(1 / n, {"n": 1, "eps": 1})
    with pytest.raises(InvalidArgument, match=re.escape("To fix: use dpaudit.bounds.symbols names")):
        evaluate(1 / n, {"n": 1, "eps": 1})
    with pytest.raises(InvalidArgument, match=re.escape("`evaluate`: `values` must be a mapping from parameter names to numbers; got values=[1, 2].")):
        evaluate(1 / n, [1, 2])  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match=re.escape("`evaluate`: `n` must be an integer >= 1 in every entry")):
        evaluate(1 / n, {"n": np.array([1.0, 0.5])})


def test_evaluate_refuses_points_outside_a_bounds_checkable_conditions():
    b = find_bound("levy2021.thm4.risk")
    vals = {"n": 10, "m": 1, "d": 1, "epsilon": 2.0, "delta": 1e-5, "L": 1, "R": 1, "sigma_sg": 1}
    with pytest.raises(InvalidArgument, match=re.escape(
            "`evaluate`: `values` must be inside the conditions of levy2021.thm4.risk (eps <= 1); got values={'epsilon': 2.0}.")):
        evaluate(b, vals)
    vals["epsilon"] = 0.5
    vals["delta"] = 1e-3  # delta <= 1/n^2 = 0.01 holds
    assert evaluate(b, vals) > 0
    assert evaluate(b, {**vals, "epsilon": 2.0}, check_conditions=False) > 0


def test_find_bound_error_message():
    with pytest.raises(InvalidArgument, match=re.escape(
            "`find_bound`: `name` must be the name of an encoded bound (see all_bounds()); got name='nope'.")):
        find_bound("nope")


def test_evaluate_uses_high_precision_for_cancelling_expressions():
    # log(1 + 1e-20) is 0 in float64 (1 + 1e-20 == 1) but 1e-20 to 30 digits
    assert math.log(1 + 1e-20) == 0.0
    assert evaluate(sp.log(1 + delta), {"delta": 1e-20}) == pytest.approx(1e-20, rel=1e-12)
