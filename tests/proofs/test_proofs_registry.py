"""Every built-in lemma check (``proofs/``, installed as ``dpaudit.proofs``) computes its recorded verdict."""

from __future__ import annotations

import pytest
import sympy as sp
from dpaudit.proofs import PAPERS
from dpaudit.proofs.registry import PACKAGES, all_checks, checks_for_paper, get_check

from dpaudit.verify import Verdict, exact_sign

CHECKS = all_checks()
SURNAMES = {"levy2021": "Levy", "ghazi2023": "Ghazi", "lowy2024": "Lowy", "ghazi2025": "Ghazi"}


@pytest.mark.parametrize("check", CHECKS, ids=[c.name for c in CHECKS])
def test_proofs_verdict_matches_expected(check):
    result = check.run()
    assert result.verdict is check.expected, (
        f"{check.name}: computed {result.verdict}, expected {check.expected}\n"
        f"details: {result.details}\ncounterexample: {result.counterexample}"
    )
    # the claim is what the kernel decided, followed by the domain when that is restricted; the statement is the label
    assert result.statement == check.statement and result.claim
    if result.verdict is Verdict.PROVED:  # what the kernel certified, not the statement (a refutation names its point)
        assert result.claim != check.statement
    if result.domain:
        assert result.claim.endswith(f" [decided on the domain: {'; '.join(result.domain)}]")
    # no built-in check is proved vacuously (hypotheses with no common solution) or on hypotheses not shown satisfiable
    assert not result.vacuity, f"{check.name}: {result.vacuity}"
    assert result.source == check.source
    assert result.cases > 0, "a check must try at least one case"
    assert result.method and result.method != "none"
    if result.verdict is Verdict.DISPROVED:
        assert result.counterexample, "DISPROVED must carry its counterexample"
    else:
        assert result.counterexample is None
    if result.verdict is Verdict.UNDECIDED:
        assert result.reason, "UNDECIDED must say why"


def test_proofs_registry_has_at_least_40_cited_checks():
    assert len(CHECKS) >= 40
    for check in CHECKS:
        assert check.papers and set(check.papers) <= set(PAPERS), check.name
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
    """A printed statement (or a gap in a published proof) is DISPROVED; its corrected sibling is PROVED, or
    honestly UNDECIDED when no exact proof is available."""
    printed = [c for c in CHECKS if c.role in ("printed", "gap")]
    assert printed, "the notes' errata must be checked"
    for check in printed:
        assert check.expected is Verdict.DISPROVED, check.name
        assert check.sibling is not None, check.name
        sibling = get_check(check.sibling)
        assert sibling.role == "corrected" and sibling.expected in (Verdict.PROVED, Verdict.UNDECIDED), check.name
        assert set(check.papers) & set(sibling.papers), check.name
    for check in CHECKS:
        if check.role == "corrected":
            assert check.expected in (Verdict.PROVED, Verdict.UNDECIDED) and check.sibling is not None, check.name
            assert get_check(check.sibling).role in ("printed", "gap"), check.name
        if check.role == "control":
            assert check.expected is Verdict.DISPROVED, check.name


def test_proofs_levy_theorem_2_counterexample_is_a_gap_in_the_proof():
    """eps = 5, delta = 0.1, d = 1 refutes the advanced-composition route of Thm 2's proof, not Thm 2: basic
    composition gives d eps' = 5/sqrt(8 ln 10) = 1.165 <= 5 there."""
    gap = get_check("levy2021/alg2_drv_total_any_epsilon")
    assert gap.role == "gap" and "not in the statement" in gap.statement
    result = gap.run()
    assert result.verdict is Verdict.DISPROVED
    basic = result.counterexample["basic composition d eps' (Thm 2 itself holds here)"]
    basic = sp.sympify(basic)  # the exact closed form (its float is under "approx")
    assert sp.simplify(basic - 5 / sp.sqrt(8 * sp.log(10))) == 0
    assert exact_sign(basic - 5) == -1


def test_proofs_names_are_unique_and_lookup_works():
    names = [c.name for c in CHECKS]
    assert len(names) == len(set(names))
    assert get_check(names[0]) is CHECKS[0]
    with pytest.raises(KeyError):
        get_check("no/such/check")
