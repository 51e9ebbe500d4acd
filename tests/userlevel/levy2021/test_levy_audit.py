"""Power and validity on Levy et al. 2021: correct components pass their own budgets, bugs are flagged.

Every case of :func:`dpaudit.userlevel.levy2021.audit_cases.levy2021_audit_cases` is audited on its pair (user
add/remove for B18): a correct component against the exact budget it spends on that pair, a broken one
against the budget the paper gives that component. The
auditor sees only the outputs; ``case.broken`` is read here, by the test, to state what is expected.
Audits run at confidence 0.999, so a correct case is falsely flagged with probability at most 1e-3.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpaudit
from dpaudit.auditor import AuditCase
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.userlevel.levy2021.audit_cases import levy2021_audit_cases

CONFIDENCE = 0.999
ROOT_SEED = 2021

with warnings.catch_warnings():
    warnings.simplefilter("ignore", UnsoundMechanismWarning)  # the broken variants announce themselves
    CASES = levy2021_audit_cases()
SEEDS = np.random.SeedSequence(ROOT_SEED).spawn(len(CASES))


def _run(index: int) -> None:
    case: AuditCase = CASES[index]
    res = dpaudit.audit(case.mechanism, case.d0, case.d1, epsilon=case.epsilon, delta=case.delta,
                        trials=case.trials, confidence=CONFIDENCE, seed=SEEDS[index])
    assert res.violation == case.broken, (
        f"{case.name}: epsilon >= {res.epsilon_lower_bound:.4f} vs claim {case.epsilon:.4g} at delta={case.delta}; "
        f"expected {'a violation' if case.broken else 'none'} ({case.bug or 'correct'}; {case.note})\n{res.to_text()}"
    )


@pytest.mark.parametrize("index", range(len(CASES)), ids=lambda i: CASES[i].name)
def test_levy_case_verdict(index):
    _run(index)


def test_every_buildable_bug_has_a_case_and_each_component_a_correct_twin():
    bugs = {c.bug for c in CASES if c.broken}
    assert bugs == {"B1", "B2", "B3", "B4", "B5", "B6", "B8", "B10", "B11", "B12", "B15", "B17", "B18", "overflow"}
    assert sum(not c.broken for c in CASES) >= 20
    for case in CASES:
        assert case.mechanism.claimed_guarantee().relation is not None
        assert case.mechanism.claimed_guarantee().relation.is_neighbor(case.d0, case.d1)


def test_broken_variants_warn_on_construction():
    from dpaudit.userlevel.levy2021.faulty import LevyNoClip, LevyRangeNoHalf

    with pytest.warns(UnsoundMechanismWarning, match="B17: no clipping"):
        LevyNoClip(1.0, 0.5, 4.0)
    with pytest.warns(UnsoundMechanismWarning, match="B3: PrivateRange weights exp"):
        LevyRangeNoHalf(1.0, 0.5, 1.0)
