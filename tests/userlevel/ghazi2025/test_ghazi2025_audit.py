"""The auditor flags Ghazi et al. (2025) as printed on the note's Sec. 8 constructions, and not the safe preset.

P2 (missing 6 beta eta B <= 1) is flagged with every precondition Theorem 3.1 prints satisfied, so
it is an erratum of the paper. P10 (threshold too low) is flagged with a B below Lemma 3.10's
B >= 100 ln(T/delta)/eps: the paper's threshold is only private through that precondition, while the
safe threshold is private for every B >= 4. The auditor sees only the outputs; the confidence is
0.95, so on a correct mechanism a flag would be a false alarm of probability at most 0.05 (each
audit here uses a fixed seed, so the result is reproducible).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import dpaudit
from dpaudit.errors import InvalidArgument
from dpaudit.userlevel.ghazi2025.algorithms import RobustStatsLocalization
from dpaudit.userlevel.ghazi2025.audit_cases import (
    ghazi2025_audit_cases,
    low_threshold_case,
    missing_lemma_3_9_case,
)

SEED = 0
CONFIDENCE = 0.95


def _audit(case):
    return dpaudit.audit(case.mechanism, case.d0, case.d1, epsilon=case.epsilon, delta=case.delta,
                         trials=case.trials, confidence=CONFIDENCE, seed=SEED)


@pytest.mark.parametrize("case", ghazi2025_audit_cases(), ids=lambda c: c.name)
def test_audit_flags_exactly_the_broken_configurations(case):
    res = _audit(case)
    assert res.violation == case.broken, (
        f"{case.name}: epsilon_lower_bound={res.epsilon_lower_bound:.3f} vs claim {case.epsilon}, trials={case.trials}, "
        f"seed={SEED}, evidence={res.evidence}")


def test_p2_is_flagged_with_every_printed_precondition_of_theorem_3_1_satisfied():
    case = missing_lemma_3_9_case("paper")
    n, m, k = case.d0.shape
    p = case.mechanism.parameters(n, m, k - 1)
    failed = {c.name for c in p.failed_conditions()}
    # only Lemma 3.9's precondition (missing from Thm 3.1) and the A3 calibration row fail
    assert failed == {"phase 1: 6 beta eta_s B <= 1", "AboveThreshold calibrated for score sensitivity (s = 1)"}
    named = {c.name: c for c in p.conditions}
    assert named["phase 1: beta * eta_s <= 2"].value == pytest.approx(1.0)  # Lemma 3.2 holds
    assert named["phase 1: 6 beta eta_s B <= 1"].value == pytest.approx(6 * p.batch_size)
    # the pass/fail bit is the leak: d0 passes, d1 fails
    rng = np.random.default_rng(SEED)
    r0 = case.mechanism.sample_with_info(case.d0, 200, rng=rng)
    r1 = case.mechanism.sample_with_info(case.d1, 200, rng=rng)
    assert r0.passed.mean() > 0.95 and r1.passed.mean() < 0.05
    assert r1.halt_step.max() == 1  # d1 fails at the step-2 split


def test_p2_safe_preset_passes_its_tests_so_the_non_flag_is_not_vacuous():
    case = missing_lemma_3_9_case("safe")
    rng = np.random.default_rng(SEED)
    for data in (case.d0, case.d1):
        run = case.mechanism.sample_with_info(data, 200, rng=rng)
        assert run.passed.mean() > 0.9
    p = run.parameters
    assert all(c.holds for c in p.conditions if c.enforced)
    assert 6 * p.smoothness * p.phase_step_sizes[0] * p.batch_size <= 1


def test_p10_needs_b_below_lemma_3_10_and_the_safe_preset_refuses_the_paper_threshold():
    case = low_threshold_case("paper")
    n, m, k = case.d0.shape
    p = case.mechanism.parameters(n, m, k - 1)
    named = {c.name: c for c in p.conditions}
    assert not named["phase 1: B >= 100 ln(T_s/delta)/eps"].holds
    assert not named["phase 1: nu_s >= c0 B + (b_q + b_th) ln(2 e^eps/delta)"].holds
    assert named["phase 1: 6 beta eta_s B <= 1"].holds  # the leak is the threshold's alone
    rng = np.random.default_rng(SEED)
    run = case.mechanism.sample_with_info(case.d0, 20_000, rng=rng)
    assert 0.002 < run.passed.mean() < 0.05  # the bimodal batch passes about 1% of the time
    safe = low_threshold_case("safe").mechanism
    assert not safe.sample_with_info(case.d0, 20_000, rng=rng).passed.any()
    with pytest.raises(InvalidArgument, match=re.escape(
            "`RobustStatsLocalization`: `threshold` must be at least c0*B + (b_q + b_th)*ln(2e^eps/delta) = ")):
        RobustStatsLocalization(safe.loss, safe.epsilon, safe.delta, batch_size=15, phases=1,
                                threshold=p.phase_thresholds[0]).sample(case.d0, 2, rng=rng)


def test_audit_cases_are_small_frozen_records():
    for case in ghazi2025_audit_cases():
        assert case.d0.shape == case.d1.shape and case.d0.ndim == 3
        assert int((case.d0 != case.d1).reshape(case.d0.shape[0], -1).any(axis=1).sum()) == 1  # one user differs
        assert case.trials <= 100_000 and case.epsilon == 1.0
        with pytest.raises(AttributeError):
            case.name = "x"  # frozen
