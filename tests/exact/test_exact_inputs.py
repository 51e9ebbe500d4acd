"""Every number entering ``dpaudit.exact`` is read exactly or refused, never rounded (red team s32, F1 and F5).

The package computes with a float's exact binary value, so a number float64 cannot hold
(``2**53 + 1``, ``Fraction(1, 3)``, ``Decimal("0.1")``) was once rounded silently and the "exact"
bracket certified for other inputs than those given. Each exported entry that takes numbers is
listed here with each numeric parameter: the gate refuses both probes with an
:class:`~dpaudit.errors.InvalidArgument` naming the parameter, while the same call with a float
succeeds. Entries that compute with exact rationals end to end (shifts of Laplace and Gaussian
pairs, ``LaplaceScalesProfile``, the keep probability of randomized response) read the probes exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from flint import arb, fmpq

import dpaudit.exact as E
from dpaudit.errors import DPAuditError, InvalidArgument

BIG = 2**53 + 1  # the first integer float64 cannot hold
PROBES = [pytest.param(BIG, id="2**53+1"), pytest.param(Fraction(1, 3), id="Fraction(1,3)"),
          pytest.param(Decimal("0.1"), id="Decimal(0.1)")]

_SPEC = E.ThresholdSpec(0.0, 1.0, 1.0, 1)


def _finite(v: Any) -> E.FiniteProfile:
    return E.FiniteProfile(np.array([v, 0.5], dtype=object), [0.5, 0.5], [0.5, 0.5], [0.5, 0.5])


#: (public name, parameter as the error names it, the call with ``v`` in that parameter, the float that works there)
GATED: list[tuple[str, str, Callable[[Any], Any], float]] = [
    ("laplace_test_profile", "score0", lambda v: E.laplace_test_profile(v, 0.0, 0.0, 1.0), 0.5),
    ("laplace_test_profile", "threshold", lambda v: E.laplace_test_profile(1.0, 0.0, v, 1.0), 0.5),
    ("laplace_test_profile", "scale", lambda v: E.laplace_test_profile(1.0, 0.0, 0.0, v), 0.5),
    ("laplace_test_then_gaussian_profile", "score1", lambda v: E.laplace_test_then_gaussian_profile(1.0, v, 0.0, 1.0, 1.0, 1.0), 0.5),
    ("laplace_test_then_gaussian_profile", "sigma", lambda v: E.laplace_test_then_gaussian_profile(1.0, 0.0, 0.0, 1.0, 1.0, v), 0.5),
    ("BranchedGaussianProfile", "sigma", lambda v: E.BranchedGaussianProfile([0.5, 0.5], [0.5, 0.5], [None, 1.0], v), 0.5),
    ("BranchedGaussianProfile", "p[0]", lambda v: E.BranchedGaussianProfile([v, 0.5], [0.5, 0.5], [None, 1.0], 1.0), 0.5),
    ("CellProfile", "p_lo[0]", lambda v: E.CellProfile([v], [1.0], [0.5], [0.5], [0.0], [math.inf]), 0.5),
    ("Cells", "p_lo[0]", lambda v: E.Cells([v], [0.5], [0.5], [0.5], [1.0], [1.0], [0.0], [0.0]), 0.5),
    ("GaussianProfile", "sigma", lambda v: E.GaussianProfile(1.0, v), 0.5),
    ("LaplaceProfile", "scale", lambda v: E.LaplaceProfile(1.0, v), 0.5),
    ("discrete_laplace_profile", "rate", lambda v: E.discrete_laplace_profile(2, v), 0.5),
    ("exponential_mechanism_profile", "u0[0]", lambda v: E.exponential_mechanism_profile([v, 0.0], [0.0, 0.0], 1.0, 1.0), 0.5),
    ("exponential_mechanism_profile", "epsilon", lambda v: E.exponential_mechanism_profile([1.0, 0.0], [0.0, 0.0], v, 1.0), 0.5),
    ("exponential_mechanism_profile", "sensitivity", lambda v: E.exponential_mechanism_profile([1.0, 0.0], [0.0, 0.0], 1.0, v), 0.5),
    ("truncated_discrete_laplace_profile", "epsilon", lambda v: E.truncated_discrete_laplace_profile(1, v, 3), 0.5),
    ("AboveThresholdStep", "queries0[0]", lambda v: E.AboveThresholdStep((v, 0.0), (0.0, 0.0), 0.5, 1.0).profile(), 0.5),
    ("AboveThresholdStep", "threshold", lambda v: E.AboveThresholdStep((1.0, 0.0), (0.0, 0.0), v, 1.0).profile(), 0.5),
    ("AboveThresholdStep", "epsilon", lambda v: E.AboveThresholdStep((1.0, 0.0), (0.0, 0.0), 0.5, v).profile(), 0.5),
    ("AboveThresholdStep", "sensitivity", lambda v: E.AboveThresholdStep((1.0, 0.0), (0.0, 0.0), 0.5, 1.0, v).profile(), 0.5),
    ("DiscreteLaplaceStep", "rate", lambda v: E.DiscreteLaplaceStep(1, v).profile(), 0.5),
    ("DPStep", "epsilon", lambda v: E.DPStep(v, 0.0).profile(), 0.5),
    ("DPStep", "delta", lambda v: E.DPStep(1.0, v).profile(), 0.5),
    ("GaussianStep", "sigma", lambda v: E.GaussianStep(1.0, v).profile(), 0.5),
    ("LaplaceStep", "scale", lambda v: E.LaplaceStep(1.0, v).profile(), 0.5),
    ("TruncatedDiscreteLaplaceStep", "epsilon", lambda v: E.TruncatedDiscreteLaplaceStep(1, v, 0.01).profile(), 0.5),
    ("TruncatedDiscreteLaplaceStep", "delta", lambda v: E.TruncatedDiscreteLaplaceStep(1, 1.0, v).profile(), 0.5),
    ("compose", "resolution", lambda v: E.compose([E.LaplaceStep(1.0, 1.0), E.GaussianStep(1.0, 1.0)], resolution=v), 0.5),
    ("FiniteProfile", "p_lo[0]", _finite, 0.5),
    ("PrivacyProfile", "delta", lambda v: _finite(0.25).epsilon(v), 0.5),
    ("PrivacyProfile", "epsilon", lambda v: _finite(0.25).delta(v), 0.5),
    ("PrivacyProfile", "delta", lambda v: E.LaplaceProfile(1.0, 1.0).epsilon(v), 0.5),  # an override of epsilon()
    ("snapping_profile", "x0", lambda v: E.snapping_profile(v, 0.0, 1.0, 2.0**-2, 1.0, description="t"), 0.5),
    ("snapping_profile", "scale", lambda v: E.snapping_profile(0.5, 0.0, v, 2.0**-2, 1.0, description="t"), 0.5),
    ("snapping_profile", "grid", lambda v: E.snapping_profile(0.5, 0.0, 1.0, v, 1.0, description="t"), 0.5),
    ("snapping_profile", "bound", lambda v: E.snapping_profile(0.5, 0.0, 1.0, 2.0**-2, v, description="t"), 0.5),
    ("noisy_max_value_profile", "q0[0]", lambda v: E.noisy_max_value_profile([v, 0.0], [0.0, 0.0], 1.0), 0.5),
    ("noisy_max_value_profile", "scale", lambda v: E.noisy_max_value_profile([1.0, 0.0], [0.0, 0.0], v), 0.5),
    ("numerical_svt_profile", "q0[0]", lambda v: E.numerical_svt_profile(_SPEC, 1.0, [v], [0.0], description="t"), 0.5),
    ("numerical_svt_profile", "release_scale", lambda v: E.numerical_svt_profile(_SPEC, v, [1.0], [0.0], description="t"), 0.5),
    ("random_query_threshold_profile", "threshold",
     lambda v: E.random_query_threshold_profile(v, 1.0, 1.0, [[(1.0, Fraction(1))]], [[(0.0, Fraction(1))]]), 0.5),
    ("random_query_threshold_profile", "threshold_scale",
     lambda v: E.random_query_threshold_profile(0.0, v, 1.0, [[(1.0, Fraction(1))]], [[(0.0, Fraction(1))]]), 0.5),
    ("random_query_threshold_profile", "query_scale",
     lambda v: E.random_query_threshold_profile(0.0, 1.0, v, [[(1.0, Fraction(1))]], [[(0.0, Fraction(1))]]), 0.5),
    ("random_query_threshold_profile", "laws0[0][0] value",
     lambda v: E.random_query_threshold_profile(0.0, 1.0, 1.0, [[(v, Fraction(1))]], [[(0.0, Fraction(1))]]), 0.5),
    ("released_value_profile", "q0[0]", lambda v: E.released_value_profile(_SPEC, [v], [0.0], description="t"), 0.5),
    ("report_noisy_max_profile", "q0[0]", lambda v: E.report_noisy_max_profile([v, 0.0], [0.0, 0.0], 1.0), 0.5),
    ("report_noisy_max_profile", "scale", lambda v: E.report_noisy_max_profile([1.0, 0.0], [0.0, 0.0], v), 0.5),
    ("ThresholdSpec", "threshold", lambda v: E.threshold_profile(E.ThresholdSpec(v, 1.0, 1.0, 1), [1.0], [0.0], description="t"), 0.5),
    ("ThresholdSpec", "threshold_scale", lambda v: E.threshold_profile(E.ThresholdSpec(0.0, v, 1.0, 1), [1.0], [0.0], description="t"), 0.5),
    ("ThresholdSpec", "query_scale", lambda v: E.threshold_profile(E.ThresholdSpec(0.0, 1.0, v, 1), [1.0], [0.0], description="t"), 0.5),
    ("threshold_profile", "q0[0]", lambda v: E.threshold_profile(_SPEC, [v], [0.0], description="t"), 0.5),
]

#: Entries that read numbers exactly (every later step is rational or Arb): (name, call, exact check)
EXACT_READ: list[tuple[str, Callable[[Any], Any], Callable[[Any, Any], bool]]] = [
    ("LaplaceProfile", lambda v: E.LaplaceProfile(v, 1.0), lambda p, v: p.exact_max_loss(0) == Fraction(v)),
    ("LaplaceStep", lambda v: E.LaplaceStep(v, 1.0).profile(), lambda p, v: p.exact_max_loss(0) == Fraction(v)),
    ("compose", lambda v: E.compose([E.LaplaceStep(v, 1.0)]), lambda p, v: p.exact_max_loss(0) == Fraction(v)),
    ("GaussianProfile", lambda v: E.GaussianProfile(v, 1.0), lambda p, v: (p._mu - arb(fmpq(*Fraction(v).as_integer_ratio()))).contains(0)
     and p._mu.rad() < 1e-20 * abs(float(v))),
    ("GaussianStep", lambda v: E.GaussianStep((v, 0.0), 1.0).profile(),
     lambda p, v: (p._mu - arb(fmpq(*Fraction(v).as_integer_ratio()))).contains(0) and p._mu.rad() < 1e-20 * abs(float(v))),
    ("laplace_test_then_gaussian_profile", lambda v: E.laplace_test_then_gaussian_profile(1.0, 0.0, 0.0, 1.0, v, 1.0),
     lambda p, v: (p._mu[1] - arb(fmpq(*Fraction(v).as_integer_ratio()))).contains(0) and p._mu[1].rad() < 1e-20 * abs(float(v))),
    ("LaplaceScalesProfile", lambda v: E.LaplaceScalesProfile(v, 1.0, 0.0, 2.0), lambda p, v: p.locs[0] == Fraction(v)),
    ("LaplaceScalesProfile", lambda v: E.LaplaceScalesProfile(0.0, 1.0, 0.0, v), lambda p, v: p.scales[1] == Fraction(v)),
]

#: Exported names that take no number (or only integer counts, read exactly as ints), with why.
NO_NUMBERS = {
    "EXACT": "a constant", "UPPER_BOUND": "a constant", "ProfileUnavailable": "an exception",
    "Step": "the abstract step", "ProfileStep": "wraps a computed profile", "Adaptive": "wraps steps",
    "PLDProfile": "built from loss distributions", "product": "combines FiniteProfiles",
    "IdenticalProfile": "no parameters", "EpsilonBracket": "a result (the bracket computed), not an input",
    "Enclosure": "a result type (certified float bounds), not an input of a computation",
    "randomized_response_profile": "keep read exactly (a rational); k, differing are integer counts (test below)",
}


def test_every_export_is_covered() -> None:
    """A new export that takes numbers must be added to GATED or EXACT_READ (or NO_NUMBERS, with a reason)."""
    covered = {name for name, *_ in GATED} | {name for name, *_ in EXACT_READ} | set(NO_NUMBERS)
    assert set(E.__all__) == covered, sorted(set(E.__all__) ^ covered)


@pytest.mark.parametrize("probe", PROBES)
@pytest.mark.parametrize(("name", "parameter", "call", "works"), GATED, ids=[f"{n}-{p}" for n, p, _, _ in GATED])
def test_gate_refuses_numbers_float64_cannot_hold(name: str, parameter: str, call: Callable[[Any], Any], works: float,
                                                  probe: Any) -> None:
    call(works)  # the same call with a float computes
    with pytest.raises(InvalidArgument, match="float64 holds exactly") as info:
        call(probe)
    message = str(info.value)
    assert f"`{parameter}`" in message, message
    assert repr(probe)[:20] in message and "To fix" in message, message


@pytest.mark.parametrize(("name", "call", "works"), [(n, c, w) for n, _, c, w in GATED if n != "PrivacyProfile"],
                         ids=[f"{n}-{p}" for n, p, _, _ in GATED if n != "PrivacyProfile"])
def test_gate_takes_exact_values_of_other_types(name: str, call: Callable[[Any], Any], works: float) -> None:
    """Fractions, Decimals and numpy scalars equal to a float are accepted as that float."""
    for same in (Fraction(works), Decimal(works), np.float32(works), np.float64(works)):
        call(same)


@pytest.mark.parametrize("probe", [BIG, Fraction(1, 3), Decimal("0.1"), -(2**60 + 1)])
@pytest.mark.parametrize(("name", "call", "exact"), EXACT_READ, ids=[n for n, _, _ in EXACT_READ])
def test_exact_entries_read_numbers_exactly(name: str, call: Callable[[Any], Any], exact: Callable[[Any, Any], bool],
                                            probe: Any) -> None:
    value = abs(probe) if name == "LaplaceScalesProfile" else probe  # scales must be positive
    assert exact(call(value), abs(value) if name != "LaplaceScalesProfile" else value)


def test_randomized_response_reads_keep_exactly() -> None:
    third = E.randomized_response_profile(Fraction(1, 3), 2, 1)  # P = (1/3, 2/3) against (2/3, 1/3): epsilon = ln 2
    assert third.epsilon(0.0).lower <= math.log(2) <= third.epsilon(0.0).upper
    with pytest.raises(InvalidArgument, match="keep"):
        E.randomized_response_profile(BIG, 2, 1)


def test_red_team_cases_refused_not_rounded() -> None:
    """rq8.py / big1.py: once certified [0, 2.2e-16] (truth 0.5945) and [2.90139, 2.90139] (truth 2.0837)."""
    n = 2**53
    for v0 in (n + 1, n + 3, Fraction(n + 1)):
        with pytest.raises(InvalidArgument, match="laws0"):
            E.random_query_threshold_profile(n, 1.0, 1.0, [[(v0, Fraction(1))]], [[(n, Fraction(1))]])
    with pytest.raises(InvalidArgument, match="score0"):
        E.laplace_test_profile(n + 1, n, n, 1.0)
    with pytest.raises(InvalidArgument, match="q0"):
        E.report_noisy_max_profile([n + 1, n], [n, n], 1.0)
    with pytest.raises(InvalidArgument, match="q0"):
        E.threshold_profile(E.ThresholdSpec(n, 1, 1, 1), [n + 1], [n], description="t")


def test_laplace_test_takes_fractions_equal_to_floats() -> None:
    """big1.py: Fraction arguments raised a bare TypeError (formatting a Fraction with ``:g``)."""
    as_fractions = E.laplace_test_profile(Fraction(1), Fraction(0), Fraction(0), Fraction(1, 2))
    as_floats = E.laplace_test_profile(1.0, 0.0, 0.0, 0.5)
    assert as_fractions.epsilon(0.0) == as_floats.epsilon(0.0)


def test_a_huge_laplace_shift_is_exact_alone_and_refused_on_a_grid() -> None:
    """``LaplaceStep(2**53 + 1, 1)``: exact as one step; composed, its loss grid is refused, not allocated (ValueError before)."""
    alone = E.compose([E.LaplaceStep(BIG, 1.0)]).epsilon(0.0)
    assert alone.lower <= BIG <= alone.upper and alone.kind == E.EXACT
    with pytest.raises(E.ProfileUnavailable, match="grid points") as info:
        E.compose([E.LaplaceStep(BIG, 1.0), E.LaplaceStep(1.0, 1.0)]).epsilon(0.0)
    assert isinstance(info.value, DPAuditError)


def test_random_query_values_far_beyond_arb_range_refused_up_front() -> None:
    """rq6.py: a value 1e300 raised EnclosureError midway; now refused up front, and 1e74 still computes exactly."""
    law0 = [[(1e300, Fraction(1, 2)), (0.0, Fraction(1, 2))]]
    with pytest.raises(InvalidArgument, match="from the threshold"):
        E.random_query_threshold_profile(0.0, 1.0, 1.0, law0, [[(0.0, Fraction(1))]])
    near = E.random_query_threshold_profile(0.0, 1.0, 1.0, [[(1e74, Fraction(1, 2)), (0.0, Fraction(1, 2))]], [[(0.0, Fraction(1))]])
    # halts surely on 1e74 and with probability 1/2 on 0: P(halt) = 3/4 against 1/2, epsilon(0) = ln 2 (no halt: 1/4 vs 1/2)
    bracket = near.epsilon(0.0)
    assert bracket.lower <= math.log(2) <= bracket.upper and bracket.upper - bracket.lower < 1e-9
