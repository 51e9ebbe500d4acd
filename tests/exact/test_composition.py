"""Composition along a transcript: closed forms where they exist, certified grids otherwise, and
adaptive steps marked as upper bounds."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import integrate

from dpaudit.errors import InvalidArgument
from dpaudit.exact import (
    AboveThresholdStep,
    Adaptive,
    DPStep,
    FiniteProfile,
    GaussianProfile,
    GaussianStep,
    LaplaceStep,
    PLDProfile,
    ProfileStep,
    TruncatedDiscreteLaplaceStep,
    compose,
    randomized_response_profile,
)


def test_gaussian_transcripts_stay_in_closed_form():
    prof = compose([GaussianStep((0.3, 0.4), 1.0), GaussianStep(1.2, 1.0)])
    assert isinstance(prof, GaussianProfile) and prof.kind == "exact"
    ref = GaussianProfile(1.3, 1.0)  # sqrt(0.5^2 + 1.2^2)
    for delta in (1e-6, 1e-3):
        a, b = prof.epsilon(delta), ref.epsilon(delta)
        assert abs(a.upper - b.upper) < 1e-9


def _two_laplace_reference(a1: float, a2: float, eps: float) -> float:
    """H_{e^eps} of Lap(0,1) x Lap(0,1) against Lap(a1,1) x Lap(a2,1), by 2-d quadrature."""
    def integrand(y: float, x: float) -> float:
        p = 0.25 * math.exp(-abs(x) - abs(y))
        q = 0.25 * math.exp(-abs(x - a1) - abs(y - a2))
        return max(p - math.exp(eps) * q, 0.0)

    xs, ys = [-40.0, 0.0, a1, 40.0], [-40.0, 0.0, a2, 40.0]  # split at the kinks of both densities
    with warnings.catch_warnings():  # the positive part has a kink along a curve: quadpack may ask for more steps
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        return sum(integrate.dblquad(integrand, xs[i], xs[i + 1], ys[j], ys[j + 1], epsabs=1e-12, epsrel=1e-10)[0]
                   for i in range(3) for j in range(3))


def test_two_laplace_releases_match_quadrature():
    prof = compose([LaplaceStep(0.7, 1.0), LaplaceStep(0.4, 1.0)])
    assert isinstance(prof, PLDProfile) and prof.kind == "exact"
    for eps in (0.1, 0.5, 0.9):
        enc = prof.hockey_stick(eps, 0)
        ref = _two_laplace_reference(0.7, 0.4, eps)
        assert enc.lo - 1e-7 <= ref <= enc.hi + 1e-7, (eps, enc, ref)
        assert enc.width < 2e-3
    pure = prof.epsilon(0.0)
    assert pure.lower <= 1.1 <= pure.upper and pure.upper - pure.lower < 1e-15  # the losses' maxima add, exactly


def test_prefix_style_composition_is_exact_at_delta_zero():
    prof = compose([LaplaceStep(1.0, 10.0)] * 10)
    assert prof.epsilon(0.0).lower == prof.epsilon(0.0).upper == 1.0  # 10 x 1/10, as exact rationals


def test_finite_products_are_enumerated_and_agree_with_the_grid():
    rr = randomized_response_profile(0.75, 3, 1)
    prod = compose([ProfileStep(rr), ProfileStep(rr)])
    assert isinstance(prod, FiniteProfile)
    direct = randomized_response_profile(0.75, 3, 2)
    grid = compose([ProfileStep(rr), ProfileStep(rr), ProfileStep(GaussianProfile(1e-9, 1.0))], resolution=2**-12)
    for eps in (0.0, 0.5, 1.5):
        a, b, c = prod.delta(eps), direct.delta(eps), grid.delta(eps)
        assert abs(a.hi - b.hi) < 1e-13 and c.lo <= a.hi + 1e-12 and a.lo <= c.hi + 1e-12


def test_adaptive_steps_give_a_certified_upper_bound_only():
    options = (LaplaceStep(1.0, 2.0), LaplaceStep(0.5, 2.0))
    adaptive = compose([GaussianStep(1.0, 2.0), Adaptive(options)])
    worst = compose([GaussianStep(1.0, 2.0), LaplaceStep(1.0, 2.0)])
    assert adaptive.kind == "upper bound" and worst.kind == "exact"
    b = adaptive.epsilon(1e-6)
    assert not b.exact and not b.refutes(0.0) and b.upper == worst.epsilon(1e-6).upper
    for other in options:  # the dominating pair bounds every option's own composition
        assert compose([GaussianStep(1.0, 2.0), other]).epsilon(1e-6).upper <= b.upper + 1e-12


def test_adaptive_needs_a_dominating_pair_for_mixed_options():
    mixed = (LaplaceStep(1.0, 2.0), GaussianStep(0.5, 1.0))
    with pytest.raises(InvalidArgument, match="dominating"):
        compose([Adaptive(mixed)])
    with pytest.raises(InvalidArgument, match="dominating every option"):
        compose([Adaptive(mixed, dominating=DPStep(0.5, 0.05))])  # N(0.5, 1) has delta(0.5) = 0.0525: refuted on the grid
    ok = compose([Adaptive(mixed, dominating=DPStep(0.5, 0.06))])
    assert ok.kind == "upper bound" and ok.epsilon(0.06).upper <= 0.5 + 1e-12


def test_a_transcript_of_the_papers_kinds_of_steps():
    transcript = [
        GaussianStep((0.3, 0.4), 2.0),
        LaplaceStep(1.0, 4.0),
        AboveThresholdStep((0.0, 1.0), (1.0, 0.0), 0.5, 0.5),
        TruncatedDiscreteLaplaceStep(1, 1.0, 1e-3),
    ]
    prof = compose(transcript)
    assert math.isinf(prof.epsilon(1e-6).lower)  # TDLap(1, 1e-3): an end point only d0 can produce, of mass > 1e-6
    b = prof.epsilon(1e-2)
    assert prof.kind == "exact" and b.lower <= b.upper < 0.25 + 0.25 + 0.5 + 1.0 + 3.0
    singles = [compose([s]).epsilon(1e-2).upper for s in transcript]
    assert b.upper >= max(singles) - 1e-9  # a composition leaks at least what each step does


def test_steps_are_frozen_and_checked():
    step = LaplaceStep(1.0, 2.0)
    with pytest.raises(AttributeError):
        step.scale = 3.0  # type: ignore[misc]
    with pytest.raises(InvalidArgument):
        compose([])
    with pytest.raises(InvalidArgument):
        compose([np.float64(1.0)])  # type: ignore[list-item]
