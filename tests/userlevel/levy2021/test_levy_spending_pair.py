"""Levy et al. 2021's Algorithms 3 and 4 on the spending pair: how much of the claim one user can spend, certified.

The claim pays each step ``eps''`` for Algorithm 1's two stages (PrivateRange ``eps''/2``, the Laplace mean
``eps''/2``) by basic composition. On one coordinate no pair spends more than ``5/6 eps''`` per step (a canary inside
the released bin moves its probability by ``eps_r`` but the clipped mean by at most ``4 tau'`` of ``w = 6 tau'``; one
outside moves the probability by at most ``eps_r / 2``); :func:`~dpaudit.userlevel.levy2021.worst_pairs.alg3_spending_pair`
reaches it. The certified epsilons here are the pairs' own laws (``dpaudit.exact``), no sampling.
"""

from __future__ import annotations

import itertools

import pytest

from dpaudit.userlevel.full_algorithms import pair_bracket
from dpaudit.userlevel.levy2021 import worst_pairs

FIVE_SIXTHS = 5.0 / 6.0


def _ratio(wp):
    bracket, why = pair_bracket(wp)
    assert bracket is not None and bracket.exact, why
    return bracket.lower / wp.epsilon, bracket.upper / wp.epsilon


@pytest.mark.parametrize("build", [worst_pairs.alg3_spending_pair, worst_pairs.alg4_spending_pair])
def test_the_spending_pair_certifies_five_sixths_of_the_claim(build):
    """The pair's exact epsilon is ``5/6`` of the claim up to the normaliser's ``e^{-eps_r (n-1)/2}``, above the audit pair's 0.583."""
    lower, upper = _ratio(build())
    assert 0.83 < lower <= upper <= FIVE_SIXTHS + 1e-9, (lower, upper)
    audit_pair = worst_pairs.alg3_worst_pair if build is worst_pairs.alg3_spending_pair else worst_pairs.alg4_worst_pair
    assert _ratio(audit_pair())[1] < 0.59


def test_five_sixths_is_the_most_any_pair_of_the_family_spends():
    """A grid of the family (others in one or two bins, the canary at bin ends and centres): at most ``5/6`` of the claim.

    The grid holds the spending pair's shape, so its largest value is ``5/6`` up to the normaliser's term.
    """
    n, tau_prime = 256, 0.25  # n large enough for the normaliser to reach e^{eps_r/2}
    centres = (-0.75, -0.25, 0.25, 0.75)
    positions = (-1.0, -0.5, -0.25, 0.0, 0.5, 1.0)
    worst = 0.0
    for a, b in itertools.combinations_with_replacement(centres, 2):
        for split in ((0,) if a == b else (85, 170)):
            others = ((a, n - 1),) if a == b else ((a, split), (b, n - 1 - split))
            for low, high in itertools.permutations(positions, 2):
                wp = worst_pairs.alg3_channel_pair(1, n, tau_prime, others, low, high)
                worst = max(worst, _ratio(wp)[1])
    assert 0.83 < worst <= FIVE_SIXTHS + 1e-9, worst


@pytest.mark.parametrize(("build", "ratio"), [(worst_pairs.alg3_audited_pair, 0.7071889), (worst_pairs.alg4_channel_pair, 0.7070777),
                                             (worst_pairs.alg3_worst_pair, 7 / 12), (worst_pairs.alg4_worst_pair, 7 / 12)])
def test_the_audit_pairs_spend_what_their_docstrings_say(build, ratio):
    """The channel pairs: 0.707 of the claim certified (on a rare bin); the bin-centre pairs: 7/12 (``eps_r/2 + 2/3 eps_L``)."""
    lower, upper = _ratio(build())
    assert lower == pytest.approx(ratio, abs=1e-6) and upper == pytest.approx(ratio, abs=1e-6), (lower, upper)


def test_the_benchmark_audits_the_alg4_channel_pair():
    """Algorithm 4's row and Algorithm 3's two-step row audit the channel pair (two likely bins, round 1 of Algorithm 4
    being Algorithm 3's two steps on 512 users); Algorithm 3's four-step row the bin-centre pair."""
    from dpaudit.userlevel.full_algorithms import FULL_ALGORITHMS

    rows = {a.name: a.pair() for a in FULL_ALGORITHMS if a.name.startswith("Levy")}
    assert _ratio(rows["Levy Alg 4, 2 rounds"])[1] == pytest.approx(0.7070777, abs=1e-6)
    assert _ratio(rows["Levy Alg 3, 2 steps"])[1] == pytest.approx(0.7070777, abs=1e-6)
    assert rows["Levy Alg 3, 2 steps"].mechanism.steps == 2
    assert _ratio(rows["Levy Alg 3, 4 steps"])[1] == pytest.approx(7 / 12, abs=1e-6)
