"""Serial, process-pool and Dask runs of an audit draw bit-identical outputs and give one result.

Every block draws from its own stream, so neither the executor, the worker count nor the batch size
may change a single bit. The Dask cluster is a ``LocalCluster`` with in-process workers (loopback
only, no network); its status server takes a free port (``127.0.0.1:0``: Dask's default, 8787, may be
taken by another cluster on the machine). The pool uses ``forkserver`` processes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import sqlite3
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import distributed  # in the `test` extra: the default run always exercises Dask
import numpy as np
import pytest

import dpaudit
from dpaudit._rng import TrialStreams
from dpaudit.auditor.sampling import as_sampler, draw_outputs
from dpaudit.mechanisms import LaplaceMechanism
from dpaudit.userlevel import RobustStatsSGD, SeparableHuberLoss

VOLATILE_FIELDS = {"sampling_seconds", "selection_seconds", "estimation_seconds", "total_seconds", "notes"}


def verdict(result: dpaudit.AuditResult) -> dict:
    """Everything in a result but the timings and the notes (which say where blocks came from)."""
    return {k: v for k, v in dataclasses.asdict(result).items() if k not in VOLATILE_FIELDS}


@pytest.fixture(scope="module")
def dask_client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address="127.0.0.1:0") as cluster, \
            distributed.Client(cluster) as client:
        yield client


@pytest.fixture(scope="module")
def process_pool():
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("forkserver")) as pool:
        yield pool


def user_level_case():
    """Ghazi et al. 2025's Algorithm 1 on 120 users of 2 items in d = 2, and a user-replaced neighbour."""
    rng = np.random.default_rng(2025)
    d0 = rng.uniform(-0.5, 0.5, size=(120, 2, 3))
    d0[..., -1] = 1.0
    d1 = d0.copy()
    d1[0, :, :-1] = 0.5
    mech = RobustStatsSGD(SeparableHuberLoss(beta=1.0, gradient_cap=1.0), 1.0, 1e-3, radius=1.0, batch_size=20)
    return mech, d0, d1


def test_outputs_are_bit_identical_on_every_executor_and_batch_size(dask_client, process_pool):
    mech, d0, d1 = user_level_case()
    sampler = as_sampler(mech)
    streams = TrialStreams(entropy=7, block_size=16)
    serial, _ = draw_outputs(sampler, [d0, d1], 120, streams)
    runs = {
        "2 processes": dict(executor=process_pool),
        "2 processes, 3 blocks a task": dict(executor=process_pool, batch_size=40),
        "Dask, 2 workers": dict(executor=dask_client.get_executor()),
        "Dask, one task per dataset": dict(executor=dask_client.get_executor(), batch_size=10**6),
        "3 threads, 2 blocks a task": dict(executor=ThreadPoolExecutor(3), batch_size=17),
    }
    for name, kwargs in runs.items():
        outputs, _ = draw_outputs(sampler, [d0, d1], 120, streams, **kwargs)
        for j in (0, 1):
            assert outputs[j].dtype == serial[j].dtype and outputs[j].shape == serial[j].shape == (120, 2), name
            assert outputs[j].tobytes() == serial[j].tobytes(), f"{name}: outputs on d{j} differ from the serial run"


def test_audit_results_are_identical_serial_pool_and_dask(dask_client, process_pool):
    kwargs = dict(trials=60_000, seed=5, block_size=8_192)
    serial = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, **kwargs)
    pooled = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, executor=process_pool, batch_size=20_000, **kwargs)
    dasked = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, executor=dask_client.get_executor(), **kwargs)
    assert verdict(pooled) == verdict(serial)
    assert verdict(dasked) == verdict(serial)
    assert serial.trials == serial.selection_trials + serial.estimation_trials == 60_000


def test_a_user_level_audit_is_identical_on_dask(dask_client):
    mech, d0, d1 = user_level_case()
    kwargs = dict(trials=200, seed=11, block_size=32)
    serial = dpaudit.audit(mech, d0, d1, **kwargs)
    dasked = dpaudit.audit(mech, d0, d1, executor=dask_client.get_executor(), batch_size=64, **kwargs)
    assert verdict(dasked) == verdict(serial)


def test_a_checkpoint_resumed_on_dask_with_another_batch_size_is_identical(dask_client, process_pool, tmp_path):
    path = tmp_path / "audit.sqlite"
    kwargs = dict(trials=30_000, seed=8, block_size=4_096)  # 8 blocks per dataset
    serial = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, **kwargs)
    dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, executor=process_pool, checkpoint=path, **kwargs)
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("DELETE FROM blocks WHERE block % 3 = 1")  # 3 of 8 blocks per dataset lost
    resumed = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, executor=dask_client.get_executor(), batch_size=9_000,
                            checkpoint=path, **kwargs)
    assert any("resumed, 10 of 16 blocks loaded" in note for note in resumed.notes)
    assert verdict(resumed) == verdict(serial)
