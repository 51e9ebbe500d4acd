"""Checkpoints of adaptive audits (``trials="auto"``): they resume to the identical result, however
the first run stopped, and a checkpoint written under another schedule is refused."""

from __future__ import annotations

import dataclasses
import re

import pytest
import scale_mechanisms as sm
from test_checkpoint import connect, count_blocks, digest

import dpaudit
from dpaudit.errors import CheckpointError

#: Laplace(1) against (1, 1e-6): the evidence keeps it going to the budget, 3 stages (2,000, 6,325,
#: 20,000 trials), in blocks of 500 trials: 40 blocks per dataset.
AUTO = dict(trials="auto", first_trials=2_000, max_trials=20_000, block_size=500, seed=3, epsilon=1.0, delta=1e-6)
TIMING_FIELDS = {"sampling_seconds", "selection_seconds", "estimation_seconds", "total_seconds", "notes"}


def verdict(result: dpaudit.AuditResult) -> dict:
    """Every field but the timings (the stages' own seconds included)."""
    fields = {k: v for k, v in dataclasses.asdict(result).items() if k not in TIMING_FIELDS}
    fields["stages"] = [{k: v for k, v in st.items() if k != "seconds"} for st in fields["stages"]]
    return fields


@pytest.fixture(scope="module")
def reference() -> dpaudit.AuditResult:
    result = dpaudit.audit(sm.laplace, 0.0, 1.0, **AUTO)
    assert result.stop_reason == "budget" and [st.trials for st in result.stages] == [2_000, 6_325, 20_000]
    return result


def test_an_adaptive_checkpoint_resumes_to_the_identical_result(tmp_path, reference):
    path = tmp_path / "auto.sqlite"
    first = dpaudit.audit(sm.laplace, 0.0, 1.0, checkpoint=path, **AUTO)
    assert count_blocks(path) == 2 * 40 and any("40 blocks" in note or "80 blocks" in note for note in first.notes)
    with connect(path) as conn:  # as if the run had been killed in stage 3 (its blocks 13 to 39)
        conn.execute("DELETE FROM blocks WHERE block >= 25")
    resumed = dpaudit.audit(sm.laplace, 0.0, 1.0, checkpoint=path, batch_size=1_500, **AUTO)
    assert any("resumed, 50 of 80 blocks loaded" in note for note in resumed.notes), resumed.notes
    assert verdict(first) == verdict(resumed) == verdict(reference)
    assert count_blocks(path) == 80


def test_an_audit_stopped_early_resumes_and_goes_on_to_the_same_result(tmp_path, reference):
    """A run cut short (max_stages, as a time stop leaves it) records its blocks; rerun without the limit,
    it loads them and reaches the result of a run that was never stopped."""
    path = tmp_path / "auto.sqlite"
    short = dpaudit.audit(sm.laplace, 0.0, 1.0, checkpoint=path, max_stages=2, **AUTO)
    assert short.stop_reason == "stage limit" and len(short.stages) == 2
    assert count_blocks(path) == 2 * 13  # the blocks holding stage 2's 6,325 trials, nothing beyond
    drop = ("seconds", "decision")
    full = dpaudit.audit(sm.laplace, 0.0, 1.0, checkpoint=path, **AUTO)
    assert any("resumed, 26 of 80 blocks loaded" in note for note in full.notes), full.notes
    assert verdict(full) == verdict(reference)
    assert [{k: v for k, v in dataclasses.asdict(st).items() if k not in drop} for st in short.stages] == \
        [{k: v for k, v in dataclasses.asdict(st).items() if k not in drop} for st in reference.stages[:2]]


@pytest.mark.parametrize(("change", "field"), [
    (dict(first_trials=1_000), "stages from 2000 trials, sqrt(10)-fold, up to 20000"),
    (dict(max_trials=30_000), "stages from 2000 trials, sqrt(10)-fold, up to 20000"),
    (dict(trials=20_000, first_trials=None, max_trials=None), "trials is auto: stages from 2000"),
])
def test_a_checkpoint_of_another_schedule_is_refused(tmp_path, change, field):
    path = tmp_path / "auto.sqlite"
    dpaudit.audit(sm.laplace, 0.0, 1.0, checkpoint=path, max_stages=1, **AUTO)
    before = digest(path)
    with pytest.raises(CheckpointError, match=re.escape(field)) as info:
        dpaudit.audit(sm.laplace, 0.0, 1.0, checkpoint=path, **{**AUTO, **change})
    assert "was written by a different audit" in str(info.value)
    assert digest(path) == before


def test_the_time_limit_and_stage_limit_are_not_part_of_the_schedule(tmp_path, reference):
    """They only decide where a run stops, never which rows a stage reads: a checkpoint is shared."""
    path = tmp_path / "auto.sqlite"
    dpaudit.audit(sm.laplace, 0.0, 1.0, checkpoint=path, max_stages=1, **AUTO)
    again = dpaudit.audit(sm.laplace, 0.0, 1.0, checkpoint=path, max_seconds=3600.0, **AUTO)
    assert verdict(again) | {"max_seconds": None} == verdict(reference)
