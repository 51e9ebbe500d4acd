"""Validity of the auditor, counted over many audits of correct mechanisms (never assumed).

Each correct mechanism is audited ``AUDITS`` times at its exact (tight where possible) claim with
independent seeds. A valid auditor at confidence ``c`` raises a false alarm with probability at
most ``1 - c`` per audit, so the number of false alarms is stochastically below
``Binomial(AUDITS, 1 - c)``; the test allows up to that distribution's ``1 - FAILURE_PROB``
quantile. A negative control shows the count can fail: a plug-in estimate maximised over
thresholds on the samples it reports on exceeds that limit.

The counts cover every attack family: scalar and vector continuous outputs, discrete ones, mixed
ones (atoms and values: the per-column and column-group families), floating-point outputs read
bit by bit (``float_bits=True``: a snapping sampler and a lattice sampler, both correct in
IEEE-754 arithmetic), a mechanism that is tight *through its delta* (randomized response that
leaks the input with probability delta: a bound that forgot to subtract delta is flagged), and
several candidates evaluated at once (``candidates=8``). The default run uses small trial
counts; ``-m slow`` repeats the counts with ten times more trials per audit.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.errors import NothingToLearnWarning
from dpaudit.mechanisms import (
    DiscreteLaplaceMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    SparseVector,
)
from dpaudit.mechanisms.literature import SnappingLaplace, TruncatedGeometric

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


LEAK_EPSILON, LEAK_DELTA = 0.5, 0.05


def leaky_randomized_response(data, rng, size=None):
    """Randomized response at LEAK_EPSILON that, with probability LEAK_DELTA, outputs ``2 + data``.

    Exactly (LEAK_EPSILON, LEAK_DELTA)-DP and tight through delta: the event ``{2}`` has
    ``P_0 = delta`` and ``P_1 = 0``, and ``{0, 2}`` has ``P_0 - e^eps P_1 = delta``.
    """
    d = int(np.asarray(data).ravel()[0])
    keep = rng.random(size) < np.exp(LEAK_EPSILON) / (1 + np.exp(LEAK_EPSILON))
    leak = rng.random(size) < LEAK_DELTA
    return np.where(leak, 2 + d, np.where(keep, d, 1 - d))


def censored_laplace(data, rng, size=None):
    """Laplace(1) noise, values at most 0.5 replaced by the atom -1: post-processing, so 1-DP, tight above 1."""
    x = data + rng.laplace(scale=1.0, size=size)
    return np.where(x > 0.5, x, -1.0)


_LATTICE = DiscreteLaplaceMechanism(2.0**-10)


def lattice_laplace(data, rng, size=None):
    """Discrete Laplace on the grid 2^-10 Z, shift 1 = 2^10 steps: exactly 1-DP in floating point."""
    return _LATTICE.sample(int(data) * 2**10, size, rng=rng) * 2.0**-10


# name: (mechanism, d0, d1, trials, audit arguments); every claim is tight or nearly so on its pair
FAMILY_CASES = {
    "mixed: censored Laplace": (censored_laplace, 0.0, 1.0, 4_000, dict(epsilon=1.0)),
    "float bits: snapping Laplace": (SnappingLaplace(1.0, 10.0), 0.0, 1.0, 4_000, dict(float_bits=True)),
    "float bits: lattice Laplace": (lattice_laplace, 0, 1, 4_000, dict(epsilon=1.0, float_bits=True)),
    "discrete: truncated geometric": (TruncatedGeometric(1, 5), 2, 1, 4_000, {}),
    "tight through delta: leaky randomized response": (leaky_randomized_response, [0], [1], 4_000, dict(epsilon=LEAK_EPSILON, delta=LEAK_DELTA)),
    "eight candidates: Laplace": (LaplaceMechanism(1.0), 0.0, 1.0, 2_000, dict(candidates=8)),
}


def _count(name, mech, d0, d1, trials, kwargs, scale=1):
    seeds = np.random.SeedSequence([ROOT_SEED, len(name), scale]).spawn(AUDITS)
    results = [dpaudit.audit(mech, d0, d1, trials=trials * scale, confidence=CONFIDENCE, seed=s, **kwargs) for s in seeds]
    bounds = np.array([r.epsilon_lower_bound for r in results])
    alarms = int(sum(r.violation for r in results))
    limit = _limit(AUDITS)
    assert alarms <= limit, (
        f"{name}: {alarms} false alarms in {AUDITS} audits of {trials * scale} trials > {limit} (binomial "
        f"{1 - CONFIDENCE}, failure prob {FAILURE_PROB}); root seed {ROOT_SEED}; claim {results[0].claimed_epsilon}"
    )
    # not trivially loose: at least half of the audits learn something on these pairs
    assert np.median(bounds) > 0.0, f"{name}: median bound {np.median(bounds):.3f} is uninformative"


@pytest.mark.parametrize("name", list(CASES))
def test_false_alarm_rate_of_correct_mechanisms(name):
    mech, d0, d1, trials = CASES[name]
    _count(name, mech, d0, d1, trials, {})


@pytest.mark.parametrize("name", list(FAMILY_CASES))
def test_false_alarm_rate_with_every_attack_family(name):
    _count(name, *FAMILY_CASES[name])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(FAMILY_CASES))
def test_false_alarm_rate_with_every_attack_family_at_ten_times_the_trials(name):
    _count(name, *FAMILY_CASES[name], scale=10)


def test_identical_datasets_give_zero_for_the_bound_and_the_gdp_estimate():
    """The null invariant: on M(D) = M(D') both bounds are 0 in >= c of audits."""
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
