"""The calibration checks' inputs: read exactly, hypotheses of the cited theorems decided by the kernel, bad ones refused.

Red-team findings (public API): floats rounded by sympy arithmetic before the kernel saw them (a false PROVED at
``Lap(3.0)`` against the float budget ``1/3``), and no ``scale > 0`` / ``eps_budget > 0`` hypothesis (false PROVEDs at
negative scales and budgets with ``count=0``, or with a budget negative on a thin slice of the region).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from dpaudit.bounds import Verdict
from dpaudit.bounds import calibration as cal
from dpaudit.bounds.symbols import Delta, delta, epsilon
from dpaudit.errors import InvalidArgument
from dpaudit.verify.verdict import certified

R, Z = sp.Rational, sp.Integer


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


# --- F1: floats read at their exact binary value, before any arithmetic -------------------------------------------

def test_laplace_float_budget_below_the_exact_loss_is_not_proved():
    # Lap(3) on a sensitivity-1 query loses exactly 1/3; the float 1/3 is 1/3 - 1/54043195528445952
    r = cal.check_laplace_calibration(scale=sp.Float(3.0), budget=sp.Float(1 / 3), sensitivity=Z(1), rng=_rng())
    assert R(1, 3) > R(sp.Float(1 / 3))
    assert r.verdict is Verdict.DISPROVED and certified(r)
    assert "6004799503160661/18014398509481984" in r.claim  # the budget as the exact binary value it is


def test_laplace_float_scale_read_exactly_before_dividing():
    # 1/Float(1/3) = 3 + 1/6004799503160661 > 3: the Float quotient rounds it to 3
    r = cal.check_laplace_calibration(scale=sp.Float(1 / 3), budget=Z(3), sensitivity=Z(1), rng=_rng())
    assert r.verdict is Verdict.DISPROVED and certified(r)


def test_plain_python_numbers_are_accepted_exactly_and_the_reading_printed():
    r = cal.check_laplace_calibration(scale=0.5, budget=2, sensitivity=1, rng=_rng())
    assert r.verdict is Verdict.PROVED and certified(r)
    assert any("scale" in a and "exact value 1/2" in a for a in r.assumptions)
    tenth = cal.check_laplace_calibration(scale=0.1, budget=10, sensitivity=1, rng=_rng())
    # 0.1 is slightly above 1/10, so the loss 1/0.1 is slightly below 10: PROVED, and the reading is printed
    assert tenth.verdict is Verdict.PROVED and certified(tenth)
    assert any("3602879701896397/36028797018963968" in a for a in tenth.assumptions)


# --- F2 / F3: the hypotheses of the cited theorem are kernel obligations ----------------------------------------------

@pytest.mark.parametrize("scale", [R(-1, 100), Z(-1), Z(0), -1.0])
def test_laplace_nonpositive_numeric_scale_is_refused(scale):
    with pytest.raises(InvalidArgument, match="`scale` must be > 0"):
        cal.check_laplace_calibration(scale=scale, budget=Z(0), sensitivity=Z(1), rng=_rng(), count=0)


def test_laplace_scale_negative_on_a_thin_slice_is_not_proved():
    scale = sp.Piecewise((-Delta / epsilon, (epsilon > 10**6) & (epsilon < 10**6 + 1)), (Delta / epsilon, True))
    r = cal.check_laplace_calibration(scale=scale, rng=_rng())
    assert r.verdict is not Verdict.PROVED
    assert "0 < Piecewise" in r.claim or r.verdict is Verdict.UNDECIDED


def test_laplace_symbolic_scale_of_unknown_sign_is_not_proved():
    u = sp.Symbol("u", real=True)
    r = cal.check_laplace_calibration(scale=u**2 * Delta / epsilon + Delta / epsilon, rng=_rng())
    assert r.verdict is Verdict.PROVED  # positive for every real u: the obligation is decided
    w = sp.Symbol("w", real=True)
    r = cal.check_laplace_calibration(scale=w * Delta / epsilon, budget=epsilon, rng=_rng(), count=0)
    assert r.verdict is not Verdict.PROVED


def test_above_threshold_negative_scales_are_refused():
    with pytest.raises(InvalidArgument, match="`threshold_scale` must be > 0"):
        cal.check_above_threshold(threshold_scale=Z(-1), query_scale=Z(-1), sensitivity=Z(1), budget=Z(0), claim="c",
                                  source="t", rng=_rng(), count=0)
    with pytest.raises(InvalidArgument, match="`sensitivity` must be >= 0"):
        cal.check_above_threshold(threshold_scale=Z(1), query_scale=Z(1), sensitivity=Z(-1), budget=Z(0), claim="c",
                                  source="t", rng=_rng(), count=0)


def test_above_threshold_scale_of_unknown_sign_is_not_proved():
    w = sp.Symbol("w", real=True)
    r = cal.check_above_threshold(threshold_scale=w, query_scale=w, sensitivity=Z(1), budget=3 / w, claim="c",
                                  source="t", rng=_rng(), count=0)
    assert r.verdict is not Verdict.PROVED  # 3/w <= 3/w holds, but w > 0 does not


def test_gaussian_negative_eps_budget_is_not_proved():
    r = cal.check_gaussian_noise(Z(20), sensitivity=Z(1), eps_budget=R(-1, 2), delta_budget=R(1, 10**5), claim="c",
                                 source="t", rng=_rng(), count=0)
    assert r.verdict is Verdict.UNDECIDED and "0 < eps_budget < 1" in r.reason


def test_gaussian_eps_budget_negative_on_a_thin_slice_is_not_proved():
    eb = sp.Piecewise((-epsilon, (epsilon > R(1, 2)) & (epsilon < R(1, 2) + R(1, 10**9))), (epsilon, True))
    r = cal.check_gaussian_noise(cal.gaussian_sigma_classical_expr(), sensitivity=Delta, eps_budget=eb,
                                 delta_budget=delta, claim="c", source="t", rng=_rng(),
                                 region={epsilon: (0.1, 0.9), delta: (1e-6, 1e-3)})
    assert r.verdict is Verdict.UNDECIDED


@pytest.mark.parametrize(("kwargs", "name"), [
    (dict(delta_budget=Z(0)), "delta_budget"), (dict(delta_budget=R(-1, 10)), "delta_budget"),
    (dict(delta_budget=Z(1)), "delta_budget"), (dict(sigma_expr=Z(0)), "sigma_expr"),
    (dict(sensitivity=Z(-1)), "sensitivity"), (dict(sensitivity=0), "sensitivity"),
])
def test_gaussian_invalid_numeric_inputs_are_refused(kwargs, name):
    args = dict(sigma_expr=Z(20), sensitivity=Z(1), eps_budget=R(1, 2), delta_budget=R(1, 10**5)) | kwargs
    with pytest.raises(InvalidArgument, match=f"`{name}` must be"):
        cal.check_gaussian_noise(**args, claim="c", source="t", rng=_rng())


# --- F8: clean refusals or verdicts instead of crashes --------------------------------------------------------------

def test_above_threshold_symbolic_sensitivity_that_cancels_from_the_cost():
    r = cal.check_above_threshold(sensitivity=Delta, threshold_scale=2 * Delta / epsilon, query_scale=4 * Delta / epsilon,
                                  budget=epsilon, claim="c", source="t", rng=_rng(),
                                  region={epsilon: (0.1, 1.0), Delta: (0.5, 2.0)})
    assert r.verdict is Verdict.PROVED and certified(r)


def test_above_threshold_sensitivity_zero_gives_a_verdict():
    r = cal.check_above_threshold(sensitivity=Z(0), threshold_scale=Z(1), query_scale=Z(1), budget=Z(0), claim="c",
                                  source="t", rng=_rng())
    assert r.verdict is Verdict.PROVED and certified(r)


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(scale=sp.I), "`scale` must be real"), (dict(scale="1/2"), "`scale` must be a real number"),
    (dict(budget=sp.oo), "`budget` must be finite"), (dict(scale=float("nan")), "`scale` must be real"),
])
def test_laplace_non_real_inputs_are_refused(kwargs, match):
    args = dict(scale=Z(1), budget=Z(1), sensitivity=Z(1)) | kwargs
    with pytest.raises(InvalidArgument, match=match):
        cal.check_laplace_calibration(**args, rng=_rng())


def test_laplace_negative_symbolic_sensitivity_gives_a_verdict_not_a_crash():
    r = cal.check_laplace_calibration(scale=Delta / (2 * epsilon), sensitivity=-Delta, rng=_rng())
    assert r.verdict is not Verdict.PROVED


@pytest.mark.parametrize(("args", "name"), [((-1.0, 1.0, 1.0), "threshold_scale"), ((1.0, 0.0, 1.0), "query_scale"),
                                            ((1.0, 1.0, -1.0), "sensitivity"), ((float("nan"), 1.0, 1.0), "threshold_scale")])
def test_certified_stream_loss_refuses_invalid_scales(args, name):
    with pytest.raises(InvalidArgument, match=f"`{name}` must be"):
        cal.certified_stream_loss(*args)


def test_a_decimal_is_read_exactly_not_through_a_binary_float():
    # before: Decimal('0.1') was rounded to 3602879701896397/36028797018963968 and the true claim DISPROVED
    from decimal import Decimal

    import numpy as np
    import sympy as sp

    from dpaudit.bounds import check_inequality
    from dpaudit.bounds.calibration import check_laplace_calibration
    from dpaudit.verify import Verdict, certified

    r = check_laplace_calibration(1, budget=sp.Rational(1, 10), sensitivity=Decimal("0.1"), rng=np.random.default_rng(0))
    assert r.verdict is Verdict.PROVED and certified(r)
    assert check_inequality(Decimal("0.1"), sp.Rational(1, 10)).verdict is Verdict.PROVED
    assert check_inequality(sp.Rational(1, 10), Decimal("0.1"), strict=True).verdict is Verdict.DISPROVED
