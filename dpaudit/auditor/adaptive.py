"""Adaptive trials, ``audit(..., trials="auto")``: an audit in stages.

It stops as soon as a violation is established, and otherwise grows while the evidence says one may
be within reach, up to a budget.

**Schedule.** Stage ``s = 1, 2, ...`` ends at ``N_s = round(first_trials * GROWTH**(s - 1))`` trials
per dataset, ``GROWTH = sqrt(10)`` (from the default first stage: 10^5, 316,228, 10^6, 3,162,278,
10^7, ...); the last stage within the budget ends at ``max_trials`` itself. The stages and their
spending are fixed before anything is drawn and do not depend on the budget, so a rerun with the
same seed and a larger ``max_trials`` repeats the earlier stages exactly.

**Rows** (both datasets alike). Trial ``i`` of dataset ``j`` is the same draw however the audit is run
(:mod:`.sampling`), and an adaptive audit's blocks are always whole (a stage that ends inside a
block uses the block's first rows, and its next stage the rest), so no row depends on the budget.

* Stage 1 is the fixed-count audit of :mod:`.runner` at ``N_1`` trials: its selection reads rows
  ``[0, n_1)`` (the selection fraction ``f`` of ``N_1``, ``f`` set by the output layout), its
  estimation reads rows ``[n_1, N_1)``.
* Stage ``s >= 2``: its selection reads rows ``[0, n_s)``, ``n_s = min(f N_s, N_{s-1}, cap)`` (``cap``
  bounds the selection rows held, at ``MAX_SELECTION_VALUES`` output numbers). All of them were
  drawn by earlier stages, earlier stages' estimation rows included: reusing rows for a later
  *selection* is free, as the events are still fixed before the new stage's estimation rows are
  read. Its estimation reads rows ``[N_{s-1}, N_s)``, which no selection of stages 1 to ``s`` and no
  decision to run stage ``s`` has read (later stages' selections may read them).

**Spending.** Stage ``s`` is evaluated at level ``alpha_s = alpha * 2 / ((s + 1)(s + 2))`` (``alpha =
1 - confidence``): ``alpha/3, alpha/6, alpha/10, alpha/15, ...``, a telescoping series whose sum
over the infinite schedule is ``alpha``. Inside a stage its ``m`` candidate events are paid for at
``alpha_s / m`` each, with one-sided Clopper-Pearson limits at half that, exactly as in :mod:`.runner`.

**Validity.** Picture every stage of the infinite schedule run: stage ``s``'s events (and their
number) are a deterministic function of rows ``[0, n_s)``, and its counts are of rows ``[N_{s-1},
N_s)``, disjoint from them and independent of everything before; conditionally on the earlier rows,
the argument of :mod:`.runner` gives ``P[bound_s > epsilon] <= alpha_s`` for an (epsilon,
delta)-DP mechanism, so by the union bound ``P[some stage's bound > epsilon] <= sum_s alpha_s <=
alpha``. The audit runs a prefix of these stages and reports the largest bound among them: which
prefix (a violation, the budget, the evidence, the clock, ``max_stages``) may depend on anything
without touching the guarantee. A stage cut short by the time limit is discarded, never evaluated on
part of its rows: a stage whose size the clock set would not be one of the tests fixed in advance.

**Stopping**, after stage ``s``, in this order: its bound exceeds the claim (``"violation"``); it was
the last stage within ``max_trials`` (``"budget"``); it was stage ``max_stages`` (``"stage limit"``);
no evidence says a violation may be within reach at the budget (``"out of reach"``): the stage's GDP
estimate (:func:`~dpaudit.auditor.stats.gdp_mu_lower_bound_from_counts`, the epsilon at ``delta`` of
a Gaussian trade-off curve), its event's bound extrapolated to each later stage within
``max_trials`` with its fresh frequencies taken as the truth (the ``reach``), and, when both of those
are at most the claim, the bound a selection on the next stage's selection rows predicts for the
last stage within ``max_trials`` (the selection of :mod:`.selection`, tail fits included, asked for
that largest affordable size; its best events' frequencies are also scaled up unshrunk) are all at
most the claim; the next stage is not predicted to finish
within ``max_seconds`` at the speed of drawing, counting and selecting so far, or does not finish
(``"time"``). Only ``"time"`` depends on the machine: the result says so, and its ``reproduce`` gives
the arguments that redo the same stages (``max_stages``) on any machine, since every other decision
is a function of the draws alone. The evidence only decides how long to go on, never what a stage
reports, so a rule that goes on too long costs time and one that stops too early costs power,
neither validity. The first stage always runs to its end.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from dpaudit.accounting.conversions import gdp_epsilon
from dpaudit.auditor.features import LAYOUT_ROWS, detect_layout, flatten_outputs
from dpaudit.auditor.independence import check_row_independence, flagged_violation, spot_check_size
from dpaudit.auditor.options import (
    DEFAULT_CONFIDENCE,
    DEFAULT_FIRST_TRIALS,
    DEFAULT_MAX_TRIALS,
    AdaptiveTrials,
    AttackOptions,
)
from dpaudit.auditor.ranking import Candidate, predicted_bounds
from dpaudit.auditor.result import AuditResult, EventEvidence, StageRecord
from dpaudit.auditor.sampling import BlockSource
from dpaudit.auditor.selection import SCALAR_FRACTION, choose_candidates, default_selection_fraction
from dpaudit.auditor.stats import gdp_mu_lower_bound_from_counts
from dpaudit.auditor.streaming import EventTally, event_evidence, read_selection, selection_size
from dpaudit.errors import DPAuditError

__all__ = [
    "DEFAULT_FIRST_TRIALS",
    "DEFAULT_MAX_TRIALS",
    "GROWTH",
    "MAX_SELECTION_VALUES",
    "Budget",
    "StagePlan",
    "run_stages",
    "stage_alpha",
    "stage_ends",
]

GROWTH = math.sqrt(10.0)
#: Output numbers per dataset a later stage's selection may hold (its rows are capped at this over
#: the row's size); a bound fixed in advance, so it never depends on the machine's memory.
MAX_SELECTION_VALUES = 1 << 24
#: Events whose unshrunk selection frequencies are scaled to the budget in the "out of reach" test.
FUTILITY_EVENTS = 4


@dataclass(frozen=True)
class Budget:
    """What an adaptive audit may spend: ``max_trials`` per dataset, ``max_seconds``, ``max_stages``."""

    first_trials: int
    max_trials: int
    max_seconds: float | None
    max_stages: int | None

    @classmethod
    def of(cls, schedule: AdaptiveTrials) -> Budget:
        """The budget of an adaptive audit (its fields checked by :class:`AdaptiveTrials`)."""
        return cls(schedule.first_trials, schedule.max_trials, schedule.max_seconds, schedule.max_stages)

    def whole_blocks(self, block_size: int) -> int:
        """Trials of the whole blocks that hold ``max_trials``: the plan never cuts a block short."""
        return -(-self.max_trials // block_size) * block_size

    def describe(self) -> str:
        """The stages, as a checkpoint's fingerprint records them (what decides which blocks are drawn)."""
        return f"auto: stages from {self.first_trials} trials, sqrt(10)-fold, up to {self.max_trials}, whole blocks"


def stage_ends(first_trials: int, max_trials: int) -> list[int]:
    """``N_1, N_2, ...``: where each stage ends, in trials per dataset, up to and including ``max_trials``.

    Examples
    --------
    >>> stage_ends(100_000, 1_000_000)
    [100000, 316228, 1000000]
    >>> stage_ends(100_000, 2_000_000)
    [100000, 316228, 1000000, 2000000]
    >>> stage_ends(100_000, 50_000)
    [50000]
    """
    ends = []
    s = 0
    while True:
        end = round(first_trials * 10.0 ** (s / 2))  # GROWTH**s, exact at the decades
        if end >= max_trials:
            ends.append(max_trials)
            return ends
        ends.append(end)
        s += 1


def stage_alpha(alpha: float, stage: int) -> float:
    """``alpha * 2 / ((s + 1)(s + 2))``: stage ``s``'s share of ``alpha``; over all ``s >= 1`` they sum to ``alpha``.

    Examples
    --------
    >>> [round(stage_alpha(0.06, s), 4) for s in (1, 2, 3)]
    [0.02, 0.01, 0.006]
    """
    return alpha * 2.0 / ((stage + 1) * (stage + 2))


@dataclass(frozen=True)
class StagePlan:
    """The stages of one adaptive audit: where each ends, its level, and the rows its selection reads."""

    ends: tuple[int, ...]
    alphas: tuple[float, ...]
    selection: tuple[int, ...]

    @classmethod
    def build(cls, first_trials: int, max_trials: int, alpha: float, fraction: float, row_values: int) -> StagePlan:
        """The plan for an audit growing from ``first_trials`` to at most ``max_trials`` rows.

        Parameters
        ----------
        first_trials, max_trials : int
            The first stage's end and the cap (:func:`stage_ends`).
        alpha : float
            The audit's total failure probability, spent over the stages by :func:`stage_alpha`.
        fraction : float
            The share of each stage's rows its selection reads (non-decreasing across stages).
        row_values : int
            Values per row: the selection is capped so that it reads at most ``MAX_SELECTION_VALUES``.

        Returns
        -------
        StagePlan
        """
        ends = stage_ends(first_trials, max_trials)
        cap = max(2, MAX_SELECTION_VALUES // max(1, row_values))
        sizes = [selection_size(ends[0], fraction)]
        for s in range(1, len(ends)):
            sizes.append(max(sizes[-1], min(round(fraction * ends[s]), ends[s - 1], cap)))
        return cls(tuple(ends), tuple(stage_alpha(alpha, s + 1) for s in range(len(ends))), tuple(sizes))

    def estimation(self, s: int) -> tuple[int, int]:
        """Rows ``[lo, hi)`` stage ``s`` (from 1) counts its events on."""
        return (self.selection[0] if s == 1 else self.ends[s - 2]), self.ends[s - 1]


class _TimeUp(DPAuditError):
    """The time limit passed inside a stage: the stage is discarded."""


@dataclass
class _Rows:
    """Routes arriving rows: into the selection store (rows ``[0, capacity)``), the stage's tally, the carry.

    The *carry* is the part of the last block drawn beyond the current stage's end: the next stage's
    first estimation rows, held (one block per dataset) rather than drawn again.
    """

    store: list[NDArray[Any]]
    carry: list[tuple[int, NDArray[Any]] | None]
    drawn: int = 0
    counted: int = 0
    progress: Any = None  # a progress bar, advanced by the rows counted

    def route(self, j: int, start: int, rows: NDArray[Any], tally: EventTally, lo: int, hi: int) -> None:
        stop = start + len(rows)
        end = min(stop, len(self.store[j]))
        if start < end:
            self.store[j][start:end] = rows[: end - start]
        a, b = max(start, lo), min(stop, hi)
        if a < b:
            tally.add(j, rows[a - start : b - start])
            self.counted += b - a
            if self.progress is not None:
                self.progress.update(b - a)
        if stop > hi:
            keep = max(start, hi)
            self.carry[j] = (keep, rows[keep - start :].copy())


@dataclass
class _Stage:
    """What one finished stage hands on: its record's figures, its evidence, its counts."""

    s: int
    evidence: EventEvidence
    chosen: list[Candidate]
    counts: tuple[int, int]
    gdp_mu: float | None
    gdp_eps: float | None
    gdp_evidence: EventEvidence | None
    selection_seconds: float
    seconds: float
    layout_text: str
    candidates_evaluated: int
    fields: dict[str, Any] = field(default_factory=dict)


def run_stages(
    sampler: Any, source: BlockSource, notes: list[str], *, started: float, epsilon: float, delta: float,
    confidence: float, first_trials: int, max_trials: int, max_seconds: float | None, max_stages: int | None,
    candidates: int, selection_fraction: float | None, float_bits: bool, spot_check: int | None,
    fits: Callable[[int], None], row_values: int, progress: Any = None,
) -> AuditResult:
    """The staged audit (see the module docstring) on the blocks ``source`` hands over.

    ``source`` covers whole blocks up to ``max_trials``; ``fits(n)`` raises when ``n`` selection rows
    cannot fit in memory (checked for the largest stage's selection before it is drawn).
    """
    alpha = 1.0 - confidence
    first = min(first_trials, max_trials)
    found: dict[str, Any] = {}

    def size_of_split(heads: list[NDArray[Any]]) -> int:
        layout = detect_layout(flatten_outputs(heads[0]), flatten_outputs(heads[1]))
        fraction = default_selection_fraction(layout, float_bits) if selection_fraction is None else selection_fraction
        found["plan"] = plan = StagePlan.build(first, max_trials, alpha, fraction, row_values)
        fits(plan.selection[-1])
        return plan.selection[0]

    n_min = selection_size(first, SCALAR_FRACTION if selection_fraction is None else selection_fraction)
    _show_stage(progress, 1, len(stage_ends(first, max_trials)), len(source.datasets) * first)
    split = read_selection(source, min(n_min, LAYOUT_ROWS), size_of_split)
    plan: StagePlan = found["plan"]
    capacity = plan.selection[-1]
    if capacity == plan.selection[0]:
        store = list(split.rows)
    else:
        store = []
        for rows in split.rows:
            held = np.empty((capacity, *rows.shape[1:]), dtype=rows.dtype)
            held[: len(rows)] = rows
            store.append(held)
    split.rows.clear()
    router = _Rows(store, [(plan.selection[0], tail) if len(tail) else None for tail in split.tails], progress=progress)
    if progress is not None:
        progress.update(len(source.datasets) * plan.selection[0])
    router.drawn = sum(stop - start for _, start, stop in source.plan.covering(0, plan.selection[0])) * len(source.datasets)
    split.tails.clear()

    done: list[_Stage] = []
    reason, aborted, looked = None, "", 0.0
    for s in range(1, len(plan.ends) + 1):
        if s > 1:  # go on to stage s? (reads rows below N_{s-1} only, as every choice before stage s)
            prev, t_look = done[-1], time.perf_counter()
            reason, predicted = _stop_before(prev, s, epsilon, max_stages), None
            if reason is None and not _evidence_continues(prev, epsilon):
                predicted = _predicted_at_budget(plan, s, store, delta, candidates, float_bits)
                reason = None if predicted > epsilon else "out of reach"
            looked += time.perf_counter() - t_look
            if reason is None and max_seconds is not None and _projected_end(plan, s, done, router, source, started) > max_seconds:
                reason = "time"
            prev.fields.update(predicted_at_budget=predicted, decision=reason or "continue")
            if reason is not None:
                break
        try:
            done.append(_run_stage(s, plan, store, router, source, delta, candidates, float_bits, started=started,
                                   deadline=None if s == 1 or max_seconds is None else max_seconds, progress=progress))
        except _TimeUp:
            lo, hi = plan.estimation(s)
            reason, aborted = "time", (f"stage {s} (trials {lo} to {hi}) passed max_seconds = {max_seconds:g} before "
                                       "it finished; its partial sample was discarded")
            done[-1].fields["decision"] = reason
            break
    else:
        reason = "violation" if done[-1].evidence.value > epsilon else "budget"
        done[-1].fields.update(predicted_at_budget=None, decision=reason)
    if aborted:
        notes.append(aborted)
    return _result(sampler, source, notes, done, plan, reason, started=started, epsilon=epsilon, delta=delta,
                   confidence=confidence,
                   max_trials=max_trials, max_seconds=max_seconds, first_trials=first_trials, spot_check=spot_check,
                   looked=looked, attack=AttackOptions(selection_fraction=selection_fraction, candidates=candidates,
                                                       float_bits=float_bits, spot_check=spot_check))


def _stop_before(prev: _Stage, s: int, epsilon: float, max_stages: int | None) -> str | None:
    """Stop reasons that need no further evidence, after stage ``s - 1``."""
    if prev.evidence.value > epsilon:
        return "violation"
    if max_stages is not None and s - 1 >= max_stages:
        return "stage limit"
    return None


def _evidence_continues(prev: _Stage, epsilon: float) -> bool:
    """The GDP estimate or the reach of the stage's event says a violation may be within reach."""
    reach = prev.fields.get("reach")
    return (prev.gdp_eps is not None and prev.gdp_eps > epsilon) or (reach is not None and reach > epsilon)


def _reach(ev: EventEvidence, s: int, plan: StagePlan, delta: float, candidates: int) -> float | None:
    """The largest bound stage ``s``'s event would give at a later stage, its fresh frequencies taken as the truth."""
    best = None
    for t in range(s + 1, len(plan.ends) + 1):
        lo, hi = plan.estimation(t)
        z = float(stats.norm.isf(plan.alphas[t - 1] / (2 * candidates)))
        value = float(predicted_bounds(np.array([float(ev.count_numerator)]), np.array([float(ev.count_denominator)]),
                                       ev.n, hi - lo, delta, z, shrink=0.0)[0])
        value = max(0.0, value) if math.isfinite(value) else 0.0
        best = value if best is None else max(best, value)
    return best


def _select(plan: StagePlan, s: int, store: list[NDArray[Any]], delta: float, candidates: int,
            float_bits: bool) -> tuple[Any, tuple[list[Candidate], list[Candidate]], float]:
    """Stage ``s``'s selection on rows ``[0, n_s)``: (layout, candidates by epsilon and by GDP, seconds)."""
    t = time.perf_counter()
    n_sel = plan.selection[s - 1]
    lo, hi = plan.estimation(s)
    x0, x1 = flatten_outputs(store[0][:n_sel]), flatten_outputs(store[1][:n_sel])
    layout = detect_layout(x0, x1)
    z = float(stats.norm.isf(plan.alphas[s - 1] / (2 * candidates)))
    chosen = choose_candidates(layout, x0, x1, n_est=hi - lo, delta=delta, z=z, float_bits=float_bits)
    return layout, chosen, time.perf_counter() - t


def _predicted_at_budget(plan: StagePlan, s: int, store: list[NDArray[Any]], delta: float, candidates: int,
                         float_bits: bool) -> float:
    """The best bound predicted for the last stage within the budget from stage ``s``'s selection rows.

    The selection of :mod:`.selection` (tail fits for scalar outputs, fitted families otherwise) is
    asked for the last stage's estimation size and level ("the predicted bound at the largest
    affordable size"); its ``FUTILITY_EVENTS`` best events are then counted on all those rows and
    their frequencies, *not* shrunk against the winner's curse as the ranking's are, scaled to
    that size. Erring high here only costs time (a stage more), erring low costs power.
    """
    n_sel = plan.selection[s - 1]
    lo, hi = plan.estimation(len(plan.ends))
    x0, x1 = flatten_outputs(store[0][:n_sel]), flatten_outputs(store[1][:n_sel])
    z = float(stats.norm.isf(plan.alphas[-1] / (2 * candidates)))
    layout = detect_layout(x0, x1)
    eps_cands, _ = choose_candidates(layout, x0, x1, n_est=hi - lo, delta=delta, z=z, float_bits=float_bits)
    best = max((c.predicted for c in eps_cands[:candidates]), default=-math.inf)
    for cand in eps_cands[:FUTILITY_EVENTS]:
        k = [int(np.count_nonzero(cand.event(cand.score(x)))) for x in (x0, x1)]
        k_num, k_den = (k[0], k[1]) if cand.numerator == 0 else (k[1], k[0])
        value = float(predicted_bounds(np.array([float(k_num)]), np.array([float(k_den)]), n_sel, hi - lo, delta, z,
                                       shrink=0.0)[0])
        best = max(best, value)
    layout.forget_codes()
    return best


def _projected_end(plan: StagePlan, s: int, done: list[_Stage], router: _Rows, source: BlockSource, started: float) -> float:
    """When stage ``s`` would end (seconds since ``started``) at the speed of drawing, counting and selecting so far."""
    lo, hi = plan.estimation(s)
    carried = router.carry[0]
    begin = lo if carried is None else carried[0] + len(carried[1])
    to_draw = sum(stop - start for _, start, stop in source.plan.covering(begin, hi)) * len(source.datasets)
    per_drawn = source.seconds / max(router.drawn, 1)
    counting = sum(max(0.0, st.seconds - st.selection_seconds - st.fields["sampling"]) for st in done)
    per_counted = counting / max(router.counted, 1)
    prev = done[-1]
    selection = prev.selection_seconds * plan.selection[s - 1] / max(plan.selection[s - 2], 1)
    now = time.perf_counter() - started
    return now + to_draw * per_drawn + len(source.datasets) * (hi - lo) * per_counted + selection


def _show_stage(progress: Any, s: int, stages: int, total: int) -> None:
    """Point the progress bar (tqdm) at stage ``s``, of ``total`` trials (both datasets), the last one shown complete."""
    if progress is None or not hasattr(progress, "reset"):
        return
    progress.refresh()
    progress.reset(total=total)
    progress.set_description(f"stage {s}/{stages}", refresh=True)


def _run_stage(s: int, plan: StagePlan, store: list[NDArray[Any]], router: _Rows, source: BlockSource, delta: float,
               candidates: int, float_bits: bool, *, started: float, deadline: float | None,
               progress: Any = None) -> _Stage:
    """Stage ``s``: its selection on rows ``[0, n_s)``, then its estimation rows counted as they arrive."""
    t0, drawn_before = time.perf_counter(), source.seconds
    layout, (eps_cands, gdp_cands), sel_seconds = _select(plan, s, store, delta, candidates, float_bits)
    if deadline is not None and time.perf_counter() - started > deadline:
        raise _TimeUp
    chosen = eps_cands[:candidates]
    tally = EventTally(tuple(chosen) + tuple(gdp_cands[:1]), release=layout.forget_codes)
    lo, hi = plan.estimation(s)
    if s > 1:
        _show_stage(progress, s, len(plan.ends), len(source.datasets) * (hi - lo))
    carried, router.carry = router.carry, [None] * len(router.carry)
    begin = lo
    for j, held in enumerate(carried):
        if held is not None:
            router.route(j, held[0], held[1], tally, lo, hi)
            begin = max(begin, held[0] + len(held[1]))
    blocks = [k for k, _, _ in source.plan.covering(begin, hi)]
    with contextlib.closing(source.stream(blocks)) as arrivals:
        for arrival in arrivals:
            router.drawn += len(arrival.outputs)
            router.route(arrival.dataset, arrival.start, arrival.outputs, tally, lo, hi)
            if deadline is not None and time.perf_counter() - started > deadline:
                raise _TimeUp
    alpha_s = plan.alphas[s - 1]
    if chosen:
        evaluated = [event_evidence(c, tally, i, delta, alpha_s / len(chosen)) for i, c in enumerate(chosen)]
        i_best = max(range(len(evaluated)), key=lambda i: evaluated[i].value)
        best, counts = evaluated[i_best], (int(tally.counts[i_best, 0]), int(tally.counts[i_best, 1]))
    else:
        best = EventEvidence("none", "no event separates the outputs", "d0", 0, 0, hi - lo, (0.0, 1.0), (0.0, 1.0), 0.0)
        counts = (0, 0)
    gdp_mu = gdp_eps = gdp_ev = None
    if gdp_cands:
        gdp_ev = event_evidence(gdp_cands[0], tally, len(chosen), delta, alpha_s)
        gdp_mu = gdp_mu_lower_bound_from_counts(gdp_ev.count_numerator, gdp_ev.count_denominator, hi - lo, alpha_s)
        gdp_eps = gdp_epsilon(gdp_mu, delta) if delta > 0 and math.isfinite(gdp_mu) else None
    stage = _Stage(s, best, [chosen[i_best]] if chosen else [], counts, gdp_mu, gdp_eps, gdp_ev, sel_seconds,
                   time.perf_counter() - t0, f"{layout.kind}, {layout.n_columns} column(s)", len(chosen))
    stage.fields["reach"] = _reach(best, s, plan, delta, candidates) if chosen else None
    stage.fields["sampling"] = source.seconds - drawn_before
    return stage


def _result(sampler: Any, source: BlockSource, notes: list[str], done: list[_Stage], plan: StagePlan, reason: str, *,
            started: float, epsilon: float, delta: float, confidence: float, max_trials: int, max_seconds: float | None,
            first_trials: int, spot_check: int | None, looked: float, attack: AttackOptions) -> AuditResult:
    """The result: the largest stage bound (valid by the union bound over the stages), and every stage."""
    records = []
    for st in done:
        lo, hi = plan.estimation(st.s)
        records.append(StageRecord(
            stage=st.s, trials=hi, selection_trials=plan.selection[st.s - 1], estimation_trials=hi - lo,
            alpha=plan.alphas[st.s - 1], epsilon_lower_bound=st.evidence.value, violation=st.evidence.value > epsilon,
            event=st.evidence.event, gdp_epsilon_estimate=st.gdp_eps, reach=st.fields.get("reach"),
            predicted_at_budget=st.fields.get("predicted_at_budget"), seconds=st.seconds, decision=st.fields.get("decision", reason),
        ))
    best = max(done, key=lambda st: (st.evidence.value, st.s))
    lo, hi = plan.estimation(best.s)
    n_spot = spot_check_size(spot_check, sampler, best.evidence.value > epsilon)
    if n_spot and best.chosen:
        notes.extend(check_row_independence(sampler, source.datasets, source.streams, n_spot, best.chosen[0],
                                            best.counts, hi - lo, flagged=flagged_violation(best.evidence.value, epsilon, delta)))
    with_gdp = [st for st in done if st.gdp_mu is not None]
    gdp = max(with_gdp, key=lambda st: (st.gdp_mu, st.s)) if with_gdp else None
    if reason == "time":
        notes.append(f"stopped by the time limit (max_seconds = {max_seconds:g}) after stage {done[-1].s}: where it stops "
                     "depends on this machine's speed; the verdict is valid all the same (each stage's spending is "
                     "fixed in advance); to reproduce it exactly, rerun with the arguments under `reproduce`")
    schedule = AdaptiveTrials(first_trials=first_trials, max_trials=max_trials, max_stages=done[-1].s)
    reproduce = (f"seed={source.streams.entropy}, trials={schedule!r}"
                 + (f", confidence={confidence!r}" if confidence != DEFAULT_CONFIDENCE else "")
                 + (f", attack={attack!r}" if attack != AttackOptions() else "")
                 + f", execution=ExecutionOptions(block_size={source.streams.block_size})")
    stage_selection = sum(st.selection_seconds for st in done)
    selection_seconds = stage_selection + looked  # with the selections that decided whether to go on
    total = time.perf_counter() - started
    return AuditResult(
        mechanism=sampler.name,
        claimed_epsilon=epsilon,
        delta=delta,
        confidence=confidence,
        epsilon_lower_bound=best.evidence.value,
        violation=best.evidence.value > epsilon,
        evidence=best.evidence,
        trials=plan.ends[done[-1].s - 1],
        selection_trials=plan.selection[best.s - 1],
        estimation_trials=hi - lo,
        candidates_evaluated=best.candidates_evaluated,
        output_kind=best.layout_text,
        seed_entropy=source.streams.entropy,
        block_size=source.streams.block_size,
        sampling_seconds=source.seconds,
        selection_seconds=selection_seconds,
        estimation_seconds=max(0.0, sum(st.seconds - st.fields["sampling"] for st in done) - stage_selection),
        total_seconds=total,
        gdp_mu_lower_bound=None if gdp is None else gdp.gdp_mu,
        gdp_epsilon_estimate=None if gdp is None else gdp.gdp_eps,
        gdp_evidence=None if gdp is None else gdp.gdp_evidence,
        notes=tuple(notes),
        stages=tuple(records),
        stop_reason=reason,
        max_trials=max_trials,
        max_seconds=max_seconds,
        reproduce=reproduce,
    )
