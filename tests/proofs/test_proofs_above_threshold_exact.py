"""Ghazi et al. 2025's erratum A3 (AboveThreshold at eps/2 on sensitivity-2 scores) is refuted from Arb enclosures.

The DISPROVED rests on no premise (formerly "quadrature error estimate": scipy's error estimate is not a bound); its
margin is a closed form of exact rationals the kernel signs, and the law it comes from is the one of
``AboveThreshold(variant="ghazi2025")``, cross-checked here against an independent quadrature.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from dpaudit.proofs.common import _above_threshold as at
from dpaudit.proofs.ghazi2025.above_threshold_sensitivity import PRINTED
from dpaudit.proofs.registry import get_check

from dpaudit.mechanisms.sparse_vector import AboveThreshold
from dpaudit.verify import Verdict, certified, exact_sign

MARGIN = "margin (negative = statement fails)"


def test_printed_scales_disproved_from_a_margin_the_kernel_rechecks():
    result = get_check(PRINTED).run()
    assert result.verdict is Verdict.DISPROVED and certified(result), result.line()
    assert not result.premises, result.premises_text()  # nothing taken on trust, in particular no quadrature estimate
    assert "quadrature" not in result.method, result.method
    margin = sp.sympify(result.counterexample[MARGIN])
    assert not margin.has(sp.Float) and exact_sign(margin) == -1, margin  # exact rationals under a log, signed by Arb
    assert result.claim.startswith(f"{margin} >= 0"), result.claim
    # the point: the last of 20 queries drops by 2 and the others rise by 2; the loss there is close to eps = 1
    ce = result.counterexample
    assert ce["T"] == 20 and ce["pattern"] == "⊤" * 19 + "⊥", ce
    assert ce["threshold scale"] == 4.0 and ce["query scale"] == 8.0, ce
    lower = float(sp.Rational(1, 2) - margin)
    assert 0.99 < lower < 1.0, lower
    assert abs(ce["approx"]["loss by scipy.integrate.quad"] - lower) < 1e-9, ce["approx"]


@pytest.mark.parametrize(("scores", "scores2"), [([80.0] * 5, [82.0] * 4 + [78.0]), ([89.0, 95.0, 70.0], [91.0, 93.5, 71.0])])
def test_exact_law_is_the_ghazi2025_mechanisms_and_matches_quadrature(scores, scores2):
    mech = AboveThreshold(epsilon=0.5, threshold=90.0, sensitivity=1.0, variant="ghazi2025")
    ours = at.exact_profile(scores, scores2, 90.0, mech.threshold_scale, mech.query_scale)
    own = mech.privacy_profile(scores, scores2)
    assert ours.labels == own.labels
    np.testing.assert_array_equal(np.stack([ours.p_lo, ours.p_hi, ours.q_lo, ours.q_hi]), np.stack([own.p_lo, own.p_hi, own.q_lo, own.q_hi]))
    # an independent formulation (scipy quadrature over the threshold noise, halting at the first query below)
    for stream, lo, hi in ((scores, ours.p_lo, ours.p_hi), (scores2, ours.q_lo, ours.q_hi)):
        quad = at.pattern_probabilities(stream, 90.0, mech.threshold_scale, mech.query_scale)
        for label, a, b in zip(ours.labels, lo, hi, strict=True):
            k = label.find("⊥")  # ⊤^k ⊥ is quadrature's entry k; ⊤^T its last
            value, err = quad[k] if k >= 0 else quad[-1]
            assert a - err - 1e-12 <= value <= b + err + 1e-12, (label, a, value, b, err)


def test_worst_pattern_is_a_certified_lower_bound_in_either_direction():
    profile = at.exact_profile([80.0] * 5, [82.0] * 4 + [78.0], 90.0, 4.0, 8.0)
    forward = at.worst_pattern(profile)
    swapped = at.worst_pattern(at.exact_profile([82.0] * 4 + [78.0], [80.0] * 5, 90.0, 4.0, 8.0))
    assert (forward.pattern, forward.numerator, forward.denominator) == (swapped.pattern, swapped.numerator, swapped.denominator)
    assert {forward.on, swapped.on} == {"scores", "scores2"}
    # the numerator is the lower end of P(pattern) on its stream, the denominator the upper end on the other
    num_lo, den_hi = (profile.p_lo, profile.q_hi) if forward.on == "scores" else (profile.q_lo, profile.p_hi)
    i = profile.labels.index(forward.pattern)
    assert (forward.numerator, forward.denominator) == (num_lo[i], den_hi[i])
    bracket = profile.epsilon(0.0)
    assert forward.approx <= bracket.upper and bracket.lower - 1e-12 <= forward.approx
    assert exact_sign(forward.lower_bound() - sp.Rational(bracket.upper)) == -1
