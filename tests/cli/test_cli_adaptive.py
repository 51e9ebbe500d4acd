"""``dpaudit audit --trials auto``: the default, its budget options, and the command that redoes it."""

from __future__ import annotations

import json
import shlex

import pytest

from dpaudit.cli import (
    DEFAULT_MAX_SECONDS,
    DEFAULT_MAX_TRIALS,
    EXIT_BAD_INPUT,
    EXIT_OK,
    EXIT_VIOLATION,
    main,
)

#: The catalogue's Laplace (epsilon = 1) on the worst-case query pair, in small stages.
SMALL = ["audit", "Laplace", "--pair", "query-l1", "--first-trials", "2000", "--max-trials", "20000"]


def run_json(argv: list[str], capsys) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_a_budget_option_makes_a_catalogue_entry_audit_in_stages_with_the_cli_defaults(capsys):
    code, result = run_json(SMALL, capsys)
    assert code == EXIT_OK and result["stages"] and result["stages"][0]["trials"] == 2_000
    assert result["max_trials"] == 20_000 and result["max_seconds"] == DEFAULT_MAX_SECONDS
    assert result["stop_reason"] in {"out of reach", "budget"}


GOOD = """
import numpy as np


def good(data, rng, size=None):
    return np.asarray(data, dtype=float) + rng.laplace(0.0, 1.0, size=size)
"""


def test_a_module_target_is_audited_in_stages_by_default_and_a_catalogue_entry_at_its_own_count(
        tmp_path, monkeypatch, capsys):
    (tmp_path / "adaptive_cli_target.py").write_text(GOOD)
    monkeypatch.chdir(tmp_path)
    code, result = run_json(["audit", "adaptive_cli_target:good", "--pair", "query-l1", "--epsilon", "1"], capsys)
    assert code == EXIT_OK and result["stages"] and result["stages"][0]["trials"] == 100_000
    assert (result["max_trials"], result["max_seconds"]) == (DEFAULT_MAX_TRIALS, DEFAULT_MAX_SECONDS)
    code, result = run_json(["audit", "Laplace", "--pair", "query-l1"], capsys)
    assert result["stages"] == [] and result["stop_reason"] is None


def test_max_time_and_max_stages_reach_the_audit(capsys):
    code, result = run_json([*SMALL, "--epsilon", "1", "--delta", "1e-6", "--max-time", "12.5", "--max-stages", "2"],
                            capsys)  # goes on stage after stage: the stage limit stops it
    assert code == EXIT_OK and result["max_seconds"] == 12.5
    assert len(result["stages"]) == 2 and result["stop_reason"] == "stage limit"


def test_the_printed_command_redoes_the_same_stages(capsys):
    assert main([*SMALL, "--epsilon", "0.97", "--delta", "1e-6", "--max-stages", "2"]) in (EXIT_OK, EXIT_VIOLATION)
    text = capsys.readouterr().out
    command = next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.lstrip().startswith("command "))
    words = shlex.split(command)
    assert words[:2] == ["dpaudit", "audit"] and "--max-stages" in words and "--first-trials" in words
    stages = [line for line in text.splitlines() if line.startswith(" " * 26)]
    main([*words[1:]])
    again = capsys.readouterr().out
    assert [line for line in again.splitlines() if line.startswith(" " * 26)] == stages
    assert "max_trials 20000" in again and f"max_trials {DEFAULT_MAX_TRIALS}" not in again


@pytest.mark.parametrize(("extra", "message"), [
    (["--trials", "5000", "--max-time", "10"], "--max-time sets the budget of --trials auto; it cannot be given with --trials 5000"),
    (["--trials", "5000", "--max-trials", "10000"], "--max-trials sets the budget of --trials auto"),
    (["--max-time", "0"], "`--max-time` must be in (0, inf]; got --max-time=0.0."),
    (["--max-trials", "50"], "`--max-trials` must be an integer >= 100"),
    (["--max-stages", "0"], "`--max-stages` must be an integer >= 1"),
    (["--first-trials", "10"], "`--first-trials` must be an integer >= 100"),
])
def test_bad_budgets_exit_2_with_one_line(extra, message, capsys):
    assert main(["audit", "Laplace", *extra]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_trials_that_are_neither_a_number_nor_auto_exit_2(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["audit", "Laplace", "--trials", "many"])
    assert stop.value.code == EXIT_BAD_INPUT
    assert "argument --trials: must be an integer >= 100 or auto; got 'many'" in capsys.readouterr().err


def test_a_plain_callable_on_a_named_pair_is_checked_under_that_pair_s_relation(tmp_path, monkeypatch, capsys):
    (tmp_path / "pair_cli_target.py").write_text(GOOD)
    monkeypatch.chdir(tmp_path)
    code, result = run_json(["audit", "pair_cli_target:good", "--pair", "query-l1", "--epsilon", "1", "--trials", "2000"],
                            capsys)
    assert code == EXIT_OK
    assert not any("NOT checked" in note for note in result["notes"]), result["notes"]
