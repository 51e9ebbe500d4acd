"""OpenDP measurements, their claims read from their privacy maps: correct, and with a wrong d_in.

Needs the ``opendp`` extra; without it these tests skip with a message naming it.

OpenDP cannot be seeded, so these audits are random. Each verdict test runs at confidence 0.999:
a correct measurement fails with probability at most 1e-3 per audit (the auditor's validity,
counted in tests/statistical). The leaks are of twice the claimed epsilon; with 10,000 trials the
bound lands near 1.8, so missing one would need a deviation of many standard errors.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import dpaudit

dp = pytest.importorskip("opendp.prelude", reason="needs the 'opendp' extra: pip install 'dpaudit[opendp]'",
                         exc_type=ImportError)
from dpaudit.adapters import adapt  # noqa: E402
from dpaudit.adapters.opendp import OpenDPMeasurement, input_distance  # noqa: E402

dp.enable_features("contrib")
CONFIDENCE = 0.999
TRIALS = 10_000


def laplace(scale: float):
    return dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=scale)


def test_the_claim_is_the_privacy_map():
    assert OpenDPMeasurement(laplace(2.0), d_in=1.0).claimed_guarantee().epsilon == 0.5
    gaussian = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=4.0)
    claim = OpenDPMeasurement(gaussian, d_in=1.0, delta=1e-3).claimed_guarantee()
    # OpenDP's own unit-test value for this conversion (scale 4, d_in 1, delta 1e-3)
    assert claim.epsilon == pytest.approx(0.6880024554878085, rel=1e-12) and claim.delta == 1e-3
    with pytest.raises(dpaudit.InvalidArgument, match="`delta` must be given for a ZeroConcentratedDivergence"):
        OpenDPMeasurement(gaussian, d_in=1.0)


def test_laplace_at_its_own_epsilon_shows_no_violation():
    result = dpaudit.audit(OpenDPMeasurement(laplace(1.0), d_in=1.0), 0.0, 1.0, trials=TRIALS, confidence=CONFIDENCE)
    assert not result.violation, result


def test_laplace_told_a_wrong_sensitivity_is_flagged():
    # scale 0.5 gives epsilon 1 at d_in = 0.5; the query's answers really move by 1: epsilon 2
    wrong = OpenDPMeasurement(laplace(0.5), d_in=0.5, query_sensitivity=1.0)
    assert wrong.claimed_guarantee().epsilon == 1.0
    result = dpaudit.audit(wrong, 0.0, 1.0, trials=TRIALS, confidence=CONFIDENCE)
    assert result.violation and result.epsilon_lower_bound > 1.5, result


def test_a_zcdp_gaussian_at_its_converted_claim():
    gaussian = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    result = dpaudit.audit(OpenDPMeasurement(gaussian, d_in=1.0, delta=1e-5), 0.0, 1.0, trials=TRIALS,
                           confidence=CONFIDENCE)
    assert not result.violation and result.delta == 1e-5


def test_input_distances_and_adapt():
    vectors = (dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l2_distance(T=float))
    assert input_distance(dp.m.make_gaussian(*vectors, scale=1.0), [0.0, 0.0], [3.0, 4.0]) == pytest.approx(5.0)
    summed = (dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance()) >> \
        dp.t.then_clamp((0.0, 1.0)) >> dp.t.then_sum() >> dp.m.then_laplace(1.0)
    assert input_distance(summed, [0.5, 0.2, 0.2], [0.2, 0.5]) == 1
    wrapped = adapt(summed, [0.5, 0.2, 0.2], [0.2, 0.5])
    assert wrapped.d_in == 1 and wrapped.claimed_guarantee().relation is None
    assert wrapped.sample([0.5, 0.2], 3, rng=None).shape == (3,)
    assert adapt(object()) is None
    # |0.1 - 0.3| is 0.19999999999999998 in floating point; the claim must not be read below 0.2
    assert input_distance(laplace(1.0), 0.1, 0.3) >= 0.2


USER_MODULE = """
import opendp.prelude as dp
from dpaudit.adapters.opendp import OpenDPMeasurement

dp.enable_features("contrib")
space = dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)
laplace = dp.m.make_laplace(*space, scale=1.0)


def wrong_d_in():
    return OpenDPMeasurement(dp.m.make_laplace(*space, scale=0.5), d_in=0.5, query_sensitivity=1.0)
"""


def test_the_command_line_on_an_opendp_measurement(tmp_path):
    (tmp_path / "odpmod.py").write_text(USER_MODULE)
    (tmp_path / "d0.json").write_text("0.0")
    (tmp_path / "d1.json").write_text("1.0")
    dpaudit_cli = Path(sys.executable).with_name("dpaudit")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def run(target: str, *extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(dpaudit_cli), "audit", target, "--d0", "d0.json", "--d1", "d1.json", "--trials",
                               str(TRIALS), "--confidence", str(CONFIDENCE), *extra],
                              cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)

    good = run("odpmod:laplace")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "OpenDP measurement (AbsoluteDistance -> MaxDivergence, d_in=1)" in good.stdout
    wrong = run("odpmod:wrong_d_in")
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr
    refused = run("odpmod:laplace", "--workers", "2")
    assert refused.returncode == 2 and "cannot" in refused.stderr and refused.stderr.count("\n") == 1
