"""Optional cross-check against dp-accounting's privacy-loss distributions (the ``crosscheck`` extra).

dp-accounting's PLDs with pessimistic discretisation are an independent implementation; the closed
forms here must agree with them to 1e-6 in ``delta(eps)``, and our certified composition must bracket
theirs within the two grids' widths.
"""

from __future__ import annotations

import pytest

from dpaudit.exact import (
    GaussianProfile,
    LaplaceProfile,
    LaplaceStep,
    compose,
    discrete_laplace_profile,
)

pytestmark = pytest.mark.crosscheck
pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")

EPSILONS = [0.0, 0.1, 0.5, 1.0, 2.0]


@pytest.mark.parametrize("scale", [0.5, 1.0, 3.0])
def test_laplace_agrees_with_dp_accounting(scale):
    theirs = pld.from_laplace_mechanism(scale, sensitivity=1.0, pessimistic_estimate=True, value_discretization_interval=1e-5)
    ours = LaplaceProfile(1.0, scale)
    for eps in EPSILONS:
        d = ours.delta(eps)
        assert abs(theirs.get_delta_for_epsilon(eps) - d.hi) < 1e-6, (scale, eps)


@pytest.mark.parametrize("sigma", [0.5, 1.0, 4.0])
def test_gaussian_agrees_with_dp_accounting(sigma):
    theirs = pld.from_gaussian_mechanism(sigma, sensitivity=1.0, pessimistic_estimate=True, value_discretization_interval=1e-5)
    ours = GaussianProfile(1.0, sigma)
    for eps in EPSILONS:
        assert abs(theirs.get_delta_for_epsilon(eps) - ours.delta(eps).hi) < 1e-6, (sigma, eps)


def test_discrete_laplace_agrees_with_dp_accounting():
    rate = 0.7
    theirs = pld.from_discrete_laplace_mechanism(rate, sensitivity=2, pessimistic_estimate=True, value_discretization_interval=1e-5)
    ours = discrete_laplace_profile(2, rate)
    for eps in EPSILONS:
        assert abs(theirs.get_delta_for_epsilon(eps) - ours.delta(eps).hi) < 1e-6


def test_composition_brackets_dp_accounting():
    theirs = pld.from_laplace_mechanism(2.0, sensitivity=1.0, pessimistic_estimate=True, value_discretization_interval=1e-5)
    theirs = theirs.self_compose(5)
    ours = compose([LaplaceStep(1.0, 2.0)] * 5)
    for eps in EPSILONS:
        d = ours.delta(eps)
        assert d.lo - 1e-6 <= theirs.get_delta_for_epsilon(eps) <= d.hi + 1e-6, eps
