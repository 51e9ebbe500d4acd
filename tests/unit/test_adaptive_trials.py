"""``audit(..., trials="auto")``: the schedule, the spending, the rows each stage reads, how it stops.

Validity counted over many adaptive audits is in ``tests/statistical/test_adaptive_validity.py``;
checkpoints of adaptive audits in ``tests/scale/test_adaptive_checkpoint.py``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

import dpaudit
from dpaudit import InvalidArgument
from dpaudit.auditor import adaptive
from dpaudit.auditor.adaptive import StagePlan, stage_alpha, stage_ends
from dpaudit.auditor.result import STOP_REASONS
from dpaudit.auditor.stats import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound_from_counts,
)
from dpaudit.mechanisms import LaplaceMechanism

#: Laplace(1) audited against (0.97, 1e-6) goes on stage after stage (its GDP estimate is far above the
#: claim) and is flagged once the bound passes 0.97: several stages in well under a second.
GOING_ON = dict(epsilon=0.97, delta=1e-6, trials="auto", first_trials=2_000, max_trials=200_000, seed=3)


def stages_of(result: dpaudit.AuditResult, drop: tuple[str, ...] = ("seconds",)) -> list[dict]:
    return [{k: v for k, v in dataclasses.asdict(st).items() if k not in drop} for st in result.stages]


def leaky(data, rng, size=None):
    """Laplace noise of scale 1/2 on a sensitivity-1 query: 2-DP."""
    return np.asarray(data, dtype=float) + rng.laplace(0.0, 0.5, size=size)


# -- the schedule and the spending -------------------------------------------------------------------


def test_the_schedule_grows_sqrt10_fold_and_does_not_depend_on_the_budget():
    assert stage_ends(100_000, 10**7) == [100_000, 316_228, 1_000_000, 3_162_278, 10_000_000]
    assert stage_ends(100_000, 2_000_000) == [100_000, 316_228, 1_000_000, 2_000_000]  # the budget ends the last
    assert stage_ends(100_000, 40_000) == [40_000]
    small, large = stage_ends(500, 60_000), stage_ends(500, 10**9)
    assert large[: len(small) - 1] == small[:-1]  # a larger budget only adds stages


def test_the_stages_spend_at_most_alpha_whatever_their_number():
    alpha = 0.05
    assert [stage_alpha(alpha, s) for s in (1, 2, 3)] == pytest.approx([alpha / 3, alpha / 6, alpha / 10])
    for stages in (1, 2, 5, 40, 10_000):
        spent = math.fsum(stage_alpha(alpha, s) for s in range(1, stages + 1))
        assert spent == pytest.approx(alpha * (1 - 2 / (stages + 2)), rel=1e-12) and spent < alpha


@pytest.mark.parametrize(("fraction", "row_values"), [(0.1, 1), (0.3, 10), (0.3, 10**6)])
def test_each_stage_selects_on_earlier_rows_and_estimates_on_the_rows_after_them(fraction, row_values):
    plan = StagePlan.build(1_000, 10**6, 0.05, fraction, row_values)
    assert plan.ends == tuple(stage_ends(1_000, 10**6)) and len(plan.alphas) == len(plan.ends)
    assert plan.estimation(1) == (plan.selection[0], plan.ends[0])
    for s in range(2, len(plan.ends) + 1):
        lo, hi = plan.estimation(s)
        assert (lo, hi) == (plan.ends[s - 2], plan.ends[s - 1])  # contiguous, disjoint from earlier stages'
        assert plan.selection[s - 1] <= plan.ends[s - 2]  # drawn by earlier stages only
        assert plan.selection[s - 1] >= plan.selection[s - 2]
        assert plan.selection[s - 1] * row_values <= max(adaptive.MAX_SELECTION_VALUES, plan.selection[0] * row_values)


def test_each_stage_is_evaluated_at_its_own_share_of_alpha():
    """Recompute each stage's reported bound and intervals at alpha_s / candidates from its counts."""
    result = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, candidates=2, **GOING_ON)
    assert len(result.stages) >= 3
    alpha = 1 - result.confidence
    for st in result.stages:
        assert st.alpha == pytest.approx(stage_alpha(alpha, st.stage), rel=1e-12)
    best = max(result.stages, key=lambda st: st.epsilon_lower_bound)
    ev, level = result.evidence, best.alpha / result.candidates_evaluated
    assert ev.n == best.estimation_trials == result.estimation_trials
    assert ev.value == epsilon_lower_bound_from_counts(ev.count_numerator, ev.count_denominator, ev.n, result.delta, level)
    assert ev.p_numerator_interval == (clopper_pearson_lower(ev.count_numerator, ev.n, level / 2),
                                       clopper_pearson_upper(ev.count_numerator, ev.n, level / 2))
    assert ev.p_denominator_interval[1] == clopper_pearson_upper(ev.count_denominator, ev.n, level / 2)
    assert result.epsilon_lower_bound == max(st.epsilon_lower_bound for st in result.stages)


# -- the rows each stage reads ----------------------------------------------------------------------


def tagged(data, rng, size=None):
    """Every output a distinct random tag (the same on both datasets: nothing leaks), to see which rows are read."""
    return rng.random(size) + 0.0 * np.asarray(data, dtype=float)


def test_selection_reads_only_rows_before_the_stage_and_estimation_exactly_the_stage_s_new_rows(monkeypatch):
    """Tag every row, record the rows each selection and each count reads, and map them back to trials."""
    reads: list[tuple[str, set[float]]] = []
    choose = adaptive.choose_candidates

    def spying_choice(layout, x0, x1, **kwargs):
        reads.append(("select", set(x0[:, 0]) | set(x1[:, 0])))
        return choose(layout, x0, x1, **kwargs)

    class SpyingTally(adaptive.EventTally):
        def add(self, dataset, outputs):
            reads.append(("count", set(np.asarray(outputs, dtype=float).ravel())))
            super().add(dataset, outputs)

    predict = adaptive._predicted_at_budget

    def spying_prediction(*args, **kwargs):
        reads.append(("look", set()))
        predict(*args, **kwargs)  # it selects again, on rows it may read: recorded as the look's
        return math.inf  # a violation is always within reach: every stage runs

    monkeypatch.setattr(adaptive, "choose_candidates", spying_choice)
    monkeypatch.setattr(adaptive, "EventTally", SpyingTally)
    monkeypatch.setattr(adaptive, "_evidence_continues", lambda *args: False)  # every decision selects again
    monkeypatch.setattr(adaptive, "_predicted_at_budget", spying_prediction)
    result = dpaudit.audit(tagged, 0.0, 1.0, epsilon=1.0, trials="auto", first_trials=300, max_trials=10_000,
                           block_size=512, seed=11)
    assert [st.trials for st in result.stages] == stage_ends(300, 10_000) and result.stop_reason == "budget"
    # the same rows drawn again, outside the audit: tag -> (dataset, trial index)
    (o0, o1), _ = dpaudit.auditor.sampling.draw_outputs(
        dpaudit.auditor.sampling.as_sampler(tagged), [0.0, 1.0], 10_240, dpaudit._rng.TrialStreams(11, 512))
    index = {float(v): (0, i) for i, v in enumerate(o0)} | {float(v): (1, i) for i, v in enumerate(o1)}
    assert len(index) == 2 * 10_240
    ends = stage_ends(300, 10_000)
    assert [kind for kind, _ in reads].count("look") == len(ends) - 1
    counted: dict[int, set[tuple[int, int]]] = {}
    stage, looking = 0, False
    for kind, tags in reads:
        if kind == "look":  # deciding whether to run stage + 1: rows of the stages before it only
            looking = True
        elif kind == "select" and looking:
            assert max(index[t][1] for t in tags) < ends[stage - 1]
            looking = False
        elif kind == "select":
            stage += 1
            assert max(index[t][1] for t in tags) < (result.stages[0].selection_trials if stage == 1 else ends[stage - 2])
        else:
            counted.setdefault(stage, set()).update(index[t] for t in tags)
    for s, st in enumerate(result.stages, 1):
        lo, hi = (st.selection_trials, st.trials) if s == 1 else (ends[s - 2], st.trials)
        assert counted[s] == {(j, i) for j in (0, 1) for i in range(lo, hi)}, s
        assert st.estimation_trials == hi - lo


# -- reproducible --------------------------------------------------------------------------------------


def test_the_same_seed_gives_the_same_stages_whatever_the_batch_size_executor_and_workers():
    mech = LaplaceMechanism(1.0)
    kwargs = dict(GOING_ON, block_size=4096)
    base = dpaudit.audit(mech, 0.0, 1.0, **kwargs)
    assert len(base.stages) >= 3
    runs = [dpaudit.audit(mech, 0.0, 1.0, batch_size=10_000, **kwargs)]
    with ThreadPoolExecutor(3) as ex:
        runs.append(dpaudit.audit(mech, 0.0, 1.0, executor=ex, **kwargs))
    with ProcessPoolExecutor(2) as ex:
        runs.append(dpaudit.audit(mech, 0.0, 1.0, executor=ex, batch_size=9_000, **kwargs))
    for run in runs:
        assert stages_of(run) == stages_of(base)
        assert (run.evidence, run.stop_reason, run.gdp_mu_lower_bound) == (base.evidence, base.stop_reason, base.gdp_mu_lower_bound)


def test_a_larger_budget_repeats_the_earlier_stages():
    small = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, **dict(GOING_ON, epsilon=0.999, max_trials=63_246))
    large = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, **dict(GOING_ON, epsilon=0.999, max_trials=2_000_000))
    assert small.stop_reason == "budget" and len(large.stages) > len(small.stages) == 4
    # the budget enters the decisions and the reach only
    drop = ("seconds", "decision", "reach", "predicted_at_budget")
    assert stages_of(large, drop)[: len(small.stages)] == stages_of(small, drop)


# -- stopping -----------------------------------------------------------------------------------------


def test_a_leak_stops_at_the_stage_that_establishes_it():
    result = dpaudit.audit(leaky, 0.0, 1.0, epsilon=1.0, trials="auto", first_trials=2_000, seed=0)
    assert result.violation and result.stop_reason == "violation" and len(result.stages) == 1
    assert result.stages[-1].decision == "violation" and result.trials == 2_000


def test_the_halved_sigma_gaussian_is_flagged_with_the_defaults_at_every_seed():
    """Half the classical sigma for (1, 1e-5) (true epsilon about 1.61): a fixed 10^5-trial audit misses it at
    some seeds (0.73 at seed 4); the adaptive defaults (10^5 first, up to 10^7) flag it, in one to three stages."""
    sigma = math.sqrt(2 * math.log(1.25 / 1e-5)) / 2  # as benchmarks/bench_adaptive_trials.py

    def halved_sigma_gaussian(data, rng, size=None):
        return np.asarray(data, dtype=float) + rng.normal(0.0, sigma, size=size)

    for seed in range(5):
        result = dpaudit.audit(halved_sigma_gaussian, 0.0, 1.0, epsilon=1.0, delta=1e-5, trials="auto", seed=seed)
        assert result.violation and result.stop_reason == "violation", (seed, result.epsilon_lower_bound, result.stages)
        assert result.trials <= 1_000_000, (seed, result.trials)


def test_a_claim_far_above_the_evidence_stops_out_of_reach():
    result = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=3.0, trials="auto", first_trials=2_000, seed=0)
    assert not result.violation and result.stop_reason == "out of reach" and len(result.stages) == 1
    last = result.stages[-1]
    assert last.reach < 3.0 and last.predicted_at_budget < 3.0 and last.decision == "out of reach"


def test_the_budget_and_max_stages_stop_it():
    kwargs = dict(GOING_ON, epsilon=1.0, max_trials=20_000)
    budget = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, **kwargs)
    assert budget.stop_reason == "budget" and [st.trials for st in budget.stages] == [2_000, 6_325, 20_000]
    assert [st.decision for st in budget.stages] == ["continue", "continue", "budget"]
    limited = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, max_stages=2, **kwargs)
    assert limited.stop_reason == "stage limit" and stages_of(limited, ("seconds", "decision")) == \
        stages_of(budget, ("seconds", "decision"))[:2]


def test_the_result_shows_its_stages_as_text_and_json():
    result = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, **dict(GOING_ON, epsilon=1.0, max_trials=20_000))
    text = result.to_text()
    assert "3 stages" in text and "stopped           : budget" in text and "max_stages=3" in text
    for st in result.stages:
        assert f"{st.trials:9d}" in text
    data = json.loads(result.to_json())
    assert data["schema_version"] == 3 and data["stop_reason"] == "budget" and data["max_trials"] == 20_000
    assert [st["trials"] for st in data["stages"]] == [2_000, 6_325, 20_000]
    assert set(STOP_REASONS) == {"violation", "budget", "out of reach", "stage limit", "time"}
    fixed = json.loads(dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, trials=2_000, seed=0).to_json())
    assert fixed["stages"] == [] and fixed["stop_reason"] is None  # a fixed count: fields present, empty


class VirtualClock:
    """``time.perf_counter`` plus a virtual offset that :class:`Paced` advances instead of sleeping.

    The time-limit tests then do not depend on the machine's speed or load: the mechanism's virtual
    pauses (tens of seconds) dwarf the auditor's real work (well under a second even on a busy machine).
    """

    def __init__(self) -> None:
        self.offset, self.real = 0.0, time.perf_counter

    def __call__(self) -> float:
        return self.real() + self.offset


@pytest.fixture
def clock(monkeypatch):
    virtual = VirtualClock()
    monkeypatch.setattr(time, "perf_counter", virtual)
    return virtual


class Paced:
    """Laplace(1) noise whose calls take ``pause`` virtual seconds, ``later`` seconds each after ``calls``."""

    def __init__(self, clock: VirtualClock, pause: float, calls: int | None = None, later: float = 0.0) -> None:
        self.clock, self.pause, self.calls, self.later, self.made = clock, pause, calls, later, 0

    def __call__(self, data, rng, size=None):
        self.made += 1
        self.clock.offset += self.later if self.calls is not None and self.made > self.calls else self.pause
        return np.asarray(data, dtype=float) + rng.laplace(0.0, 1.0, size=size)


def test_a_time_limit_stops_between_stages_says_so_and_max_stages_reproduces_it(clock):
    kwargs = dict(epsilon=1.0, delta=1e-6, trials="auto", first_trials=200, max_trials=10**6, block_size=100, seed=5)
    timed = dpaudit.audit(Paced(clock, 0.4), 0.0, 1.0, max_seconds=100.0, **kwargs)
    assert timed.stop_reason == "time" and timed.time_limited and 2 <= len(timed.stages) < len(stage_ends(200, 10**6))
    assert timed.stages[-1].decision == "time" and timed.total_seconds < 100.0 + 50.0  # stopped before, not after
    assert any("depends on this machine's speed" in note for note in timed.notes)
    assert f"max_stages={len(timed.stages)}" in timed.reproduce and "max_trials=1000000" in timed.reproduce
    again = dpaudit.audit(Paced(clock, 0.0), 0.0, 1.0, max_stages=len(timed.stages), **kwargs)
    assert again.stop_reason == "stage limit" and not again.time_limited
    drop = ("seconds", "decision")
    assert stages_of(again, drop) == stages_of(timed, drop) and again.evidence == timed.evidence


def test_a_stage_that_overruns_the_time_limit_is_discarded_not_used_in_part(clock):
    """The mechanism slows down after stage 1, so the projection is too hopeful and stage 2 overruns."""
    mech = Paced(clock, 0.0, calls=9, later=100.0)  # the probe and stage 1 (4 blocks on each dataset) run fast
    result = dpaudit.audit(mech, 0.0, 1.0, epsilon=1.0, delta=1e-6, trials="auto", first_trials=400, max_trials=10**5,
                           block_size=100, max_seconds=200.0, seed=5)
    assert result.stop_reason == "time" and len(result.stages) == 1 and result.trials == 400
    assert any("partial sample was discarded" in note for note in result.notes)


# -- arguments ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(trials="many"), "`trials` must be an integer >= 100 or 'auto'"),
    (dict(trials=1_000, max_trials=10_000), "`max_trials` must be left out with a fixed trial count"),
    (dict(trials=1_000, max_seconds=5), "`max_seconds` must be left out with a fixed trial count"),
    (dict(trials="auto", max_trials=50), "`max_trials` must be an integer >= 100"),
    (dict(trials="auto", first_trials=10), "`first_trials` must be an integer >= 100"),
    (dict(trials="auto", max_seconds=0.0), "`max_seconds` must be in (0, inf]"),
    (dict(trials="auto", max_stages=0), "`max_stages` must be an integer >= 1"),
])
def test_bad_budgets_are_refused_naming_the_argument(kwargs, message):
    with pytest.raises(InvalidArgument) as info:
        dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, seed=0, **kwargs)
    assert message in str(info.value)
