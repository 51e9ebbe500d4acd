"""A newcomer's paper cuts: counts in scientific notation, close names for a typo, pools that cannot
start, replay hints, messages written for a person, OpenDP and diffprivlib on the command line, and
tables that fit the terminal."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import textwrap
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest
import sympy as sp

import dpaudit
from dpaudit._rng import TrialStreams
from dpaudit._table import clip, render
from dpaudit._validation import check_count
from dpaudit.catalogue import _demo_widths
from dpaudit.cli import EXIT_BAD_INPUT, EXIT_VIOLATION, _count, main
from dpaudit.errors import InvalidArgument, MechanismError
from dpaudit.mechanisms import LaplaceMechanism


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse errors exit
            code = exc.code
    return code, out.getvalue(), err.getvalue()


# -- counts ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "expected"), [(1e5, 100_000), (np.float64(2e4), 20_000), (300, 300), (np.int64(7), 7)])
def test_counts_accept_integral_floats(value, expected):
    got = check_count("audit", "trials", value, minimum=1)
    assert got == expected and type(got) is int


@pytest.mark.parametrize("value", [1.5, 150.5, float("nan"), float("inf"), True, "1e5"])
def test_counts_refuse_the_rest(value):
    with pytest.raises(InvalidArgument, match="`trials` must be"):
        check_count("audit", "trials", value, minimum=1)


def test_counts_keep_their_minimum():
    with pytest.raises(InvalidArgument, match="`trials` must be an integer >= 100; got trials=10"):
        check_count("audit", "trials", 1e1, minimum=100)


def test_audit_takes_trials_in_scientific_notation():
    as_float = dpaudit.audit(LaplaceMechanism(epsilon=1.0), 0.0, 1.0, trials=2e4, seed=3)
    as_int = dpaudit.audit(LaplaceMechanism(epsilon=1.0), 0.0, 1.0, trials=20_000, seed=3)
    assert as_float.trials == 20_000 and as_float.epsilon_lower_bound == as_int.epsilon_lower_bound


@pytest.mark.parametrize(("text", "expected"), [("1e6", 1_000_000), ("100_000", 100_000), ("2.5e3", 2_500), ("400", 400)])
def test_command_line_counts(text, expected):
    assert _count(text) == expected


def test_command_line_refuses_a_fractional_count():
    code, _, err = _run(["audit", "laplace", "--trials", "150.5"])
    assert code == EXIT_BAD_INPUT and "argument --trials: must be an integer >= 100 or auto; got '150.5'" in err


def test_command_line_audit_with_trials_1e4():
    code, out, _ = _run(["audit", "laplace", "--trials", "1e4", "--json", "--no-progress"])
    assert code == 0 and '"trials": 10000' in out


# -- names -------------------------------------------------------------------------------------------


def test_a_typo_gets_the_closest_names_not_the_whole_catalogue():
    code, _, err = _run(["audit", "lapalce"])
    assert code == EXIT_BAD_INPUT
    line = err.strip()
    assert "did you mean: Laplace;" in line and len(line.split("; ")) <= 6 and "\n" not in line
    assert "Gaussian" not in line  # not the catalogue's other names


def test_an_ambiguous_name_lists_a_few_matches():
    code, _, err = _run(["audit", "svt"])
    assert code == EXIT_BAD_INPUT and "matches 8 catalogue entries" in err and "(3 more)" in err


def test_nothing_close_points_at_the_demo():
    code, _, err = _run(["audit", "qqqqqq"])
    assert code == EXIT_BAD_INPUT and "`dpaudit demo` lists the catalogue's names" in err


# -- pools and replay hints --------------------------------------------------------------------------


def test_a_pool_from_standard_input_is_refused_with_the_cause():
    script = textwrap.dedent("""
        from dpaudit.auditor.executors import make_executor
        try:
            with make_executor(workers=2):
                pass
        except Exception as exc:
            print(type(exc).__name__, exc)
    """)
    done = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("InvalidArgument") and "read from standard input" in done.stdout
    assert "save the code in a .py file" in done.stdout


def test_a_mechanism_in_a_file_less_main_is_named_as_the_cause():
    script = textwrap.dedent("""
        import numpy as np, dpaudit
        from dpaudit.auditor.executors import make_executor
        def mech(data, rng, size=None):
            return rng.laplace(float(np.mean(data)), 1.0, size=size)
        with make_executor(workers=1) as pool:
            try:
                dpaudit.audit(mech, 0.0, 1.0, epsilon=1.0, trials=2000, seed=0, block_size=1000, executor=pool)
            except dpaudit.MechanismError as exc:
                print(exc)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert "has no file that worker processes can import it from" in done.stdout, done.stdout + done.stderr
    assert "may have died" not in done.stdout


def test_the_replay_hint_rebuilds_the_blocks_generator():
    def fails_on_block_3(data, rng, size=None):
        fails_on_block_3.calls += 1
        if fails_on_block_3.calls == 4:
            raise RuntimeError("boom")
        return rng.laplace(data, 1.0, size)

    fails_on_block_3.calls = 0
    with pytest.raises(MechanismError) as info:
        dpaudit.audit(fails_on_block_3, 0.0, 1.0, epsilon=1.0, trials=3_000, seed=21, block_size=300)
    message = str(info.value)
    hint = re.search(r"rng=(numpy\.random\.default_rng\(numpy\.random\.SeedSequence\(.*?\)\)\))", message)
    assert hint, message
    rng = eval(hint.group(1), {"numpy": np})  # the hint is Python a person can paste
    streams = TrialStreams(info.value.seed_entropy, info.value.block_size)
    expected = streams.block_generator(info.value.dataset, info.value.block)
    assert np.array_equal(rng.random(5), expected.random(5))
    assert "TrialStreams(" not in message


# -- messages ----------------------------------------------------------------------------------------


def test_an_object_of_the_wrong_kind_gets_its_article(tmp_path, monkeypatch):
    (tmp_path / "intmod_paper_cuts.py").write_text("x = 3\n")
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(["audit", "intmod_paper_cuts:x", "--pair", "query-l1"])
    assert code == EXIT_BAD_INPUT and "is an int object, not a mechanism" in err


def test_a_float_lipschitz_constant_is_printed_as_the_float():
    x = sp.Symbol("x", real=True)
    claim = dpaudit.verify.lipschitz(sp.Min(sp.Max(x, -1), 1), 0.9).claim
    assert "<= 0.9 (the float's exact binary value) ||x - y||" in claim and "9007199254740992" not in claim
    assert "<= 9/10 ||" in dpaudit.verify.lipschitz(sp.Min(sp.Max(x, -1), 1), sp.Rational(9, 10)).claim
    assert "<= 1/2 ||" in dpaudit.verify.lipschitz(sp.Min(sp.Max(x, -1), 1), 0.5).claim


# -- OpenDP and diffprivlib --------------------------------------------------------------------------


def _module(tmp_path, monkeypatch, name: str, source: str) -> None:
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    (tmp_path / "d0.json").write_text("0.0")
    (tmp_path / "d1.json").write_text("1.0")
    monkeypatch.chdir(tmp_path)


def test_an_opendp_profile_without_delta_is_one_clear_line(tmp_path, monkeypatch):
    pytest.importorskip("opendp", reason="needs the 'opendp' extra", exc_type=ImportError)
    _module(tmp_path, monkeypatch, "odmod_paper_cuts", """
        import opendp.prelude as dp
        dp.enable_features("contrib")
        gaussian = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    """)
    code, _, err = _run(["audit", "odmod_paper_cuts:gaussian", "--d0", "d0.json", "--d1", "d1.json"])
    assert code == EXIT_BAD_INPUT and err.count("\n") == 1
    assert "`delta` must be given" in err and "--delta D" in err and "d_in=" not in err


def test_an_opendp_audit_says_it_is_slow_and_unseeded(tmp_path, monkeypatch):
    pytest.importorskip("opendp", reason="needs the 'opendp' extra", exc_type=ImportError)
    _module(tmp_path, monkeypatch, "odmod_paper_cuts2", """
        import opendp.prelude as dp
        dp.enable_features("contrib")
        laplace = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    """)
    code, out, err = _run(["audit", "odmod_paper_cuts2:laplace", "--d0", "d0.json", "--d1", "d1.json", "--trials", "1e3",
                           "--no-progress"])
    assert code == 0, err
    assert "much slower than a vectorised numpy mechanism's" in err and "--seed does not reproduce it" in err
    assert "ignores the rng it is given" in out and "does not reproduce these outputs" in out


def test_seeded_mechanisms_get_no_seed_note():
    result = dpaudit.audit(LaplaceMechanism(epsilon=1.0), 0.0, 1.0, trials=1_000, seed=0)
    assert not any("ignores the rng" in note for note in result.notes)


def test_diffprivlib_query_sensitivity_from_the_command_line(tmp_path, monkeypatch):
    pytest.importorskip("diffprivlib.mechanisms", reason="needs the 'diffprivlib' extra", exc_type=ImportError)
    _module(tmp_path, monkeypatch, "dplmod_paper_cuts", """
        from diffprivlib.mechanisms import Laplace
        half = Laplace(epsilon=1.0, sensitivity=0.5)
    """)
    base = ["audit", "dplmod_paper_cuts:half", "--d0", "d0.json", "--d1", "d1.json", "--trials", "1e5", "--no-progress"]
    told, out, _ = _run([*base, "--query-sensitivity", "1"])
    assert told == EXIT_VIOLATION and "used at sensitivity 1" in out and "--query-sensitivity 1.0" not in out
    code, _, err = _run(["audit", "laplace", "--query-sensitivity", "2"])
    assert code == EXIT_BAD_INPUT and "not to a catalogue entry" in err


# -- tables ------------------------------------------------------------------------------------------


def test_a_table_fits_the_width_and_wraps_long_cells():
    rows = [("levy2021/clipped_mean_sensitivity", "Levy et al. 2021, Alg 1 line 2 and Thm 1 proof " * 4, "proved", "1.2s")]
    lines = render(("lemma", "source", "verdict", "time"), rows, right=(3,), width=60)
    assert max(len(line) for line in lines) <= 60 and len(lines) > 3
    joined = " ".join(" ".join(line.split()) for line in lines[2:])
    assert "Thm 1 proof" in joined and "proved" in joined
    unlimited = render(("lemma", "source", "verdict", "time"), rows, right=(3,))
    assert len(unlimited) == 3 and rows[0][1].rstrip() in unlimited[2]


def test_bounds_table_fits_a_terminal():
    from dpaudit.bounds.table import build_table, render_table

    table = build_table()
    assert max(len(line) for line in render_table(table, width=120).split("\nNormalisation")[0].splitlines()) <= 120
    assert max(len(line) for line in render_table(table).splitlines()) > 200  # a file gets every cell whole


def test_demo_names_are_cut_with_an_ellipsis():
    assert clip("a" * 60, 48) == "a" * 47 + "…" and clip("short", 48) == "short"
    assert _demo_widths(None) == (48, 27)
    name, relation = _demo_widths(100)
    assert name + relation + 13 + 8 + 18 + 9 + 6 + 7 <= 100 and name >= 16
