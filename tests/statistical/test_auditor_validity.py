"""Validity of the auditor, counted over many audits of correct mechanisms (never assumed).

Each correct mechanism is audited ``AUDITS`` times at its exact (tight where possible) claim with
independent seeds. A valid auditor at confidence ``c`` raises a false alarm with probability at
most ``1 - c`` per audit, so the number of false alarms is stochastically below
``Binomial(AUDITS, 1 - c)``; the test allows up to that distribution's ``1 - FAILURE_PROB``
quantile. A negative control shows the count can fail: a plug-in estimate maximised over
thresholds on the samples it reports on exceeds that limit.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.errors import NothingToLearnWarning
from dpaudit.mechanisms import GaussianMechanism, LaplaceMechanism, RandomizedResponse, SparseVector

FAILURE_PROB = 1e-4
CONFIDENCE = 0.95
AUDITS = 200
ROOT_SEED = 20261122


def _limit(n: int) -> int:
    return int(stats.binom.ppf(1 - FAILURE_PROB, n, 1 - CONFIDENCE))


CASES = {
    # name: (mechanism, d0, d1, trials); the Laplace, Gaussian and RR claims are exactly tight on these pairs
    "laplace": (LaplaceMechanism(1.0), 0.0, 1.0, 2_000),
    "gaussian": (GaussianMechanism(1.0, 0.05), 0.0, 1.0, 2_000),
    "randomized response": (RandomizedResponse(1.0, 2), [0], [1], 2_000),
    # not tight: Lyu et al.'s analysis of sparse vector is an upper bound
    "sparse vector": (SparseVector(1.0, 0.0, cutoff=1), [0.0] * 5 + [1.0], [1.0] * 5 + [0.0], 10_000),
}


@pytest.mark.parametrize("name", list(CASES))
def test_false_alarm_rate_of_correct_mechanisms(name):
    mech, d0, d1, trials = CASES[name]
    seeds = np.random.SeedSequence([ROOT_SEED, len(name)]).spawn(AUDITS)
    bounds = np.array([dpaudit.audit(mech, d0, d1, trials=trials, confidence=CONFIDENCE, seed=s).epsilon_lower_bound for s in seeds])
    claimed = mech.claimed_guarantee().epsilon
    alarms = int(np.count_nonzero(bounds > claimed))
    limit = _limit(AUDITS)
    assert alarms <= limit, (
        f"{name}: {alarms} false alarms in {AUDITS} audits > {limit} (binomial {1 - CONFIDENCE}, "
        f"failure prob {FAILURE_PROB}); root seed {ROOT_SEED}"
    )
    # not trivially loose: at least half of the audits learn something on these pairs
    assert np.median(bounds) > 0.0, f"{name}: median bound {np.median(bounds):.3f} is uninformative"


def test_identical_datasets_give_zero_for_the_bound_and_the_gdp_estimate():
    """The null invariant (anchors note, section 8): on M(D) = M(D') both bounds are 0 in >= c of audits."""
    seeds = np.random.SeedSequence([ROOT_SEED, 99]).spawn(AUDITS)
    eps, mus = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NothingToLearnWarning)
        for s in seeds:
            res = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 0.0, trials=1_000, seed=s)
            eps.append(res.epsilon_lower_bound)
            mus.append(res.gdp_mu_lower_bound)
    limit = _limit(AUDITS)
    assert int(np.count_nonzero(np.array(eps) > 0)) <= limit
    assert int(np.count_nonzero(np.array(mus) > 0)) <= limit


def _naive_audit(x0, x1):
    """INVALID on purpose: the plug-in log-ratio, maximised over thresholds on the samples it reports on."""
    best = 0.0
    for t in np.quantile(np.concatenate([x0, x1]), np.linspace(0.01, 0.99, 99)):
        for k_num, k_den in ((np.sum(x0 <= t), np.sum(x1 <= t)), (np.sum(x1 > t), np.sum(x0 > t))):
            if k_num > 0 and k_den > 0:
                best = max(best, float(np.log(k_num / k_den)))
    return best


def test_negative_control_a_naive_estimate_fails_the_count():
    mech = LaplaceMechanism(1.0)
    rng = np.random.default_rng(ROOT_SEED)
    alarms = sum(_naive_audit(mech.sample(0.0, 2_000, rng=rng), mech.sample(1.0, 2_000, rng=rng)) > 1.0 for _ in range(AUDITS))
    assert alarms > _limit(AUDITS), f"the naive estimate raised only {alarms} alarms; the count would not catch it"
