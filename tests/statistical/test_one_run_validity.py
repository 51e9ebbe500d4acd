"""Validity of one-run audits, counted over many repeated one-run audits of correct mechanisms.

Each audit draws fresh inclusion coins for ``M`` canaries, runs a mechanism that is exactly as
private as its claim *per canary* (so the claim is tight for the guessing game), and computes the
bound from the scores. A valid bound at confidence ``c`` exceeds the truth with probability at most
``1 - c``; the count over ``AUDITS`` audits may not exceed the ``1 - FAILURE_PROB`` quantile of
``Binomial(AUDITS, 1 - c)``. The mechanisms:

* randomized response on every canary (the score is the canary's bit, flipped with probability
  ``1 / (1 + e^eps)``): exactly ``eps``-DP per canary, the extremal mechanism of [SNJ23];
* Gaussian scores ``mu S_i + N(0, 1)``: exactly mu-GDP per canary, so ``(eps(mu, delta), delta)``-DP
  for every delta, tight; this checks the Steinke bound at ``delta > 0`` and the f-DP bound on mu;
* a user-level algorithm of the papers (Levy et al.'s winsorized first-order method) on canary
  users, audited against its claim.

A negative control shows the count can fail: guessing above *every* threshold and keeping the
best, each at the full level (no union over the guess counts), exceeds the limit (48 alarms against
a limit of 23 at these seeds; the valid audits raise 4, 0 and 0).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from dpaudit.accounting.conversions import gdp_epsilon
from dpaudit.one_run import (
    audit_canaries,
    audit_canary_users,
    draw_inclusion,
    linear_canary_users,
    steinke_epsilon,
)

FAILURE_PROB = 1e-4
CONFIDENCE = 0.95
AUDITS = 200
M = 500
ROOT_SEED = 20261126


def _limit(n: int) -> int:
    return int(stats.binom.ppf(1 - FAILURE_PROB, n, 1 - CONFIDENCE))


def _rr_scores(rng: np.random.Generator, included: np.ndarray, eps: float) -> np.ndarray:
    keep = rng.random(included.size) < special.expit(eps)
    return np.where(keep == included, 1.0, 0.0)


def _gaussian_scores(rng: np.random.Generator, included: np.ndarray, mu: float) -> np.ndarray:
    return mu * included + rng.normal(size=included.size)


def _check(name: str, alarms: int, bounds: list[float]) -> None:
    limit = _limit(AUDITS)
    assert alarms <= limit, (
        f"{name}: {alarms} false alarms in {AUDITS} one-run audits of {M} canaries > {limit} (binomial "
        f"{1 - CONFIDENCE}, failure prob {FAILURE_PROB}); root seed {ROOT_SEED}"
    )
    assert np.median(bounds) > 0.0, f"{name}: median bound {np.median(bounds):.3f}: the audits learn nothing"


def test_randomized_response_canaries_at_their_tight_claim():
    eps = 1.0
    rngs = [np.random.default_rng(s) for s in np.random.SeedSequence([ROOT_SEED, 1]).spawn(AUDITS)]
    results = []
    for rng in rngs:
        inc = draw_inclusion(M, rng)
        results.append(audit_canaries(_rr_scores(rng, inc, eps), inc, epsilon=eps, confidence=CONFIDENCE, seed=rng))
    _check("randomized response", sum(r.violation for r in results), [r.epsilon_lower_bound for r in results])


def test_gaussian_canaries_at_their_tight_claims():
    mu, delta = 1.0, 1e-5
    eps = gdp_epsilon(mu, delta)
    rngs = [np.random.default_rng(s) for s in np.random.SeedSequence([ROOT_SEED, 2]).spawn(AUDITS)]
    results = []
    for rng in rngs:
        inc = draw_inclusion(M, rng)
        results.append(audit_canaries(_gaussian_scores(rng, inc, mu), inc, epsilon=eps, delta=delta, confidence=CONFIDENCE, seed=rng))
    _check("Gaussian, Steinke bound at (eps(mu, delta), delta)", sum(r.violation for r in results), [r.epsilon_lower_bound for r in results])
    mus = [r.gdp_mu_lower_bound for r in results]
    _check("Gaussian, f-DP bound on mu", sum(m > mu for m in mus), mus)


def test_user_level_algorithm_on_canary_users():
    import warnings

    from dpaudit.userlevel import SquaredLoss, WinsorizedFirstOrder

    mech = WinsorizedFirstOrder(SquaredLoss(), epsilon=1.0, delta=1e-5, radius=1.0, feature_bound=1.0, steps=4)
    can, rep = linear_canary_users(64, 4, 64)
    alarms = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for s in np.random.SeedSequence([ROOT_SEED, 3]).spawn(AUDITS):
            alarms += audit_canary_users(mech, can, rep, seed=s, confidence=CONFIDENCE).violation
    assert alarms <= _limit(AUDITS), f"WinsorizedFirstOrder: {alarms} false alarms in {AUDITS} one-run audits; root seed {ROOT_SEED}"


def _unpaid_thresholds(scores: np.ndarray, included: np.ndarray) -> float:
    """INVALID on purpose: guess "in" above, or "out" below, every 16th threshold; keep the best, each at the full level."""
    order = np.argsort(-scores, kind="stable")
    right_in, right_out = np.cumsum(included[order]), np.cumsum(~included[order[::-1]])
    return max(max(steinke_epsilon(M, r, int(right_in[r - 1]), confidence=CONFIDENCE),
                   steinke_epsilon(M, r, int(right_out[r - 1]), confidence=CONFIDENCE)) for r in range(8, M + 1, 16))


def test_negative_control_unpaid_guess_counts_fail_the_count():
    eps = 1.0
    rngs = [np.random.default_rng(s) for s in np.random.SeedSequence([ROOT_SEED, 4]).spawn(AUDITS)]
    alarms = 0
    for rng in rngs:
        inc = draw_inclusion(M, rng)
        scores = _rr_scores(rng, inc, eps) + 1e-9 * rng.random(M)  # ties in a random order
        alarms += _unpaid_thresholds(scores, inc) > eps
    assert alarms > _limit(AUDITS), f"the invalid search raised only {alarms} alarms: the count cannot tell"


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_the_union_over_plans_is_what_is_paid(eps):
    """Every plan's bound in a result is computed at (1 - confidence) / number of plans."""
    rng = np.random.default_rng(ROOT_SEED)
    inc = draw_inclusion(M, rng)
    res = audit_canaries(_rr_scores(rng, inc, eps), inc, epsilon=eps, seed=1)
    level = 1 - (1 - res.confidence) / len(res.plans)
    for plan in res.plans:
        assert plan.epsilon == steinke_epsilon(M, plan.guesses, plan.correct, delta=0.0, confidence=level)
