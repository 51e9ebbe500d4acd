"""Resumable audits: a checkpoint resumes to the identical result, and any other file is refused.

Refused means: a :class:`CheckpointError` naming what differs or what is damaged, the file left
as it was, and nothing drawn.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import scale_mechanisms as sm

import dpaudit
from dpaudit.auditor.checkpoint import REDRAW_PER_DATASET, mechanism_fingerprint
from dpaudit.errors import CheckpointError
from dpaudit.mechanisms import GaussianMechanism, LaplaceMechanism

TIMING_FIELDS = {"sampling_seconds", "selection_seconds", "estimation_seconds", "total_seconds", "notes"}
HERE = Path(__file__).parent
BASE = dict(trials=2_000, seed=3, block_size=250)  # 8 blocks per dataset


def verdict(result: dpaudit.AuditResult) -> dict:
    return {k: v for k, v in dataclasses.asdict(result).items() if k not in TIMING_FIELDS}


def connect(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection that commits and closes on exit (``sqlite3``'s own context manager only commits)."""
    return contextlib.closing(sqlite3.connect(path, isolation_level=None))


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def count_blocks(path: Path) -> int:
    with connect(path) as conn:
        return conn.execute("SELECT COUNT(*) FROM blocks").fetchone()[0]


def test_a_complete_checkpoint_reproduces_the_audit_without_drawing(tmp_path):
    path = tmp_path / "audit.sqlite"
    reference = dpaudit.audit(sm.counted_laplace, 0.0, 1.0, epsilon=1.0, **BASE)
    sm.CALLS.clear()
    first = dpaudit.audit(sm.counted_laplace, 0.0, 1.0, epsilon=1.0, checkpoint=path, **BASE)
    assert sorted(sm.CALLS) == [1] + [250] * 16 and count_blocks(path) == 16  # the probe call, then every block
    assert any("16 blocks recorded" in note for note in first.notes)
    sm.CALLS.clear()
    again = dpaudit.audit(sm.counted_laplace, 0.0, 1.0, epsilon=1.0, checkpoint=path, **BASE)
    # every block came from the file; only the probe and the 2 + 2 blocks re-drawn to check the file were drawn
    assert sorted(sm.CALLS) == [1] + [250] * 2 * REDRAW_PER_DATASET
    assert any("resumed, 16 of 16 blocks loaded" in note and "bytecode" in note for note in again.notes)
    assert verdict(first) == verdict(again) == verdict(reference)


def test_missing_blocks_are_redrawn_never_dropped(tmp_path):
    path = tmp_path / "audit.sqlite"
    reference = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, **BASE)
    dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, checkpoint=path, **BASE)
    with connect(path) as conn:  # as if the run had stopped before these blocks finished
        conn.execute("DELETE FROM blocks WHERE block >= 5 OR (dataset = 1 AND block = 2)")
    resumed = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, checkpoint=path, batch_size=500, **BASE)
    assert any("resumed, 9 of 16 blocks loaded" in note for note in resumed.notes)
    assert resumed.trials == resumed.selection_trials + resumed.estimation_trials == 2_000
    assert verdict(resumed) == verdict(reference)
    assert count_blocks(path) == 16


def test_seed_none_resumes_with_the_recorded_seed(tmp_path):
    path = tmp_path / "audit.sqlite"
    first = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, trials=1_000, block_size=250, checkpoint=path)
    again = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, trials=1_000, block_size=250, checkpoint=path)
    assert again.seed_entropy == first.seed_entropy and verdict(again) == verdict(first)


@pytest.mark.parametrize(("change", "field"), [
    (dict(mechanism=LaplaceMechanism(2.0)), "mechanism fingerprint"),
    (dict(mechanism=GaussianMechanism(1.0, 1e-5)), "mechanism is dpaudit.mechanisms"),
    (dict(seed=4), "seed entropy is 3 in the file but 4 here"),
    (dict(d1=-1.0), "d1 (SHA-256 of its contents)"),
    (dict(epsilon=2.0), "claimed epsilon is 1.0 in the file but 2.0 here"),
    (dict(delta=1e-6), "claimed delta is 0.0 in the file but 1e-06 here"),
    (dict(block_size=200), "block size is 250 in the file but 200 here"),
    (dict(trials=2_500), "trials is 2000 in the file but 2500 here"),
])
def test_a_checkpoint_of_another_audit_is_refused(tmp_path, change, field):
    path = tmp_path / "audit.sqlite"
    args = dict(mechanism=LaplaceMechanism(1.0), d0=0.0, d1=1.0, epsilon=1.0, delta=0.0, **BASE)
    dpaudit.audit(**args, checkpoint=path)
    before = digest(path)
    with pytest.raises(CheckpointError, match=re.escape(field)) as info:
        dpaudit.audit(**{**args, **change}, checkpoint=path)
    assert "was written by a different audit" in str(info.value) and "nothing from it is used" in str(info.value)
    assert digest(path) == before


def test_a_plain_function_is_fingerprinted_by_code_and_closure():
    def make(scale):
        def noisy(data, rng, size=None):
            return rng.laplace(data, scale, size)
        return noisy

    assert mechanism_fingerprint(make(1.0))[1] == mechanism_fingerprint(make(1.0))[1]
    assert mechanism_fingerprint(make(1.0))[1] != mechanism_fingerprint(make(2.0))[1]
    assert mechanism_fingerprint(sm.laplace)[1] != mechanism_fingerprint(sm.counted_laplace)[1]
    assert "not the globals it reads" in mechanism_fingerprint(sm.laplace)[2]


@dataclasses.dataclass(frozen=True)
class WithALambda:
    """A mechanism-like object that cannot be pickled (a lambda among its fields)."""

    scale: float
    transform: object


def test_an_unpicklable_object_is_fingerprinted_attribute_by_attribute():
    first = mechanism_fingerprint(WithALambda(1.0, lambda x: x))
    assert first[1] == mechanism_fingerprint(WithALambda(1.0, lambda x: x))[1]
    assert first[1] != mechanism_fingerprint(WithALambda(2.0, lambda x: x))[1]
    assert first[1] != mechanism_fingerprint(WithALambda(1.0, lambda x: -x))[1]
    assert "one by one as it cannot be pickled" in first[2]


def _damage_truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _damage_flip_a_byte(path: Path) -> None:
    with connect(path) as conn:
        (blob,) = conn.execute("SELECT data FROM blocks WHERE dataset = 1 AND block = 3").fetchone()
        damaged = bytes([blob[0] ^ 1]) + blob[1:]
        conn.execute("UPDATE blocks SET data = ? WHERE dataset = 1 AND block = 3", (damaged,))


def _damage_shape(path: Path) -> None:
    with connect(path) as conn:
        conn.execute("UPDATE blocks SET shape = '[125, 2]' WHERE dataset = 0 AND block = 0")


def _damage_index(path: Path) -> None:
    """Garbage over the primary-key index's root page: reading the table alone would not notice."""
    with connect(path) as conn:
        (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'blocks'").fetchone()
        (page_size,) = conn.execute("PRAGMA page_size").fetchone()
    with path.open("r+b") as fh:
        fh.seek((root - 1) * page_size + 8)
        fh.write(b"\xff" * 64)


def _damage_not_sqlite(path: Path) -> None:
    path.write_text("trial,output\n0,0.5\n")


def _damage_empty(path: Path) -> None:
    path.write_bytes(b"")


def _damage_foreign_database(path: Path) -> None:
    path.unlink()
    with connect(path) as conn:
        conn.execute("CREATE TABLE results (x REAL)")


@pytest.mark.parametrize(("damage", "message"), [
    (_damage_truncate, "is corrupt or truncated"),
    (_damage_index, "is corrupt or truncated (SQLite quick_check: "),
    (_damage_flip_a_byte, "holds block 3 of d1 whose fields do not match their SHA-256"),
    (_damage_shape, "holds block 0 of d0 whose fields do not match their SHA-256"),
    (_damage_not_sqlite, "is not an SQLite database"),
    (_damage_empty, "is an empty file (0 bytes)"),
    (_damage_foreign_database, "is an SQLite database but not a dpaudit checkpoint"),
])
def test_a_corrupt_or_truncated_checkpoint_is_refused(tmp_path, damage, message):
    path = tmp_path / "audit.sqlite"
    dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, checkpoint=path, **BASE)
    damage(path)
    with pytest.raises(CheckpointError, match=re.escape(message)):
        dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, checkpoint=path, **BASE)


def test_an_audit_killed_mid_run_resumes_to_the_identical_result(tmp_path):
    """SIGKILL a subprocess audit once a few blocks are recorded; resume here; compare with a clean run."""
    path = tmp_path / "audit.sqlite"
    kwargs = "trials=4_000, seed=9, block_size=100, epsilon=1.0"  # 40 blocks per dataset, ~40 ms each
    script = (f"import dpaudit, scale_mechanisms as sm\n"
              f"dpaudit.audit(sm.paced_laplace, 0.0, 1.0, {kwargs}, checkpoint={str(path)!r})\n"
              "print('finished')\n")
    # another hash seed: the fingerprint must not depend on per-process string hashing
    env = {**os.environ, "PYTHONPATH": str(HERE), "DPAUDIT_TEST_PACE": "slow", "PYTHONHASHSEED": "12345"}
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        recorded = 0
        while time.monotonic() < deadline and proc.poll() is None:
            recorded = count_blocks(path) if path.exists() else 0
            if recorded >= 6:
                break
            time.sleep(0.02)
        assert proc.poll() is None, f"the audit ended before it could be killed: {proc.communicate()}"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        out, err = proc.communicate()
    assert proc.returncode == -signal.SIGKILL and b"finished" not in out, err.decode()
    at_kill = count_blocks(path)
    assert 6 <= at_kill < 80, at_kill
    sm.CALLS.clear()
    resumed = dpaudit.audit(sm.paced_laplace, 0.0, 1.0, trials=4_000, seed=9, block_size=100, epsilon=1.0,
                            checkpoint=path)
    assert any(f"resumed, {at_kill} of 80 blocks loaded" in note for note in resumed.notes), resumed.notes
    clean = dpaudit.audit(sm.paced_laplace, 0.0, 1.0, trials=4_000, seed=9, block_size=100, epsilon=1.0)
    assert verdict(resumed) == verdict(clean)
    assert count_blocks(path) == 80


def test_fingerprints_do_not_depend_on_the_process():
    """Another process, with another string-hash seed, fingerprints the same audits identically."""
    script = (
        "import json, numpy as np, scale_mechanisms as sm\n"
        "from dpaudit._rng import TrialStreams\n"
        "from dpaudit.auditor.checkpoint import audit_fingerprint\n"
        "from dpaudit.mechanisms import LaplaceMechanism\n"
        "from dpaudit.userlevel import RobustStatsSGD, SeparableHuberLoss\n"
        "mechs = [LaplaceMechanism(1.0), sm.paced_laplace, sm.DiesOnceOnLastBlock('m'),\n"
        "         RobustStatsSGD(SeparableHuberLoss(beta=1.0, gradient_cap=1.0), 1.0, 1e-3, batch_size=20)]\n"
        "pair = [np.zeros((40, 2, 3)), np.ones((40, 2, 3))]\n"
        "print(json.dumps([audit_fingerprint(m, pair, 100, TrialStreams(1, 10), (1.0, 0.0)) for m in mechs]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(HERE), "PYTHONHASHSEED": "777"}
    there = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True).stdout
    here = subprocess.run([sys.executable, "-c", script], env={**env, "PYTHONHASHSEED": "1"}, capture_output=True,
                          text=True, check=True).stdout
    assert there == here and "pickled state" in there and "bytecode" in there
