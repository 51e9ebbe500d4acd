"""The golden audit of SCOutputPert (note App. B2), and what the auditor says about the pitfall variants.

The exact ⊥ probabilities come from the closed-form lower-tail CDF of TDLap (Def 3.4),
``F(r) = e^{-eps kappa}(e^{eps (r + 1)} - 1) / ((e^eps - 1) Z)``, not from the sampler's pmf; they are
also checked against the digits of the note's table. Audits use fixed seeds at confidence 0.95: a
correct mechanism would be flagged with probability at most 0.05.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.userlevel.ghazi2023 import ghazi2023_audit_cases
from dpaudit.userlevel.ghazi2023.audit_cases import (
    GOLDEN,
    golden_mechanism,
    outlier_users,
    tight_budget,
)

SEED = 0
ALPHA = 1e-3  # declared failure probability of each binomial check below


def _tdlap_cdf_closed_form(eps: float, kappa: int, r: int) -> float:
    """P[R1 <= r] for 0 <= r <= kappa (summed from Def 3.4's pmf)."""
    z = (1 + math.exp(-eps) - 2 * math.exp(-eps * (kappa + 1))) / (1 - math.exp(-eps))
    return math.exp(-eps * kappa) * (math.exp(eps * (r + 1)) - 1) / ((math.exp(eps) - 1) * z)


def test_closed_form_matches_the_notes_table():
    kap = GOLDEN["kappa"]
    values = [_tdlap_cdf_closed_form(0.5, kap, r) for r in (kap - 2, kap - 1)]
    assert values == pytest.approx([0.228990, 0.377541], abs=5e-7)
    # F(kappa) = 1 - F(kappa - 1) by symmetry of TDLap about kappa
    assert 1 - values[1] == pytest.approx(0.622459, abs=5e-7)
    assert math.log((1 - values[1]) / values[1]) == pytest.approx(0.500001, abs=5e-7)


@pytest.mark.parametrize("outliers", [GOLDEN["kappa"] - 1, GOLDEN["kappa"], GOLDEN["kappa"] + 1])
def test_measured_bottom_probability_matches_exact_f(outliers):
    """P[⊥ | k outliers] = F(k - 1), within a two-sided Clopper-Pearson interval at level ALPHA."""
    kap, trials = GOLDEN["kappa"], 200_000
    r = outliers - 1
    exact = _tdlap_cdf_closed_form(0.5, kap, r) if r <= kap else 1 - _tdlap_cdf_closed_form(0.5, kap, 2 * kap - r - 1)
    out = golden_mechanism().sample(outlier_users(outliers), trials, rng=np.random.default_rng([SEED, outliers]))
    count = int(out[:, 0].sum())
    lo, hi = stats.binomtest(count, trials).proportion_ci(1 - ALPHA, method="exact")
    assert lo <= exact <= hi, f"k={outliers}: {count}/{trials} ⊥, interval ({lo:.5f}, {hi:.5f}), exact F={exact:.6f}"
    assert np.all(out[out[:, 0] == 0, 1] != 0.0) and np.all(out[out[:, 0] == 1, 1] == 0.0)


def _golden_audit(trials):
    kap = GOLDEN["kappa"]
    eps_t, delta_t = tight_budget()
    return dpaudit.audit(golden_mechanism(), outlier_users(kap + 1), outlier_users(kap), epsilon=eps_t,
                         delta=delta_t, trials=trials, seed=SEED)


def test_golden_audit_at_1e5_trials_is_near_the_expected_0_487_and_within_eps_over_2():
    res = _golden_audit(100_000)
    # expected 0.487 (note App. B2); the bound's sd is about 0.006 here, so [0.46, 0.5] is a > 4 sd band
    assert 0.46 <= res.epsilon_lower_bound <= 0.5, res.to_text()
    assert not res.violation
    # the ⊥ event (pattern (1, 0)) carries the loss, or its complement: the released-value pattern
    # (0, *), ranked by the "value within pattern" family (the same two probabilities, complemented)
    assert "(1, 0)" in res.evidence.event or res.evidence.event.startswith("value within pattern (0, *)"), res.evidence.event


@pytest.mark.slow
def test_golden_audit_at_1e6_trials_is_near_the_expected_0_496():
    res = _golden_audit(1_000_000)
    assert 0.485 <= res.epsilon_lower_bound <= 0.5, res.to_text()  # expected 0.496, sd about 0.002
    assert not res.violation


CASES = ghazi2023_audit_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_golden_group_case_gets_the_expected_verdict(case):
    res = case.audit(seed=SEED, scale=0.5)  # half the catalogue's trials: tests/quality runs them all at 0.999
    assert res.violation == case.broken, (f"{case.name}: eps >= {res.epsilon_lower_bound:.3f} vs claim "
                                          f"{res.claimed_epsilon}, trials={case.trials}, seed={SEED}\n{res.to_text()}")


def test_the_tight_budget_is_what_makes_the_unsplit_r1_visible():
    """P5(d) is private at the full claim (eps ~ 1) and only exceeds the ⊥ channel's share eps/2 (docs/papers/ghazi2023.md, pitfall P5)."""
    case = next(c for c in CASES if c.bug == "P5d")
    full = dpaudit.audit(case.mechanism, case.d0, case.d1, trials=case.trials, seed=SEED)
    assert not full.violation and full.epsilon_lower_bound > 0.9


def test_cases_are_user_level_replace_one_pairs():
    for case in CASES:
        d0, d1 = np.asarray(case.d0), np.asarray(case.d1)
        assert d0.shape == d1.shape
        assert int(np.any((d0 != d1).reshape(len(d0), -1), axis=1).sum()) == 1, case.name
