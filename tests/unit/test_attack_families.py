"""The attack families are typed objects in one registry, under the names users see in results."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dpaudit.auditor.attacks import FAMILIES, AttackFamily, fit_scores, score_families
from dpaudit.auditor.features import detect_layout

N = 2000


def _pair(kind: str, columns: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if kind == "continuous":
        return rng.normal(0.0, 1.0, (N, columns)), rng.normal(0.3, 1.0, (N, columns))
    if kind == "discrete":
        return rng.integers(0, 4, (N, columns)), rng.integers(0, 5, (N, columns))
    a0 = np.where(rng.random((N, columns)) < 0.5, -1.0, rng.normal(0.0, 1.0, (N, columns)))  # -1: an atom
    a1 = np.where(rng.random((N, columns)) < 0.4, -1.0, rng.normal(0.3, 1.0, (N, columns)))
    return a0, a1


def test_the_registry_names_each_family_once() -> None:
    names = [family.name for family in FAMILIES]
    assert len(set(names)) == len(names), names
    assert all(isinstance(family, AttackFamily) for family in FAMILIES)
    with pytest.raises(dataclasses.FrozenInstanceError):
        FAMILIES[0].name = "renamed"  # type: ignore[misc]


# The family names users see (``Score.family``, the report), per kind of output, in fitting order.
EXPECTED = {
    ("continuous", 1): ["coordinate"],
    ("continuous", 4): ["coordinate", "lda", "logistic", "columns", "transcript llr"],
    ("discrete", 1): ["category", "value"],
    ("discrete", 3): ["category", "value", "lda", "logistic", "columns", "transcript llr"],
    ("mixed", 1): ["atom pattern", "logistic(pattern, values)", "value", "columns", "transcript llr", "pattern value llr"],
    ("mixed", 3): ["atom pattern", "logistic(pattern, values)", "value", "lda", "columns", "transcript llr",
                   "pattern value llr"],
}


@pytest.mark.parametrize(("kind", "columns"), sorted(EXPECTED))
def test_families_per_layout_keep_their_names_and_order(kind: str, columns: int) -> None:
    a0, a1 = _pair(kind, columns)
    layout = detect_layout(a0, a1)
    assert layout.kind == kind
    assert list(score_families(layout)) == EXPECTED[kind, columns]
    assert list(score_families(layout, float_bits=True)) == EXPECTED[kind, columns] + ["float bits"]


@pytest.mark.parametrize("kind", ["continuous", "discrete", "mixed"])
def test_scores_carry_their_family_and_only_selects_by_name(kind: str) -> None:
    a0, a1 = _pair(kind, 3, seed=1)
    layout = detect_layout(a0, a1)
    scores = fit_scores(layout, a0, a1, float_bits=True)
    fitted = {score.family for score in scores}
    assert fitted <= set(score_families(layout, float_bits=True)) and fitted
    for name in fitted:
        chosen = fit_scores(layout, a0, a1, float_bits=True, only={name})
        assert chosen and {score.family for score in chosen} == {name}
        assert [s.name for s in chosen] == [s.name for s in scores if s.family == name]
