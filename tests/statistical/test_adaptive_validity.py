"""Validity of adaptive audits (``trials="auto"``), counted over many audits of correct mechanisms.

Each correct mechanism is audited ``AUDITS`` times at its tight claim with independent seeds, in
stages from 1,000 to 31,623 trials per dataset (four stages). At confidence ``c`` a valid audit
raises a false alarm with probability at most ``1 - c`` *however it stops*, so the false alarms are
stochastically below ``Binomial(AUDITS, 1 - c)``; the test allows that distribution's ``1 -
FAILURE_PROB`` quantile.

Two stopping rules are counted: the audit's own (violation, out of reach, budget), and the worst
case for validity, *always go on to the budget*. The reported bound is the largest over the stages
run, and every stage's events and counts are the same whichever rule stops the audit (the stages
are fixed in advance: ``tests/unit/test_adaptive_trials.py``), so running every stage gives the
largest bound any rule (a time limit, ``max_stages``, the evidence) could report: if the count
holds for it, it holds for all of them.

A negative control shows the count can fail: stages evaluated with no confidence interval (at level
``1 - 1e-9``, the plug-in frequencies) exceed the limit. The count is conservative, as the bound
is (two Clopper-Pearson limits, each at half its level): it does not see a spending that is a few
times too generous (a stage evaluated at 20 times its share stays within it), which is why the
spending per stage is checked exactly, from the counts, in ``tests/unit/test_adaptive_trials.py``.

The default run counts ``FEW_AUDITS`` audits of Laplace under the worst-case rule, in three
smaller stages (500 to 5,000 trials); ``-m slow``
counts ``AUDITS`` = 200 of each of the four mechanisms under both rules.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.auditor import adaptive
from dpaudit.mechanisms import GaussianMechanism, LaplaceMechanism, RandomizedResponse

FAILURE_PROB = 1e-4
CONFIDENCE = 0.95
AUDITS = 200
FEW_AUDITS = 40
ROOT_SEED = 20261126
BUDGET = dict(trials="auto", first_trials=1_000, max_trials=31_623)  # stages end at 1,000, 3,162, 10,000, 31,623
SMALL_BUDGET = dict(trials="auto", first_trials=500, max_trials=5_000)  # the default run's: 500, 1,581, 5,000


def censored_laplace(data, rng, size=None):
    """Laplace(1) noise, values at most 0.5 replaced by the atom -1: post-processing, so 1-DP, tight above 1."""
    x = data + rng.laplace(scale=1.0, size=size)
    return np.where(x > 0.5, x, -1.0)


# name: (mechanism, d0, d1, audit arguments); each claim is tight on its pair
CASES = {
    "laplace": (LaplaceMechanism(1.0), 0.0, 1.0, {}),
    "gaussian": (GaussianMechanism(1.0, 0.05), 0.0, 1.0, {}),
    "randomized response": (RandomizedResponse(1.0, 2), [0], [1], {}),
    "mixed: censored Laplace": (censored_laplace, 0.0, 1.0, dict(epsilon=1.0)),
}


def _limit(n: int) -> int:
    return int(stats.binom.ppf(1 - FAILURE_PROB, n, 1 - CONFIDENCE))


@pytest.fixture
def every_stage(monkeypatch):
    """The worst-case stopping rule: the evidence always says go on, so every audit runs to its budget
    (or stops on a false alarm, which is then counted)."""
    monkeypatch.setattr(adaptive, "_evidence_continues", lambda *args: True)


def _count(name: str, audits: int, rule: str, budget: dict = BUDGET) -> list[dpaudit.AuditResult]:
    mech, d0, d1, kwargs = CASES[name]
    seeds = np.random.SeedSequence([ROOT_SEED, len(name), audits, len(rule)]).spawn(audits)
    results = [dpaudit.audit(mech, d0, d1, confidence=CONFIDENCE, seed=s, **budget, **kwargs) for s in seeds]
    alarms = sum(r.violation for r in results)
    limit = _limit(audits)
    stages = [len(r.stages) for r in results]
    assert alarms <= limit, (
        f"{name} ({rule}): {alarms} false alarms in {audits} adaptive audits ({budget}) > {limit} (binomial "
        f"{1 - CONFIDENCE:.2f}, failure prob {FAILURE_PROB}); root seed {ROOT_SEED}; claim "
        f"{results[0].claimed_epsilon}; stages run {np.bincount(stages).tolist()}"
    )
    bounds = np.array([r.epsilon_lower_bound for r in results])
    print(f"{name} ({rule}): {alarms} of {audits} alarms (limit {limit}), stages run {np.bincount(stages).tolist()}, "
          f"median bound {np.median(bounds):.3f}, max {bounds.max():.3f}")  # shown with -s / -rP
    assert np.median(bounds) > 0.5 * results[0].claimed_epsilon, f"{name}: median bound {np.median(bounds):.3f}: uninformative"
    return results


@pytest.mark.parametrize("name", ["laplace"])
def test_false_alarms_of_adaptive_audits_run_to_the_budget(name, every_stage):
    results = _count(name, FEW_AUDITS, "every stage", SMALL_BUDGET)
    assert all(r.stop_reason == "violation" or (r.stop_reason == "budget" and len(r.stages) == 3) for r in results)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_false_alarms_of_200_adaptive_audits_run_to_the_budget(name, every_stage):
    results = _count(name, AUDITS, "every stage")
    assert all(r.stop_reason == "violation" or (r.stop_reason == "budget" and len(r.stages) == 4) for r in results)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_false_alarms_of_200_adaptive_audits_with_their_own_stopping_rule(name):
    results = _count(name, AUDITS, "own rule")
    reasons = {r.stop_reason for r in results}
    assert reasons <= {"violation", "out of reach", "budget"}, reasons


def test_negative_control_stages_without_confidence_intervals_fail_the_count(monkeypatch, every_stage):
    """INVALID on purpose: every stage at level 1 - 1e-9 (its intervals shrink to the frequencies)."""
    monkeypatch.setattr(adaptive, "stage_alpha", lambda alpha, stage: 1.0 - 1e-9)
    with pytest.raises(AssertionError, match="false alarms in 40 adaptive audits"):
        _count("laplace", FEW_AUDITS, "plug-in", SMALL_BUDGET)
