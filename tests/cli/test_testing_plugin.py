"""``dpaudit.testing.assert_private`` and the pytest plugin, in process and in a user's project.

Verdicts use the fixed default seed, so they are deterministic; over seeds a correct mechanism
fails at most 1 - 0.999 of the time (the default confidence). The leaky mechanisms leak twice
their claimed epsilon.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from dpaudit import InvalidArgument
from dpaudit.mechanisms import LaplaceMechanism
from dpaudit.testing import DEFAULT_CONFIDENCE, DEFAULT_MAX_TRIALS, DEFAULT_TRIALS, assert_private

REPO = Path(__file__).resolve().parents[2]


def half_noise(data, rng, size=None):
    """Laplace noise for sensitivity 1/2 on a sensitivity-1 query: 2-DP, claimed 1-DP."""
    return np.asarray(data, dtype=float) + rng.laplace(0.0, 0.5, size=size)


def test_a_correct_mechanism_passes_and_returns_its_audit():
    [result] = assert_private(LaplaceMechanism(1.0), 0.0, 1.0)
    assert DEFAULT_TRIALS == "auto" and result.stages and result.stop_reason in {"out of reach", "budget"}
    assert not result.violation and result.confidence == DEFAULT_CONFIDENCE
    assert result.max_trials == DEFAULT_MAX_TRIALS and result.trials <= DEFAULT_MAX_TRIALS
    assert result.max_seconds is None  # no time limit by default: the verdict does not depend on the machine
    assert 0.9 < result.epsilon_lower_bound <= 1.0  # the pair is tight: the bound comes close


def test_the_adaptive_budget_is_passed_on_and_refused_with_a_fixed_count():
    [result] = assert_private(LaplaceMechanism(1.0), 0.0, 1.0, max_trials=5_000, max_seconds=60.0, first_trials=1_000)
    assert result.max_trials == 5_000 and result.max_seconds == 60.0 and result.stages[0].trials == 1_000
    [fixed] = assert_private(LaplaceMechanism(1.0), 0.0, 1.0, trials=2_000)
    assert fixed.trials == 2_000 and fixed.stages == ()
    with pytest.raises(InvalidArgument, match="`max_trials` must be left out with a fixed trial count"):
        assert_private(LaplaceMechanism(1.0), 0.0, 1.0, trials=2_000, max_trials=5_000)


def test_a_leak_fails_with_the_evidence_and_the_same_message_every_run():
    with pytest.raises(AssertionError) as first:
        assert_private(half_noise, 0.0, 1.0, epsilon=1.0)
    with pytest.raises(AssertionError) as second:
        assert_private(half_noise, 0.0, 1.0, epsilon=1.0)
    message = str(first.value)
    untimed = [[line for line in str(e.value).splitlines() if not line.lstrip().startswith("time")] for e in (first, second)]
    assert untimed[0] == untimed[1]
    assert message.startswith("half_noise leaks: epsilon >= 1.9")
    for evidence in ("exceeds the claimed 1 at delta = 0", "seed 0", "counts", "P[numerator]", "P[denominator]", "event"):
        assert evidence in message


def test_several_pairs_share_the_false_failure_rate():
    pairs = [(0.0, 1.0), (0.0, -1.0), (3.0, 2.5)]
    results = assert_private(LaplaceMechanism(1.0), pairs=pairs, trials=20_000)
    assert [r.confidence for r in results] == pytest.approx([1 - 0.001 / 3] * 3)
    assert len({r.seed_entropy for r in results}) == 3  # independent streams
    with pytest.raises(AssertionError, match=r"leaks on pair 1 of 2"):
        assert_private(half_noise, pairs=[(0.0, 0.25), (0.0, 1.0)], epsilon=1.0, trials=20_000)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"d0": 0.0}, "`assert_private`: `d0, d1` must be both given"),
    ({"d0": 0.0, "d1": 1.0, "pairs": [(0.0, 1.0)]}, "`assert_private`: `pairs` must be given without d0 and d1"),
    ({"pairs": []}, "`assert_private`: `pairs` must be a non-empty sequence"),
    ({"d0": 0.0, "d1": 1.0, "confidence": 1.0}, "`assert_private`: `confidence` must be in (0, 1)"),
])
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(InvalidArgument, match=message.replace("(", r"\(").replace(")", r"\)")):
        assert_private(LaplaceMechanism(1.0), **kwargs)


USER_TESTS = '''
import numpy as np
from dpaudit.testing import assert_private


def laplace(data, rng, size=None):
    return np.asarray(data, dtype=float) + rng.laplace(0.0, 1.0, size=size)


def half_noise(data, rng, size=None):
    return np.asarray(data, dtype=float) + rng.laplace(0.0, 0.5, size=size)


def test_correct_with_the_fixture(assert_dp):
    [result] = assert_dp(laplace, 0.0, 1.0, epsilon=1.0)
    print("BUDGET", result.max_trials, result.max_seconds, result.seed_entropy, len(result.stages))


def test_leaky_with_the_fixture(assert_dp):
    assert_dp(half_noise, 0.0, 1.0, epsilon=1.0)


def test_leaky_with_the_function():
    assert_private(half_noise, 0.0, 1.0, epsilon=1.0)


def test_where_dpaudit_comes_from():
    import dpaudit
    print("DPAUDIT FROM", dpaudit.__file__)
'''


def _user_project(tmp_path: Path) -> Path:
    project = tmp_path / "user_project"
    project.mkdir()
    (project / "test_privacy.py").write_text(USER_TESTS)
    (project / "pytest.ini").write_text("[pytest]\nfilterwarnings = error\n")
    return project


def _pytest(python: Path | str, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST"))}
    return subprocess.run([str(python), "-m", "pytest", "-p", "no:cacheprovider", "-rA", *args], cwd=project,
                          capture_output=True, text=True, env=env, timeout=600)


def _check_user_run(done: subprocess.CompletedProcess[str]) -> None:
    out = done.stdout
    assert done.returncode == 1, out[-3000:] + done.stderr[-2000:]
    assert "PASSED test_privacy.py::test_correct_with_the_fixture" in out, out[-3000:]
    assert "FAILED test_privacy.py::test_leaky_with_the_fixture" in out
    assert "FAILED test_privacy.py::test_leaky_with_the_function" in out
    assert "half_noise leaks: epsilon >= 1.9" in out and "counts" in out
    assert "2 failed, 2 passed" in out


def test_the_plugin_in_a_user_project_run_with_this_environment(tmp_path):
    project = _user_project(tmp_path)
    _check_user_run(_pytest(sys.executable, project))
    helped = _pytest(sys.executable, project, "--help")
    assert "--dpaudit-trials=N|auto" in helped.stdout and "--dpaudit-seed=S" in helped.stdout
    assert f"(default {DEFAULT_TRIALS})" in " ".join(helped.stdout.split())  # help text is wrapped
    assert "--dpaudit-max-trials=N" in helped.stdout and "--dpaudit-max-time=SECONDS" in helped.stdout
    budget = _pytest(sys.executable, project, "-s", "-k", "correct", "--dpaudit-max-trials", "5000",
                     "--dpaudit-max-time", "30", "--dpaudit-seed", "7")
    assert budget.returncode == 0 and "BUDGET 5000 30.0 7 " in budget.stdout, budget.stdout[-3000:]
    # the fixture's options reach the audit: 100 trials cannot show the leak
    few = _pytest(sys.executable, project, "--dpaudit-trials", "100", "-k", "fixture")
    assert few.returncode == 0, few.stdout[-3000:]


def test_the_plugin_loads_nothing_heavy_until_the_fixture_is_used():
    """pytest imports the plugin into every session: it must not import the auditor, numpy, scipy or sympy."""
    probe = ("import sys, pytest, dpaudit.pytest_plugin; "
             "print(sorted(m for m in ('numpy', 'scipy', 'sympy', 'dpaudit.auditor', 'dpaudit.testing') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]", f"the pytest plugin imported {loaded}"


def test_the_plugin_help_shows_the_real_defaults():
    from dpaudit.pytest_plugin import _DEFAULTS_SHOWN
    from dpaudit.testing import DEFAULT_MAX_TRIALS, DEFAULT_SEED

    assert _DEFAULTS_SHOWN == {"trials": DEFAULT_TRIALS, "max_trials": DEFAULT_MAX_TRIALS, "seed": DEFAULT_SEED}


def _fresh_environment(tmp_path: Path) -> Path:
    """A new virtual environment that sees this one's packages except dpaudit (no network needed)."""
    env_dir = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=120)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    shared = tmp_path / "shared-site-packages"
    shared.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.lower().startswith(("dpaudit", "__editable__")) and entry.suffix != ".pth":
            (shared / entry.name).symlink_to(entry)
    (site / "shared.pth").write_text(f"{shared}\n")
    return python


def test_the_plugin_in_a_project_that_installs_dpaudit(tmp_path):
    """pip-install dpaudit (no dependencies, no build isolation: offline) into a fresh environment."""
    source = tmp_path / "dpaudit-source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):  # pyproject.toml maps proofs/ to dpaudit.proofs
        shutil.copy(REPO / name, source / name)
    for package in ("dpaudit", "proofs"):
        shutil.copytree(REPO / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    python = _fresh_environment(tmp_path)
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index", str(source)],
        capture_output=True, text=True, timeout=600,
    )
    assert install.returncode == 0, install.stdout[-2000:] + install.stderr[-3000:]
    project = _user_project(tmp_path)
    done = _pytest(python, project, "-s")
    _check_user_run(done)
    where = next(line for line in done.stdout.splitlines() if "DPAUDIT FROM" in line)
    assert str(tmp_path / "venv") in where, where  # the installed copy, not this checkout
