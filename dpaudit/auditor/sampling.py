"""Drawing mechanism outputs on both datasets, in blocks of trials on spawned streams.

Block ``k`` of dataset ``j`` (0 or 1) always draws from ``TrialStreams.block_generator(j, k)``, so
the outputs do not depend on how blocks are batched, on the executor, or on the number of workers.
The same property makes faults safe: a block that is drawn again (resumed from a checkpoint, or
rerun by Dask after its worker died) gets the identical draws, and a block that cannot be drawn
stops the audit with a :class:`MechanismError` naming it and its seed, never a smaller sample.

Every block is validated and **copied** the moment it is drawn (:func:`draw_block`), and a looped
``fn(data, rng)`` has each call's output copied before the next call: the audit owns its outputs, so
a mechanism that returns a view of a buffer it reuses cannot change outputs already drawn, and a
serial audit sees what a parallel one (whose blocks arrive pickled) sees.

Every call also gets **its own copy of the dataset** (:func:`own_dataset`), never the caller's
object: a mechanism that writes to its input (``data /= 2``, ``rng.shuffle(data)``) cannot change
the caller's arrays, nor the pair later calls are audited on, so every call runs on the stated pair.
A copy rather than a read-only view, because writing to one's own input is legitimate Python (a
mechanism that shuffles or normalises in place is correct if each call's output has the claimed law);
the price is one copy of the dataset per call (per block, or per trial for a looped ``fn(data, rng)``).

:class:`BlockSource` hands blocks over one at a time, as they finish, with a bounded number of
tasks in flight on an executor; the audit keeps only what it needs of each
(:mod:`dpaudit.auditor.streaming`).
"""

from __future__ import annotations

import copy
import inspect
import os
import pickle
import secrets
import sys
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, CancelledError, Executor, Future, wait
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._rng import TrialStreams
from dpaudit.auditor.checkpoint import REDRAW_PER_DATASET, Checkpoint
from dpaudit.auditor.executors import main_file_missing
from dpaudit.auditor.streaming import BlockPlan
from dpaudit.errors import AuditMemoryError, MechanismError
from dpaudit.guarantees import Guarantee

__all__ = ["Arrival", "BlockSource", "Sampler", "as_sampler", "blocks_in_flight", "draw_block", "draw_outputs", "own_dataset"]


@dataclass(frozen=True)
class Sampler:
    """A uniform view of a mechanism: ``draw(data, size, rng)`` returns outputs stacked on axis 0."""

    name: str
    kind: str  # "mechanism", "callable-size" or "callable-looped"
    target: Any

    def draw(self, data: Any, size: int, rng: np.random.Generator, where: str = "") -> Any:
        """``size`` outputs on a fresh copy of ``data`` (a fresh copy per call when looped).

        ``where`` names the block in error messages.
        """
        if self.kind == "mechanism":
            return self.target.sample(own_dataset(data), size, rng=rng)
        if self.kind == "callable-size":
            return self.target(own_dataset(data), rng, size=size)
        # one call per trial: each output is copied before the next call (which may reuse its buffer)
        return np.stack([_owned_output(self.target(own_dataset(data), rng), f"from one call {where}".rstrip()) for _ in range(size)])

    def claimed_guarantee(self) -> Guarantee | None:
        """The target's own claim when it is a mechanism; ``None`` for a bare sampler."""
        if self.kind == "mechanism":
            return self.target.claimed_guarantee()
        return None


def _accepts_size(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # builtins without signatures: assume numpy convention
        return True
    return "size" in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def as_sampler(mechanism: Any) -> Sampler:
    """Wrap a dpaudit mechanism, a ``fn(data, rng, size=None)`` or a ``fn(data, rng)`` callable."""
    from dpaudit._validation import argument_error

    name = getattr(mechanism, "__name__", None) or type(mechanism).__name__
    if hasattr(mechanism, "sample") and hasattr(mechanism, "claimed_guarantee"):
        return Sampler(repr(mechanism) if len(repr(mechanism)) < 120 else type(mechanism).__name__, "mechanism", mechanism)
    if callable(mechanism):
        return Sampler(name, "callable-size" if _accepts_size(mechanism) else "callable-looped", mechanism)
    raise argument_error(
        "audit", "mechanism",
        "a dpaudit mechanism (with sample() and claimed_guarantee()) or a callable fn(data, rng, size=None)",
        mechanism,
    )


def own_dataset(data: Any) -> Any:
    """A copy of ``data`` for one call of the mechanism, which may write to it (see the module docstring)."""
    if isinstance(data, np.ndarray) and type(data) is np.ndarray:
        return data.copy()
    return copy.deepcopy(data)


def _refuse_subclass(out: Any, where: str) -> None:
    """Refuse arrays whose meaning is not their data alone.

    Copying them to a plain array would silently drop what a consumer sees (a masked array's mask,
    np.matrix's forced 2-D shape).
    """
    if isinstance(out, np.ma.MaskedArray):
        raise MechanismError(
            f"the mechanism returned a numpy masked array {where}: its mask is part of the release and would be "
            "dropped. To fix: return the mask as outputs too, e.g. np.column_stack([np.ma.getdata(out), "
            "np.ma.getmaskarray(out)]) (one value column and one 0/1 mask column), or fill the masked entries "
            "(out.filled(value)) if that is what is released."
        )
    if isinstance(out, np.ndarray) and type(out) is not np.ndarray and not isinstance(out, np.memmap):
        raise MechanismError(
            f"the mechanism returned an ndarray subclass {type(out).__module__}.{type(out).__qualname__} {where}; "
            "only its data would be audited, not what the subclass adds. To fix: return np.asarray(out) if the "
            "data is the whole release, or the extra state as output columns."
        )


def _owned_output(out: Any, where: str) -> NDArray[Any]:
    """``out`` copied into a C-ordered array the audit owns (the mechanism may reuse its buffer)."""
    _refuse_subclass(out, where)
    return np.array(out, order="C")  # a copy, even of an array


def _validate_block(out: Any, size: int, where: str) -> NDArray[Any]:
    """``out`` checked, and copied into a C-ordered array the audit owns (see the module docstring)."""
    arr = _owned_output(out, where)
    if arr.dtype.kind not in "biuf":
        raise MechanismError(f"the mechanism returned non-numeric outputs (dtype {arr.dtype}) {where}.")
    if arr.ndim == 0 or arr.shape[0] != size:
        raise MechanismError(
            f"the mechanism returned shape {arr.shape} {where}; expected {size} outputs stacked on axis 0."
        )
    # the sum is NaN whenever an entry is; only then pay for the element-wise check (+inf and
    # -inf also sum to NaN, silently: they are valid outputs; finite outputs near the float limit
    # may sum to +-inf, which is no NaN)
    with np.errstate(invalid="ignore", over="ignore"):
        suspicious = arr.dtype.kind == "f" and np.isnan(arr.sum())
    if suspicious and np.isnan(arr).any():
        raise MechanismError(f"the mechanism returned NaN {where}; outputs must be numbers.")
    return arr


def _replay(streams: TrialStreams, stream: int, block: int, size: int | None = None) -> str:
    """How to replay one call: the size it was called with and its generator.

    Streams 0 and 1 are the audit's draws on d0 and d1; the others (the checks' own draws) name their dataset in the
    message before this.
    """
    size = streams.block_size if size is None else size
    on = f"on d{stream} with size={size} (trials {block * streams.block_size} onwards)" if stream in (0, 1) else \
        f"on the same dataset with size={size}"
    return (f" To replay it: seed entropy {streams.entropy}, block size {streams.block_size}, stream {stream}, "
            f"block {block}: call the mechanism {on} "
            f"and rng=numpy.random.default_rng(numpy.random.SeedSequence({streams.entropy}, "
            f"spawn_key=({stream}, {block}))).")


def _named(exc: MechanismError, streams: TrialStreams, stream: int, block: int, size: int | None = None) -> MechanismError:
    """``exc``'s message with the block's seed appended, and the block named in its attributes."""
    out = MechanismError(str(exc) + _replay(streams, stream, block, size))
    out.dataset, out.block, out.seed_entropy, out.block_size = stream, block, streams.entropy, streams.block_size
    return out


def draw_block(
    sampler: Sampler, data: Any, streams: TrialStreams, stream: int, block: int, size: int, where: str | None = None
) -> NDArray[Any]:
    """Draw block ``block`` of stream ``stream``, validated, as a copy the caller owns.

    ``where`` names it in error messages.

    Raises :class:`MechanismError` naming the block and its seed if the mechanism raises (``SystemExit``
    included: user code cannot end the audit's process) or returns an unusable block, and
    :class:`~dpaudit.errors.AuditMemoryError` if memory runs out while drawing it.
    """
    where = where or f"on d{stream} (block {block})"
    try:
        out = sampler.draw(data, size, streams.block_generator(stream, block), where)
        return _validate_block(out, size, where)
    except MechanismError as exc:
        raise _named(exc, streams, stream, block, size) from exc
    except MemoryError as exc:
        raise AuditMemoryError(
            f"memory ran out drawing {size} trials {where}; a smaller block_size (now {streams.block_size}) "
            "needs less at once (the mechanism itself may also be allocating too much)." + _replay(streams, stream, block, size)
        ) from exc
    except (Exception, SystemExit) as exc:
        failure = MechanismError(f"the mechanism raised {type(exc).__name__}: {exc} {where}.")
        raise _named(failure, streams, stream, block, size) from exc


_Task = tuple[Sampler, Any, TrialStreams, int, list[tuple[int, int, int]]]


def _task(args: _Task) -> list[NDArray[Any]]:
    """Draw a group of blocks of one dataset; one array per block (so each can be recorded alone)."""
    sampler, data, streams, stream, blocks = args
    return [draw_block(sampler, data, streams, stream, k, stop - begin) for k, begin, stop in blocks]


def _executor_failure(exc: Exception, task: _Task, unfinished: int) -> MechanismError:
    """A task that failed outside the mechanism (a worker died, the task could not be sent)."""
    _, _, streams, stream, blocks = task
    k, begin, stop = blocks[0]
    others = f" or one of the {unfinished} other unfinished or failed task(s)" if unfinished else ""
    message = (
        f"the executor failed on block {k} of d{stream} (trials {begin} to {stop - 1}; {len(blocks)} block(s) in "
        f"the task) with {type(exc).__name__}: {str(exc).rstrip('.')}."
    )
    text = str(exc).lower()
    target = task[0].target
    if isinstance(exc, pickle.PicklingError) or "pickle" in text:
        message += " A mechanism sent to worker processes must be picklable (defined at module level)."
    elif main_file_missing():
        message += (
            " The cause: this program was read from standard input, and worker processes started by forkserver "
            "or spawn re-run __main__ from its file, which does not exist, so each worker dies at start. Save the "
            "code in a .py file and run that, or use a Dask cluster (`scheduler=`)."
        )
    elif "__main__" in (getattr(target, "__module__", None), type(target).__module__) and \
            not getattr(sys.modules.get("__main__"), "__file__", None):
        message += (
            " The cause: the mechanism is defined in __main__, and this __main__ (a notebook, `python -c` or an "
            "interactive session) has no file that worker processes can import it from, so each worker dies "
            "receiving it. Define the mechanism in a module (a .py file) and import it, or use a Dask cluster "
            "(`scheduler=`), which sends functions by value."
        )
    else:
        if "__main__" in (getattr(target, "__module__", None), type(target).__module__):
            message += (
                " The mechanism is defined in __main__: worker processes started by forkserver or spawn re-import "
                "your script to find it, so it must not run the audit at import (guard it with "
                "`if __name__ == \"__main__\":`)."
            )
        message += (
            f" A worker may have died (a crash, a kill, out of memory) running this task{others}; no partial "
            "sample is used. Completed blocks are kept when the audit has a checkpoint, so rerunning resumes; "
            "a Dask cluster reruns the blocks of a dead worker by itself."
        )
    return _named(MechanismError(message), streams, stream, k)


def _parallelism(executor: Executor) -> int:
    """How many tasks ``executor`` runs at once: a process pool's workers, a Dask cluster's threads."""
    workers = getattr(executor, "_max_workers", None)
    if isinstance(workers, int) and workers > 0:
        return workers
    client = getattr(executor, "_client", None)
    try:
        threads = sum(client.nthreads().values()) if client is not None else 0
    except Exception:  # a cluster that cannot say: fall back on the local core count
        threads = 0
    return threads if threads > 0 else os.cpu_count() or 1


def blocks_in_flight(executor: Executor | None, per_task: int) -> int:
    """The most blocks an audit holds at once while drawing.

    One serially; with an executor, two tasks per worker of ``per_task`` blocks each (enough to keep
    every worker busy), plus one in hand.
    """
    if executor is None:
        return 1
    return 2 * _parallelism(executor) * per_task + 1


def _run_tasks(tasks: Iterable[_Task], executor: Executor | None, window: int) -> Iterator[tuple[_Task, list[NDArray[Any]]]]:
    """Yield ``(task, blocks)`` as tasks finish: in order when serial, else in completion order.

    With an executor at most ``window`` tasks are submitted and not yet handed over (results are not
    piled up).
    """
    if executor is None:
        for task in tasks:
            yield task, _task(task)
        return
    todo = iter(tasks)
    pending: dict[Future[list[NDArray[Any]]], _Task] = {}

    def top_up() -> None:
        while len(pending) < window:
            task = next(todo, None)
            if task is None:
                return
            pending[executor.submit(_task, task)] = task

    try:
        top_up()
        while pending:
            done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            ordered = sorted(done, key=lambda f: (f.cancelled() or f.exception() is not None))  # successes first
            for future in ordered:
                task = pending.pop(future)
                if future.cancelled():  # e.g. a Dask client closed under the audit
                    raise _executor_failure(CancelledError("the task was cancelled"), task, len(pending))
                exc = future.exception()
                if exc is None:
                    yield task, future.result()
                    continue
                # hand over every other task that did finish (a checkpoint keeps them), then fail
                for other in [f for f in pending if f.done() and not f.cancelled() and f.exception() is None]:
                    yield pending.pop(other), other.result()
                if isinstance(exc, MechanismError | AuditMemoryError):
                    raise exc
                # not the mechanism: the executor or a worker failed; any task not finished well may be the cause
                in_doubt = sum(not f.done() or f.cancelled() or f.exception() is not None for f in pending)
                raise _executor_failure(exc, task, in_doubt) from exc  # type: ignore[arg-type]
            top_up()
    finally:
        for future in pending:
            future.cancel()


@dataclass(frozen=True)
class Arrival:
    """Block ``block`` (trials ``[start, stop)``) of dataset ``dataset``: its outputs, owned by the receiver."""

    dataset: int
    block: int
    start: int
    stop: int
    outputs: NDArray[Any]


class BlockSource:
    """Blocks of outputs of the datasets of one audit, loaded from its checkpoint or drawn, one at a time.

    Parameters
    ----------
    sampler, datasets, streams, trials
        What to draw: ``trials`` outputs on each dataset, block ``k`` of dataset ``j`` on stream ``j``.
    batch_size : int, optional
        Trials per dispatched task (rounded up to whole blocks). Does not change the results.
    executor : concurrent.futures.Executor, optional
        Where tasks run; at most :func:`blocks_in_flight` blocks are held at once.
    store : Checkpoint, optional
        Recorded blocks are loaded from it instead of drawn, and drawn blocks are recorded in it.
    progress : object, optional
        A progress bar (``update(n)``) advanced by the trials of every block handed over.
    """

    def __init__(self, sampler: Sampler, datasets: Sequence[Any], streams: TrialStreams, trials: int, *,
                 batch_size: int | None = None, executor: Executor | None = None, store: Checkpoint | None = None,
                 progress: Any = None) -> None:
        self.sampler, self.datasets, self.streams = sampler, list(datasets), streams
        self.plan = BlockPlan(trials, streams.block_size)
        self.per_task = 1 if batch_size is None else max(1, -(-batch_size // streams.block_size))
        self.executor, self.store, self.progress = executor, store, progress
        self.window = 1 if executor is None else max(1, (blocks_in_flight(executor, self.per_task) - 1) // self.per_task)
        self.loaded = 0
        self.seconds = 0.0  # spent loading and drawing blocks
        self.reference: tuple[tuple[int, ...], np.dtype[Any], str] | None = None
        if store is not None:
            store.check_plan(self.plan.span, len(self.datasets))

    def fetch(self, blocks: Sequence[int]) -> dict[tuple[int, int], Arrival]:
        """All of ``blocks`` on every dataset, keyed ``(dataset, block)``, checked in that order."""
        got = {(a.dataset, a.block): a for a in self._timed(self._arrivals(blocks))}
        for key in sorted(got):
            self._check(got[key])
        return got

    def stream(self, blocks: Sequence[int]) -> Generator[Arrival, None, None]:
        """``blocks`` on every dataset, one at a time as they are loaded or finish drawing."""
        for arrival in self._timed(self._arrivals(blocks)):
            self._check(arrival)
            yield arrival

    def _timed(self, arrivals: Iterator[Arrival]) -> Iterator[Arrival]:
        """``arrivals``, adding the time spent producing each (not the receiver's time) to ``seconds``."""
        while True:
            start = time.perf_counter()
            arrival = next(arrivals, None)
            self.seconds += time.perf_counter() - start
            if arrival is None:
                return
            yield arrival

    def _arrivals(self, blocks: Sequence[int]) -> Iterator[Arrival]:
        recorded = set() if self.store is None else self.store.recorded
        for k in blocks:  # recorded blocks first: no drawing, and a corrupt file is refused early
            for j in range(len(self.datasets)):
                if (j, k) in recorded:
                    assert self.store is not None
                    _, start, stop = self.plan[k]
                    self.loaded += 1
                    yield self._handed(Arrival(j, k, start, stop, self.store.read(j, k, (start, stop))))
        for task, parts in _run_tasks(self._tasks(blocks, recorded), self.executor, self.window):
            stream, group = task[3], task[4]
            if self.store is not None:
                self.store.record(stream, group, parts)
            for (k, start, stop), arr in zip(group, parts, strict=True):
                yield self._handed(Arrival(stream, k, start, stop, arr))
            del parts

    def _tasks(self, blocks: Sequence[int], recorded: set[tuple[int, int]]) -> Iterator[_Task]:
        for first in range(0, len(blocks), self.per_task):
            chunk = blocks[first : first + self.per_task]
            for j, data in enumerate(self.datasets):
                todo = [self.plan[k] for k in chunk if (j, k) not in recorded]
                if todo:
                    yield (self.sampler, data, self.streams, j, todo)

    def _handed(self, arrival: Arrival) -> Arrival:
        if self.progress is not None:
            self.progress.update(arrival.stop - arrival.start)
        return arrival

    def _check(self, arrival: Arrival) -> None:
        """The output shape (beyond axis 0) and dtype must be those of d0's block 0 in every block."""
        arr, label = arrival.outputs, f"d{arrival.dataset} (block {arrival.block})"
        if self.reference is None:
            self.reference = (arr.shape[1:], arr.dtype, label)
        shape, dtype, first = self.reference
        if arr.shape[1:] != shape:
            raise MechanismError(f"the mechanism changed its output shape between calls: {shape} on {first} but "
                                 f"{arr.shape[1:]} on {label}.")
        if arr.dtype != dtype:
            raise MechanismError(f"the mechanism changed its output dtype between calls: {dtype} on {first} but "
                                 f"{arr.dtype} on {label}.")

    def verify_recorded(self, per_dataset: int = REDRAW_PER_DATASET, chooser: Callable[[list[Any], int], list[Any]] | None = None) -> int:
        """Re-draw up to ``per_dataset`` recorded blocks of each dataset, chosen at random, and compare bytes.

        The choice uses the operating system's randomness (not the audit's seed), so which blocks are
        checked cannot be predicted from the file. Raises :class:`CheckpointError` on any difference;
        returns the number of blocks checked.
        """
        if self.store is None or not self.store.recorded:
            return 0
        pick = chooser or (lambda pool, n: secrets.SystemRandom().sample(pool, n))
        chosen = []
        for j in range(len(self.datasets)):
            pool = sorted(k for d, k in self.store.recorded if d == j)
            chosen += [(j, k) for k in pick(pool, min(per_dataset, len(pool)))]
        tasks = [(self.sampler, self.datasets[j], self.streams, j, [self.plan[k]]) for j, k in sorted(chosen)]
        for task, (drawn,) in _run_tasks(tasks, self.executor, self.window):
            j, (k, start, stop) = task[3], task[4][0]
            kept = self.store.read(j, k, (start, stop))
            if kept.dtype != drawn.dtype or kept.shape != drawn.shape or kept.tobytes() != drawn.tobytes():
                raise self.store.refuse_mismatch(j, k)
        return len(chosen)


def draw_outputs(
    sampler: Sampler,
    datasets: Sequence[Any],
    trials: int,
    streams: TrialStreams,
    *,
    batch_size: int | None = None,
    executor: Executor | None = None,
    progress: bool = False,
) -> tuple[list[NDArray[Any]], float]:
    """Every one of ``trials`` outputs on each dataset, stacked; and the seconds taken.

    For tests and benchmarks that want all outputs at once (an audit streams them instead). Each
    block uses its own stream, so the outputs are identical for every batch size and executor.
    Raises :class:`MechanismError` as :func:`draw_block` does, or if the output shape or dtype
    changes between blocks.
    """
    start = time.perf_counter()
    bar = _progress_bar(trials * len(datasets), progress)
    try:
        source = BlockSource(sampler, datasets, streams, trials, batch_size=batch_size, executor=executor, progress=bar)
        got = source.fetch(range(len(source.plan)))
    finally:
        if bar is not None:
            bar.close()
    outputs = []
    for j in range(len(datasets)):
        parts = [got[(j, k)].outputs for k in range(len(source.plan))]
        outputs.append(parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0))
    return outputs, time.perf_counter() - start


def _progress_bar(total: int, enabled: bool) -> Any:
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # tqdm is an optional extra ("progress")
        return None
    return tqdm(total=total, desc="sampling", unit="trial", unit_scale=True)
