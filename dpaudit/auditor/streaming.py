"""The estimation split, streamed: blocks are reduced to event counts as they arrive.

An audit holds only its *selection* rows (the first ``n_sel`` trials of each dataset, where the
attack is chosen) and, after that, one block at a time: every estimation block is reduced to the
number of its rows in each chosen event, and dropped. Memory is therefore O(selection rows + one
block) whatever the number of trials (with an executor, O(selection rows + the blocks in flight)),
which is what lets a 10^8-trial audit run on a laptop or a Dask cluster.

Counts are sums of per-row indicators, so they do not depend on the order in which blocks arrive;
each block is always scored as the same array (block ``k`` of dataset ``j`` is the same bytes
whatever the batch size, executor or checkpoint), so the counts are identical for every way of
running the audit.

Reuse (adaptive trials). :class:`EventTally` holds the candidate events, fixed before any
estimation row is read, and their running counts; :func:`tally_rows` adds the rows ``[start,
stop)`` of both datasets, drawn on the audit's own streams, to it. A staged audit evaluates the
same events over further ranges of trials, ``tally_rows(source, tally, n1, n2)`` and so on, and
reads the counts after each stage (its stopping rule must pay for the looks, for example by
alpha-spending).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, overload

import numpy as np
from numpy.typing import NDArray

from dpaudit._rng import TrialStreams
from dpaudit._validation import argument_error
from dpaudit.auditor.features import flatten_outputs
from dpaudit.auditor.ranking import Candidate
from dpaudit.auditor.result import EventEvidence
from dpaudit.auditor.stats import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound_from_counts,
)

if TYPE_CHECKING:
    from dpaudit.auditor.sampling import BlockSource

__all__ = [
    "BlockPlan",
    "EventTally",
    "SelectionRows",
    "available_memory",
    "check_memory",
    "estimated_audit_bytes",
    "event_evidence",
    "read_selection",
    "selection_size",
    "tally_rows",
]


class BlockPlan(Sequence[tuple[int, int, int]]):
    """The blocks ``(index, start, stop)`` of ``trials`` trials in blocks of ``block_size``, computed on demand.

    A lazy sequence: ``BlockPlan(10**15, 3)`` costs nothing, where a list would not fit in memory.

    Examples
    --------
    >>> plan = BlockPlan(10, 4)
    >>> len(plan), plan[0], plan[-1], list(plan.covering(3, 5))
    (3, (0, 0, 4), (2, 8, 10), [(0, 0, 4), (1, 4, 8)])
    """

    def __init__(self, trials: int, block_size: int) -> None:
        self.trials = int(trials)
        self.block_size = int(block_size)

    def __len__(self) -> int:
        return -(-self.trials // self.block_size)

    @overload
    def __getitem__(self, index: int) -> tuple[int, int, int]: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[tuple[int, int, int]]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[k] for k in range(len(self))[index]]
        n = len(self)
        k = index + n if index < 0 else index
        if not 0 <= k < n:
            raise IndexError(f"block {index} of a plan of {n} blocks")
        start = k * self.block_size
        return k, start, min(start + self.block_size, self.trials)

    def span(self, k: int) -> tuple[int, int] | None:
        """``(start, stop)`` of block ``k``, or None when ``k`` is not a block of the plan."""
        if not isinstance(k, int) or not 0 <= k < len(self):
            return None
        return self[k][1:]

    def covering(self, start: int, stop: int) -> Iterator[tuple[int, int, int]]:
        """The blocks that hold at least one of the trials ``[start, stop)``, in order."""
        start, stop = max(start, 0), min(stop, self.trials)
        if start >= stop:
            return
        for k in range(start // self.block_size, -(-stop // self.block_size)):
            yield self[k]


@dataclass
class EventTally:
    """Running counts of fixed candidate events on both datasets' estimation rows.

    ``counts[i, j]`` is the number of rows of dataset ``j`` in candidate ``i``'s event, over the
    ``rows[j]`` rows added so far. A score shared by several candidates is computed once per block.
    """

    candidates: tuple[Candidate, ...]
    counts: NDArray[np.int64] = field(init=False)
    rows: list[int] = field(default_factory=lambda: [0, 0])
    #: called after each block is counted, to drop what the scores cached about it
    release: Callable[[], None] | None = None

    def __post_init__(self) -> None:
        self.candidates = tuple(self.candidates)
        self.counts = np.zeros((len(self.candidates), 2), dtype=np.int64)

    def add(self, dataset: int, outputs: NDArray[Any]) -> None:
        """Count the rows of ``outputs`` (one block or part of one, as drawn) of ``dataset`` in each event."""
        if len(outputs) == 0:
            return
        x = flatten_outputs(outputs)
        scores: dict[int, NDArray[np.float64]] = {}
        for i, cand in enumerate(self.candidates):
            key = id(cand.score)
            if key not in scores:
                scores[key] = cand.score(x)
            self.counts[i, dataset] += int(np.count_nonzero(cand.event(scores[key])))
        self.rows[dataset] += len(x)
        if self.release is not None:
            self.release()

    def numerator_denominator(self, i: int) -> tuple[int, int]:
        """Candidate ``i``'s counts as (numerator dataset's, denominator dataset's)."""
        c0, c1 = (int(v) for v in self.counts[i])
        return (c0, c1) if self.candidates[i].numerator == 0 else (c1, c0)


def event_evidence(cand: Candidate, tally: EventTally, i: int, delta: float, alpha: float) -> EventEvidence:
    """Candidate ``i`` of ``tally`` evaluated at level ``alpha``: its counts, intervals and bound."""
    k_num, k_den = tally.numerator_denominator(i)
    n = tally.rows[0]
    value = epsilon_lower_bound_from_counts(k_num, k_den, n, delta, alpha)
    per_limit = alpha / 2
    return EventEvidence(
        attack=cand.score.name,
        event=cand.describe(),
        numerator=f"d{cand.numerator}",
        count_numerator=k_num,
        count_denominator=k_den,
        n=n,
        p_numerator_interval=(float(clopper_pearson_lower(k_num, n, per_limit)), float(clopper_pearson_upper(k_num, n, per_limit))),
        p_denominator_interval=(float(clopper_pearson_lower(k_den, n, per_limit)), float(clopper_pearson_upper(k_den, n, per_limit))),
        value=value,
    )


def selection_size(trials: int, fraction: float) -> int:
    """Selection rows for ``fraction`` of ``trials``: at least 2, leaving at least 1 for estimation."""
    return min(max(2, round(fraction * trials)), trials - 1)


def tally_rows(source: BlockSource, tally: EventTally, start: int, stop: int) -> EventTally:
    """Add the trials ``[start, stop)`` of both datasets to ``tally``, block by block, and return it.

    Blocks come from ``source`` (drawn on their own streams, or loaded from its checkpoint) in
    whatever order they finish; a block only partly inside the range contributes its rows inside
    it. Nothing but the counts is kept.
    """
    blocks = [k for k, _, _ in source.plan.covering(start, stop)]
    for arrival in source.stream(blocks):
        lo, hi = max(start, arrival.start), min(stop, arrival.stop)
        if lo < hi:
            tally.add(arrival.dataset, arrival.outputs[lo - arrival.start : hi - arrival.start])
    return tally


# -- memory -------------------------------------------------------------------------------------

#: Working memory of the selection step beyond the rows themselves, per output entry, in float64s:
#: sorted scores of scalar outputs, the stacked features of the logistic fit of vector outputs (two
#: per entry, for the half of the rows it trains on). The peaks measured by
#: ``python -m benchmarks.bench_memory`` stay below the estimate.
SELECTION_OVERHEAD = 1.5
#: A block in hand is held as drawn, owned (copied), and scored: about this many copies.
BLOCK_OVERHEAD = 3.0


def estimated_audit_bytes(selection_rows: int, row_bytes: int, row_values: int, block_size: int, in_flight: int) -> int:
    """Memory an audit needs beyond the interpreter: selection rows of both datasets, and the blocks in hand.

    ``row_bytes`` is one output as drawn, ``row_values`` its number of entries (working copies are
    float64); ``in_flight`` is the number of blocks held at once (1 serially).
    """
    per_row = row_bytes + SELECTION_OVERHEAD * 8 * row_values
    selection = 2 * selection_rows * per_row
    blocks = in_flight * block_size * BLOCK_OVERHEAD * max(row_bytes, 8 * row_values)
    return math.ceil(selection + blocks)


def _megabytes(n: float) -> str:
    return f"{n / 1e9:.3g} GB" if n >= 1e9 else f"{n / 1e6:.3g} MB"


def check_memory(probe: NDArray[Any], selection_rows: int, streams: TrialStreams, in_flight: int,
                 trials: int, limit: int | None, source: str) -> None:
    """Refuse (:class:`InvalidArgument` on ``trials``) an audit whose estimated memory exceeds ``limit`` bytes.

    No check when ``limit`` is None; ``probe`` is one call's output, ``source`` names the limit.
    """
    if limit is None:
        return
    row_values = max(1, int(np.prod(probe.shape[1:])))
    need = estimated_audit_bytes(selection_rows, probe.dtype.itemsize * row_values, row_values,
                                 min(streams.block_size, trials), in_flight)
    if need > limit:
        raise argument_error(
            "audit", "trials",
            f"small enough for the audit to fit in memory: {selection_rows} selection rows per dataset of "
            f"{probe.dtype.itemsize * row_values}-byte outputs, and blocks of {streams.block_size} trials ({in_flight} "
            f"held at once), need about {_megabytes(need)}, more than the memory limit of {_megabytes(limit)} "
            f"({source})", trials,
            fix="lower trials, selection_fraction or block_size (or batch_size), or pass a larger memory_limit.",
        )


def available_memory() -> int | None:
    """Bytes this process can still allocate, or None when no limit can be read.

    The least of the system's available memory, the cgroup's remaining limit and the address-space
    limit.
    """
    limits = []
    try:
        with open("/proc/meminfo") as fh:
            info = dict(line.split(":", 1) for line in fh)
        limits.append(int(info["MemAvailable"].split()[0]) * 1024)
    except (OSError, KeyError, ValueError):
        try:
            limits.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (OSError, ValueError, AttributeError):
            pass
    try:
        with open("/sys/fs/cgroup/memory.max") as fh:
            text = fh.read().strip()
        if text != "max":
            with open("/sys/fs/cgroup/memory.current") as fh:
                limits.append(int(text) - int(fh.read().strip()))
    except (OSError, ValueError):
        pass
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            limits.append(soft - _resident_bytes())
    except (ImportError, OSError, ValueError):
        pass
    return max(0, min(limits)) if limits else None


def _resident_bytes() -> int:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")  # virtual size, as RLIMIT_AS counts
    except (OSError, ValueError, IndexError):
        return 0


# -- the selection split ------------------------------------------------------------------------


@dataclass
class SelectionRows:
    """The selection rows of both datasets, and the estimation rows already drawn with them.

    ``rows[j]`` holds trials ``[0, n_sel)`` of dataset ``j``; ``tails[j]`` the trials ``[n_sel,
    tail_stop)`` of the block that straddles the split (empty when none does). The estimation
    split continues at ``tail_stop``.
    """

    rows: list[NDArray[Any]]
    tails: list[NDArray[Any]]
    tail_stop: int


def _first_rows(blocks: list[NDArray[Any]], n: int) -> NDArray[Any]:
    """The first ``n`` rows of consecutive blocks: a view when the first block holds them all."""
    if len(blocks[0]) >= n:
        return blocks[0][:n]
    parts, left = [], n
    for block in blocks:
        parts.append(block[:left])
        left -= len(parts[-1])
        if left <= 0:
            break
    return np.concatenate(parts, axis=0)


def read_selection(source: BlockSource, n_first: int, size_of_split: Callable[[list[NDArray[Any]]], int]) -> SelectionRows:
    """Draw the selection split, learning its size from its first rows.

    The blocks holding trials ``[0, n_first)`` are drawn first; ``size_of_split`` gets those rows
    of each dataset and returns ``n_sel >= n_first`` (the audit reads the output layout there).
    Then the blocks up to ``n_sel`` are drawn, each copied into place and dropped, so the rows are
    held once.
    """
    plan = source.plan
    first = [k for k, _, _ in plan.covering(0, n_first)]
    held = source.fetch(first)
    n_datasets = len(source.datasets)
    heads = [_first_rows([held[(j, k)].outputs for k in first], n_first) for j in range(n_datasets)]
    n_sel = size_of_split(heads)
    shape, dtype = heads[0].shape[1:], heads[0].dtype
    del heads
    rows = [np.empty((n_sel, *shape), dtype=dtype) for _ in range(n_datasets)]
    tail_stop = plan[(n_sel - 1) // plan.block_size][2]
    tails = [np.empty((0, *shape), dtype=dtype) for _ in range(n_datasets)]

    def place(arrival: Any) -> None:
        inside = min(arrival.stop, n_sel) - arrival.start
        if inside > 0:
            rows[arrival.dataset][arrival.start : arrival.start + inside] = arrival.outputs[:inside]
        if arrival.stop > n_sel:  # a copy: a view would keep the whole block alive through the selection step
            tails[arrival.dataset] = arrival.outputs[max(inside, 0) :].copy()

    for key in sorted(held):
        place(held.pop(key))
    fetched = set(first)
    for arrival in source.stream([k for k, _, _ in plan.covering(0, n_sel) if k not in fetched]):
        place(arrival)
    return SelectionRows(rows, tails, tail_stop)
