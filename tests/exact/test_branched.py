"""A test's outcome then a Gaussian on some outcomes (dpaudit.exact.branched) against hand computations.

The independent side is plain float arithmetic written here (the Laplace survival function, scipy's
normal CDF and quadrature): the certified enclosures must contain it up to its own float error.
"""

from __future__ import annotations

import math

import pytest
from flint import arb
from scipy import integrate, stats

from dpaudit.errors import InvalidArgument
from dpaudit.exact import (
    BranchedGaussianProfile,
    GaussianStep,
    ProfileStep,
    compose,
    laplace_test_profile,
    laplace_test_then_gaussian_profile,
)
from dpaudit.exact.branched import laplace_pass_probability

#: (score0, score1, threshold, scale): both below the threshold (Lowy et al.'s pair), straddling it, both above.
TESTS = [(64.55555555555556, 62.583333333333336, 64.8, 2.0), (0.4, -0.6, 0.0, 1.0), (3.0, 2.5, 1.0, 0.5)]


def _pass(score: float, threshold: float, scale: float) -> float:
    """``P(score + Lap(scale) >= threshold)`` by hand: the Laplace survival function at ``threshold - score``."""
    gap = threshold - score
    return 0.5 * math.exp(-gap / scale) if gap >= 0 else 1.0 - 0.5 * math.exp(gap / scale)


def _two_point_epsilon(p0: float, p1: float, delta: float) -> float:
    """The epsilon of the two Bernoulli laws (pass p0 vs p1) at ``delta``, by hand.

    ``delta(eps) = max over directions and outcomes of (P(o) - e^eps Q(o))_+`` (one outcome has P > Q),
    so ``eps = max ln((P(o) - delta) / Q(o))`` over the outcomes and directions where it is positive.
    """
    best = 0.0
    for a, b in ((p0, p1), (p1, p0), (1 - p0, 1 - p1), (1 - p1, 1 - p0)):
        if a - delta > b:
            best = max(best, math.log((a - delta) / b))
    return best


@pytest.mark.parametrize(("s0", "s1", "thr", "scale"), TESTS)
def test_the_pass_probability_is_the_laplace_survival_function(s0, s1, thr, scale):
    for s in (s0, s1):
        got = laplace_pass_probability(s, thr, scale)
        assert got.lower() <= _pass(s, thr, scale) * (1 + 1e-14) and got.upper() >= _pass(s, thr, scale) * (1 - 1e-14)


@pytest.mark.parametrize(("s0", "s1", "thr", "scale"), TESTS)
@pytest.mark.parametrize("delta", [0.0, 1e-5, 1e-3, 0.02])
def test_a_laplace_test_is_two_bernoulli_laws(s0, s1, thr, scale, delta):
    """The certified epsilon of one test equals the hand computation from its two Bernoulli laws."""
    want = _two_point_epsilon(_pass(s0, thr, scale), _pass(s1, thr, scale), delta)
    got = laplace_test_profile(s0, s1, thr, scale).epsilon(delta)
    assert got.exact
    assert got.lower - 1e-12 <= want <= got.upper + 1e-12, (got, want)
    assert got.upper - got.lower <= 1e-9


def test_below_the_threshold_the_test_spends_its_whole_sensitivity():
    """Both scores in the pass side's exponential tail: the pure epsilon is |score0 - score1| / scale exactly."""
    s0, s1, thr, scale = TESTS[0]
    got = laplace_test_profile(s0, s1, thr, scale).epsilon(0.0)
    assert got.lower == pytest.approx((s0 - s1) / scale, rel=1e-12) and got.upper == pytest.approx((s0 - s1) / scale, rel=1e-12)


def _mixture_hockey_stick(a0: float, a1: float, mu: float, eps: float) -> float:
    """``H_{e^eps}`` of (halt, or pass then N(0, 1)) against (halt, or pass then N(mu, 1)), by quadrature."""
    gamma = math.exp(eps)
    atom = max(1 - a0 - gamma * (1 - a1), 0.0)
    value, _ = integrate.quad(lambda x: max(a0 * stats.norm.pdf(x) - gamma * a1 * stats.norm.pdf(x - mu), 0.0), -40, 40,
                              points=[mu / 2 - math.log(a1 * gamma / a0) / mu if mu else 0.0], limit=400, epsabs=1e-14)
    return atom + value


@pytest.mark.parametrize(("s0", "s1", "thr", "scale"), TESTS)
@pytest.mark.parametrize("shift", [0.05, 0.8, 2.5])
@pytest.mark.parametrize("eps", [0.0, 0.3, 1.0])
def test_the_joint_law_of_test_and_gaussian_against_quadrature(s0, s1, thr, scale, shift, eps):
    sigma = 1.3
    prof = laplace_test_then_gaussian_profile(s0, s1, thr, scale, shift, sigma)
    a0, a1 = _pass(s0, thr, scale), _pass(s1, thr, scale)
    for direction, (p, q, mu) in enumerate(((a0, a1, shift / sigma), (a1, a0, shift / sigma))):
        want = _mixture_hockey_stick(p, q, mu, eps)
        got = prof.hockey_stick(eps, direction)
        assert got.lo - 1e-10 <= want <= got.hi + 1e-10, (direction, got, want)


def test_no_move_is_the_test_alone_and_a_move_costs_more():
    s0, s1, thr, scale = TESTS[0]
    alone = laplace_test_profile(s0, s1, thr, scale).epsilon(1e-3)
    still = laplace_test_then_gaussian_profile(s0, s1, thr, scale, 0.0, 1.0).epsilon(1e-3)
    moved = laplace_test_then_gaussian_profile(s0, s1, thr, scale, 0.5, 1.0).epsilon(1e-3)
    assert still.lower == pytest.approx(alone.lower, rel=1e-12) and still.upper == pytest.approx(alone.upper, rel=1e-12)
    assert moved.lower > alone.upper
    # and never more than the adaptive dominating pair (test, then the Gaussian whether or not it passed)
    dominating = compose([ProfileStep(laplace_test_profile(s0, s1, thr, scale)), GaussianStep(0.5, 1.0)]).epsilon(1e-3)
    assert moved.upper <= dominating.upper


def test_its_loss_distribution_composes_like_the_product_law():
    """Two independent (test, Gaussian) phases composed on the grid contain the product law's exact epsilon.

    The product of two such laws is itself branched: four outcomes (halt/pass twice), each with the
    Gaussian of the phases that passed, ``mu = sqrt(sum mu_i^2)`` over them.
    """
    (s0, s1, thr, scale), sig = TESTS[1], 1.0
    shifts = (0.05, 0.08)  # small moves (Lowy et al.'s pair moves by 0.012 sigma): a narrow loss grid, a fast test
    one = [laplace_test_then_gaussian_profile(s0, s1, thr, scale, sh, sig) for sh in shifts]
    a0, a1 = (laplace_pass_probability(s, thr, scale) for s in (s0, s1))
    p, q, moves = [], [], []
    for pass1 in (False, True):
        for pass2 in (False, True):
            p.append((a0 if pass1 else 1 - a0) * (a0 if pass2 else 1 - a0))
            q.append((a1 if pass1 else 1 - a1) * (a1 if pass2 else 1 - a1))
            moved = [sh for sh, on in zip(shifts, (pass1, pass2), strict=True) if on]
            moves.append(tuple(moved) if moved else None)
    product = BranchedGaussianProfile(p, q, moves, sig)
    for delta in (1e-4, 1e-2):
        want = product.epsilon(delta)
        got = compose([ProfileStep(x) for x in one]).epsilon(delta)
        assert got.lower <= want.upper + 1e-12 and want.lower <= got.upper + 1e-12, (got, want)
        assert got.upper - got.lower < 0.01


def test_refuses_what_it_does_not_cover():
    with pytest.raises(InvalidArgument, match="positive"):
        BranchedGaussianProfile([arb(1), arb(0)], [arb(0.5), arb(0.5)], [None, 1.0], 1.0)
    with pytest.raises(InvalidArgument, match="one entry per outcome"):
        BranchedGaussianProfile([arb(1)], [arb(0.5), arb(0.5)], [None, 1.0], 1.0)
    with pytest.raises(InvalidArgument, match="scale"):
        laplace_test_profile(0.0, 1.0, 0.5, 0.0)
    with pytest.raises(InvalidArgument, match="score"):
        laplace_test_profile(math.inf, 1.0, 0.5, 1.0)
