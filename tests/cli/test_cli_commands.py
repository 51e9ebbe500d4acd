"""The command line: ``dpaudit demo`` prints the verdict table (JSON variant checked here)."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

from dpaudit.catalogue import run_demo
from dpaudit.cli import build_parser, main


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
    assert parser.parse_args(["audit", "laplace"]).name == "laplace"


def test_audit_one_entry_prints_its_evidence(capsys):
    assert main(["audit", "lyu alg. 5", "--trials", "2000", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "VIOLATION" in out and "counts" in out


def test_audit_with_an_ambiguous_name_lists_the_choices(capsys):
    assert main(["audit", "sparse"]) == 2
    assert "choose one of" in capsys.readouterr().err
