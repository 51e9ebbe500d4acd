"""Faults end in a named error or in a rerun block with identical draws, never in a smaller sample.

With ``trials = 1000`` and ``block_size = 300`` the faulty mechanisms of :mod:`scale_mechanisms`
fail on block 3 (the only block of 100 trials) of each dataset.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import os
import re
import sqlite3
import sys
from concurrent.futures import ProcessPoolExecutor

import distributed
import pytest
import scale_mechanisms as sm

import dpaudit
from dpaudit._rng import TrialStreams
from dpaudit.errors import MechanismError

FAULTY = dict(trials=1_000, seed=21, block_size=300, epsilon=1.0)


def forkserver_pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("forkserver"))


def test_a_mechanism_failing_on_one_block_names_the_block_and_its_seed():
    with pytest.raises(MechanismError, match=re.escape(
            "the mechanism raised ValueError: cannot handle a batch whose first draw is ")) as info:
        dpaudit.audit(sm.raising_on_last_block, 0.0, 1.0, **FAULTY)
    err = info.value
    assert (err.dataset, err.block, err.seed_entropy, err.block_size) == (0, 3, 21, 300)
    assert "on d0 (block 3). To replay it: seed entropy 21, block size 300, stream 0, block 3" in str(err)
    # the named seed reproduces the failure on its own, with the same draw
    with pytest.raises(ValueError) as replay:
        sm.raising_on_last_block(0.0, TrialStreams(21, 300).block_generator(0, 3), size=100)
    assert str(replay.value) in str(err)


def test_a_failure_in_a_worker_process_is_named_the_same_way():
    with forkserver_pool(2) as pool, pytest.raises(MechanismError, match="the mechanism raised ValueError") as info:
        dpaudit.audit(sm.raising_on_last_block, 0.0, 1.0, executor=pool, **FAULTY)
    err = info.value
    assert err.block == 3 and err.dataset in (0, 1) and (err.seed_entropy, err.block_size) == (21, 300)
    assert f"on d{err.dataset} (block 3). To replay it: seed entropy 21" in str(err)


def test_a_worker_that_dies_in_a_process_pool_gives_a_named_error(tmp_path):
    path = tmp_path / "audit.sqlite"
    with forkserver_pool(1) as pool, pytest.raises(MechanismError, match="A worker may have died") as info:
        dpaudit.audit(sm.dying_on_last_block, 0.0, 1.0, executor=pool, checkpoint=path, **FAULTY)
    err = info.value
    assert "BrokenProcessPool" in str(err) and err.dataset in (0, 1) and err.seed_entropy == 21
    assert re.search(rf"the executor failed on block {err.block} of d{err.dataset} \(trials \d+ to \d+", str(err))
    # one worker runs the tasks in order: blocks 0-2 of d0 finished and were recorded before the death
    with contextlib.closing(sqlite3.connect(path)) as conn:
        recorded = conn.execute("SELECT dataset, block FROM blocks ORDER BY dataset, block").fetchall()
    assert recorded[:3] == [(0, 0), (0, 1), (0, 2)] and (0, 3) not in recorded


@pytest.fixture
def environ_restored():
    """Dask's nanny writes its workers' variables (MALLOC_TRIM_THRESHOLD_, ...) into this process's environment."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


def test_a_dask_worker_that_dies_is_replaced_and_its_block_rerun_identically(tmp_path, environ_restored):
    flaky = sm.DiesOnceOnLastBlock(str(tmp_path / "died-once"))
    serial = dpaudit.audit(sm.laplace, 0.0, 1.0, **FAULTY)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0",
                                  host="127.0.0.1") as cluster, distributed.Client(cluster) as client:
        rerun = dpaudit.audit(flaky, 0.0, 1.0, executor=client.get_executor(), **FAULTY)
    assert (tmp_path / "died-once").exists()  # the worker really died once
    same = {k: v for k, v in dataclasses.asdict(serial).items() if not k.endswith("seconds") and k != "mechanism"}
    assert {k: v for k, v in dataclasses.asdict(rerun).items() if k in same} == same
    assert rerun.trials == 1_000 and rerun.evidence.n == rerun.estimation_trials


def test_a_pool_failure_with_a_mechanism_from_main_says_why_workers_may_die(monkeypatch):
    """Forkserver and spawn workers cannot import a notebook's function; the error says so (checked by hand
    with ``python -c``: the worker dies unpickling the task and the pool breaks)."""
    import types
    from concurrent.futures.process import BrokenProcessPool

    from dpaudit.auditor.sampling import _executor_failure, as_sampler

    def notebook_mechanism(data, rng, size=None):
        return rng.laplace(data, 1.0, size)

    script = types.ModuleType("__main__")
    script.__file__ = __file__  # a script run from its file: workers re-import it
    monkeypatch.setitem(sys.modules, "__main__", script)
    task = (as_sampler(notebook_mechanism), 0.0, TrialStreams(5, 300), 1, [(2, 600, 900)])
    elsewhere = _executor_failure(BrokenProcessPool("terminated abruptly"), task, 0)
    assert "__main__" not in str(elsewhere) and "A worker may have died" in str(elsewhere)
    notebook_mechanism.__module__ = "__main__"
    err = _executor_failure(BrokenProcessPool("terminated abruptly"), task, 0)
    assert "The mechanism is defined in __main__" in str(err) and "A worker may have died" in str(err)
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))  # a notebook or python -c: no file
    cause = _executor_failure(BrokenProcessPool("terminated abruptly"), task, 0)
    assert "has no file that worker processes can import it from" in str(cause)
    assert "A worker may have died" not in str(cause)
    stdin = types.ModuleType("__main__")
    stdin.__file__ = "<stdin>"
    monkeypatch.setitem(sys.modules, "__main__", stdin)
    assert "read from standard input" in str(_executor_failure(BrokenProcessPool("terminated abruptly"), task, 0))
    assert (err.dataset, err.block, err.seed_entropy) == (1, 2, 5)
    assert str(err).startswith("the executor failed on block 2 of d1 (trials 600 to 899; 1 block(s) in the task)")


def test_the_replay_line_gives_the_size_of_the_call_that_failed_and_names_no_dataset_that_does_not_exist():
    """A red team replayed a NaN as told and called with the block size (1048576) where the audit had called
    with 1000; a failing probe call was told to be replayed "on d2"."""
    import numpy as np

    def nan_in_last_row(data, rng, size=None):
        out = float(np.asarray(data, dtype=float).sum()) + rng.laplace(0.0, 1.0, size=size)
        if size and size > 1:
            out[-1] = np.nan
        return out

    with pytest.raises(MechanismError) as caught:
        dpaudit.audit(nan_in_last_row, 0.0, 1.0, epsilon=1.0, seed=0, trials=1000)
    assert "call the mechanism on d0 with size=1000 (trials 0 onwards)" in str(caught.value)
    replay = np.random.default_rng(np.random.SeedSequence(caught.value.seed_entropy, spawn_key=(0, 0)))
    assert np.flatnonzero(np.isnan(nan_in_last_row(0.0, replay, size=1000))).tolist() == [999]

    def fails_on_one_row(data, rng, size=None):
        if size == 1:
            raise RuntimeError("no")
        return np.zeros(size or ())

    with pytest.raises(MechanismError) as caught:
        dpaudit.audit(fails_on_one_row, 0.0, 1.0, epsilon=1.0, seed=0, trials=1000)
    message = str(caught.value)
    assert "on d0 (probe call)" in message and "on d2" not in message and "size=1" in message
