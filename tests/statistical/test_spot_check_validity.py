"""False alarms of the row-independence check (:mod:`dpaudit.auditor.independence`), counted.

The check runs by default on a plain callable's audit that is about to report a violation; a
refusal there must come from a sampler that breaks the precondition, never from a correct one.
Its two Fisher tests per dataset are each valid at level ``SPOT_CHECK_P`` under the precondition,
so a correct sampler is refused with probability at most ``6 * SPOT_CHECK_P`` per audit. Here it is
run on *every* audit (``spot_check=DEFAULT_SPOT_CHECK``, the automatic check's size, exactly the
code the default runs) of correct samplers: continuous (tight Laplace), discrete with many identical
rows (randomized response: two single-call trials are identical with probability 5/8, so the copy
test compares like with like), and vector outputs (Gaussian). The count may not exceed the
``1 - FAILURE_PROB`` quantile of ``Binomial(AUDITS, 6 * SPOT_CHECK_P)``. A negative control shows the
count can fail: samplers that copy one draw into every row of a call are refused every time. The
default run counts randomized response (the hard case for the copy test); ``-m slow`` the others.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.auditor.independence import DEFAULT_SPOT_CHECK, SPOT_CHECK_P
from dpaudit.errors import MechanismError

AUDITS = 200
FAILURE_PROB = 1e-3
ROOT_SEED = 20261126


def laplace(data, rng, size=None):
    """Tight 1-DP on the pair (0, 1)."""
    return float(np.sum(data)) + rng.laplace(0.0, 1.0, size=size)


def randomized_response(data, rng, size=None):
    """Tight ln 3-DP on the pair (0, 1): the bit kept with probability 3/4."""
    bit = int(np.sum(data))
    keep = rng.random(size) < 0.75
    return np.where(keep, bit, 1 - bit).astype(float)


def gaussian_vector(data, rng, size=None):
    """Three Gaussian coordinates, shifted by the data on the first."""
    shape = (3,) if size is None else (size, 3)
    out = rng.normal(0.0, 1.0, size=shape)
    out[..., 0] += float(np.sum(data))
    return out


def copied(data, rng, size=None):
    """NOT a valid sampler: one randomized-response bit per call, copied into every row."""
    bit = int(np.sum(data)) if rng.random() < 0.75 else 1 - int(np.sum(data))
    return float(bit) if size is None else np.full(size, float(bit))


CASES = {"laplace": (laplace, 1.0), "randomized response": (randomized_response, float(np.log(3))),
         "gaussian vector": (gaussian_vector, 1.0)}


def _refusals(mechanism, epsilon, audits, root):
    seeds = np.random.SeedSequence(root).spawn(audits)
    refused = []
    for i, seed in enumerate(seeds):
        try:
            dpaudit.audit(mechanism, 0.0, 1.0, epsilon=epsilon, trials=200, seed=seed, block_size=100,
                          spot_check=DEFAULT_SPOT_CHECK)
        except MechanismError:
            refused.append(i)
    return refused


@pytest.mark.parametrize("name", [pytest.param(name, marks=() if name == "randomized response" else pytest.mark.slow)
                                  for name in sorted(CASES)])
def test_the_check_refuses_correct_samplers_no_more_often_than_its_level(name):
    mechanism, epsilon = CASES[name]
    limit = int(stats.binom.ppf(1 - FAILURE_PROB, AUDITS, 6 * SPOT_CHECK_P))
    refused = _refusals(mechanism, epsilon, AUDITS, ROOT_SEED)
    assert len(refused) <= limit, (f"{name}: n={AUDITS} audits, k={len(refused)} refused (audits {refused}), limit {limit} "
                                   f"(Binomial({AUDITS}, {6 * SPOT_CHECK_P:g}) at {1 - FAILURE_PROB}); root seed {ROOT_SEED}")


def test_negative_control_copied_rows_exceed_the_limit():
    limit = int(stats.binom.ppf(1 - FAILURE_PROB, AUDITS, 6 * SPOT_CHECK_P))
    refused = _refusals(copied, float(np.log(3)), 20, ROOT_SEED)
    assert len(refused) == 20 > limit
