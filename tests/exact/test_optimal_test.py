"""The optimal test's expected bound (``benchmarks.bench_optimal_test``), against a hand computation."""

import math

import pytest
from scipy import stats

from benchmarks.bench_optimal_test import optimal_bound
from dpaudit.exact.composition import LaplaceStep, compose
from dpaudit.exact.pld import PLDProfile


def _cp_bound(p: float, q: float, n: int) -> float:
    k_p, k_q = math.floor(p * n), math.ceil(q * n)
    return math.log(stats.beta.ppf(0.025, k_p, n - k_p + 1) / stats.beta.ppf(0.975, k_q + 1, n - k_q))


def test_two_laplace_steps_reach_the_hand_computed_event():
    """Two ``Lap(1)`` releases moved by 1: the loss is 2 exactly when both draws fall on the far side
    (``P = 1/4``, ``Q = e^{-2}/4``). The best threshold is at least as good as that event (up to the grid's
    rounding), never above the largest loss 2, and reaches it in the limit; its reported mass is ``P(L >= t)``."""
    profile = compose([LaplaceStep(1.0, 1.0), LaplaceStep(1.0, 1.0)])
    assert isinstance(profile, PLDProfile)
    for n in (1_000, 100_000, 10_000_000):
        bound, threshold, mass = optimal_bound(profile, n)
        hand = _cp_bound(0.25, math.exp(-2) / 4, n)
        assert hand - 2e-3 <= bound < 2.0, (n, bound, hand)
        assert 0.25 - 1e-3 <= mass <= 1.0 and threshold <= 2.0
    bound, threshold, mass = optimal_bound(profile, 10**12)
    assert bound == pytest.approx(2.0, abs=0.01) and threshold == pytest.approx(2.0, abs=0.01)
    assert mass == pytest.approx(0.25, abs=1e-3)


def test_the_levy_rows_reach_what_the_benchmark_table_says():
    """At 10^6 trials (7*10^5 estimation rows) no threshold test reaches half of Algorithm 3's four-step claim on its
    bin-centre pair, and the optimal test passes half of the two-step claim on the channel pair."""
    from dpaudit.userlevel.full_algorithms import FULL_ALGORITHMS, TIGHT
    from dpaudit.userlevel.transcript_profile import transcript_profile

    rows = {a.name: a.pair() for a in FULL_ALGORITHMS if a.name.startswith("Levy Alg 3")}
    four, two = rows["Levy Alg 3, 4 steps"], rows["Levy Alg 3, 2 steps"]
    b4 = optimal_bound(transcript_profile(four.transcript_steps()), 700_000)[0]
    b2 = optimal_bound(transcript_profile(two.transcript_steps()), 700_000)[0]
    assert 0.18 < b4 < TIGHT * four.epsilon
    assert TIGHT * two.epsilon < b2 < 0.19


def test_a_dominating_pair_gets_no_optimal_test():
    """Lowy et al.'s Algorithm 2's profile is a dominating pair (adaptive Gaussians): its loss grid is not the pair's law."""
    from benchmarks.bench_optimal_test import rows

    (row,) = rows("Lowy Alg 2", [1e6], 0.7)
    assert "bound" not in row and "dominating" in row["why"]
