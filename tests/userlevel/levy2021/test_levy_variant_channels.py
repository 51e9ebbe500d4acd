"""Levy et al. 2021's Algorithm 3 with a stage over-spending (B1, B2, B3): the pairs that target each stage, and the
exact epsilon of the transcript on them (dpaudit.userlevel.levy2021.worst_pairs, transcript_profile).

The records the exact side reads must describe what the variant's code draws (its PrivateRange weights, its Laplace
scale), checked against the variant's own samples; then the certified epsilons settle each variant on the pairs built:
B2 (either stage at ``eps''``) and B3 spend more than the claim on their channel pair (a violation, certified with no
sampling); B1 (1.5 x the Laplace stage) spends at most the claim on every pair of the family (masked by the claim's slack).
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats

from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.userlevel.full_algorithms import pair_bracket
from dpaudit.userlevel.levy2021 import worst_pairs
from dpaudit.userlevel.levy2021.faulty_full import alg3_with_bug

#: Per-check failure probability of the frequency checks (fixed seeds: a failure reproduces).
ALPHA = 1e-4
# the variants announce themselves on every construction (dataclasses.replace included); the tests know
pytestmark = pytest.mark.filterwarnings("ignore::dpaudit.errors.UnsoundMechanismWarning")
CHANNEL_PAIRS = ("alg3_worst_pair", "alg3_laplace_channel_pair", "alg3_range_channel_pair")


def _pair(name, bug=None, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        fn = getattr(worst_pairs, name)
        return fn(cls=alg3_with_bug(bug), **kw) if bug else fn(**kw)


@pytest.mark.parametrize(("name", "bug"), [("alg3_range_channel_pair", "B3"), ("alg3_range_channel_pair", "B2 (PrivateRange)"),
                                           ("alg3_laplace_channel_pair", "B1"), ("alg3_laplace_channel_pair", None)])
def test_the_records_describe_the_variants_draws(name, bug):
    """Bin frequencies fit the recorded weights (chi-square); given a bin, the mean's median and spread fit Lap(loc, scale)."""
    wp = _pair(name, bug, steps=1)
    em, lap = (s for s in wp.transcript_steps() if s.law in ("exponential mechanism", "laplace"))
    eps, scale = em.parameters["epsilon"], lap.parameters["scale"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        mech = wp.observed("transcript")
    n = 6_000
    for data, side, seed in ((wp.d0, "on_d0", 5), (wp.d1, "on_d1", 6)):
        rows = mech.sample(data, n, rng=np.random.default_rng(seed))
        lower_ends, means = rows[:, em.columns[0]], rows[:, lap.columns[0]]
        counts = np.array(getattr(em, side)["counts"], dtype=float)
        law = np.exp(eps * (counts - counts.max()) / 2)
        law /= law.sum()
        ends = em.parameters["bin_width"] * (np.arange(counts.size) + 0.5) - em.parameters["bound"] - em.parameters["half_width"]
        observed = np.array([np.isclose(lower_ends, e, atol=1e-9).sum() for e in ends])
        assert observed.sum() == n
        likely = law * n >= 5  # the rare bins pooled into one cell (if any)
        obs, want = observed[likely], law[likely]
        if not likely.all():
            obs, want = np.append(obs, observed[~likely].sum()), np.append(want, law[~likely].sum())
        assert stats.chisquare(obs, want * n).pvalue > ALPHA, (observed, law * n)
        for k in np.flatnonzero(observed >= 500):
            y = means[np.isclose(lower_ends, ends[k], atol=1e-9)] - getattr(lap, side)["location given bin"][k]
            # |Lap(0, b)| is Exp(1/b): the deviations' law is fixed by the recorded scale alone
            assert stats.kstest(np.abs(y), "expon", args=(0, scale)).pvalue > ALPHA, (k, np.median(np.abs(y)), scale)
            assert stats.binomtest(int((y > 0).sum()), y.size, 0.5).pvalue > ALPHA  # centred at the recorded location


@pytest.mark.parametrize("steps", [2, 4])
def test_b2_and_b3_spend_more_than_the_claim_on_their_channel_pair(steps):
    """Certified with no sampling: the transcript's exact epsilon on the channel pair exceeds the claim (a violation)."""
    for name, bug in (("alg3_laplace_channel_pair", "B2 (Laplace stage)"), ("alg3_laplace_channel_pair", "B2 (PrivateRange)"),
                      ("alg3_laplace_channel_pair", "B3"), ("alg3_range_channel_pair", "B2 (PrivateRange)"),
                      ("alg3_range_channel_pair", "B3")):
        wp = _pair(name, bug, steps=steps)
        bracket, why = pair_bracket(wp)
        assert bracket is not None and bracket.exact, why
        assert bracket.lower > wp.epsilon, (name, bug, bracket, wp.epsilon)


def test_the_correct_algorithm_and_b1_stay_below_the_claim_on_every_pair_built():
    """The same pairs, the same calculation: the correct algorithm and B1 stay below the claim (B1's bug is masked)."""
    for name, bug in itertools.product(CHANNEL_PAIRS, (None, "B1")):
        wp = _pair(name, bug, steps=2)
        bracket, why = pair_bracket(wp)
        assert bracket is not None and bracket.exact, why
        assert bracket.upper < wp.epsilon, (name, bug, bracket, wp.epsilon)


@pytest.mark.parametrize("tau_prime", [0.5, 0.25])
def test_b1_spends_at_most_the_claim_across_the_family(tau_prime):
    """B1 over a grid of the family (others in two bins, the canary anywhere): never above ``T eps''``, the claim.

    Per step B1 spends at most ``max(eps_r + 2/3 eps_L, eps_r/2 + eps_L) = eps''`` (``eps_r = eps''/2``, ``eps_L =
    3/4 eps''``): a canary inside the released bin moves the clipped mean by at most ``4 tau'`` of ``w = 6 tau'``, one
    outside it moves that bin's probability by at most ``eps_r / 2``. The grid approaches that supremum.
    """
    n = 64
    centres = -1.0 + (2 * np.arange(round(1 / tau_prime)) + 1) * tau_prime
    worst = 0.0
    for a, b in itertools.combinations_with_replacement(centres, 2):
        for split, low, high in itertools.product((0, 21, 42), (-1.0, -0.5, 0.0), (0.5, 1.0)):
            others = ((a, split), (b, n - 1 - split)) if a != b else ((a, n - 1),)
            wp = _pair("alg3_channel_pair", "B1", steps=2, n_users=n, tau_prime=tau_prime, others=others, low=low, high=high)
            bracket, why = pair_bracket(wp)
            assert bracket is not None, why
            worst = max(worst, bracket.upper / wp.epsilon)
    assert 0.8 < worst <= 1.0, worst
