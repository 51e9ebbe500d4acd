"""The bracket in every result: fields, the two-sided verdicts, the command line's exit status."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import dpaudit
from dpaudit.auditor.result import BRACKET_VERDICTS, bracket_verdict
from dpaudit.cli import main
from dpaudit.exact import LaplaceProfile, PrivacyProfile
from dpaudit.guarantees import PureDP
from dpaudit.interfaces import StructuredMechanism
from dpaudit.mechanisms import LaplaceMechanism, MechanismBase
from dpaudit.neighbors.relations import QueryDistance


@pytest.mark.parametrize(
    "args, expected",
    [
        ((0.5, False, 1.0, None, None), "lower bound only"),
        ((1.5, True, 1.0, None, None), "refuted by the audit"),
        ((1.2, True, 1.0, 1.1, 1.05), "wrong declaration"),
        ((0.9, False, 1.0, 2.0, 1.9), "refuted by computation"),
        ((1.5, True, 1.0, 2.0, 1.9), "refuted by the audit and by computation"),
        ((1.5, True, 1.0, 2.0, None), "refuted by the audit"),
        ((0.9, False, 1.0, 0.95, 0.95), "consistent"),
        ((0.4, False, 1.0, 0.5, 0.5), "loose on this pair"),
        ((0.0, False, 1.0, 0.0, 0.0), "loose on this pair"),
        ((0.9, False, 1.0, 1.0 + 1e-12, 1.0 - 1e-12), "at the claim"),
        ((0.9, False, 1.0, 1.5, 0.5), "undecided"),
        ((0.9, False, 1.0, 1.5, None), "undecided"),
    ],
)
def test_bracket_verdicts(args, expected):
    assert bracket_verdict(*args) == expected
    assert expected in BRACKET_VERDICTS


def test_a_structured_result_carries_the_bracket():
    res = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, trials=5_000, seed=1)
    assert isinstance(LaplaceMechanism(1.0), StructuredMechanism)
    assert res.epsilon_upper == 1.0 and res.epsilon_computed_lower == 1.0 and res.profile_kind == "exact"
    assert res.bracket_verdict == "consistent" and not res.claim_refuted
    assert len(res.profile_curve) > 10 and all(lo <= hi for _, lo, hi in res.profile_curve)
    data = json.loads(res.to_json())
    assert data["schema_version"] >= 2 and data["epsilon_upper"] == 1.0 and data["bracket_verdict"] == "consistent"
    assert "exact on pair" in res.to_text() and "not a proof over all pairs" in res.to_text()


def test_a_plain_callable_says_it_has_no_structure():
    def noisy(data: Any, rng: np.random.Generator, size: int | None = None) -> Any:
        return np.asarray(data, dtype=float) + rng.laplace(0.0, 1.0, size=size)

    res = dpaudit.audit(noisy, 0.0, 1.0, epsilon=1.0, trials=2_000, seed=0)
    assert res.epsilon_upper is None and res.bracket_verdict == "lower bound only"
    assert "declares no structure" in (res.profile_note or "") and "lower bound only" in res.to_text()


def test_float_bits_audits_do_not_use_the_profile_over_the_reals():
    res = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, trials=2_000, seed=0, float_bits=True)
    assert res.epsilon_upper is None and "float_bits" in (res.profile_note or "")


def test_refutation_by_computation_without_a_violation():
    """Laplace of epsilon 1 claimed 0.95: a small audit cannot see it, the computation proves it."""
    res = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=0.95, trials=1_000, seed=0)
    assert not res.violation and res.refuted_by_computation and res.claim_refuted
    assert res.epsilon_computed_lower == 1.0 > res.claimed_epsilon


@dataclass(frozen=True)
class _Misdeclared(MechanismBase):
    """Samples Lap(1) but declares the profile of Lap(10): a wrong declaration."""

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> Any:
        return float(data) + rng.laplace(0.0, 1.0, size=size)

    def claimed_guarantee(self) -> PureDP:
        return PureDP(1.0, QueryDistance(1.0, "l1"))

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        return LaplaceProfile(abs(float(d1) - float(d0)), 10.0)


def test_a_wrong_declaration_is_flagged():
    res = dpaudit.audit(_Misdeclared(), 0.0, 1.0, trials=50_000, seed=0)
    assert res.epsilon_upper == pytest.approx(0.1)
    assert res.epsilon_lower_bound > res.epsilon_upper and res.wrong_declaration
    assert not res.refuted_by_computation  # a wrong declaration's figures are not used


def test_command_line_exit_status_for_a_refutation_by_computation(capsys):
    # the catalogue entry "Laplace" (epsilon 1 on the pair 0, 1), against a claim below its exact epsilon
    status = main(["audit", "Laplace", "--epsilon", "0.95", "--trials", "1000", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["violation"] is False and data["bracket_verdict"] == "refuted by computation"
    assert status == 1
    status = main(["audit", "Laplace", "--epsilon", "1.0", "--trials", "1000", "--json"])
    assert json.loads(capsys.readouterr().out)["bracket_verdict"] == "consistent" and status == 0
