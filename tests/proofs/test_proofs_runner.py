"""The runner's table, its exit status, and the CLI dispatch (``dpaudit prove``)."""

from __future__ import annotations

import io

import sympy as sp

from dpaudit.bounds.verdict import Verdict
from dpaudit.cli import main as cli_main
from proofs import runner
from proofs._core import LemmaCheck, Proof

FAST = "levy2021/variance_constant_c0"


def _false_claim() -> LemmaCheck:
    """'x^2 >= 1 for every real x' recorded (wrongly) as PROVED: the computed verdict is DISPROVED."""

    def check():
        proof = Proof("test/false")
        x = sp.Symbol("x", real=True)
        proof.nonneg("x^2 - 1 >= 0", x**2 - 1)
        proof.refute("x = 0", {"x": 0}, sp.Integer(0) ** 2 - 1)
        return proof.result()

    return LemmaCheck(name="test/deliberately_mismatched", source="test fixture, Lemma 0", statement="x^2 >= 1 for all real x",
                      expected=Verdict.PROVED, papers=("levy2021",), check=check)


def _true_claim() -> LemmaCheck:
    def check():
        proof = Proof("test/true")
        x = sp.Symbol("x", real=True)
        proof.nonneg("x^2 + 1 >= 0", x**2 + 1)
        return proof.result()

    return LemmaCheck(name="test/true_claim", source="test fixture, Lemma 1", statement="x^2 + 1 >= 0 for all real x",
                      expected=Verdict.PROVED, papers=("lowy2024",), check=check)


def test_proofs_runner_prints_the_table_and_exits_zero():
    out = io.StringIO()
    assert runner.main(["--only", FAST], stream=out) == 0
    text = out.getvalue()
    header = text.splitlines()[0].split()
    assert header == ["lemma", "source", "method", "cases", "verdict", "time"]
    row = next(line for line in text.splitlines() if line.startswith(FAST))
    assert "Levy et al. 2021" in row and "sympy" in row and "proved" in row and row.rstrip().endswith("s")
    assert "1 checks, 1 as expected, 0 not" in text


def test_proofs_runner_exits_nonzero_when_a_verdict_differs_from_expectation():
    out = io.StringIO()
    status = runner.main([], stream=out, checks=[_true_claim(), _false_claim()])
    text = out.getvalue()
    assert status == 1
    assert "disproved !! expected proved" in text
    assert "MISMATCH test/deliberately_mismatched" in text
    assert "1 as expected, 1 not" in text


def test_proofs_runner_reports_an_exception_as_an_error_row():
    def boom():
        raise RuntimeError("broken check")

    broken = LemmaCheck(name="test/raises", source="test fixture, Lemma 2", statement="never evaluated",
                        expected=Verdict.PROVED, papers=("ghazi2023",), check=boom)
    out = io.StringIO()
    assert runner.main([], stream=out, checks=[broken]) == 1
    assert "error !! expected proved" in out.getvalue()
    assert "RuntimeError: broken check" in out.getvalue()


def test_proofs_runner_only_filter():
    out = io.StringIO()
    assert runner.main(["--only", "TRUE_CLAIM"], stream=out, checks=[_true_claim(), _false_claim()]) == 0
    assert "test/deliberately_mismatched" not in out.getvalue()
    assert runner.main(["--only", "no-such-lemma"], stream=io.StringIO()) == 2


def test_proofs_cli_dispatches_prove(capsys):
    assert cli_main(["prove", "--only", FAST]) == 0
    assert FAST in capsys.readouterr().out
