"""``dpaudit report --output`` never overwrites the audited target's own source, even with ``--force``;
``audit-scores`` on an empty CSV prints one error line and no numpy warning."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from test_cli_records import audits  # noqa: F401 - the fixture that runs no audit (a sibling test module)

from dpaudit.cli import EXIT_BAD_INPUT, main

SOURCE = '''import numpy as np
def good(data, rng, size=None):
    return np.asarray(data, float) + rng.laplace(0.0, 1.0, size)
'''


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    np.save(tmp_path / "d0.npy", np.array(0.0))
    np.save(tmp_path / "d1.npy", np.array(1.0))
    for name in ("i20b_target", "i20b_pkg", "i20b_pkg.mech"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    yield tmp_path
    for name in ("i20b_target", "i20b_pkg", "i20b_pkg.mech"):
        sys.modules.pop(name, None)


def _layout(folder: Path) -> None:
    (folder / "i20b_target.py").write_text(SOURCE)
    (folder / "i20b_pkg").mkdir()
    (folder / "i20b_pkg" / "__init__.py").write_text("")
    (folder / "i20b_pkg" / "mech.py").write_text(SOURCE)
    (folder / "sub").mkdir()
    (folder / "sub" / "link.py").symlink_to(folder / "i20b_target.py")


@pytest.mark.parametrize(("target", "output"), [
    ("i20b_target:good", "i20b_target.py"),
    ("i20b_target:good", "./sub/../i20b_target.py"),
    ("i20b_target:good", "sub/link.py"),
    ("i20b_pkg.mech:good", "i20b_pkg/mech.py"),
], ids=["module-file", "other-spelling", "symlink", "package-module"])
def test_the_targets_source_file_is_never_the_output_even_with_force(folder, audits, capsys, target, output):  # noqa: F811 - the imported fixture
    _layout(folder)
    before = {p: p.read_bytes() for p in folder.rglob("*.py")}
    code = main(["report", target, "--d0", "d0.npy", "--d1", "d1.npy", "--epsilon", "1", "--trials", "1000",
                 "--output", output, "--force"])
    err = capsys.readouterr().err
    assert code == EXIT_BAD_INPUT and audits == [], err
    assert err.startswith(f"dpaudit report: error: --output {output!r} is the source file of TARGET {target!r}"), err
    assert "--force never overwrites it" in err and err.count("\n") == 1
    assert {p: p.read_bytes() for p in folder.rglob("*.py")} == before


def test_audit_scores_on_an_empty_csv_prints_one_line(folder, capsys):
    (folder / "empty.csv").write_text("")
    np.save(folder / "s1.npy", np.zeros(100))
    with warnings.catch_warnings(record=True) as caught:  # outside pytest a warning prints before the error
        warnings.simplefilter("always")
        code = main(["audit-scores", "empty.csv", "s1.npy", "--epsilon", "1"])
    err = capsys.readouterr().err
    assert [str(w.message) for w in caught] == []
    assert code == EXIT_BAD_INPUT, err
    assert err.count("\n") == 1 and err.startswith("dpaudit audit-scores: error: "), err
