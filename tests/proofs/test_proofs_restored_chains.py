"""The eight checks the sound kernel had left UNDECIDED (issue 19) are decided again, soundly: Thm 5.1's erratum pairs
through the rate engine's kernel route, and Ghazi et al. 2025's chains with every Fact instantiated at its quantified
symbols (what the median satisfies is cited from the paper's Remark 3.4, never an unproved Fact)."""

from __future__ import annotations

import pytest
import sympy as sp
from dpaudit.proofs.registry import get_check

from dpaudit.verify import Verdict, certified


@pytest.mark.parametrize(("name", "verdict"), [("ghazi2023/thm51_lambda_printed", Verdict.DISPROVED),
                                               ("ghazi2023/thm51_lambda_corrected", Verdict.PROVED),
                                               ("ghazi2023/thm51_last_phase_printed", Verdict.DISPROVED),
                                               ("ghazi2023/thm51_last_phase_corrected", Verdict.PROVED)])
def test_thm51_pairs_are_kernel_certified(name, verdict):
    result = get_check(name).run()
    assert result.verdict is verdict and certified(result)
    if verdict is Verdict.DISPROVED:
        # a log-direction inside the regime, with its exponent margin, and the growth premise printed
        direction = dict(part.split(":") for part in result.counterexample["log-direction y"].split(", "))
        assert all(sp.Rational(v) > 0 for v in direction.values())
        assert sp.Rational(result.counterexample["exponent margin"]) > 0
        assert "polynomial growth beats polylog factors" in result.premises_text()


@pytest.mark.parametrize("name", ["ghazi2025/alg2_estimator_properties", "ghazi2025/lemma_3_6_batch_size_4",
                                  "ghazi2025/lemma_3_7_iteration_sensitivity"])
def test_ghazi2025_chains_rest_on_cited_statements_not_on_unproved_facts(name):
    result = get_check(name).run()
    assert result.verdict is Verdict.PROVED and certified(result)
    assert not [p for p in result.premises if p.kind == "fact"], result.premises_text()
    assert "Ghazi et al. 2025, Remark 3.4" in result.premises_text("cited")
    # the Facts these chains establish carry their hypotheses: a dependent must prove them where it instantiates
    for fact in result.established:
        assert fact.hypotheses or fact.name == "within", fact
