"""``audit()``: run a mechanism on two neighbouring datasets and lower-bound its epsilon.

Procedure:

1. draw outputs on each dataset in blocks, on spawned streams (:mod:`.sampling`); trial ``i``
   of dataset ``j`` is the same draw however the audit is run;
2. split the trials: the first ``n_sel`` (``selection_fraction`` of them) are the *selection
   split*, the rest the *estimation split*. Trials are i.i.d., so the splits are independent;
3. on the selection split only: classify the outputs (:mod:`.features`), fit score functions
   (:mod:`.attacks`, :mod:`.columns`, :mod:`.bits`) and rank events ``{score > t}`` /
   ``{score <= t}`` in both directions (:mod:`~dpaudit.auditor.ranking`), in the rounds of :mod:`~dpaudit.auditor.selection`;
4. on the estimation split: count the best ``candidates`` events, block by block as the blocks
   are drawn (:mod:`.streaming`: only the selection rows and one block are ever held); if ``m``
   events exist, each is evaluated at level ``alpha / m`` (Bonferroni over the events actually
   evaluated), with one-sided Clopper-Pearson limits at half that level for the numerator and
   denominator probabilities, and ``eps_lb = ln((p_num_lo - delta) / p_den_hi)``; the largest
   is reported.

For any fixed event E an (epsilon, delta)-DP mechanism has ``P_num(E) <= e^epsilon P_den(E) + delta``,
and the events (and their number ``m``) are fixed before the estimation split is read, so
conditionally on the selection split, and hence overall, ``P[eps_lb > epsilon] <= 1 - confidence``.
This needs the rows to be independent draws (see :func:`audit`).
"""

from __future__ import annotations

import dataclasses
import math
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats
from threadpoolctl import threadpool_limits

from dpaudit._rng import TrialStreams
from dpaudit._validation import (
    argument_error,
    check_in_range,
    check_nonnegative,
    check_probability,
)
from dpaudit.accounting.conversions import gdp_epsilon
from dpaudit.auditor.adaptive import Budget, run_stages
from dpaudit.auditor.checkpoint import Checkpoint, audit_fingerprint, recorded_seed
from dpaudit.auditor.features import LAYOUT_ROWS, detect_layout, flatten_outputs
from dpaudit.auditor.independence import check_row_independence, flagged_violation, spot_check_size
from dpaudit.auditor.inputs import as_dataset, neighbor_relation, same_data
from dpaudit.auditor.options import (
    MIN_TRIALS,
    AdaptiveTrials,
    AttackOptions,
    ExecutionOptions,
    resolve_options,
)
from dpaudit.auditor.result import AuditResult, EventEvidence
from dpaudit.auditor.sampling import (
    BlockSource,
    _progress_bar,
    as_sampler,
    blocks_in_flight,
    draw_block,
)
from dpaudit.auditor.selection import (
    LEARNED_FRACTION,
    SCALAR_FRACTION,
    choose_candidates,
    default_selection_fraction,
)
from dpaudit.auditor.stats import gdp_mu_lower_bound_from_counts
from dpaudit.auditor.streaming import (
    EventTally,
    available_memory,
    check_memory,
    event_evidence,
    read_selection,
    selection_size,
    tally_rows,
)
from dpaudit.errors import MechanismError, NothingToLearnWarning
from dpaudit.guarantees import GDP, ApproxDP
from dpaudit.neighbors.relations import NeighborRelation

__all__ = ["MIN_TRIALS", "audit"]

OWNER = "audit"


def _resolve_claim(sampler: Any, epsilon: Any, delta: Any) -> tuple[float, float, Any]:
    claim = sampler.claimed_guarantee()
    if delta is None:
        delta = claim.delta if isinstance(claim, ApproxDP) else 0.0
    delta = check_probability(OWNER, "delta", delta)
    if epsilon is None:
        if claim is None:
            raise argument_error(OWNER, "epsilon", "given for a plain callable (it has no claimed_guarantee())", None)
        epsilon = claim.epsilon_at(delta)
        if math.isinf(epsilon):
            raise _no_finite_claim(claim, delta)
    epsilon = check_nonnegative(OWNER, "epsilon", epsilon)
    return epsilon, delta, claim


def _no_finite_claim(claim: Any, delta: float) -> Exception:
    """The error for a claim that promises no finite epsilon at the audited delta."""
    if isinstance(claim, GDP):
        return argument_error(
            OWNER, "delta", f"in (0, 1) to audit the {claim} claim (a GDP claim promises no finite epsilon at delta = 0)",
            delta, fix="pass delta=..., e.g. delta=1e-5; the audit then checks the claim's epsilon at that delta.",
        )
    if isinstance(claim, ApproxDP):
        return argument_error(
            OWNER, "delta", f"at least the claim's own delta {claim.delta:g} (the {claim} claim promises nothing at a smaller delta)",
            delta, fix=f"leave delta out (it defaults to {claim.delta:g}) or pass a larger one.",
        )
    return argument_error(
        OWNER, "epsilon", f"finite: the claim {claim} promises no finite epsilon at delta = {delta:g}, so nothing can violate it",
        math.inf, fix="pass the epsilon to audit against explicitly.",
    )


BLOCK_NUMBERS = 1 << 23
MAX_BLOCK_TRIALS = 1 << 20
PROBE_STREAM = 2


def _auto_block_size(sampler: Any, probe: NDArray[Any], first_stage: int | None = None) -> int:
    """The block size of an audit: declared by the mechanism, else from the size of one output.

    The mechanism's declared ``audit_block_size``, else one from the size of one output (the
    probe's), and for an adaptive audit at most the power of two holding its first stage
    (``first_trials``, never the budget: the blocks must not change with it).
    """
    declared = getattr(sampler.target, "audit_block_size", None) if sampler.kind == "mechanism" else None
    if isinstance(declared, int) and declared >= 1:
        return declared
    per_output = max(1, int(np.prod(probe.shape[1:])))
    size = min(MAX_BLOCK_TRIALS, max(1 << 12, BLOCK_NUMBERS // per_output))
    if first_stage is not None:
        size = min(size, max(1 << 12, 1 << (first_stage - 1).bit_length()))
    return int(size)


def audit(
    mechanism: Any,
    d0: Any,
    d1: Any,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    trials: int | str | AdaptiveTrials = 100_000,
    confidence: float = 0.95,
    seed: Any = None,
    check_neighbors: bool | NeighborRelation = True,
    attack: AttackOptions | None = None,
    execution: ExecutionOptions | None = None,
    **options: Any,
) -> AuditResult:
    """Lower-bound the epsilon of ``mechanism`` on the pair ``(d0, d1)``; flag it if above the claim.

    **Precondition: the rows of one ``sample(size)`` call are independent draws.** The bound
    treats the outputs of one call as ``size`` independent trials; a sampler that reuses
    randomness across the rows of a call (one noise draw for all rows, a shared offset per call)
    makes the bound meaningless, and a correct mechanism can then be flagged every time.
    ``spot_check`` offers a cheap check of this precondition.

    Parameters
    ----------
    mechanism : Mechanism or callable
        A dpaudit mechanism (``sample(data, size, *, rng)`` and ``claimed_guarantee()``), a
        callable ``fn(data, rng, size=None)`` in numpy's convention, or a callable ``fn(data, rng)``
        with no ``size`` (called once per trial: slow, but it works).
    d0, d1 : array_like
        The two datasets, free of NaN and infinite entries (unless the mechanism declares
        ``allows_infinite_data = True``); for dpaudit mechanisms they are checked to be neighbours
        under the claim's relation (set ``check_neighbors=False`` to skip), for a plain callable
        under the relation passed as ``check_neighbors`` or declared as its ``neighbor_relation``
        attribute, and otherwise the result's notes say that the pair was not checked.
    epsilon : float, optional
        The claimed epsilon, in [0, inf). Defaults to the mechanism's claim at ``delta``.
    delta : float, optional
        The claimed delta, in [0, 1). Defaults to the mechanism's claimed delta, else 0. A GDP
        claim needs ``delta > 0`` (it promises no finite epsilon at 0); an (epsilon, delta) claim
        cannot be audited below its own delta.
    trials : int, "auto" or AdaptiveTrials
        Outputs drawn per dataset, at least 100 (integral floats such as ``1e5`` are accepted); or
        ``"auto"`` / an :class:`~dpaudit.auditor.options.AdaptiveTrials` with its budget: audit in
        stages growing sqrt(10)-fold, stopping as soon as a violation is established, when no
        violation is within reach, or at the budget (:mod:`dpaudit.auditor.adaptive` gives the
        schedule, the spending of ``1 - confidence`` over the stages, and why the bound stays valid
        however the audit stops). The result's ``stages`` and ``stop_reason`` say what happened.
    confidence : float
        In (0, 1). The false-alarm probability on a correct mechanism is at most
        ``1 - confidence``.
    seed : None, int, SeedSequence or Generator
        Root of all randomness; the same seed gives the same result whatever the executor. With
        ``seed=None`` and an existing checkpoint, the seed recorded there is used.
    check_neighbors : bool or NeighborRelation
        Check ``d0``, ``d1`` against the claim's neighbour relation (``True``), not at all
        (``False``; the notes say so), or against the relation given (a
        :mod:`dpaudit.neighbors` relation such as ``QueryDistance(1.0)``, for a plain callable
        whose claim the audit cannot read).
    attack : AttackOptions, optional
        How the outputs are attacked: ``selection_fraction``, ``candidates``, ``float_bits``,
        ``spot_check`` (:class:`~dpaudit.auditor.options.AttackOptions` documents each).
        Default: ``AttackOptions()``.
    execution : ExecutionOptions, optional
        How the draws are made and kept: ``block_size`` (part of the seed), ``batch_size``,
        ``executor``, ``progress``, ``checkpoint``, ``memory_limit``
        (:class:`~dpaudit.auditor.options.ExecutionOptions` documents each). Default:
        ``ExecutionOptions()``.

    Other Parameters
    ----------------
    **options
        The fields of the three option objects, one by one, as earlier versions took them
        (``candidates=3``, ``block_size=4096``, ``max_trials=10**6`` with ``trials="auto"``): each
        goes into its object. An option given both as a keyword and in its object, an unknown
        keyword, and a budget (``max_trials``, ``max_seconds``, ``max_stages``, ``first_trials``)
        with a fixed trial count are refused with :class:`InvalidArgument`.

    Returns
    -------
    AuditResult
        ``epsilon_lower_bound``, ``violation`` and the evidence behind them.

    Raises
    ------
    InvalidArgument
        For arguments outside their domain (the message names the range and the value).
    NotNeighborsError
        When ``d0`` and ``d1`` are not neighbours under the mechanism's claimed relation.
    MechanismError
        When the mechanism raises, returns NaN, returns outputs with no entries, changes its
        output shape between calls, fails the spot check, or a worker dies; a sampling failure
        names the block and its seed.
    CheckpointError
        When ``checkpoint`` belongs to another audit, is in use by another audit, is corrupt or
        truncated, holds a block that differs from the same block drawn again, or cannot be
        created or written (a missing folder, a folder, a full disk).
    AuditMemoryError
        When memory runs out while drawing a block despite the estimate.

    Examples
    --------
    >>> import dpaudit
    >>> from dpaudit.mechanisms import LaplaceMechanism
    >>> res = dpaudit.audit(LaplaceMechanism(epsilon=1.0), 0.0, 1.0, trials=20_000, seed=0)
    >>> res.violation
    False
    """
    started = time.perf_counter()
    sampler = as_sampler(mechanism)
    planned_trials, attack, execution = resolve_options(OWNER, trials, attack, execution, options)
    budget: Budget | None = None
    if isinstance(planned_trials, AdaptiveTrials):
        budget = Budget.of(planned_trials)
        trials = budget.max_trials
    else:
        trials = planned_trials
    confidence = check_in_range(OWNER, "confidence", confidence, 0.0, 1.0, low_closed=False, high_closed=False)
    selection_fraction, candidates = attack.selection_fraction, attack.candidates
    float_bits, spot_check = attack.float_bits, attack.spot_check
    block_size, batch_size, executor = execution.block_size, execution.batch_size, execution.executor
    checkpoint, memory_limit = execution.checkpoint, execution.memory_limit
    epsilon, delta, claim = _resolve_claim(sampler, epsilon, delta)
    d0, d1 = as_dataset(d0, "d0", sampler.target), as_dataset(d1, "d1", sampler.target)
    relation, unchecked = neighbor_relation(check_neighbors, sampler, claim)
    notes: list[str] = []
    if same_data(d0, d1):
        warnings.warn("`audit`: d0 and d1 are identical, so no privacy loss can be observed.", NothingToLearnWarning, stacklevel=2)
        notes.append("d0 and d1 are identical: nothing can be learned")
    elif relation is not None:
        relation.check_neighbors(d0, d1, owner=OWNER)
    elif unchecked:
        notes.append(unchecked)
    if getattr(sampler.target, "ignores_rng", False):
        notes.append("the mechanism ignores the rng it is given (its own random source), so the seed entropy "
                     "above does not reproduce these outputs; the bound is valid all the same")
    if checkpoint is not None and seed is None:
        seed = recorded_seed(checkpoint, OWNER)
    streams = TrialStreams.from_seed(seed, block_size=1 if block_size is None else block_size, owner=OWNER)
    # the probe: one trial on a stream the audit never uses otherwise, for the output's size
    probe = draw_block(sampler, d0, streams, PROBE_STREAM, 0, 1, "on d0 (probe call)")
    if probe[0].size == 0:
        raise MechanismError(f"the mechanism returned outputs with no entries (shape {(trials, *probe.shape[1:])}); "
                             "there is nothing to audit.")
    if block_size is None:
        streams = TrialStreams(streams.entropy, _auto_block_size(sampler, probe, None if budget is None else budget.first_trials))
    per_task = 1 if batch_size is None else -(-batch_size // streams.block_size)
    in_flight = blocks_in_flight(executor, per_task) + 1  # + the block straddling the split
    limit_source = "memory_limit" if memory_limit is not None else "the memory available"
    limit = memory_limit if memory_limit is not None else available_memory()
    first = trials if budget is None else min(budget.first_trials, trials)
    # the split known before the layout is: vector outputs always get LEARNED_FRACTION by default; a
    # scalar may still (float_bits, mixed outputs), which the check once the layout is known catches
    smallest_split = selection_size(first, _least_fraction(probe, selection_fraction))
    check_memory(probe, smallest_split, streams, in_flight, trials, limit, limit_source)
    planned = trials if budget is None else budget.whole_blocks(streams.block_size)

    store = bar = None
    try:
        if checkpoint is not None:
            drawn = trials if budget is None else budget.describe()
            store = Checkpoint(checkpoint, audit_fingerprint(sampler.target, [d0, d1], drawn, streams, (epsilon, delta)),
                               OWNER)
        bar = _progress_bar(2 * trials, execution.progress)
        source = BlockSource(sampler, [d0, d1], streams, planned, batch_size=batch_size, executor=executor, store=store,
                             progress=bar if budget is None else None)  # stages advance their own bar
        t_verify = time.perf_counter()
        if source.verify_recorded():
            source.seconds += time.perf_counter() - t_verify
        # the fits and scores below are small matrix products: one BLAS thread is faster, and on a
        # shared machine many times faster, than a pool of them
        def fits(rows: int) -> None:
            check_memory(probe, rows, streams, in_flight, trials, limit, limit_source)

        with threadpool_limits(1, user_api="blas"):
            if budget is None:
                result = _select_and_estimate(
                    sampler, source, notes, started=started, epsilon=epsilon, delta=delta, confidence=confidence,
                    trials=trials, candidates=candidates, selection_fraction=selection_fraction, float_bits=float_bits,
                    spot_check=spot_check, fits=fits)
            else:
                result = run_stages(
                    sampler, source, notes, started=started, epsilon=epsilon, delta=delta, confidence=confidence,
                    first_trials=budget.first_trials, max_trials=budget.max_trials, max_seconds=budget.max_seconds,
                    max_stages=budget.max_stages, candidates=candidates, selection_fraction=selection_fraction,
                    float_bits=float_bits, spot_check=spot_check, fits=fits, row_values=int(probe[0].size), progress=bar)
        if store is not None:
            used = len(source.plan) if budget is None else len(list(source.plan.covering(0, result.trials)))
            notes.append(store.describe(source.loaded, 2 * used))
    finally:
        if bar is not None:
            bar.close()
        if store is not None:
            store.close()
    result = dataclasses.replace(result, notes=tuple(notes), total_seconds=time.perf_counter() - started)
    # the other side of the bracket (declared structure); imported here: dpaudit.exact imports the auditor
    from dpaudit.exact.bracket import attach_bracket

    return attach_bracket(result, sampler.target, d0, d1, float_bits=float_bits)


def _select_and_estimate(
    sampler: Any, source: BlockSource, notes: list[str], *, started: float, epsilon: float, delta: float,
    confidence: float, trials: int, candidates: int, selection_fraction: float | None, float_bits: bool,
    spot_check: int | None, fits: Callable[[int], None],
) -> AuditResult:
    """Steps 2 to 4 of the procedure (see the module docstring), on the blocks ``source`` hands over.

    ``fits(n_sel)`` raises when ``n_sel`` selection rows cannot fit in memory; it is called once the
    split's size is known, before the rest of the split is drawn.
    """
    # the layout is read from rows every possible selection split contains, never estimation rows
    n_sel_min = selection_size(trials, SCALAR_FRACTION if selection_fraction is None else selection_fraction)
    found: dict[str, Any] = {}

    def size_of_split(heads: list[NDArray[Any]]) -> int:
        layout = detect_layout(flatten_outputs(heads[0]), flatten_outputs(heads[1]))
        fraction = default_selection_fraction(layout, float_bits) if selection_fraction is None else selection_fraction
        found.update(layout=layout, n_sel=selection_size(trials, fraction))
        fits(found["n_sel"])
        return int(found["n_sel"])

    split = read_selection(source, min(n_sel_min, LAYOUT_ROWS), size_of_split)
    t_sel = time.perf_counter()
    layout, n_sel = found["layout"], found["n_sel"]
    x0, x1 = flatten_outputs(split.rows[0]), flatten_outputs(split.rows[1])
    if n_sel > n_sel_min and n_sel_min < LAYOUT_ROWS:
        layout = detect_layout(x0, x1)
    n_est = trials - n_sel
    alpha = 1.0 - confidence
    z = float(stats.norm.isf(alpha / (2 * candidates)))
    eps_cands, gdp_cands = choose_candidates(layout, x0, x1, n_est=n_est, delta=delta, z=z, float_bits=float_bits)
    del x0, x1
    split.rows.clear()  # the selection rows are not needed any more
    selection_seconds = time.perf_counter() - t_sel

    t_est, drawn_before = time.perf_counter(), source.seconds
    chosen = eps_cands[:candidates]
    tally = EventTally(tuple(chosen) + tuple(gdp_cands[:1]), release=layout.forget_codes)
    for j, tail in enumerate(split.tails):  # estimation rows drawn with the last selection block
        tally.add(j, tail)
    split.tails.clear()
    tally_rows(source, tally, split.tail_stop, trials)  # the rest, block by block as it is drawn
    if chosen:
        # Bonferroni over the events actually evaluated (fixed by the selection split)
        evaluated = [event_evidence(c, tally, i, delta, alpha / len(chosen)) for i, c in enumerate(chosen)]
        best = max(evaluated, key=lambda ev: ev.value)
    else:
        best = EventEvidence("none", "no event separates the outputs", "d0", 0, 0, n_est, (0.0, 1.0), (0.0, 1.0), 0.0)
        notes.append("no candidate event: the outputs on the selection split did not differ")
    gdp_mu = gdp_eps = None
    gdp_ev = None
    if gdp_cands:
        gdp_ev = event_evidence(gdp_cands[0], tally, len(chosen), delta, alpha)
        gdp_mu = gdp_mu_lower_bound_from_counts(gdp_ev.count_numerator, gdp_ev.count_denominator, n_est, alpha)
        gdp_eps = gdp_epsilon(gdp_mu, delta) if delta > 0 and math.isfinite(gdp_mu) else None
    n_spot = spot_check_size(spot_check, sampler, best.value > epsilon)
    if n_spot and chosen:
        i = [ev.value for ev in evaluated].index(best.value)
        notes.extend(check_row_independence(sampler, source.datasets, source.streams, n_spot, chosen[i],
                                            (int(tally.counts[i, 0]), int(tally.counts[i, 1])), n_est,
                                            flagged=flagged_violation(best.value, epsilon, delta)))
    estimation_seconds = time.perf_counter() - t_est - (source.seconds - drawn_before)

    return AuditResult(
        mechanism=sampler.name,
        claimed_epsilon=epsilon,
        delta=delta,
        confidence=confidence,
        epsilon_lower_bound=best.value,
        violation=best.value > epsilon,
        evidence=best,
        trials=trials,
        selection_trials=n_sel,
        estimation_trials=n_est,
        candidates_evaluated=len(chosen),
        output_kind=f"{layout.kind}, {layout.n_columns} column(s)",
        seed_entropy=source.streams.entropy,
        block_size=source.streams.block_size,
        sampling_seconds=source.seconds,
        selection_seconds=selection_seconds,
        estimation_seconds=estimation_seconds,
        total_seconds=time.perf_counter() - started,
        gdp_mu_lower_bound=gdp_mu,
        gdp_epsilon_estimate=gdp_eps,
        gdp_evidence=gdp_ev,
        notes=tuple(notes),
    )


def _least_fraction(probe: NDArray[Any], selection_fraction: float | None) -> float:
    """The smallest selection fraction the audit can use, knowing one output (``probe``) only."""
    if selection_fraction is not None:
        return selection_fraction
    return LEARNED_FRACTION if probe[0].size > 1 else SCALAR_FRACTION
