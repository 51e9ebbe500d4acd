"""Audits of Lowy et al. 2024: correct mechanisms against their own (recomputed) claims, broken variants flagged.

The default run audits every case through the built-in catalogue (``tests/quality/test_catalogue_power.py``,
confidence 0.999). Here: the cases' structure, the streaming use of the shared AboveThreshold, and,
behind ``slow``, every case again with ten times the trials.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpaudit.mechanisms.sparse_vector import TOP, AboveThreshold
from dpaudit.userlevel.lowy2024.audit_cases import GROUP, lowy2024_audit_cases

CASES = lowy2024_audit_cases()


def test_every_pitfall_has_a_flagged_variant_and_a_correct_counterpart():
    bugs = {c.bug for c in CASES if c.broken}
    assert bugs == {"P2", "P7", "P10", "P12", "P14"}
    assert sum(not c.broken for c in CASES) >= len(bugs) + 2
    assert all(c.group == GROUP for c in CASES)


def test_test_share_claim_is_the_laplace_test_exactly():
    """The halting indicator is audited against eps_test = (2(C - 1)/C)/b with b = 4/eps (audit preset), pure."""
    case = next(c for c in CASES if "halting bit" in c.name)
    c = case.mechanism.mechanism.parameters(288, 2, 1).groups
    assert case.epsilon == pytest.approx(2 * (c - 1) / c / (4.0 / 2.0)) and case.delta == 0.0


@pytest.mark.parametrize("variant", ["lowy2024", "ghazi2025"])
def test_streaming_above_threshold_matches_sample(variant):
    """start()/answer() on a fixed stream of queries has the law of sample(): halting steps agree in distribution.

    Two-sample chi-square test on the halting step (6 queries + never), failure probability 1e-6.
    """
    at = AboveThreshold(1.0, 1.0, sensitivity=2.0, variant=variant)
    q = np.array([0.0, 0.5, 1.0, 1.5, 0.5, 0.0])
    rng = np.random.default_rng(11)
    size = 40_000
    codes = at.sample(q, size, rng=rng)
    halt_code = TOP if variant == "lowy2024" else 0
    a = np.where((codes == halt_code).any(axis=1), np.argmax(codes == halt_code, axis=1), q.size)
    thr = at.start(size, rng=rng)
    halted = np.zeros(size, dtype=bool)
    b = np.full(size, q.size)
    for t, value in enumerate(q):
        _, now = at.answer(np.full(size, value), thr, halted, rng=rng)
        b[now & ~halted] = t
        halted = now
    table = np.array([np.bincount(a, minlength=q.size + 1), np.bincount(b, minlength=q.size + 1)])
    table = table[:, table.sum(axis=0) > 0]
    _, pvalue, _, _ = stats.chi2_contingency(table)
    assert pvalue > 1e-6, table


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(CASES)), ids=[c.name for c in CASES])
def test_case_verdicts_with_ten_times_the_trials(index):
    case = CASES[index]
    seed = np.random.SeedSequence(2024).spawn(len(CASES))[index]
    result = case.audit(seed=seed, scale=10.0, confidence=0.999)
    assert result.violation == case.broken, result.to_text()
