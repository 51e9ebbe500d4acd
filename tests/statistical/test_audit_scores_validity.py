"""Validity of ``audit_scores``, counted over many audits of scores from correct mechanisms.

The scores-in path has choices of its own: the two samples may differ in size (each probability
is then bounded on its own sample), and each sample is put in a random order before the split (a
sorted file must not hand the estimation split the other end of the distribution). Every case
audits a claim that is tight on its pair, ``AUDITS`` times with independent data and seeds; the
false alarms may not exceed the ``1 - FAILURE_PROB`` quantile of ``Binomial(AUDITS, 1 - c)``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

import dpaudit
from dpaudit.accounting.calibrate import gaussian_sigma_analytic

FAILURE_PROB = 1e-4
CONFIDENCE = 0.95
AUDITS = 200
ROOT_SEED = 20261127
SIGMA = gaussian_sigma_analytic(1.0, 1.0, 0.05)


def _laplace(rng, n0, n1):
    return rng.laplace(0.0, 1.0, n0), rng.laplace(1.0, 1.0, n1)


def _sorted_laplace(rng, n0, n1):
    s0, s1 = _laplace(rng, n0, n1)
    return np.sort(s0), np.sort(s1)[::-1]


def _gaussian(rng, n0, n1):
    return rng.normal(0.0, SIGMA, n0), rng.normal(1.0, SIGMA, n1)


def _randomized_response(rng, n0, n1):
    keep = special.expit(1.0)
    return (rng.random(n0) >= keep).astype(float), (rng.random(n1) < keep).astype(float)


def _leaky_randomized_response(rng, n0, n1):
    """Randomized response at 0.5 that outputs ``2 + bit`` with probability 0.05: tight at (0.5, 0.05)."""
    def draw(bit, n):
        keep = rng.random(n) < special.expit(0.5)
        leak = rng.random(n) < 0.05
        return np.where(leak, 2.0 + bit, np.where(keep, bit, 1.0 - bit))
    return draw(0, n0), draw(1, n1)


def _vector_gaussian(rng, n0, n1):
    """Three coordinates shifted by 1/sqrt(3) each: the l2 shift is 1, as for ``_gaussian``."""
    shift = 1.0 / np.sqrt(3.0)
    return rng.normal(0.0, SIGMA, (n0, 3)), rng.normal(shift, SIGMA, (n1, 3))


# name: (draw, n0, n1, epsilon, delta, options)
CASES = {
    "Laplace, unequal samples": (_laplace, 2_000, 5_000, 1.0, 0.0, {}),
    "Laplace, sorted files": (_sorted_laplace, 3_000, 3_000, 1.0, 0.0, {}),
    "Gaussian (1, 0.05)": (_gaussian, 3_000, 2_000, 1.0, 0.05, {}),
    "randomized response": (_randomized_response, 3_000, 3_000, 1.0, 0.0, {}),
    "leaky randomized response": (_leaky_randomized_response, 4_000, 3_000, 0.5, 0.05, {}),
    "vector Gaussian (1, 0.05)": (_vector_gaussian, 4_000, 4_000, 1.0, 0.05, {}),
    "Laplace, four candidates": (_laplace, 3_000, 3_000, 1.0, 0.0, dict(candidates=4)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_false_alarms_of_audit_scores(name):
    draw, n0, n1, eps, delta, options = CASES[name]
    seeds = np.random.SeedSequence([ROOT_SEED, len(name)]).spawn(AUDITS)
    bounds, alarms = [], 0
    for s in seeds:
        data_seed, split_seed = s.spawn(2)
        s0, s1 = draw(np.random.default_rng(data_seed), n0, n1)
        res = dpaudit.audit_scores(s0, s1, epsilon=eps, delta=delta, confidence=CONFIDENCE, seed=split_seed, **options)
        bounds.append(res.epsilon_lower_bound)
        alarms += res.violation
    limit = int(stats.binom.ppf(1 - FAILURE_PROB, AUDITS, 1 - CONFIDENCE))
    assert alarms <= limit, (f"{name}: {alarms} false alarms in {AUDITS} audits of {n0} + {n1} scores > {limit} "
                             f"(binomial {1 - CONFIDENCE}, failure prob {FAILURE_PROB}); root seed {ROOT_SEED}")
    assert np.median(bounds) > 0.0, f"{name}: median bound {np.median(bounds):.3f} is uninformative"
