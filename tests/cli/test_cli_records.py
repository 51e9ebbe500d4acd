"""The command line keeps the user's files and runs only the code it was pointed at.

* ``dpaudit report --output`` is checked before the audit: a missing folder, a folder, one of the
  run's own inputs (``--d0``, ``--d1``, ``--checkpoint``) or an existing file without ``--force``
  is refused with exit 2, and nothing is audited;
* a ``module:callable`` target is loaded from its file without putting the current directory in
  front of installed packages, so a local ``matplotlib.py`` does not run inside ``dpaudit report``;
  user code that raises ``SystemExit`` cannot escape the exit-code contract;
* ``--block-size`` reaches the audit (a checkpointed plain callable records progress block by block).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dpaudit.auditor.cases as cases
from dpaudit.cli import EXIT_BAD_INPUT, EXIT_OK, main

DPAUDIT = Path(sys.executable).with_name("dpaudit")


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    np.save(tmp_path / "d0.npy", np.array(0.0))
    np.save(tmp_path / "d1.npy", np.array(1.0))
    return tmp_path


@pytest.fixture
def audits(monkeypatch: pytest.MonkeyPatch) -> list:
    """Record the audits run (and run none): the output checks must come first."""
    calls: list = []

    def fake(*args, **kwargs):
        calls.append((args, kwargs))
        raise AssertionError("the audit ran before the output path was checked")

    monkeypatch.setattr(cases, "audit", fake)
    return calls


@pytest.mark.parametrize(("output", "extra", "message"), [
    ("missing/report.html", [], "--output 'missing/report.html': the folder 'missing' does not exist"),
    (".", [], "--output '.' is a folder"),
    ("d0.npy", [], "--output 'd0.npy' is the --d0 input"),
    ("d0.npy", ["--force"], "--output 'd0.npy' is the --d0 input"),
    ("./d1.npy", ["--force"], "--output './d1.npy' is the --d1 input"),
    ("ck.sqlite", ["--checkpoint", "ck.sqlite", "--force"], "--output 'ck.sqlite' is the --checkpoint file"),
    ("old.html", [], "--output 'old.html' exists; pass --force to overwrite it"),
], ids=["missing-folder", "a-folder", "d0", "d0-forced", "d1-forced", "checkpoint", "exists"])
def test_a_bad_output_path_is_refused_before_the_audit(folder, audits, capsys, output, extra, message):
    (folder / "old.html").write_text("keep me")
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    code = main(["report", "laplace", "--d0", "d0.npy", "--d1", "d1.npy", "--trials", "1000", "--json",
                 "--output", output, *extra])
    err = capsys.readouterr().err
    assert code == EXIT_BAD_INPUT and audits == [], err
    assert err == f"dpaudit report: error: {message}\n"
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == before


def test_force_overwrites_an_existing_report(folder, capsys):
    (folder / "old.html").write_text("old")
    code = main(["report", "laplace", "--d0", "d0.npy", "--d1", "d1.npy", "--trials", "1000", "--output", "old.html",
                 "--force", "--json"])
    assert code == EXIT_OK, capsys.readouterr().err
    assert (folder / "old.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert json.loads(capsys.readouterr().out)["violation"] is False


def test_block_size_reaches_a_checkpointed_audit(folder, capsys):
    code = main(["audit", "laplace", "--d0", "d0.npy", "--d1", "d1.npy", "--trials", "2000", "--block-size", "500",
                 "--checkpoint", "ck.sqlite", "--json"])
    assert code == EXIT_OK, capsys.readouterr().err
    result = json.loads(capsys.readouterr().out)
    assert result["block_size"] == 500
    assert any("8 blocks recorded" in note for note in result["notes"]), result["notes"]
    code = main(["audit", "laplace", "--d0", "d0.npy", "--d1", "d1.npy", "--trials", "2000", "--block-size", "0"])
    assert code == EXIT_BAD_INPUT
    assert "`--block-size` must be" in capsys.readouterr().err


USER_MODULE = '''
import numpy as np


def good(data, rng, size=None):
    """Laplace noise of scale 1 on a sensitivity-1 query: 1-DP."""
    return np.asarray(data, dtype=float) + rng.laplace(0.0, 1.0, size=size)


def exits(data, rng, size=None):
    raise SystemExit(42)
'''


def _run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([str(DPAUDIT), *args], cwd=folder, capture_output=True, text=True, env=env, timeout=300)


def test_a_local_module_named_like_an_installed_package_does_not_run(tmp_path):
    (tmp_path / "mymod.py").write_text(USER_MODULE)
    (tmp_path / "matplotlib.py").write_text("raise SystemExit(42)\n")
    np.save(tmp_path / "d0.npy", np.array(0.0))
    np.save(tmp_path / "d1.npy", np.array(1.0))
    done = _run(tmp_path, "report", "mymod:good", "--d0", "d0.npy", "--d1", "d1.npy", "--epsilon", "1",
                "--trials", "2000", "--output", "r.html")
    assert done.returncode == 0, (done.returncode, done.stderr)
    assert (tmp_path / "r.html").exists()


def test_a_target_that_would_shadow_an_installed_module_is_refused(tmp_path):
    (tmp_path / "json.py").write_text(USER_MODULE)
    np.save(tmp_path / "d0.npy", np.array(0.0))
    np.save(tmp_path / "d1.npy", np.array(1.0))
    done = _run(tmp_path, "audit", "json:good", "--d0", "d0.npy", "--d1", "d1.npy", "--epsilon", "1", "--trials", "1000")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "json.py in the current directory has the name of the installed module 'json'" in done.stderr


def test_user_code_raising_systemexit_keeps_the_exit_code_contract(tmp_path):
    (tmp_path / "mymod.py").write_text(USER_MODULE)
    (tmp_path / "exiting.py").write_text("raise SystemExit(42)\n")
    np.save(tmp_path / "d0.npy", np.array(0.0))
    np.save(tmp_path / "d1.npy", np.array(1.0))
    done = _run(tmp_path, "audit", "mymod:exits", "--d0", "d0.npy", "--d1", "d1.npy", "--epsilon", "1", "--trials", "1000")
    assert done.returncode == 2 and "the mechanism raised SystemExit" in done.stderr, (done.returncode, done.stderr)
    done = _run(tmp_path, "audit", "exiting:fn", "--d0", "d0.npy", "--d1", "d1.npy", "--epsilon", "1", "--trials", "1000")
    assert done.returncode == 2 and "importing 'exiting' raised SystemExit" in done.stderr, (done.returncode, done.stderr)


def test_a_report_that_cannot_be_written_after_the_audit_still_prints_the_result(folder, capsys, monkeypatch):
    import dpaudit.report

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(dpaudit.report, "write_report", full_disk)
    code = main(["report", "laplace", "--d0", "d0.npy", "--d1", "d1.npy", "--trials", "1000", "--json",
                 "--output", "r.html"])
    out, err = capsys.readouterr()
    assert code == EXIT_BAD_INPUT and json.loads(out)["trials"] == 1000
    assert err.startswith("dpaudit report: error: --output 'r.html' could not be written (OSError: ") and err.count("\n") == 1
