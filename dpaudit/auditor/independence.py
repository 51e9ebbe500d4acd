"""A cheap check of the precondition that the rows of one ``sample(size)`` call are independent.

The bound counts events over the rows of a few large calls and treats the counts as binomial.
A sampler that shares randomness across the rows of a call (one noise draw broadcast to all
rows, a common offset per call) breaks that: the counts are then far more spread than binomial,
and an audit of a correct mechanism can report any epsilon.

The check makes two tests per dataset, on draws of its own (streams the audit never uses
otherwise, so the audit's draws, and so its bound, are the same with or without it):

* **the event test**: ``n`` further trials drawn *one call each* (``size=1``), independent by
  construction; how often the chosen event occurs among them is compared with how often it
  occurred in the estimation split, by Fisher's exact test on the 2x2 table;
  When that p-value is merely suspicious (below ``ESCALATE_P``, above ``SPOT_CHECK_P``), the test
  is repeated on ``ESCALATE_FACTOR`` times as many fresh single-call trials (streams of their own),
  and that second p-value alone decides: an offset shared by the rows of a call that moves the
  event's frequency a few times is then caught, where 200 trials lack the power at ``SPOT_CHECK_P``;
* **the copy test**: ``n // 2`` calls of ``size=2``; how often the two rows of one call are
  identical is compared with how often two single-call trials are (the ``n`` single-call trials
  taken in pairs), by Fisher's exact test, one-sided. Under the precondition both are
  ``Binomial(n // 2, c)`` with the same collision probability ``c`` (0 for continuous outputs),
  whatever the audit's block size; rows copied within a call collide every time. This catches a
  callable that copies one draw into every row even when the audit spans many calls, where the
  event test alone compares like with like.

A p-value below ``SPOT_CHECK_P`` on either dataset raises :class:`~dpaudit.errors.MechanismError`:
the rows are not exchangeable with independent draws, and no bound is reported. Each p-value is
valid under the precondition (the event was fixed by the selection split, the spot draws are
fresh), so the check refuses a sampler that keeps the precondition with probability at most
``6 * SPOT_CHECK_P`` (the event test, its repetition and the copy test on each of two datasets, by
the union bound; Fisher's test is conservative).
Passing the check is no proof of independence (only of agreement on one event, and of no excess
of identical rows within a call of two); it catches the gross failures that make an audit
meaningless.

When it runs (:func:`spot_check_size`): ``spot_check=None`` (the default) is automatic, and runs
``DEFAULT_SPOT_CHECK`` draws for a plain callable ``fn(data, rng, size=None)`` whose audit is about
to report a violation (a dpaudit mechanism declares how it batches, and a callable without
``size`` is called once per trial, so neither can copy rows within a call); ``spot_check=0`` is
off; a positive ``spot_check`` always runs that many.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from dpaudit._rng import TrialStreams
from dpaudit.auditor.features import flatten_outputs
from dpaudit.auditor.ranking import Candidate
from dpaudit.auditor.sampling import Sampler, draw_block
from dpaudit.errors import MechanismError

__all__ = ["DEFAULT_SPOT_CHECK", "ESCALATE_FACTOR", "ESCALATE_P", "ESCALATE_STREAM", "PAIR_STREAM", "SPOT_CHECK_P", "SPOT_STREAM", "check_row_independence",
           "flagged_violation", "spot_check_size"]

SPOT_CHECK_P = 1e-6
#: Single-call trials per dataset of the automatic check (and ``DEFAULT_SPOT_CHECK // 2`` calls of two rows).
DEFAULT_SPOT_CHECK = 200
SPOT_STREAM = 3  # streams 0, 1 draw the audit, 2 the block-size probe; 3 and 4 the single-call trials
PAIR_STREAM = 5  # 5 and 6 the calls of two rows
ESCALATE_STREAM = 7  # 7 and 8 the repeated event test's single-call trials
#: An event test's p-value below this (and not below ``SPOT_CHECK_P``) is repeated on fresh, more numerous draws.
ESCALATE_P = 1e-2
#: The repeated event test draws this many times the single-call trials of the first.
ESCALATE_FACTOR = 10


def spot_check_size(spot_check: int | None, sampler: Sampler, violation: bool) -> int:
    """The single-call trials per dataset the check draws (0: no check); see the module docstring."""
    if spot_check is not None:
        return spot_check
    return DEFAULT_SPOT_CHECK if sampler.kind == "callable-size" and violation else 0


def flagged_violation(bound: float, epsilon: float, delta: float) -> str:
    """The violation an audit is about to report (``""`` if none), as the refusal's message opens."""
    return f"epsilon >= {bound:.4f} > the claimed {epsilon:g} at delta = {delta:g}" if bound > epsilon else ""


def _identical_pairs(rows: NDArray[Any]) -> int:
    """How many of the pairs ``(rows[2i], rows[2i + 1])`` are identical outputs."""
    x = flatten_outputs(rows)
    return int(np.count_nonzero(np.all(x[0::2] == x[1::2], axis=1)))


def check_row_independence(
    sampler: Sampler,
    datasets: Sequence[Any],
    streams: TrialStreams,
    spot_check: int,
    cand: Candidate,
    estimation_counts: tuple[int, int],
    estimation_rows: int,
    *,
    flagged: str = "",
) -> list[str]:
    """Raise :class:`MechanismError` if the spot draws disagree with independent rows; else notes.

    ``estimation_counts[j]`` is the number of the ``estimation_rows`` rows of dataset ``j`` in the
    event of ``cand`` (the audit counts them as the blocks are drawn). ``flagged`` describes the
    violation the audit was about to report, if any (it opens the refusal's message).
    """
    notes = []
    pairs = spot_check // 2
    refusal = (f"the audit would report a violation ({flagged}), but it cannot: " if flagged else "") + \
        "the precondition that the rows of one sample() call are independent draws failed"
    for j, (data, k_rows) in enumerate(zip(datasets, estimation_counts, strict=True)):
        single = np.concatenate(
            [draw_block(sampler, data, streams, SPOT_STREAM + j, i, 1, f"on d{j} (spot check {i})") for i in range(spot_check)]
        )
        k_single = int(np.count_nonzero(cand.event(cand.score(flatten_outputs(single)))))
        p = float(stats.fisher_exact([[k_single, spot_check - k_single], [k_rows, estimation_rows - k_rows]]).pvalue)
        note = (f"spot check on d{j}: {k_single}/{spot_check} single-call trials in the event vs "
                f"{k_rows}/{estimation_rows} estimation rows (p = {p:.2g})")
        k_event, n_event = k_single, spot_check
        if SPOT_CHECK_P <= p < ESCALATE_P:  # suspicious: the verdict is the repeated test's, on fresh draws alone
            n_event = ESCALATE_FACTOR * spot_check
            more = np.concatenate([draw_block(sampler, data, streams, ESCALATE_STREAM + j, i, 1,
                                              f"on d{j} (repeated spot check {i})") for i in range(n_event)])
            k_event = int(np.count_nonzero(cand.event(cand.score(flatten_outputs(more)))))
            p = float(stats.fisher_exact([[k_event, n_event - k_event], [k_rows, estimation_rows - k_rows]]).pvalue)
            note += f"; repeated on {n_event} fresh single-call trials: {k_event} in the event (p = {p:.2g})"
        if p < SPOT_CHECK_P:
            raise MechanismError(
                f"{refusal} on d{j}: the event {{{cand.describe()}}} occurred in {k_rows} of {estimation_rows} "
                f"estimation rows but in {k_event} of {n_event} trials drawn one call each (Fisher's exact test "
                f"p = {p:.2g} < {SPOT_CHECK_P:g}). The bound assumes independent rows: draw fresh randomness for every "
                "row (or audit with attack=AttackOptions(spot_check=0) to skip this check)."
            )
        if pairs:
            within = _identical_pairs(np.concatenate(
                [draw_block(sampler, data, streams, PAIR_STREAM + j, i, 2, f"on d{j} (spot check, call {i} of two rows)")
                 for i in range(pairs)]
            ))
            across = _identical_pairs(single[: 2 * pairs])
            p_copy = float(stats.fisher_exact([[within, pairs - within], [across, pairs - across]],
                                              alternative="greater").pvalue)
            if p_copy < SPOT_CHECK_P:
                raise MechanismError(
                    f"{refusal} on d{j}: the two rows of one call were identical in {within} of {pairs} calls of "
                    f"size 2, but two trials drawn one call each were identical in {across} of {pairs} pairs "
                    f"(Fisher's exact test p = {p_copy:.2g} < {SPOT_CHECK_P:g}): the rows of a call are copies. The "
                    "bound assumes independent rows: draw fresh randomness for every row (numpy's size= convention; "
                    "or audit with attack=AttackOptions(spot_check=0) to skip this check)."
                )
            note += f"; identical rows in {within}/{pairs} calls of two vs {across}/{pairs} pairs of single calls (p = {p_copy:.2g})"
        notes.append(note)
    return notes
