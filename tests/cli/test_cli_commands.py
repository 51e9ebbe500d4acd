"""The command line, in process: demo, the parser, catalogue audits, bad input and exit codes."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import numpy as np
import pytest

from dpaudit.catalogue import run_demo
from dpaudit.cli import EXIT_BAD_INPUT, EXIT_OK, EXIT_VIOLATION, build_parser, main


def test_demo_json_on_a_small_scale():
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["demo", "--json", "--scale", "0.02", "--only", "discrete laplace,lyu alg. 5"]) == 0
    report = json.loads(buf.getvalue())
    names = [row["mechanism"] for row in report["entries"]]
    assert names == ["discrete Laplace", "truncated discrete Laplace", "Lyu Alg. 5 sparse vector"]
    assert [row["violation"] for row in report["entries"]] == [False, False, True]
    assert {row["group"] for row in report["entries"]} == {"primitives"}


def test_demo_table_has_the_columns():
    buf = io.StringIO()
    run_demo(scale=0.02, only="randomized response", stream=buf)
    text = buf.getvalue()
    for column in ("mechanism", "claim", "relation", "eps >=", "verdict", "time"):
        assert column in text
    assert "randomized response (k=2)" in text and "0 of 2 flagged" in text


def test_parser_knows_the_commands():
    parser = build_parser()
    for command in ("demo", "prove", "bounds"):
        assert parser.parse_args([command]).command == command
    assert parser.parse_args(["audit", "laplace"]).target == "laplace"
    assert parser.parse_args(["report", "laplace"]).output == "dpaudit-report.html"


@pytest.mark.parametrize("command", ["demo", "audit", "report", "prove", "bounds"])
def test_every_subcommand_help_shows_an_example(command, capsys):
    with pytest.raises(SystemExit) as stop:
        main([command, "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "example" in out and f"dpaudit {command}" in out.split("example", 1)[1]


def test_a_catalogue_violation_exits_1_with_its_evidence(capsys):
    assert main(["audit", "lyu alg. 5", "--trials", "2000"]) == EXIT_VIOLATION
    out = capsys.readouterr().out
    assert "VIOLATION" in out and "counts" in out and "the catalogue entry's pair" in out


def test_a_correct_catalogue_entry_exits_0_and_an_exact_name_wins(capsys):
    # "Laplace" is also a substring of two other entries; the exact name picks one
    assert main(["audit", "Laplace", "--trials", "5000"]) == EXIT_OK
    assert "LaplaceMechanism(epsilon=1.0" in capsys.readouterr().out


def test_an_ambiguous_name_lists_the_choices(capsys):
    assert main(["audit", "sparse"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "matches 5 catalogue entries" in err and "Lyu Alg. 4 sparse vector" in err


def test_a_catalogue_entry_on_a_named_pair_and_a_tighter_claim(capsys):
    # Laplace(epsilon=1) audited against epsilon = 0.5 on the worst-case query pair: a violation
    code = main(["audit", "Laplace", "--pair", "query-l1", "--epsilon", "0.5", "--trials", "20000", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == EXIT_VIOLATION and result["violation"] and result["claimed_epsilon"] == 0.5


BAD_INPUTS = [
    (["audit", "Laplace", "--epsilon", "-1"], "`--epsilon` must be in [0, inf); got --epsilon=-1.0."),
    (["audit", "Laplace", "--delta", "1"], "`--delta` must be in [0, 1); got --delta=1.0."),
    (["audit", "Laplace", "--trials", "10"], "`--trials` must be an integer >= 100; got --trials=10."),
    (["audit", "Laplace", "--confidence", "1.5"], "`--confidence` must be in (0, 1); got --confidence=1.5."),
    (["audit", "Laplace", "--workers", "0"], "`--workers` must be an integer >= 1; got --workers=0."),
    (["audit", "Laplace", "--seed", "-3"], "`--seed` must be an integer >= 0; got --seed=-3."),
    (["audit", "Laplace", "--epsilon", "abc"], "argument --epsilon: invalid float value: 'abc'"),
    (["audit", "no such entry"], "'no such entry' matches no catalogue entry"),
    (["audit", "Laplace", "--pair", "user-swap"], "--pair must be one of item-replace"),
    (["audit", "Laplace", "--pair", "query-l1", "--d0", "a.npy"], "either --d0 FILE --d1 FILE or --pair NAME"),
    (["audit", "Laplace", "--d0", "a.npy"], "give both --d0 FILE and --d1 FILE"),
    (["audit", "Laplace", "--shape", "3"], "--shape only apply with --pair NAME"),
    (["audit", "Laplace", "--pair", "user-replace", "--shape", "3x0"], "--shape must be sizes >= 1"),
    (["audit", "Laplace", "--pair", "user-replace", "--shape", "3"], "of at least 2 dimension(s)"),
    (["audit", "Laplace", "--pair", "user-replace", "--low", "1", "--high", "0"], "greater than low=1.0"),
    (["audit", "Laplace", "--pair", "query-l1", "--low", "0", "--high", "5"], "--low and --high do not apply to --pair query-l1"),
    (["audit", "Laplace", "--d0", "big.csv", "--d1", "big.csv"], "the integer 4611686018427388404 is beyond 2**53"),
    (["audit", "Laplace", "--d0", "missing.npy", "--d1", "missing.npy"], "--d0 'missing.npy': no such file"),
    (["audit", "Laplace", "--d0", "data.txt", "--d1", "data.txt"], "unsupported file type '.txt'"),
    (["audit", "dpaudit_no_such_module:fn", "--pair", "query-l1", "--epsilon", "1"], "no module named 'dpaudit_no_such_module'"),
    (["audit", "dpaudit.mechanisms:NoSuch", "--pair", "query-l1"], "'dpaudit.mechanisms' has no attribute 'NoSuch'"),
    (["audit", "dpaudit.mechanisms:LaplaceMechanism", "--pair", "query-l1"], "is a class; point at an instance"),
    (["audit", "dpaudit.mechanisms:LaplaceMechanism"], "needs a pair: give --d0 FILE --d1 FILE or --pair NAME"),
    (["audit", "numpy:pi", "--pair", "query-l1"], "is a float object, not a mechanism"),
    # not neighbours under the mechanism's relation: the auditor's own message, on one line
    (["audit", "Laplace", "--pair", "query-l2", "--shape", "2"],
     "the datasets are not neighbours under l1 query distance <= 1: l1 distance 1.414213562373095 exceeds"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_INPUTS, ids=[" ".join(a[2:]) or a[1] for a, _ in BAD_INPUTS])
def test_bad_input_exits_2_with_one_line_naming_it(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data.txt").write_text("0\n")
    (tmp_path / "big.csv").write_text("1.5, 4611686018427388404\n")
    assert _status(argv) == EXIT_BAD_INPUT
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"dpaudit {argv[0]}: error: ") and message in lines[0], lines[0]
    assert "Traceback" not in captured.err


def _status(argv: list[str]) -> int | str | None:
    """main()'s exit status, whether it returns it or argparse exits with it."""
    try:
        return main(argv)
    except SystemExit as stop:
        return stop.code


def test_a_mechanism_that_raises_is_reported_on_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken_mech.py").write_text(
        "def fn(data, rng, size=None):\n    raise ZeroDivisionError('the noise scale is 0')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["audit", "broken_mech:fn", "--pair", "query-l1", "--epsilon", "1"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "the mechanism raised ZeroDivisionError: the noise scale is 0" in err


def test_files_in_each_format_give_the_same_audit(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    d0, d1 = np.array([0.0, 0.0]), np.array([1.0, 0.0])
    np.save(tmp_path / "d0.npy", d0)
    np.save(tmp_path / "d1.npy", d1)
    (tmp_path / "d0.csv").write_text("0,0\n")
    (tmp_path / "d1.csv").write_text("1,0\n")
    (tmp_path / "d0.json").write_text("[0, 0]")
    (tmp_path / "d1.json").write_text("[1.0, 0.0]")
    bounds = []
    for ext in ("npy", "csv", "json"):
        assert main(["audit", "Laplace", "--d0", f"d0.{ext}", "--d1", f"d1.{ext}", "--trials", "5000", "--json"]) == EXIT_OK
        bounds.append(json.loads(capsys.readouterr().out)["epsilon_lower_bound"])
    assert bounds[0] == bounds[1] == bounds[2] > 0


def test_workers_give_the_serial_result(capsys, monkeypatch):
    import concurrent.futures

    from dpaudit.auditor import executors

    pools = []

    class RecordingPool(concurrent.futures.ProcessPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):
            pools.append((self._max_workers, 1))
            return super().submit(fn, *args, **kwargs)

    monkeypatch.setattr(executors, "ProcessPoolExecutor", RecordingPool)
    # two blocks per dataset (block size 2**20 for a scalar output), so the pool really splits work
    argv = ["audit", "Laplace", "--trials", str(2**21), "--json"]
    assert main(argv) == EXIT_OK
    serial = json.loads(capsys.readouterr().out)
    assert pools == []
    assert main([*argv, "--workers", "2"]) == EXIT_OK
    parallel = json.loads(capsys.readouterr().out)
    assert pools == [(2, 1)] * 4  # four blocks drawn in a pool of two processes, one task each
    timing = {k for k in serial if k.endswith("seconds")}
    assert {k: v for k, v in serial.items() if k not in timing} == {k: v for k, v in parallel.items() if k not in timing}


def test_workers_refuse_a_mechanism_other_processes_cannot_receive(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "closure_mech.py").write_text(
        "import numpy as np\n"
        "def make():\n"
        "    def noisy(data, rng, size=None):\n"
        "        return np.asarray(data) + rng.laplace(0, 1, size=size)\n"
        "    return noisy\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["audit", "closure_mech:make", "--pair", "query-l1", "--epsilon", "1", "--workers", "2"]) == EXIT_BAD_INPUT
    assert "--workers 2 needs a mechanism that can be sent to other processes" in capsys.readouterr().err


def test_the_reproduce_command_redoes_the_audit(tmp_path, monkeypatch, capsys):
    import shlex

    from dpaudit.cli import reproduce_command

    monkeypatch.chdir(tmp_path)
    argv = ["report", "Laplace", "--pair", "query-l1", "--trials", "3000", "--seed", "7", "--output", "r.html"]
    assert main(argv) == EXIT_OK
    first = (tmp_path / "r.html").read_text()
    capsys.readouterr()
    args = build_parser().parse_args(argv)
    from dpaudit._cli_inputs import prepare_case
    from dpaudit.auditor import audit

    case = prepare_case(args)
    result = audit(case.mechanism, case.d0, case.d1, trials=case.trials, seed=7)
    command = reproduce_command(args, result)
    words = shlex.split(command)
    assert words[:2] == ["dpaudit", "report"] and "--seed" in words and words[words.index("--seed") + 1] == "7"
    assert command in first.replace("&#x27;", "'")
    assert main([*words[1:-2], "--output", "again.html", "--json"]) == EXIT_OK
    again = json.loads(capsys.readouterr().out)
    assert again["epsilon_lower_bound"] == result.epsilon_lower_bound


_SAMPLERS = '''
import numpy as np


def naive(data, rng, size=None):
    """Laplace noise added in floating point: private over the reals, not in IEEE-754 [Mironov 2012]."""
    return data + rng.laplace(scale=1.0, size=size)


def shared(data, rng, size=None):
    """NOT a valid sampler: one noise draw for every row of a call."""
    return np.full(size, data + rng.laplace(scale=1.0))
'''


@pytest.fixture
def samplers(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "samplers.py").write_text(_SAMPLERS)
    monkeypatch.syspath_prepend(str(tmp_path))
    return ["--pair", "query-l1", "--shape", "scalar", "--epsilon", "1", "--trials", "20000", "--no-progress"]


def test_float_bits_reaches_the_audit(samplers, capsys):
    assert main(["audit", "samplers:naive", *samplers]) == EXIT_OK
    assert "float bits" not in capsys.readouterr().out
    assert main(["audit", "samplers:naive", *samplers, "--float-bits"]) == EXIT_VIOLATION
    assert "attack            : float bits" in capsys.readouterr().out


def test_spot_check_refuses_a_sampler_whose_rows_share_randomness(samplers, capsys):
    # the false alarm the check prevents, with the check off
    assert main(["audit", "samplers:shared", *samplers, "--spot-check", "0"]) == EXIT_VIOLATION
    capsys.readouterr()
    for extra in ([], ["--spot-check", "200"]):  # by default for a plain callable about to be flagged, and on request
        assert main(["audit", "samplers:shared", *samplers, *extra]) == EXIT_BAD_INPUT
        assert "independent draws failed" in capsys.readouterr().err


def test_attack_options_reach_the_audit_and_the_reproduce_command(samplers, capsys):
    from dpaudit.cli import reproduce_command

    argv = ["audit", "samplers:naive", *samplers, "--candidates", "3", "--selection-fraction", "0.2", "--json"]
    assert main(argv) == EXIT_OK
    result = json.loads(capsys.readouterr().out)
    assert result["candidates_evaluated"] == 3 and result["selection_trials"] == 4000
    args = build_parser().parse_args([*argv[:-1], "--float-bits", "--spot-check", "50"])
    words = reproduce_command(args, type("R", (), {"claimed_epsilon": 1.0, "delta": 0.0, "trials": 20000})())
    assert words.endswith("--float-bits --spot-check 50 --candidates 3 --selection-fraction 0.2")
