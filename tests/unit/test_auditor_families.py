"""The literature suite's mechanisms and the new attack families: exact distributions where they are known."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.auditor.bits import bit_fields, grid_exponent
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.literature_suite import PUBLISHED, literature_cases, statdp_patterns
from dpaudit.mechanisms import SparseVector
from dpaudit.mechanisms.literature import (
    LaplaceParallel,
    NumericalSVT,
    OneTimeRappor,
    PrefixSum,
    Rappor,
    SnappingLaplace,
    SparseVectorResampled,
    TruncatedGeometric,
)
from dpaudit.mechanisms.literature.rappor import bloom_bits

FAILURE_PROB = 1e-6


@pytest.mark.parametrize(
    ("value", "exponent"),
    [(1.0, 0), (0.75, -2), (3.0, 0), (6.0, 1), (2.0**-1074, -1074), (-0.5, -1), (1 + 2.0**-52, -52), (2.0**1023, 1023)],
)
def test_grid_exponent_is_the_lowest_set_bit(value, exponent):
    g = float(grid_exponent(np.array([value]))[0])
    assert g == exponent
    assert math.ldexp(1.0, exponent) <= abs(value)
    # value is an odd multiple of 2^g
    assert (abs(value) / math.ldexp(1.0, exponent)) % 2 == 1


def test_bit_fields_of_special_values():
    sign, exponent, trailing, mantissa = bit_fields(np.array([0.0, -np.inf, 1.5]))
    assert list(sign) == [0, 1, 0]
    assert list(exponent) == [0, 2047, 1023]
    assert trailing[0] == 53 and trailing[2] == 51 and mantissa[2] == 1 << 51
    assert np.isinf(grid_exponent(np.array([0.0, np.inf]))).all()


def test_truncated_geometric_matches_its_closed_form():
    """GeoSample's integer weights are the folded geometric of [GRS09]; the sampler follows them."""
    mech = TruncatedGeometric(3, 5)
    alpha = 8 / 9
    for c in range(6):
        w = np.array(mech.weights(c), dtype=float)
        pmf = w / w.sum()
        inner = np.array([alpha ** abs(z - c) for z in range(6)]) * (1 - alpha) / (1 + alpha)
        expected = inner.copy()
        expected[0] = alpha**c / (1 + alpha)
        expected[5] = alpha ** (5 - c) / (1 + alpha)
        np.testing.assert_allclose(pmf, expected, rtol=1e-12)
        assert w.sum() == (2**4 + 1) * 9**4
    # adjacent counts: every probability ratio within [8/9, 9/8], so ln(9/8)-DP and no better
    ratios = np.array(mech.weights(2), dtype=float) / np.array(mech.weights(1), dtype=float)
    assert ratios.max() == pytest.approx(9 / 8) and ratios.min() == pytest.approx(8 / 9)
    assert mech.claimed_guarantee().epsilon == pytest.approx(math.log(9 / 8))


def test_truncated_geometric_sampler_follows_the_pmf(rng):
    mech = TruncatedGeometric(2, 4)
    draws = mech.sample(1, 200_000, rng=rng)
    w = np.array(mech.weights(1), dtype=float)
    observed = np.bincount(draws, minlength=5)
    p = stats.chisquare(observed, w / w.sum() * len(draws)).pvalue
    assert p > FAILURE_PROB, (observed, w, p)


def test_rappor_epsilons_match_the_paper():
    """[EPK14, Thm 1 and 2] with DP-Sniper's parameters."""
    assert OneTimeRappor().epsilon == pytest.approx(8 * math.log(0.525 / 0.475))
    q_star, p_star = 0.375 + 0.25 * 0.55, 0.375 + 0.25 * 0.45
    assert Rappor().epsilon == pytest.approx(4 * math.log(q_star * (1 - p_star) / (p_star * (1 - q_star))))
    # the suite's pair sets disjoint bits, four each: the claims are tight on it
    b0, b1 = set(bloom_bits(0, 4, 20)), set(bloom_bits(1, 4, 20))
    assert len(b0) == len(b1) == 4 and not b0 & b1


def test_rappor_bit_frequencies(rng):
    mech = OneTimeRappor()
    bits = mech.sample([1], 100_000, rng=rng)
    on = sorted(bloom_bits(1, 4, 20))
    off = [j for j in range(20) if j not in on]
    for cols, p in ((on, 1 - mech.f / 2), (off, mech.f / 2)):
        k = int(bits[:, cols].sum())
        n = bits.shape[0] * len(cols)
        assert stats.binomtest(k, n, p).pvalue > FAILURE_PROB, (cols, k, n, p)


def test_snapping_outputs_lie_on_its_grid_within_the_bound(rng):
    mech = SnappingLaplace(0.1, 100.0)
    assert mech.grid == 16.0 and mech.scale > 10.0
    out = mech.sample(3.0, 50_000, rng=rng)
    inside = np.abs(out) < 100.0
    assert np.all(out[inside] % 16.0 == 0) and np.all(np.abs(out) <= 100.0)
    with pytest.raises(dpaudit.InvalidArgument, match="Thm 1 needs lambda < B < 2\\^46 lambda"):
        SnappingLaplace(1.0, 0.5)


def test_resampled_svt_equals_alg1_for_one_answer(rng):
    """With cutoff 1 Lyu et al.'s Alg. 2 and Alg. 1 have the same law: compare the first-⊤ position."""
    q = np.array([0.0, 1.0, 0.0, 2.0])
    a = SparseVectorResampled(1.0, 0.5, 1).sample(q, 100_000, rng=rng)
    b = SparseVector(1.0, 0.5, cutoff=1).sample(q, 100_000, rng=rng)
    first = [np.argmax(np.c_[x == 1, np.ones(len(x), dtype=bool)], axis=1) for x in (a, b)]
    table = np.array([np.bincount(f, minlength=5) for f in first])
    assert stats.chi2_contingency(table).pvalue > FAILURE_PROB, table


def test_numerical_svt_codes_and_cutoff(rng):
    out = NumericalSVT(100.0, 0.0, 2).sample(np.full(6, 50.0), 1000, rng=rng)  # noise scales 0.03-0.12
    # every answer far above the threshold: two released values, then the cutoff code
    assert np.all(out[:, 2:] == -1000.0) and np.all(np.abs(out[:, :2] - 50.0) < 5.0)


def test_compositions_claim_what_they_compose(rng):
    assert LaplaceParallel(0.005, 20).claimed_guarantee().epsilon == pytest.approx(0.1)
    ps = PrefixSum(0.1, 10)
    assert ps.claimed_guarantee().epsilon == pytest.approx(1.0)
    out = ps.sample(np.ones(10), 4, rng=rng)
    assert out.shape == (4, 10) and np.all(np.diff(out, axis=1) != 0)
    with pytest.raises(dpaudit.InvalidArgument, match="a vector of 10 answers"):
        ps.sample(np.ones(3), 4, rng=rng)


def test_statdp_patterns():
    pats = {name: (a, b) for name, a, b in statdp_patterns(4, True)}
    assert len(pats) == 8
    np.testing.assert_array_equal(pats["half-half"][1], [2, 2, 0, 0])
    np.testing.assert_array_equal(pats["X shape"][0], [1, 1, 0, 0])
    assert len(statdp_patterns(4, False)) == 2


def test_suite_lists_every_entry_with_published_numbers():
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnsoundMechanismWarning)  # the suite silences its own warnings
        cases = literature_cases()
    names = {c.name.split(" (")[0] for c in cases}
    assert names == set(PUBLISHED)
    for case in cases:
        case.mechanism.claimed_guarantee().relation.check_neighbors(case.d0, case.d1)
        assert "Published: DP-Sniper" in case.note
