"""What an audit counts is what the mechanism drew: owned outputs, bounded memory, dpaudit's own errors.

* every block is copied the moment it is validated, so a mechanism that returns a view of one reused
  buffer is audited on its real outputs, serially exactly as on workers;
* the estimation split is streamed: memory is O(selection rows + one block) whatever the number of
  trials, the block plan is lazy, and an audit that cannot fit is refused up front, naming the figure;
* arguments and outputs near the float limits give dpaudit's errors, never a raw exception or a
  RuntimeWarning blamed on the mechanism.
"""

from __future__ import annotations

import dataclasses
import re
import time
import tracemalloc
import warnings

import numpy as np
import pytest
import scale_mechanisms as sm

import dpaudit
from dpaudit.auditor.executors import make_executor
from dpaudit.errors import InvalidArgument, MechanismError

VOLATILE = {"sampling_seconds", "selection_seconds", "estimation_seconds", "total_seconds", "notes"}


def verdict(result: dpaudit.AuditResult) -> dict:
    return {k: v for k, v in dataclasses.asdict(result).items() if k not in VOLATILE}


def test_a_reused_output_buffer_is_audited_on_its_real_outputs_serially_and_on_workers():
    """2-DP claimed 1-DP, returning views of one buffer: flagged, with the same result on 2 workers."""
    kwargs = dict(epsilon=1.0, trials=20_000, seed=5, block_size=5_000)
    serial = dpaudit.audit(sm.reused_buffer_laplace, 0.0, 1.0, **kwargs)
    reference = dpaudit.audit(sm.leaky_laplace, 0.0, 1.0, **kwargs)  # the same draws, fresh arrays
    with make_executor(workers=2) as pool:
        parallel = dpaudit.audit(sm.reused_buffer_laplace, 0.0, 1.0, executor=pool, **kwargs)
    assert serial.violation and serial.epsilon_lower_bound > 1.5, serial
    assert verdict(serial) == verdict(parallel)
    assert serial.epsilon_lower_bound == reference.epsilon_lower_bound
    assert serial.evidence == reference.evidence


def test_an_absurd_trial_count_is_refused_up_front_naming_the_memory_it_needs():
    start = time.perf_counter()
    with pytest.raises(InvalidArgument, match=r"`audit`: `trials` must be .*memory.*GB.*limit") as info:
        dpaudit.audit(sm.laplace, 0.0, 1.0, epsilon=1.0, trials=10**15, seed=0)
    assert time.perf_counter() - start < 10.0, "the refusal must come before any block list is built"
    assert "10^15" in str(info.value) or "1000000000000000" in str(info.value)


def test_a_memory_limit_refuses_an_audit_that_cannot_fit_and_names_both_figures():
    with pytest.raises(InvalidArgument, match=r"need about [\d.]+ MB, more than the memory limit of 1 MB \(memory_limit\)"):
        dpaudit.audit(sm.laplace, 0.0, 1.0, epsilon=1.0, trials=10**6, seed=0, memory_limit=10**6)
    with pytest.raises(InvalidArgument, match=re.escape("`audit`: `memory_limit` must be")):
        dpaudit.audit(sm.laplace, 0.0, 1.0, epsilon=1.0, trials=1_000, seed=0, memory_limit=-1)


def _peak_traced(trials: int, selection_rows: int) -> int:
    tracemalloc.start()
    try:
        dpaudit.audit(sm.laplace, 0.0, 1.0, epsilon=1.0, trials=trials, seed=0, block_size=1 << 14,
                      selection_fraction=selection_rows / trials)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_estimation_split():
    """Same selection rows, four times the trials: the peak stays put (it grew 4x before streaming)."""
    small = _peak_traced(500_000, 40_000)
    large = _peak_traced(2_000_000, 40_000)
    full_outputs = 2 * 2_000_000 * 8
    assert large < 1.5 * small, (small, large)
    assert large < full_outputs / 4, (large, full_outputs)


def test_the_block_plan_is_lazy():
    from dpaudit.auditor.streaming import BlockPlan

    start = time.perf_counter()
    plan = BlockPlan(10**15, 3)
    assert len(plan) == -(-(10**15) // 3)
    assert plan[0] == (0, 0, 3) and plan[-1] == (len(plan) - 1, 10**15 - 1, 10**15)
    assert list(plan.covering(4, 10)) == [(1, 3, 6), (2, 6, 9), (3, 9, 12)]
    assert time.perf_counter() - start < 1.0


def test_outputs_near_the_float_limit_are_not_blamed_on_the_mechanism():
    """Outputs near 1.5e308 (their sum overflows in the block check): no RuntimeWarning, no MechanismError."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = dpaudit.audit(sm.huge_laplace, 0.0, 1.0, epsilon=1.0, trials=5_000, seed=1)
    assert not result.violation


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(executor="x"), "`audit`: `executor` must be a concurrent.futures.Executor"),
    (dict(checkpoint=123), "`audit`: `checkpoint` must be a path"),
    (dict(checkpoint=""), "`audit`: `checkpoint` must be a path"),
])
def test_bad_executor_and_checkpoint_arguments_are_invalid_arguments(kwargs, message):
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        dpaudit.audit(sm.laplace, 0.0, 1.0, epsilon=1.0, trials=1_000, seed=0, **kwargs)


def test_a_mechanism_that_raises_systemexit_is_a_mechanism_error():
    def exits(data, rng, size=None):
        raise SystemExit(42)

    with pytest.raises(MechanismError, match="the mechanism raised SystemExit"):
        dpaudit.audit(exits, 0.0, 1.0, epsilon=1.0, trials=1_000, seed=0)


def test_the_estimation_tally_is_identical_for_every_batch_size_and_checkpoint(tmp_path):
    """A 2-dimensional output (fitted attacks): the streamed counts do not depend on how blocks arrive."""
    def gauss2(data, rng, size=None):
        return rng.normal(np.asarray(data, dtype=float), 1.0, (size, 2))

    kwargs = dict(epsilon=1.0, delta=1e-5, trials=6_000, seed=2, block_size=500)
    first = dpaudit.audit(gauss2, [0.0, 0.0], [1.0, 0.0], **kwargs)
    batched = dpaudit.audit(gauss2, [0.0, 0.0], [1.0, 0.0], batch_size=1_700, **kwargs)
    stored = dpaudit.audit(gauss2, [0.0, 0.0], [1.0, 0.0], checkpoint=tmp_path / "c.sqlite", **kwargs)
    resumed = dpaudit.audit(gauss2, [0.0, 0.0], [1.0, 0.0], checkpoint=tmp_path / "c.sqlite", **kwargs)
    assert verdict(first) == verdict(batched) == verdict(stored) == verdict(resumed)
    assert first.estimation_trials == first.evidence.n == 6_000 - first.selection_trials


def test_running_out_of_memory_in_a_block_is_not_blamed_on_the_mechanism():
    from dpaudit.errors import AuditMemoryError

    def greedy(data, rng, size=None):
        if size is not None and size > 1:
            raise MemoryError("cannot allocate")
        return rng.laplace(data, 1.0, size)

    with pytest.raises(AuditMemoryError, match=r"memory ran out drawing 1000 trials on d0 \(block 0\); a smaller block_size"):
        dpaudit.audit(greedy, 0.0, 1.0, epsilon=1.0, trials=2_000, seed=0, block_size=1_000)
