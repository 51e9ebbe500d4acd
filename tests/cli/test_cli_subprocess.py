"""``dpaudit audit`` and ``dpaudit report`` end to end, as a user runs them: a subprocess in a folder
holding their own module and data files.

The audits use the default seed 0, so each verdict is fixed; over seeds, the correct mechanism
would be flagged with probability at most 1 - 0.95 (the auditor's validity, counted in
tests/statistical). The leaky one has true epsilon 2 against a claim of 1.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import numpy as np
import pytest
from report_html import parse_report  # tests/cli/report_html.py

DPAUDIT = Path(sys.executable).with_name("dpaudit")

USER_MODULE = '''
import numpy as np


def good(data, rng, size=None):
    """Laplace noise of scale 1 on a sensitivity-1 query: 1-DP."""
    return np.asarray(data, dtype=float) + rng.laplace(0.0, 1.0, size=size)


def leaky(data, rng, size=None):
    """Noise of scale 1/2, calibrated for sensitivity 1/2, on the same query: 2-DP, not 1-DP."""
    return np.asarray(data, dtype=float) + rng.laplace(0.0, 0.5, size=size)
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "mymod.py").write_text(USER_MODULE)
    np.save(tmp_path / "d0.npy", np.array(0.0))
    np.save(tmp_path / "d1.npy", np.array(1.0))
    return tmp_path


def run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([str(DPAUDIT), *args], cwd=folder, capture_output=True, text=True, env=env, timeout=300)


def test_a_correct_laplace_callable_exits_0(project):
    done = run(project, "audit", "mymod:good", "--d0", "d0.npy", "--d1", "d1.npy", "--epsilon", "1")
    assert done.returncode == 0, done.stderr
    assert "no violation found" in done.stdout and "mymod" not in done.stderr
    assert done.stderr == ""  # piped: no progress bar


def test_a_leaky_callable_exits_1(project):
    done = run(project, "audit", "mymod:leaky", "--d0", "d0.npy", "--d1", "d1.npy", "--epsilon", "1")
    assert done.returncode == 1, done.stderr
    assert "VIOLATION" in done.stdout and "counts" in done.stdout


def test_a_negative_epsilon_exits_2_with_one_line(project):
    done = run(project, "audit", "mymod:good", "--d0", "d0.npy", "--d1", "d1.npy", "--epsilon", "-1")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr == "dpaudit audit: error: `--epsilon` must be in [0, inf); got --epsilon=-1.0.\n"


def test_json_parses_and_carries_a_schema_version(project):
    done = run(project, "audit", "mymod:leaky", "--d0", "d0.npy", "--d1", "d1.npy", "--epsilon", "1", "--json")
    assert done.returncode == 1 and done.stderr == ""
    result = json.loads(done.stdout)
    assert isinstance(result["schema_version"], int) and result["schema_version"] >= 1
    assert result["violation"] is True and result["epsilon_lower_bound"] > result["claimed_epsilon"] == 1.0
    assert result["evidence"]["count_numerator"] > result["evidence"]["count_denominator"]


def test_report_writes_a_self_contained_html_file(project):
    done = run(project, "report", "mymod:leaky", "--d0", "d0.npy", "--d1", "d1.npy", "--epsilon", "1",
               "--output", "out.html")
    assert done.returncode == 1, done.stderr
    page = parse_report((project / "out.html").read_text(encoding="utf-8"))
    assert page.verdict.startswith("VIOLATION")
    assert "dpaudit report mymod:leaky --d0 d0.npy --d1 d1.npy --epsilon 1.0" in page.text
    [png] = page.images
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert page.external_resources == []  # opens offline


def _run_on_a_terminal(folder: Path, *args: str) -> tuple[int, str]:
    """Run with stdout and stderr on a pseudo-terminal, as in an interactive shell."""
    leader, follower = pty.openpty()
    # a 24 x 100 window: a fresh pseudo-terminal is 0 columns wide, where tqdm draws nothing
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.Popen([str(DPAUDIT), *args], cwd=folder, stdin=subprocess.DEVNULL, stdout=follower,
                            stderr=follower, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return proc.wait(timeout=300), b"".join(chunks).decode(errors="replace")


def test_a_progress_bar_on_a_terminal_only(project):
    code, screen = _run_on_a_terminal(project, "audit", "mymod:good", "--d0", "d0.npy", "--d1", "d1.npy",
                                      "--epsilon", "1", "--trials", "100000")
    assert code == 0 and "sampling: 100%" in screen and "trial" in screen, screen  # a fixed count: one bar
    code, screen = _run_on_a_terminal(project, "audit", "mymod:good", "--d0", "d0.npy", "--d1", "d1.npy",
                                      "--epsilon", "0.97", "--delta", "1e-6", "--trials", "auto")
    assert code == 1 and re.search(r"stage 1/\d+: 100%", screen) and re.search(r"stage 2/\d+:", screen), screen
    code, screen = _run_on_a_terminal(project, "audit", "mymod:good", "--d0", "d0.npy", "--d1", "d1.npy",
                                      "--epsilon", "1", "--json")
    assert code == 0 and "sampling:" not in screen and "%|" not in screen, screen
    json.loads(screen)  # nothing but the JSON


def test_the_embedded_png_is_the_plot(project):
    """The image decodes to a picture of the size matplotlib drew (10 x 5.4 inches at 110 dpi)."""
    done = run(project, "report", "mymod:good", "--d0", "d0.npy", "--d1", "d1.npy", "--epsilon", "1")
    assert done.returncode == 0, done.stderr
    from matplotlib.image import imread

    [png] = parse_report((project / "dpaudit-report.html").read_text(encoding="utf-8")).images
    (project / "plot.png").write_bytes(png)
    pixels = imread(project / "plot.png")
    assert pixels.shape[:2] == (594, 1100)
    assert base64.b64encode(png)  # round-trips


def test_a_reader_that_leaves_early_does_not_hide_a_violation(project):
    """`dpaudit audit ... --json | head -1` in CI: the exit status is still the verdict's."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.Popen([str(DPAUDIT), "audit", "mymod:leaky", "--d0", "d0.npy", "--d1", "d1.npy", "--epsilon", "1",
                             "--json"], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdout.close()  # the reader is gone before anything is written
    assert proc.wait(timeout=300) == 1
    assert proc.stderr.read() == b""
    proc.stderr.close()


def test_python_dash_m_dpaudit_is_the_same_command_line(project):
    """``python -m dpaudit`` (where the script is not on PATH) runs the same command and exits the same way."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for target, status in (("mymod:good", 0), ("mymod:leaky", 1)):
        args = ["audit", target, "--d0", "d0.npy", "--d1", "d1.npy", "--epsilon", "1"]
        module = subprocess.run([sys.executable, "-m", "dpaudit", *args], cwd=project, capture_output=True, text=True,
                                env=env, timeout=300)
        assert module.returncode == status, module.stderr
        untimed = [line for line in module.stdout.splitlines() if not line.strip().startswith("time ")]
        assert untimed == [line for line in run(project, *args).stdout.splitlines() if not line.strip().startswith("time ")]
