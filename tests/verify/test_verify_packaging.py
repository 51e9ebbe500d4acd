"""Packaging of the built-in checks: ``proofs/`` is installed as ``dpaudit.proofs`` and nothing is installed
under a top-level name that could clash with a user's package (such as ``proofs``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _build_wheel(tmp_path: Path) -> Path:
    """Build a wheel from a clean copy of the sources (no stale ``build/``), offline."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for name in ("dpaudit", "proofs"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
                    "-w", str(out), str(src)], check=True, capture_output=True, text=True)
    (wheel,) = out.glob("dpaudit-*.whl")
    return wheel


def test_verify_wheel_installs_the_checks_under_dpaudit_only(tmp_path):
    names = zipfile.ZipFile(_build_wheel(tmp_path)).namelist()
    top = {n.split("/", 1)[0] for n in names}
    assert top == {"dpaudit", "dpaudit-0.1.0.dist-info"}, top  # no top-level `proofs`
    sources = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "proofs").rglob("*.py") if "__pycache__" not in p.parts)
    missing = [s for s in sources if "dpaudit/" + s not in names]
    assert not missing, missing
    assert "dpaudit/verify/proof.py" in names and "dpaudit/proofs/levy2021/alg3_composition.py" in names


@pytest.mark.slow
def test_verify_installed_wheel_finds_the_builtin_checks(tmp_path):
    """A non-editable install in a fresh venv runs ``dpaudit prove`` and cannot import a top-level ``proofs``."""
    wheel = _build_wheel(tmp_path)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    # the dependencies come from this environment's site-packages (listed, not processed: its editable dpaudit
    # finder stays inactive), so nothing is downloaded
    (site / "_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)], check=True)
    work = tmp_path / "elsewhere"  # not the repository: its folders must not be importable
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    probe = ("import importlib.util, dpaudit.proofs.registry as r; "
             "print(importlib.util.find_spec('proofs') is None, r.__file__, len(r.all_checks()))")
    found = subprocess.run([str(python), "-c", probe], cwd=work, env=env, check=True, capture_output=True, text=True).stdout.split()
    assert found[0] == "True" and found[1].startswith(str(venv)) and int(found[2]) >= 100, found
    run = subprocess.run([str(venv / "bin" / "dpaudit"), "prove", "--only", "levy2021/variance_constant_c0"], cwd=work, env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "levy2021/variance_constant_c0" in run.stdout and "proved" in run.stdout


@pytest.mark.slow
def test_verify_user_script_against_an_installed_wheel(tmp_path):
    """The README's user script, run by a fresh venv's python with dpaudit installed from a wheel (not editable),
    from a folder outside the repository."""
    wheel = _build_wheel(tmp_path)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)], check=True)
    work = tmp_path / "user"
    shutil.copytree(ROOT / "tests" / "verify" / "user_example", work, ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    run = subprocess.run([str(python), "user_script.py"], cwd=work, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    where = subprocess.run([str(python), "-c", "import dpaudit; print(dpaudit.__file__)"], cwd=work, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert where.startswith(str(venv)), where  # the installed wheel, not the repository
    for line in ("clamp is 1-Lipschitz: PROVED", "clamp is 1/2-Lipschitz: DISPROVED", "l2-ball projection (numpy) is nonexpansive: UNDECIDED",
                 "buggy projection is nonexpansive: DISPROVED", "unclipped sum has sensitivity 1: DISPROVED", "mine/huber_lipschitz"):
        assert line in run.stdout, run.stdout

