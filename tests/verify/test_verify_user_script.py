"""The user script of issue-level acceptance (README, "Verification for users"), run in-process: it proves the clamp
1-Lipschitz, disproves it at 1/2 with an exact pair, finds no counterexample for the l2-ball projection, disproves a buggy
projection and the sensitivity of an unclipped sum, and runs its own check file with ``dpaudit prove --path``. The slow
test runs the same script against a wheel installed in a fresh virtual environment
(``tests/verify/test_verify_packaging.py``)."""

from __future__ import annotations

import importlib.util
import io
from fractions import Fraction
from pathlib import Path

import numpy as np
import sympy as sp

from dpaudit.verify import runner

EXAMPLE = Path(__file__).resolve().parent / "user_example"


def _script():
    spec = importlib.util.spec_from_file_location("dpaudit_user_script", EXAMPLE / "user_script.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_verify_user_script_verdicts_and_pairs():
    script = _script()
    results = {claim: (result, expected) for claim, result, expected in script.check_all()}
    for claim, (result, expected) in results.items():
        assert result.verdict.name == expected, (claim, result.verdict_text(), result.details)
    # the clamp at 1: proved with no premise (the case split is exhaustive)
    proved, _ = results["clamp is 1-Lipschitz"]
    assert not proved.premises and proved.method in ("kernel", "coverage+sympy")
    # the pair refuting 1/2 is exact: recomputed here in rationals
    cex, _ = results["clamp is 1/2-Lipschitz"]
    x, y = (sp.Rational(cex.counterexample[k][0]) for k in ("x", "y"))
    clamp = lambda t: min(max(t, -1), 1)  # noqa: E731
    assert abs(clamp(x) - clamp(y)) > sp.Rational(1, 2) * abs(x - y)
    # the l2 ball: no counterexample, evidence of the search, never PROVED
    ball, _ = results["l2-ball projection (numpy) is nonexpansive"]
    assert ball.evidence["pairs searched"] == 2000 and ball.evidence["largest ratio (well-separated pairs)"] <= 1 + 1e-9
    assert "can only refute" in ball.reason
    # the buggy projection's pair is exact floats that violate the claim when re-evaluated here
    bug, _ = results["buggy projection is nonexpansive"]
    bx, by = np.array(bug.counterexample["x"]), np.array(bug.counterexample["y"])
    fx, fy = script.l2_ball_buggy(bx), script.l2_ball_buggy(by)
    gap = sum((Fraction(a) - Fraction(b)) ** 2 for a, b in zip(fx, fy, strict=True))
    dist = sum((Fraction(a) - Fraction(b)) ** 2 for a, b in zip(bx, by, strict=True))
    assert gap > dist
    # the unclipped sum: the neighbour is one replaced row, and the distance exceeds the bound
    cex_sum, _ = results["unclipped sum has sensitivity 1"]
    change = cex_sum.counterexample["change"]
    other = np.zeros(10)
    other[change["replaced row"]] = change["new"]
    assert abs(other.sum() - 0.0) > 1.0


def test_verify_user_script_own_check_file_runs_with_prove_path():
    out = io.StringIO()
    assert runner.main(["--no-builtin", "--path", str(EXAMPLE / "my_checks")], stream=out) == 0
    text = out.getvalue()
    assert "mine/huber_lipschitz" in text and "1 proved" in text
