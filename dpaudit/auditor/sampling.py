"""Drawing mechanism outputs on both datasets, in blocks of trials on spawned streams.

Block ``k`` of dataset ``j`` (0 or 1) always draws from ``TrialStreams.block_generator(j, k)``, so
the outputs do not depend on how blocks are batched, on the executor, or on the number of workers.
The same property makes faults safe: a block that is drawn again (resumed from a checkpoint, or
rerun by Dask after its worker died) gets the identical draws, and a block that cannot be drawn
stops the audit with a :class:`MechanismError` naming it and its seed, never a smaller sample.
"""

from __future__ import annotations

import inspect
import os
import pickle
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError, Executor, as_completed
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._rng import TrialStreams
from dpaudit.auditor.checkpoint import Checkpoint, audit_fingerprint
from dpaudit.errors import MechanismError
from dpaudit.guarantees import Guarantee

__all__ = ["Sampler", "as_sampler", "draw_block", "draw_outputs"]


@dataclass(frozen=True)
class Sampler:
    """A uniform view of a mechanism: ``draw(data, size, rng)`` returns outputs stacked on axis 0."""

    name: str
    kind: str  # "mechanism", "callable-size" or "callable-looped"
    target: Any

    def draw(self, data: Any, size: int, rng: np.random.Generator) -> Any:
        if self.kind == "mechanism":
            return self.target.sample(data, size, rng=rng)
        if self.kind == "callable-size":
            return self.target(data, rng, size=size)
        return np.stack([np.asarray(self.target(data, rng)) for _ in range(size)])

    def claimed_guarantee(self) -> Guarantee | None:
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


def _validate_block(out: Any, size: int, where: str) -> NDArray[Any]:
    arr = np.asarray(out)
    if arr.dtype.kind not in "biuf":
        raise MechanismError(f"the mechanism returned non-numeric outputs (dtype {arr.dtype}) {where}.")
    if arr.ndim == 0 or arr.shape[0] != size:
        raise MechanismError(
            f"the mechanism returned shape {arr.shape} {where}; expected {size} outputs stacked on axis 0."
        )
    # the sum is NaN whenever an entry is; only then pay for the element-wise check
    if arr.dtype.kind == "f" and np.isnan(arr.sum()) and np.isnan(arr).any():
        raise MechanismError(f"the mechanism returned NaN {where}; outputs must be numbers.")
    return arr


def _replay(streams: TrialStreams, stream: int, block: int) -> str:
    return (f" To replay it: seed entropy {streams.entropy}, block size {streams.block_size}, stream {stream}, "
            f"block {block}, i.e. TrialStreams({streams.entropy}, {streams.block_size}).block_generator({stream}, {block}).")


def _named(exc: MechanismError, streams: TrialStreams, stream: int, block: int) -> MechanismError:
    """``exc``'s message with the block's seed appended, and the block named in its attributes."""
    out = MechanismError(str(exc) + _replay(streams, stream, block))
    out.dataset, out.block, out.seed_entropy, out.block_size = stream, block, streams.entropy, streams.block_size
    return out


def draw_block(
    sampler: Sampler, data: Any, streams: TrialStreams, stream: int, block: int, size: int, where: str | None = None
) -> NDArray[Any]:
    """Draw block ``block`` of stream ``stream``; ``where`` names it in error messages.

    Raises :class:`MechanismError` naming the block and its seed if the mechanism raises or returns
    an unusable block.
    """
    where = where or f"on d{stream} (block {block})"
    try:
        out = sampler.draw(data, size, streams.block_generator(stream, block))
        return _validate_block(out, size, where)
    except MechanismError as exc:
        raise _named(exc, streams, stream, block) from exc
    except Exception as exc:
        failure = MechanismError(f"the mechanism raised {type(exc).__name__}: {exc} {where}.")
        raise _named(failure, streams, stream, block) from exc


_Task = tuple[Sampler, Any, TrialStreams, int, list[tuple[int, int, int]]]


def _task(args: _Task) -> list[NDArray[Any]]:
    """Draw a group of blocks of one dataset; one array per block (so each can be recorded alone)."""
    sampler, data, streams, stream, blocks = args
    return [draw_block(sampler, data, streams, stream, k, stop - begin) for k, begin, stop in blocks]


def _check_consistent(parts: list[NDArray[Any]], labels: list[str]) -> None:
    first = parts[0]
    for arr, label in zip(parts, labels, strict=True):
        if arr.shape[1:] != first.shape[1:]:
            raise MechanismError(
                f"the mechanism changed its output shape between calls: {first.shape[1:]} on {labels[0]} "
                f"but {arr.shape[1:]} on {label}."
            )
        if (arr.dtype.kind == "f") != (first.dtype.kind == "f"):
            raise MechanismError(
                f"the mechanism changed its output kind between calls: dtype {first.dtype} on {labels[0]} "
                f"but {arr.dtype} on {label}."
            )


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
    else:
        if "__main__" in (getattr(target, "__module__", None), type(target).__module__):
            message += (
                " The mechanism is defined in __main__: from a notebook, `python -c` or an interactive session, "
                "worker processes started by forkserver or spawn cannot import it and die receiving it (define it "
                "in a module, or use a Dask cluster, which sends functions by value)."
            )
        message += (
            f" A worker may have died (a crash, a kill, out of memory) running this task{others}; no partial "
            "sample is used. Completed blocks are kept when the audit has a checkpoint, so rerunning resumes; "
            "a Dask cluster reruns the blocks of a dead worker by itself."
        )
    return _named(MechanismError(message), streams, stream, k)


def _completed(tasks: list[_Task], executor: Executor | None) -> Iterator[tuple[_Task, list[NDArray[Any]]]]:
    """Yield ``(task, blocks)`` as tasks finish: in order when serial, in completion order otherwise."""
    if executor is None:
        for task in tasks:
            yield task, _task(task)
        return
    futures = {executor.submit(_task, task): task for task in tasks}
    pending = set(futures)
    try:
        for future in as_completed(futures):
            pending.discard(future)
            if future.cancelled():  # e.g. a Dask client closed under the audit
                raise _executor_failure(CancelledError("the task was cancelled"), futures[future], len(pending))
            if future.exception() is None:
                yield futures[future], future.result()
                continue
            # hand over every other task that did finish (a checkpoint keeps them), then fail
            for other in [f for f in pending if f.done() and not f.cancelled() and f.exception() is None]:
                pending.discard(other)
                yield futures[other], other.result()
            exc = future.exception()
            if isinstance(exc, MechanismError):
                raise exc
            # not the mechanism: the executor or a worker failed; any task not finished well may be the cause
            in_doubt = sum(not f.done() or f.cancelled() or f.exception() is not None for f in pending)
            raise _executor_failure(exc, futures[future], in_doubt) from exc  # type: ignore[arg-type]
    finally:
        for future in futures:
            future.cancel()


def draw_outputs(
    sampler: Sampler,
    datasets: Sequence[Any],
    trials: int,
    streams: TrialStreams,
    *,
    batch_size: int | None = None,
    executor: Executor | None = None,
    progress: bool = False,
    checkpoint: str | os.PathLike[str] | None = None,
    claim: tuple[float, float] | None = None,
    notes: list[str] | None = None,
) -> tuple[list[NDArray[Any]], float]:
    """Draw ``trials`` outputs on each dataset; return the stacked outputs and the seconds taken.

    Work is dispatched in batches of whole blocks (``batch_size`` trials, rounded up to a multiple
    of the block size); each block uses its own stream, so the outputs are identical for every
    batch size and executor. With ``checkpoint`` (an SQLite file, :mod:`.checkpoint`), blocks
    recorded there are loaded instead of drawn, and every block is recorded as it finishes;
    ``claim`` (epsilon, delta) is part of the checkpoint's fingerprint. A line describing the
    checkpoint is appended to ``notes``.

    Raises :class:`MechanismError` if the mechanism raises, returns NaN, returns the wrong number
    of outputs, or changes its output shape or kind between calls or datasets, or if a worker
    fails; the error names the block and its seed. Raises
    :class:`~dpaudit.errors.CheckpointError` for a checkpoint of another audit or a corrupt one.
    """
    start = time.perf_counter()
    blocks = streams.blocks(trials)
    plan = {(j, k): (begin, stop) for j in range(len(datasets)) for k, begin, stop in blocks}
    store = None
    bar = None
    try:
        done: dict[tuple[int, int], NDArray[Any]] = {}
        if checkpoint is not None:
            store = Checkpoint(checkpoint, audit_fingerprint(sampler.target, datasets, trials, streams, claim))
            done = store.load(plan)
        loaded = len(done)
        per_batch = 1 if batch_size is None else max(1, -(-batch_size // streams.block_size))
        tasks: list[_Task] = []
        for j, data in enumerate(datasets):
            missing = [b for b in blocks if (j, b[0]) not in done]
            tasks += [(sampler, data, streams, j, missing[i : i + per_batch]) for i in range(0, len(missing), per_batch)]
        bar = _progress_bar(trials * len(datasets), progress)
        if bar is not None and done:
            bar.update(sum(arr.shape[0] for arr in done.values()))
        for task, parts in _completed(tasks, executor):
            stream, group = task[3], task[4]
            if store is not None:
                store.record(stream, group, parts)
            done.update({(stream, k): arr for (k, _, _), arr in zip(group, parts, strict=True)})
            if bar is not None:
                bar.update(sum(arr.shape[0] for arr in parts))
        if store is not None and notes is not None:
            notes.append(store.describe(loaded, len(plan)))
    finally:
        if bar is not None:
            bar.close()
        if store is not None:
            store.close()
    order = sorted(plan)
    _check_consistent([done[key] for key in order], [f"d{j} (block {k})" for j, k in order])
    outputs = []
    for j in range(len(datasets)):
        parts = [done[(j, k)] for k, _, _ in blocks]
        # one C-ordered array whatever the blocks' layout, so results do not depend on where blocks came from
        out = np.ascontiguousarray(parts[0]) if len(parts) == 1 else np.concatenate(parts, axis=0)
        if out.shape[0] != trials:  # every block was validated; this guards the assembly itself
            raise MechanismError(f"internal error: {out.shape[0]} outputs assembled on d{j} instead of {trials}.")
        outputs.append(out)
    return outputs, time.perf_counter() - start


def _progress_bar(total: int, enabled: bool) -> Any:
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # tqdm is an optional extra ("progress")
        return None
    return tqdm(total=total, desc="sampling", unit="trial", unit_scale=True)
