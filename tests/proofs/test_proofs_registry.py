"""Every registered lemma check computes the verdict recorded as expected (issue 5, proofs/)."""

from __future__ import annotations

import pytest

from dpaudit.bounds.verdict import Verdict
from proofs._core import PAPERS
from proofs.registry import PACKAGES, all_checks, checks_for_paper, get_check

CHECKS = all_checks()
SURNAMES = {"levy2021": "Levy", "ghazi2023": "Ghazi", "lowy2024": "Lowy", "ghazi2025": "Ghazi"}


@pytest.mark.parametrize("check", CHECKS, ids=[c.name for c in CHECKS])
def test_proofs_verdict_matches_expected(check):
    result = check.run()
    assert result.verdict is check.expected, (
        f"{check.name}: computed {result.verdict}, expected {check.expected}\n"
        f"details: {result.details}\ncounterexample: {result.counterexample}"
    )
    assert result.claim == check.statement
    assert result.source == check.source
    assert result.cases > 0, "a check must try at least one case"
    assert result.method and result.method != "none"
    if result.verdict is Verdict.DISPROVED:
        assert result.counterexample, "DISPROVED must carry its counterexample"
    else:
        assert result.counterexample is None


def test_proofs_registry_has_at_least_40_cited_checks():
    assert len(CHECKS) >= 40
    for check in CHECKS:
        assert check.source.strip(), check.name
        assert any(SURNAMES[p] in check.source for p in check.papers), f"{check.name}: source does not cite its paper"
        assert any(ch.isdigit() for ch in check.source), f"{check.name}: source lacks a lemma/theorem/equation number"
        assert check.statement.strip(), check.name
        package = check.name.split("/", 1)[0]
        assert package in PACKAGES, check.name


def test_proofs_every_paper_has_its_checks():
    for paper in PAPERS:
        mine = checks_for_paper(paper)
        own = [c for c in mine if c.name.startswith(paper + "/")]
        assert len(own) >= 12, f"{paper}: only {len(own)} checks of its own"


def test_proofs_errata_come_as_printed_and_corrected_pairs():
    printed = [c for c in CHECKS if c.role == "printed"]
    assert printed, "the notes' errata must be checked"
    for check in printed:
        assert check.expected is Verdict.DISPROVED, check.name
        assert check.sibling is not None, check.name
        sibling = get_check(check.sibling)
        assert sibling.role == "corrected" and sibling.expected is Verdict.PROVED, check.name
        assert set(check.papers) & set(sibling.papers), check.name
    for check in CHECKS:
        if check.role == "corrected":
            assert check.expected is Verdict.PROVED and check.sibling is not None, check.name
            assert get_check(check.sibling).role == "printed", check.name
        if check.role == "control":
            assert check.expected is Verdict.DISPROVED, check.name


def test_proofs_names_are_unique_and_lookup_works():
    names = [c.name for c in CHECKS]
    assert len(names) == len(set(names))
    assert get_check(names[0]) is CHECKS[0]
    with pytest.raises(KeyError):
        get_check("no/such/check")
