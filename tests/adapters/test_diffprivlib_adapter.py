"""diffprivlib's own Laplace mechanism, audited as it is: correct, and with a wrong sensitivity.

Needs the ``diffprivlib`` extra; without it these tests skip with a message naming it. Audits are
seeded (diffprivlib's documented RandomState mode), so each verdict is fixed; over seeds a correct
mechanism is flagged at most 1 - confidence of the time.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dpaudit
from dpaudit import NotNeighborsError

mechanisms = pytest.importorskip(
    "diffprivlib.mechanisms", reason="needs the 'diffprivlib' extra: pip install 'dpaudit[diffprivlib]'",
    exc_type=ImportError,
)
from dpaudit.adapters.diffprivlib import DiffprivlibMechanism  # noqa: E402


def test_laplace_at_its_own_epsilon_shows_no_violation_and_a_tight_bound():
    wrapped = DiffprivlibMechanism(mechanisms.Laplace(epsilon=1.0, sensitivity=1.0))
    result = dpaudit.audit(wrapped, 0.0, 1.0, trials=100_000, seed=0)
    assert not result.violation
    assert 0.9 < result.epsilon_lower_bound <= 1.0  # the pair at the full sensitivity is tight
    assert str(wrapped.claimed_guarantee().relation) == "l1 query distance <= 1"


def test_laplace_with_a_wrong_sensitivity_is_flagged():
    # calibrated for sensitivity 0.5, applied to a query whose answers move by 1: true epsilon 2
    wrapped = DiffprivlibMechanism(mechanisms.Laplace(epsilon=1.0, sensitivity=0.5), query_sensitivity=1.0)
    result = dpaudit.audit(wrapped, 0.0, 1.0, trials=100_000, seed=0)
    assert result.violation and result.epsilon_lower_bound > 1.8


def test_the_mechanisms_own_promise_does_not_cover_a_farther_pair():
    wrapped = DiffprivlibMechanism(mechanisms.Laplace(epsilon=1.0, sensitivity=0.5))
    with pytest.raises(NotNeighborsError, match=r"l1 distance 1 exceeds the sensitivity 0.5"):
        dpaudit.audit(wrapped, 0.0, 1.0, trials=1_000, seed=0)


def test_an_integer_mechanism_and_approximate_dp():
    geometric = DiffprivlibMechanism(mechanisms.Geometric(epsilon=1.0, sensitivity=1))
    assert not dpaudit.audit(geometric, 3, 4, trials=50_000, seed=1).violation
    gaussian = DiffprivlibMechanism(mechanisms.GaussianAnalytic(epsilon=1.0, delta=1e-5, sensitivity=1.0))
    claim = gaussian.claimed_guarantee()
    assert (claim.epsilon, claim.delta) == (1.0, 1e-5)
    assert not dpaudit.audit(gaussian, 0.0, 1.0, trials=50_000, seed=2).violation


def test_draws_are_seeded_and_survive_pickling():
    wrapped = DiffprivlibMechanism(mechanisms.Laplace(epsilon=1.0, sensitivity=1.0))  # SystemRandom inside
    again = pickle.loads(pickle.dumps(wrapped))
    a = wrapped.sample(0.0, 50, rng=np.random.default_rng(3))
    b = again.sample(0.0, 50, rng=np.random.default_rng(3))
    assert np.array_equal(a, b) and np.unique(a).size == 50
    assert repr(again) == "diffprivlib Laplace(epsilon=1, sensitivity=1)"


def test_anything_else_is_refused():
    with pytest.raises(dpaudit.InvalidArgument, match="a diffprivlib mechanism"):
        DiffprivlibMechanism(object())


USER_MODULE = """
from diffprivlib.mechanisms import Laplace
from dpaudit.adapters.diffprivlib import DiffprivlibMechanism

laplace = Laplace(epsilon=1.0, sensitivity=1.0)


def wrong_sensitivity():
    return DiffprivlibMechanism(Laplace(epsilon=1.0, sensitivity=0.5), query_sensitivity=1.0)
"""


def test_the_command_line_on_diffprivlib_laplace(tmp_path):
    (tmp_path / "dplmod.py").write_text(USER_MODULE)
    (tmp_path / "d0.json").write_text("0.0")
    (tmp_path / "d1.json").write_text("1.0")
    dpaudit_cli = Path(sys.executable).with_name("dpaudit")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def run(target: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(dpaudit_cli), "audit", target, "--d0", "d0.json", "--d1", "d1.json", "--trials", "30000"],
                              cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)

    good = run("dplmod:laplace")
    assert good.returncode == 0, good.stderr
    assert "diffprivlib Laplace(epsilon=1, sensitivity=1)" in good.stdout and "no violation found" in good.stdout
    wrong = run("dplmod:wrong_sensitivity")
    assert wrong.returncode == 1, wrong.stderr
    assert "used at sensitivity 1" in wrong.stdout and "VIOLATION" in wrong.stdout
