"""The command line audits the pair the files hold: float64 rounding may not change how d0 and d1 differ."""

from __future__ import annotations

import json
import sys
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest

from dpaudit import _cli_inputs
from dpaudit._cli_inputs import CommandLineError
from dpaudit._exact_literals import DIFFERENCE_TOLERANCE
from dpaudit.cli import EXIT_BAD_INPUT, EXIT_OK, main

# A 1-DP Laplace mechanism on q(D) = sum(D) - 9007199254740993 computed exactly from the values it is
# given: exactly 1-DP on the red team's pairs (which differ by 1), 2-DP on their float64 roundings.
EXACT_SUM = '''
from fractions import Fraction
import numpy as np
def fn(data, rng, size=None):
    a = np.asarray(data)
    q = float(sum(Fraction(float(v)) for v in a.ravel()) - 9007199254740993)
    return q + rng.laplace(0.0, 1.0, size=size)
'''

# (file name, d0 text, d1 text) from the red team's attempts (s31, cli/): decimal, exponent, JSON, below 2**53
RED_TEAM_PAIRS = [
    ("bf.csv", "9007199254740993.0\n", "9007199254740994.0\n"),
    ("be.csv", "9.007199254740993e15\n", "9.007199254740994e15\n"),
    ("bf.json", "[9007199254740993.0]", "[9007199254740994.0]"),
    ("h.csv", "4503599627370496.5\n", "4503599627370497.5\n"),
]


def _write_pair(tmp_path, name: str, text0: str, text1: str) -> tuple[str, str]:
    stem, suffix = name.split(".")
    (tmp_path / f"{stem}0.{suffix}").write_text(text0)
    (tmp_path / f"{stem}1.{suffix}").write_text(text1)
    return str(tmp_path / f"{stem}0.{suffix}"), str(tmp_path / f"{stem}1.{suffix}")


@pytest.mark.parametrize(("name", "text0", "text1"), RED_TEAM_PAIRS, ids=[p[0] for p in RED_TEAM_PAIRS])
def test_the_red_teams_pairs_are_refused_not_audited_two_apart(name, text0, text1, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the command line appends the target's folder
    module = "exactsum_fx31_" + name.replace(".", "_")
    monkeypatch.delitem(sys.modules, module, raising=False)
    (tmp_path / f"{module}.py").write_text(EXACT_SUM)
    path0, path1 = _write_pair(tmp_path, name, text0, text1)
    status = main(["audit", f"{module}:fn", "--d0", path0, "--d1", path1, "--epsilon", "1", "--trials", "20000"])
    captured = capsys.readouterr()
    assert status == EXIT_BAD_INPUT, captured.out
    message = captured.err.strip()
    literal0, literal1 = text0.strip(" \n[]"), text1.strip(" \n[]")
    assert f"{literal0} and {literal1} differ by exactly 1, but as float64 they differ by 2" in message, message
    assert "2**-26" in message and len(message.splitlines()) == 1


def test_the_error_names_row_and_column(tmp_path):
    path0, path1 = _write_pair(tmp_path, "m.csv", "0.5, 1.5\n2.5, 9007199254740993.0\n",
                               "0.5, 1.5\n2.5, 9007199254740994.0\n")
    with pytest.raises(CommandLineError, match=r"row 2, column 2: 9007199254740993\.0 and 9007199254740994\.0"):
        _cli_inputs.load_pair(path0, path1)


@pytest.mark.parametrize(("text0", "text1"), [
    ("0.1, 0.2, 0.3\n", "0.1, 0.7, 0.3\n"),  # ordinary decimals, none held exactly by float64
    ("0.1, 0.2\n", "0.10, 0.2\n"),  # equal as numbers, written differently
    ("1e-300, 5\n", "-1e-300, 5\n"),  # tiny but normal, far apart relative to their size
    ("9007199254740993.0, 1\n", "0, 1\n"),  # rounded by 1, but 9e15 apart
    ("1.5, 2\n", "1.500001, 2\n"),  # differ in the 7th significant digit
])
def test_ordinary_decimals_are_read_as_before(text0, text1, tmp_path):
    path0, path1 = _write_pair(tmp_path, "o.csv", text0, text1)
    d0, d1 = _cli_inputs.load_pair(path0, path1)
    assert np.array_equal(d0, np.loadtxt(path0, delimiter=",")) and np.array_equal(d1, np.loadtxt(path1, delimiter=","))


def test_an_ordinary_decimal_pair_is_still_audited(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    (tmp_path / "plainsum_fx31.py").write_text(
        "import numpy as np\ndef fn(data, rng, size=None):\n    return float(np.sum(data)) + rng.laplace(0.0, 1.0, size=size)\n")
    path0, path1 = _write_pair(tmp_path, "a.json", "[0.1, 0.2, 0.3]", "[0.1, 0.7, 0.3]")
    assert main(["audit", "plainsum_fx31:fn", "--d0", path0, "--d1", path1, "--epsilon", "1", "--trials", "2000",
                 "--json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["violation"] is False


def _decimal(value: Fraction) -> str:
    """The exact decimal spelling of a dyadic rational."""
    with localcontext() as context:
        context.prec = 200
        return str(Decimal(value.numerator) / Decimal(value.denominator))


@pytest.mark.parametrize(("k", "refused"), [(2**24, True), (2**24 + 1, False)])
def test_the_tolerance_is_2_to_the_minus_26_of_the_difference(k, refused, tmp_path):
    # d0 = 1 + 2**-54 is read as 1.0; d1 = 1 + k 2**-52 is held exactly. The difference k 2**-52 - 2**-54
    # is read as k 2**-52: a relative change of 1 / (4k - 1), just above 2**-26 for k = 2**24, below it for k + 1.
    literal0, literal1 = _decimal(1 + Fraction(1, 2**54)), _decimal(1 + Fraction(k, 2**52))
    exact = Fraction(k, 2**52) - Fraction(1, 2**54)
    assert (abs(Fraction(k, 2**52) - exact) > DIFFERENCE_TOLERANCE * exact) is refused
    path0, path1 = _write_pair(tmp_path, "t.csv", literal1 + "\n", literal0 + "\n")
    if refused:
        with pytest.raises(CommandLineError, match="more than 2\\*\\*-26 of the difference"):
            _cli_inputs.load_pair(path0, path1)
    else:
        _cli_inputs.load_pair(path0, path1)


@pytest.mark.parametrize(("text0", "text1", "message"), [
    # distinct as written, equal as float64: the pair audited would be no pair at all
    ("[0.1]", "[0.1000000000000000055511151231257827]", "as float64 they differ by 0"),
    ("[1e-400]", "[0]", "differ by exactly 1e-400, but as float64 they differ by 0"),
    # a JSON integer in a float array is rounded like a decimal
    ("[9007199254740993, 0.5]", "[9007199254740994, 0.5]", "differ by exactly 1, but as float64 they differ by 2"),
])
def test_numbers_that_rounding_makes_equal_or_moves_are_refused(text0, text1, message, tmp_path):
    path0, path1 = _write_pair(tmp_path, "c.json", text0, text1)
    with pytest.raises(CommandLineError, match=message):
        _cli_inputs.load_pair(path0, path1)


def test_a_binary_file_is_taken_as_exact_against_a_text_one(tmp_path):
    np.save(tmp_path / "b0.npy", np.array([9007199254740992.0, 1.0]))
    (tmp_path / "b1.csv").write_text("9007199254740993.0, 1\n")
    with pytest.raises(CommandLineError, match=r"row 1: 9007199254740992\.0 and 9007199254740993\.0 differ by exactly 1"):
        _cli_inputs.load_pair(str(tmp_path / "b0.npy"), str(tmp_path / "b1.csv"))
    (tmp_path / "b2.csv").write_text("9007199254740994.0, 1\n")
    _cli_inputs.load_pair(str(tmp_path / "b0.npy"), str(tmp_path / "b2.csv"))  # held exactly: nothing rounded


def test_datasets_of_different_shapes_keep_their_shared_rows(tmp_path):
    # adding a row: the shared rows are equal as written, so they round alike; nothing to refuse
    path0, path1 = _write_pair(tmp_path, "s.csv", "9007199254740993.0\n0.1\n", "9007199254740993.0\n")
    d0, d1 = _cli_inputs.load_pair(path0, path1)
    assert d0.shape == (2,) and d1.shape == () and d0[0] == d1


def test_a_finite_number_beyond_float64_is_refused(tmp_path):
    path0, path1 = _write_pair(tmp_path, "i.json", "[0, 1e400]", "[0, 1]")
    with pytest.raises(CommandLineError, match=r"--d0 .* row 2: 1e400 is beyond float64's range"):
        _cli_inputs.load_pair(path0, path1)


@pytest.mark.parametrize(("argv", "message"), [
    (["--delta", "1e-400"], "argument --delta: '1e-400' is below float64's normal range (it would be read as 0.0)"),
    (["--epsilon", "1e-310"], "argument --epsilon: '1e-310' is below float64's normal range (it would be read as 1e-310)"),
    (["--epsilon", "1e400"], "argument --epsilon: '1e400' is beyond float64's range (it would be read as inf)"),
    (["--query-sensitivity=-1e-320"], "argument --query-sensitivity: '-1e-320' is below float64's normal range"),
])
def test_an_option_that_float64_would_change_is_refused(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["audit", "Laplace", *argv])
    assert stop.value.code == EXIT_BAD_INPUT
    assert message in capsys.readouterr().err


def test_zero_and_small_normal_options_pass(capsys):
    assert main(["audit", "Laplace", "--delta", "0", "--trials", "200", "--json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["delta"] == 0.0
    assert main(["audit", "Laplace", "--delta", "1e-300", "--trials", "200", "--json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["delta"] == 1e-300
