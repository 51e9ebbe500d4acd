"""``dpaudit prove``: the table with its premises column, the expected verdicts as a regression snapshot
(improvements are not failures), per-check timeouts, ``--path`` for a user's own checks, ``--no-builtin``
and ``--premises``."""

from __future__ import annotations

import io
import textwrap
import time

import sympy as sp

from dpaudit.cli import main as cli_main
from dpaudit.verify import LemmaCheck, Proof, Verdict, runner

FAST = "levy2021/variance_constant_c0"
X = sp.Symbol("x", real=True)


def _check(name: str, expected: Verdict, step: str, timeout: float | None = None) -> LemmaCheck:
    def run():
        proof = Proof(name)
        if step == "sleep":
            time.sleep(5)
        proof.cite("[Folklore] squares", "squares of reals are non-negative")
        if step == "true":
            proof.nonneg("x^2 + 1 >= 0", X**2 + 1)
        elif step == "undecided":
            proof.nonneg("p - 1 >= 0", sp.Symbol("p", positive=True) - 1)
        elif step == "false":
            proof.nonneg("x^2 - 1 >= 0", X**2 - 1)
            proof.refute("x = 0", {"x": 0}, sp.Integer(0) ** 2 - 1)
        return proof.result()

    return LemmaCheck(name=name, source="test fixture, Lemma 0", statement=f"{step} claim", expected=expected,
                      check=run, papers=("levy2021",) if step == "true" else (), timeout=timeout)


def test_verify_runner_prints_the_table_with_premises_and_exits_zero():
    out = io.StringIO()
    assert runner.main(["--only", FAST], stream=out) == 0
    text = out.getvalue()
    assert text.splitlines()[0].split() == ["lemma", "source", "method", "cases", "verdict", "premises", "time"]
    row = next(line for line in text.splitlines() if line.startswith(FAST))
    assert "Levy et al. 2021" in row and "proved" in row and "variances add" in row and row.rstrip().endswith("s")
    assert "1 check, 1 as expected, 0 improved, 0 not" in text


def test_verify_runner_exits_nonzero_on_a_mismatch():
    out = io.StringIO()
    checks = [_check("test/true", Verdict.PROVED, "true"), _check("test/false", Verdict.PROVED, "false")]
    assert runner.main([], stream=out, checks=checks) == 1
    text = out.getvalue()
    assert "disproved !! expected proved" in text and "MISMATCH test/false" in text and "1 as expected" in text


def test_verify_runner_reports_an_improvement_without_failing():
    out = io.StringIO()
    assert runner.main([], stream=out, checks=[_check("test/better", Verdict.UNDECIDED, "true")]) == 0
    text = out.getvalue()
    assert "proved (improved from undecided)" in text and "IMPROVED test/better" in text and "1 improved, 0 not" in text
    # the other direction is a regression
    assert runner.main([], stream=io.StringIO(), checks=[_check("test/worse", Verdict.PROVED, "undecided")]) == 1


def test_verify_runner_times_a_check_out_as_undecided():
    slow = _check("test/slow", Verdict.UNDECIDED, "sleep", timeout=0.2)
    start = time.perf_counter()
    row = runner.run_check(slow)
    assert time.perf_counter() - start < 4
    assert row.result is not None and row.result.verdict is Verdict.UNDECIDED
    assert row.result.reason == "timed out after 0.2 s" and row.status == "ok"
    # a check expected PROVED that times out is a mismatch, with the reason
    out = io.StringIO()
    expected_proved = _check("test/slow-proved", Verdict.PROVED, "sleep")
    assert runner.main(["--timeout", "0.2"], stream=out, checks=[expected_proved]) == 1
    assert "timed out after 0.2 s" in out.getvalue()


def test_verify_runner_reports_an_exception_as_an_error_row():
    def boom():
        raise RuntimeError("broken check")

    broken = LemmaCheck(name="test/raises", source="test fixture, Lemma 2", statement="never evaluated",
                        expected=Verdict.PROVED, check=boom)
    out = io.StringIO()
    assert runner.main([], stream=out, checks=[broken]) == 1
    assert "error !! expected proved" in out.getvalue() and "RuntimeError: broken check" in out.getvalue()


def test_verify_runner_only_filter_and_usage_errors():
    checks = [_check("test/true", Verdict.PROVED, "true"), _check("test/false", Verdict.PROVED, "false")]
    out = io.StringIO()
    assert runner.main(["--only", "TRUE"], stream=out, checks=checks) == 0
    assert "test/false" not in out.getvalue()
    assert runner.main(["--only", "no-such-lemma"], stream=io.StringIO()) == 2
    assert runner.main(["--no-builtin"], stream=io.StringIO()) == 2
    assert runner.main(["--timeout", "0"], stream=io.StringIO(), checks=checks) == 2


def _write_user_checks(folder) -> None:
    (folder / "_helper.py").write_text("SQUARE = 'x^2'\n")  # a helper: skipped
    (folder / "notes.py").write_text("VALUE = 1\n")  # no CHECK: skipped
    (folder / "mine.py").write_text(textwrap.dedent('''
        import sympy as sp
        from dpaudit.verify import LemmaCheck, Proof, Region, Verdict

        def _run():
            proof = Proof("mine/abs_triangle")
            x, y = sp.symbols("x y", real=True)
            proof.cite("[Mine] notes", "my own premise")
            proof.cases("|x + y| <= |x| + |y|", sp.Abs(x) + sp.Abs(y) - sp.Abs(x + y), Region.signs(x, y))
            return proof.result()

        CHECK = LemmaCheck(name="mine/abs_triangle", source="my notes, eq. (1)", statement="|x + y| <= |x| + |y|",
                           expected=Verdict.PROVED, check=_run)
    '''))


def test_verify_runner_runs_a_users_own_checks(tmp_path):
    _write_user_checks(tmp_path)
    out = io.StringIO()
    assert runner.main(["--path", str(tmp_path), "--no-builtin", "--premises"], stream=out) == 0
    text = out.getvalue()
    assert "mine/abs_triangle" in text and "[Mine] notes" in text
    assert "1 check, 1 as expected" in text and "no paper 1 (1 proved)" in text
    assert text.count("[Mine] notes: my own premise") == 1  # --premises lists each premise once
    empty = tmp_path / "empty"
    empty.mkdir()
    assert runner.main(["--path", str(empty), "--no-builtin"], stream=io.StringIO()) == 2
    assert runner.main(["--path", str(tmp_path / "missing"), "--no-builtin"], stream=io.StringIO()) == 2


def test_verify_runner_lists_the_premises_once():
    rows = runner.run_checks([_check("test/a", Verdict.PROVED, "true"), _check("test/b", Verdict.UNDECIDED, "undecided")])
    text = runner.format_premises(rows)
    assert text.count("[Folklore] squares:") == 1 and "used by 2: test/a, test/b" in text


def test_verify_cli_dispatches_prove(capsys, tmp_path):
    assert cli_main(["prove", "--only", FAST]) == 0
    assert FAST in capsys.readouterr().out
    _write_user_checks(tmp_path)
    assert cli_main(["prove", "--path", str(tmp_path), "--no-builtin", "--premises", "--timeout", "60"]) == 0
    printed = capsys.readouterr().out
    assert "mine/abs_triangle" in printed and "premises taken on trust" in printed and FAST not in printed
