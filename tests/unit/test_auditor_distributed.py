"""Dask's distributed executor gives the same audit as a serial run (optional ``distributed`` extra)."""

from __future__ import annotations

import pytest

import dpaudit
from dpaudit.mechanisms import LaplaceMechanism

distributed = pytest.importorskip("distributed")


def test_dask_executor_matches_the_serial_run():
    kwargs = dict(trials=200_000, seed=5, block_size=32_768)
    serial = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, **kwargs)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, executor=client.get_executor(), **kwargs)
    assert remote.evidence == serial.evidence
    assert remote.epsilon_lower_bound == serial.epsilon_lower_bound
