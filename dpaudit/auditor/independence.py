"""A cheap check of the precondition that the rows of one ``sample(size)`` call are independent.

The bound counts events over the rows of a few large calls and treats the counts as binomial.
A sampler that shares randomness across the rows of a call (one noise draw broadcast to all
rows, a common offset per call) breaks that: the counts are then far more spread than binomial,
and an audit of a correct mechanism can report any epsilon.

The spot check draws ``spot_check`` further trials per dataset *one call each* (``size=1``, on
streams of their own), so that they are independent by construction, and compares how often
the chosen event occurs among them with how often it occurred in the estimation split, by
Fisher's exact test on the 2x2 table. A p-value below ``SPOT_CHECK_P`` on either dataset raises
:class:`~dpaudit.errors.MechanismError`: the rows are not exchangeable with independent draws,
and no bound is reported. Passing the check is no proof of independence (only of agreement on
one event); it catches the gross failures that make an audit meaningless.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats

from dpaudit._rng import TrialStreams
from dpaudit.auditor.features import flatten_outputs
from dpaudit.auditor.ranking import Candidate
from dpaudit.auditor.sampling import Sampler, draw_block
from dpaudit.errors import MechanismError

__all__ = ["SPOT_CHECK_P", "SPOT_STREAM", "check_row_independence"]

SPOT_CHECK_P = 1e-6
SPOT_STREAM = 3  # streams 0, 1 draw the audit, 2 the block-size probe; 3 and 4 the spot checks


def check_row_independence(
    sampler: Sampler,
    datasets: Sequence[Any],
    streams: TrialStreams,
    spot_check: int,
    cand: Candidate,
    estimation_counts: tuple[int, int],
    estimation_rows: int,
) -> list[str]:
    """Raise :class:`MechanismError` if single-call draws disagree with the estimation split; else notes.

    ``estimation_counts[j]`` is the number of the ``estimation_rows`` rows of dataset ``j`` in the
    event of ``cand`` (the audit counts them as the blocks are drawn).
    """
    notes = []
    for j, (data, k_rows) in enumerate(zip(datasets, estimation_counts, strict=True)):
        single = np.concatenate(
            [draw_block(sampler, data, streams, SPOT_STREAM + j, i, 1, f"on d{j} (spot check {i})") for i in range(spot_check)]
        )
        single = flatten_outputs(single)
        k_single = int(np.count_nonzero(cand.event(cand.score(single))))
        table = [[k_single, spot_check - k_single], [k_rows, estimation_rows - k_rows]]
        p = float(stats.fisher_exact(table).pvalue)
        if p < SPOT_CHECK_P:
            raise MechanismError(
                f"the rows of one sample() call do not behave like independent draws on d{j}: the event "
                f"{{{cand.describe()}}} occurred in {k_rows} of {estimation_rows} estimation rows but in {k_single} of "
                f"{spot_check} trials drawn one call each (Fisher's exact test p = {p:.2g} < {SPOT_CHECK_P:g}). "
                "The bound assumes independent rows; draw fresh randomness for every row."
            )
        notes.append(f"spot check on d{j}: {k_single}/{spot_check} single-call trials in the event vs "
                     f"{k_rows}/{estimation_rows} estimation rows (p = {p:.2g})")
    return notes
