"""Red team s30 on ``dpaudit prove`` and ``verify.lipschitz``.

* F4: a PROVED that rests on a symbol's declared domain (``t`` positive: ``1/t - 1/(t + 1) >= 0`` is false for ``t`` in
  ``(-1, 0)``) prints that hypothesis beside the verdict, in the default table, the claims and ``--premises``; and
  lipschitz's claim names its parameters' declared assumptions (``a*x`` given ``a <= 1`` is 1-Lipschitz only because
  ``a`` is declared positive; ``x/k`` only because ``k`` is a positive integer).
* F5: a check that calls ``sys.exit`` is an error row; the other checks run and the exit status is 1.
* F9: a module under ``--path`` that cannot be loaded is a one-line usage error, exit status 2, no traceback.
"""

from __future__ import annotations

import io
import sys
import textwrap
import threading

import pytest
import sympy as sp

from dpaudit.cli import main as cli_main
from dpaudit.verify import LemmaCheck, Proof, Verdict, lipschitz, runner
from dpaudit.verify.discovery import CheckLoadError, checks_in_path

T = sp.Symbol("t", positive=True)
N = sp.Symbol("n", integer=True, positive=True)
X = sp.Symbol("x", real=True)


def _nonneg_check(name: str, expr: sp.Expr) -> LemmaCheck:
    def run():
        proof = Proof(name)
        proof.nonneg(f"{expr} >= 0", expr)
        return proof.result()

    return LemmaCheck(name=name, source="red team s30", statement=f"{expr} >= 0", expected=Verdict.PROVED, check=run)


def _row_of(text: str, name: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(name))


# -- F4: the hypotheses a PROVED rests on are printed --------------------------------------------------------------


def test_prove_prints_the_symbols_declared_domains_beside_a_proved_verdict():
    checks = [_nonneg_check("mine/inv", 1 / T - 1 / (T + 1)), _nonneg_check("mine/logn", sp.log(N)),
              _nonneg_check("mine/square", X**2)]
    out = io.StringIO()
    assert runner.main([], stream=out, checks=checks) == 0
    text = out.getvalue()
    assert "symbols: t > 0" in _row_of(text, "mine/inv")  # in the default table, not only with a flag
    assert "symbols: n > 0 integer" in _row_of(text, "mine/logn")
    # statements are over the reals: a symbol declared only real restricts nothing and is not listed
    assert "x real" not in _row_of(text, "mine/square") and _row_of(text, "mine/square").split()[-2] == "-"
    assert "2 of the proved verdicts hold only under hypotheses" in text


def test_prove_claims_and_premises_name_the_hypotheses():
    checks = [_nonneg_check("mine/inv", 1 / T - 1 / (T + 1))]
    out = io.StringIO()
    assert runner.main(["--claims", "--premises"], stream=out, checks=checks) == 0
    text = out.getvalue()
    assert "mine/inv: proved: -1/(t + 1) + 1/t >= 0 [hypotheses: symbols: t > 0]" in text
    # no premise is taken on trust, and the listing does not stop there: the hypotheses follow, with their users
    assert "premises taken on trust: none" in text
    tail = text.split("premises taken on trust: none", 1)[1]
    assert "hypotheses the proved verdicts hold under" in tail and "symbols: t > 0" in tail and "used by 1: mine/inv" in tail


def test_lipschitz_claim_names_the_parameters_declared_sign():
    a = sp.Symbol("a", positive=True)
    result = lipschitz(a * X, 1, variables=[X], where=[a <= 1])
    assert result.verdict is Verdict.PROVED
    # false at a = -5, which "given a <= 1" alone allows: the claim must say a > 0
    assert result.claim.endswith("given a <= 1, a > 0"), result.claim
    assert "a > 0" in result.domain


def test_lipschitz_claim_names_an_integer_parameter():
    k = sp.Symbol("k", integer=True, positive=True)
    result = lipschitz(X / k, 1, variables=[X])
    assert result.verdict is Verdict.PROVED
    # false at k = 1/2: the claim must say k is an integer >= 1
    assert result.claim.endswith("given k >= 1, k integer"), result.claim
    # a parameter declared only real restricts nothing: the claim adds no hypothesis
    b = sp.Symbol("b", real=True)
    plain = lipschitz(sp.Min(sp.Max(X, b), b + 1), 1, variables=[X])
    assert plain.verdict is Verdict.PROVED and "given" not in plain.claim, plain.claim


def test_prove_table_shows_a_lipschitz_parameters_sign():
    a = sp.Symbol("a", positive=True)
    check = LemmaCheck(name="mine/ax", source="red team s30", statement="a x is 1-Lipschitz for a <= 1",
                       expected=Verdict.PROVED, check=lambda: lipschitz(a * X, 1, variables=[X], where=[a <= 1]))
    out = io.StringIO()
    assert runner.main([], stream=out, checks=[check]) == 0
    row = _row_of(out.getvalue(), "mine/ax")
    assert "domain: a <= 1, a > 0" in row and "symbols: a > 0" in row
    assert "||f(x) - f(y)||" not in row  # the claim is printed as the claim (--claims), not repeated as a hypothesis


# -- F5: a check that calls sys.exit ---------------------------------------------------------------------------------


def _exiting_check(name: str, code: object) -> LemmaCheck:
    def run():
        proof = Proof(name)
        proof.nonneg("x^2 - 1 >= 0 (false)", X**2 - 1)
        sys.exit(code)

    return LemmaCheck(name=name, source="red team s30", statement="x^2 >= 1", expected=Verdict.PROVED, check=run)


@pytest.mark.parametrize("code", [0, None, "bye"])
def test_prove_reports_a_check_that_calls_sys_exit_as_an_error_and_runs_the_others(code):
    checks = [_exiting_check("mine/exit", code), _nonneg_check("mine/square", X**2)]
    out = io.StringIO()
    assert runner.main([], stream=out, checks=checks) == 1
    text = out.getvalue()
    assert "error !! expected proved" in _row_of(text, "mine/exit")
    assert "proved" in _row_of(text, "mine/square")  # the check after it still ran
    assert "MISMATCH mine/exit" in text and "sys.exit" in text


def test_run_check_off_the_main_thread_reports_sys_exit_too():
    rows: list[runner.Row] = []
    worker = threading.Thread(target=lambda: rows.append(runner.run_check(_exiting_check("mine/exit", 0), timeout=30)))
    worker.start()
    worker.join(60)
    assert rows and rows[0].status == "error" and "sys.exit(0)" in rows[0].error


# -- F9: a --path module that cannot be loaded --------------------------------------------------------------------

_BAD_MODULES = {
    "syntax": ("def f(:\n", "SyntaxError"),
    "not_a_check": ("CHECK = 5\n", "is not a dpaudit.verify.LemmaCheck"),
    "checks_not_iterable": ("CHECKS = 5\n", "TypeError"),
    "raises": ("raise RuntimeError('at import')\n", "RuntimeError: at import"),
    "exits": ("import sys\nsys.exit(0)\n", "sys.exit(0)"),
    "duplicate": (textwrap.dedent('''
        from dpaudit.verify import LemmaCheck, Verdict
        C = LemmaCheck(name="mine/dup", source="me", statement="s", expected=Verdict.UNDECIDED, check=lambda: None)
        CHECKS = (C, C)
        '''), "duplicate check name 'mine/dup'"),
}


@pytest.mark.parametrize("kind", sorted(_BAD_MODULES))
def test_prove_path_with_a_bad_module_is_a_one_line_usage_error(tmp_path, capsys, kind):
    source, message = _BAD_MODULES[kind]
    (tmp_path / f"{kind}.py").write_text(source)
    out = io.StringIO()
    assert runner.main(["--no-builtin", "--path", str(tmp_path)], stream=out) == 2
    text = out.getvalue()
    assert text.count("\n") == 1 and message in text and "Traceback" not in text, text
    assert kind in text or kind == "duplicate"  # names the file that failed
    # the same through the command line: exit 2, one line, no traceback
    assert cli_main(["prove", "--no-builtin", "--path", str(tmp_path)]) == 2
    printed = capsys.readouterr()
    assert printed.out.count("\n") == 1 and message in printed.out and "Traceback" not in printed.out + printed.err
    with pytest.raises(CheckLoadError):
        checks_in_path(tmp_path)
    if kind != "duplicate":  # a module that failed to import is not left half-initialised in sys.modules
        assert not any(name.startswith("_dpaudit_user_checks_") and name.endswith(f".{kind}") for name in sys.modules)
