"""A checkpoint's rows cannot change an audit's answer, and one path serves one audit at a time.

* every field of a row (dataset, block, trials, dtype, shape, bytes) is covered by its digest, and
  the digest is bound to the audit's fingerprint: relabelled or transplanted rows are refused;
* rows forged with a valid digest are caught by re-drawing recorded blocks at random on resume
  (the draws are deterministic) and comparing bytes;
* the file is created exclusively and locked for the whole audit: a second audit on the same path,
  started together or while the first runs, gets a :class:`CheckpointError` naming the path;
* a checkpoint path that cannot be used (missing folder, a folder, a full disk, a corrupted field)
  gives a :class:`CheckpointError`, never a raw ``OSError``, ``sqlite3`` error or ``OverflowError``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import scale_mechanisms as sm

import dpaudit
from dpaudit._rng import TrialStreams
from dpaudit.auditor.checkpoint import Checkpoint, audit_fingerprint
from dpaudit.errors import CheckpointError
from dpaudit.mechanisms import LaplaceMechanism

HERE = Path(__file__).parent
VOLATILE = {"sampling_seconds", "selection_seconds", "estimation_seconds", "total_seconds", "notes"}
BASE = dict(trials=2_000, seed=3, block_size=500, epsilon=1.0)  # 4 blocks per dataset


def verdict(result: dpaudit.AuditResult) -> dict:
    return {k: v for k, v in dataclasses.asdict(result).items() if k not in VOLATILE}


def connect(path: Path):
    return contextlib.closing(sqlite3.connect(path, isolation_level=None))


def rows(path: Path, dataset: int) -> list[tuple]:
    with connect(path) as conn:
        return conn.execute("SELECT block, start, stop, dtype, shape, sha256, data FROM blocks WHERE dataset = ? "
                            "ORDER BY block", (dataset,)).fetchall()


@pytest.mark.parametrize("digest", ["of the bytes", "copied along"])
def test_d1_rows_relabelled_as_copies_of_d0_rows_are_refused(tmp_path, digest):
    """The old digest covered the bytes only: copying d0's rows over d1's resumed a leaky audit to 'no violation'.

    Whether the forger recomputes a digest of the bytes or copies d0's row whole, digest included, the
    row's own digest (which covers its dataset) refuses it, before any block is re-drawn.
    """
    path = tmp_path / "leaky.sqlite"
    honest = dpaudit.audit(sm.leaky_laplace, 0.0, 1.0, checkpoint=path, **BASE)
    assert honest.violation
    with connect(path) as conn:
        for block, _, _, dtype, shape, kept, data in rows(path, 0):
            forged = hashlib.sha256(data).hexdigest() if digest == "of the bytes" else kept
            conn.execute("UPDATE blocks SET data = ?, sha256 = ?, dtype = ?, shape = ? WHERE dataset = 1 AND block = ?",
                         (data, forged, dtype, shape, block))
    with pytest.raises(CheckpointError, match=re.escape(str(path)) + ".*whose fields do not match their SHA-256"):
        dpaudit.audit(sm.leaky_laplace, 0.0, 1.0, checkpoint=path, **BASE)


def test_rows_transplanted_from_another_audit_are_refused(tmp_path):
    """Same plan, another seed: the rows' digests are bound to the audit that wrote them."""
    mine, other = tmp_path / "mine.sqlite", tmp_path / "other.sqlite"
    dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, checkpoint=mine, **BASE)
    dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, checkpoint=other, **{**BASE, "seed": 4})
    with connect(mine) as conn:
        conn.execute("DELETE FROM blocks WHERE dataset = 1 AND block = 2")
        conn.execute(f"ATTACH DATABASE '{other}' AS other")
        conn.execute("INSERT INTO blocks SELECT * FROM other.blocks WHERE dataset = 1 AND block = 2")
    with pytest.raises(CheckpointError, match=re.escape(str(mine)) + ".*whose fields do not match their SHA-256"):
        dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, checkpoint=mine, **BASE)


def _forge(path: Path, mechanism, shift: float, relabel: bool) -> None:
    """Rewrite d1's rows through the checkpoint's own writer, so every digest is valid."""
    fingerprint = audit_fingerprint(mechanism, [0.0, 1.0], BASE["trials"], TrialStreams(3, BASE["block_size"]),
                                    (1.0, 0.0))
    source = rows(path, 0 if relabel else 1)
    with connect(path) as conn:
        conn.execute("DELETE FROM blocks WHERE dataset = 1")
    store = Checkpoint(path, fingerprint)
    try:
        for block, start, stop, dtype, shape, _, data in source:
            forged = np.frombuffer(data, dtype=np.dtype(dtype)).reshape(json.loads(shape)) + shift
            store.record(1, [(block, start, stop)], [forged])
    finally:
        store.close()


@pytest.mark.parametrize(("mechanism", "shift", "relabel", "honest_violation"), [
    (sm.leaky_laplace, 0.0, True, True),         # d1 := d0: a leaky mechanism would pass
    (LaplaceMechanism(1.0), 3.0, False, False),  # d1 shifted by 3: a correct mechanism would be flagged
], ids=["leaky-passes", "correct-flagged"])
def test_rows_forged_with_valid_digests_are_caught_by_redrawing(tmp_path, mechanism, shift, relabel, honest_violation):
    path = tmp_path / "forged.sqlite"
    honest = dpaudit.audit(mechanism, 0.0, 1.0, checkpoint=path, **BASE)
    assert honest.violation is honest_violation
    _forge(path, mechanism, shift, relabel)
    with pytest.raises(CheckpointError, match=r"re-drawn.*does not match") as info:
        dpaudit.audit(mechanism, 0.0, 1.0, checkpoint=path, **BASE)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("digest", ["stale", "recomputed"])
def test_a_corrupted_shape_field_is_a_checkpoint_error_not_an_overflow(tmp_path, digest):
    """A shape of 1e999 (inf once parsed) made int() raise OverflowError; with its digest recomputed the
    field itself must still be refused."""
    path = tmp_path / "audit.sqlite"
    dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, checkpoint=path, **BASE)
    shape = "[1e999]"
    with connect(path) as conn:
        conn.execute("UPDATE blocks SET shape = ? WHERE dataset = 0 AND block = 1", (shape,))
        if digest == "recomputed":
            from dpaudit.auditor.checkpoint import fingerprint_digest, row_digest

            fingerprint = audit_fingerprint(LaplaceMechanism(1.0), [0.0, 1.0], BASE["trials"],
                                            TrialStreams(3, BASE["block_size"]), (1.0, 0.0))
            start, stop, dtype, data = conn.execute("SELECT start, stop, dtype, data FROM blocks WHERE dataset = 0 "
                                                    "AND block = 1").fetchone()
            conn.execute("UPDATE blocks SET sha256 = ? WHERE dataset = 0 AND block = 1",
                         (row_digest(fingerprint_digest(fingerprint), 0, 1, start, stop, dtype, shape, data),))
    expected = "unreadable dtype or shape" if digest == "recomputed" else "do not match their SHA-256"
    with pytest.raises(CheckpointError, match=re.escape(str(path)) + ".*" + re.escape(expected)):
        dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, checkpoint=path, **BASE)


@pytest.mark.parametrize("where", ["missing-folder", "a-folder"])
def test_an_unusable_checkpoint_path_is_a_checkpoint_error(tmp_path, where):
    path = tmp_path / "no" / "such" / "audit.sqlite" if where == "missing-folder" else tmp_path
    with pytest.raises(CheckpointError, match=re.escape(str(path))):
        dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, checkpoint=path, **BASE)


FULL_DISK = """
import resource, signal, sys
import dpaudit, scale_mechanisms as sm
from dpaudit.errors import CheckpointError
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG, as on a full disk
resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
try:
    dpaudit.audit(sm.laplace, 0.0, 1.0, epsilon=1.0, trials=200_000, seed=0, block_size=10_000, checkpoint=sys.argv[1])
except CheckpointError as exc:
    print("CheckpointError:", exc)
except BaseException as exc:
    print("raw", type(exc).__name__, exc)
"""


def test_a_full_disk_is_a_checkpoint_error(tmp_path):
    path = tmp_path / "full.sqlite"
    env = {**os.environ, "PYTHONPATH": str(HERE)}
    out = subprocess.run([sys.executable, "-c", FULL_DISK, str(path)], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.startswith("CheckpointError:"), out.stdout + out.stderr
    assert str(path) in out.stdout and "cannot be written" in out.stdout


RACER = """
import sys, time
from pathlib import Path
import dpaudit, scale_mechanisms as sm
from dpaudit.errors import CheckpointError
path, seed, go = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
while not go.exists():
    time.sleep(0.0005)
try:
    res = dpaudit.audit(sm.paced_laplace, 0.0, 1.0, epsilon=1.0, trials=1_000, seed=seed, block_size=100, checkpoint=path)
    print("ok", res.epsilon_lower_bound)
except CheckpointError as exc:
    print("refused", exc)
"""


def test_two_audits_started_together_on_one_new_path_one_is_refused(tmp_path):
    """Three races: in each, exactly one audit runs and the other gets a CheckpointError naming the path."""
    env = {**os.environ, "PYTHONPATH": str(HERE), "DPAUDIT_TEST_PACE": "slow"}
    for race in range(3):
        path, go = tmp_path / f"race{race}.sqlite", tmp_path / f"go{race}"
        procs = [subprocess.Popen([sys.executable, "-c", RACER, str(path), str(seed), str(go)], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for seed in (10, 11)]
        time.sleep(3.0)  # both imported and waiting
        go.touch()
        outs = [p.communicate(timeout=300) for p in procs]
        words = sorted(out.split(" ", 1)[0] for out, _ in outs)
        assert words == ["ok", "refused"], outs
        refusal = next(out for out, _ in outs if out.startswith("refused"))
        assert str(path) in refusal, refusal
        winner = 10 if outs[0][0].startswith("ok") else 11
        resumed = dpaudit.audit(sm.paced_laplace, 0.0, 1.0, epsilon=1.0, trials=1_000, seed=winner, block_size=100,
                                checkpoint=path)
        clean = dpaudit.audit(sm.paced_laplace, 0.0, 1.0, epsilon=1.0, trials=1_000, seed=winner, block_size=100)
        assert verdict(resumed) == verdict(clean) and not clean.violation


def test_a_second_audit_on_a_path_in_use_is_refused_while_the_first_runs(tmp_path):
    """Even the identical audit: the file is locked for the whole of the first one."""
    path = tmp_path / "busy.sqlite"
    script = ("import dpaudit, scale_mechanisms as sm\n"
              f"dpaudit.audit(sm.paced_laplace, 0.0, 1.0, epsilon=1.0, trials=2_000, seed=7, block_size=100, "
              f"checkpoint={str(path)!r})\n")
    env = {**os.environ, "PYTHONPATH": str(HERE), "DPAUDIT_TEST_PACE": "slow"}
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (path.exists() and rows(path, 0)):
            time.sleep(0.02)
        assert proc.poll() is None, proc.communicate()
        with pytest.raises(CheckpointError, match=re.escape(str(path)) + r".*in use by another audit"):
            dpaudit.audit(sm.paced_laplace, 0.0, 1.0, epsilon=1.0, trials=2_000, seed=7, block_size=100, checkpoint=path)
    finally:
        proc.kill()
        proc.communicate()
