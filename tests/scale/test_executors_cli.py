"""``make_executor`` and the command line's ``--scheduler`` and ``--checkpoint``."""

from __future__ import annotations

import json
import re

import distributed
import pytest

from dpaudit.auditor.executors import make_executor
from dpaudit.cli import main
from dpaudit.errors import InvalidArgument

VOLATILE = {"sampling_seconds", "selection_seconds", "estimation_seconds", "total_seconds", "notes"}


def run_cli(capsys, *args: str) -> dict:
    assert main(["audit", "gaussian (analytic)", "--trials", "20000", "--json", "--no-progress", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_checkpoint_resumes_and_scheduler_matches_the_serial_run(capsys, tmp_path):
    serial = run_cli(capsys)
    path = str(tmp_path / "cli.sqlite")
    first = run_cli(capsys, "--checkpoint", path)
    resumed = run_cli(capsys, "--checkpoint", path)
    assert any("blocks recorded" in note for note in first["notes"])
    assert any("resumed, 2 of 2 blocks loaded" in note for note in resumed["notes"])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address="127.0.0.1:0") as cluster:
        dasked = run_cli(capsys, "--scheduler", cluster.scheduler_address)
    for other in (first, resumed, dasked):
        assert {k: v for k, v in other.items() if k not in VOLATILE} == {k: v for k, v in serial.items() if k not in VOLATILE}


def test_make_executor_refuses_bad_arguments():
    with pytest.raises(InvalidArgument, match=re.escape("`make_executor`: `workers` must be None when a Dask scheduler")):
        with make_executor(workers=2, scheduler="tcp://127.0.0.1:8786"):
            pass
    with pytest.raises(InvalidArgument, match=re.escape("`workers` must be")):
        with make_executor(workers=0):
            pass
    with pytest.raises(InvalidArgument, match=r"`scheduler` must be the address of a running Dask scheduler reachable "
                                              r"within 1 s \(connecting failed: "):
        with make_executor(scheduler="tcp://127.0.0.1:9", timeout=1.0):
            pass
    with make_executor() as serial:
        assert serial is None
