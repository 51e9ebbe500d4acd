"""Drawing mechanism outputs on both datasets, in blocks of trials on spawned streams.

Block ``k`` of dataset ``j`` (0 or 1) always draws from ``TrialStreams.block_generator(j, k)``, so
the outputs do not depend on how blocks are batched, on the executor, or on the number of workers.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._rng import TrialStreams
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
    # the sum is NaN whenever an entry is; only then pay for the element-wise check (+inf and
    # -inf also sum to NaN, silently: they are valid outputs)
    with np.errstate(invalid="ignore"):
        suspicious = arr.dtype.kind == "f" and np.isnan(arr.sum())
    if suspicious and np.isnan(arr).any():
        raise MechanismError(f"the mechanism returned NaN {where}; outputs must be numbers.")
    return arr


def draw_block(
    sampler: Sampler, data: Any, streams: TrialStreams, stream: int, block: int, size: int, where: str | None = None
) -> NDArray[Any]:
    """Draw block ``block`` of stream ``stream``; ``where`` names it in error messages."""
    where = where or f"on d{stream} (block {block})"
    try:
        out = sampler.draw(data, size, streams.block_generator(stream, block))
    except MechanismError:
        raise
    except Exception as exc:
        raise MechanismError(f"the mechanism raised {type(exc).__name__}: {exc} {where}.") from exc
    return _validate_block(out, size, where)


def _task(args: tuple[Sampler, Any, TrialStreams, int, list[tuple[int, int, int]]]) -> NDArray[Any]:
    sampler, data, streams, stream, blocks = args
    parts = [draw_block(sampler, data, streams, stream, k, stop - begin) for k, begin, stop in blocks]
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)


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
    """Draw ``trials`` outputs on each dataset; return the stacked outputs and the seconds taken.

    Work is dispatched in batches of whole blocks (``batch_size`` trials, rounded up to a multiple
    of the block size); each block uses its own stream, so the outputs are identical for every
    batch size and executor.

    Raises :class:`MechanismError` if the mechanism raises, returns NaN, returns the wrong number
    of outputs, or changes its output shape or kind between calls or datasets.
    """
    start = time.perf_counter()
    blocks = streams.blocks(trials)
    per_batch = 1 if batch_size is None else max(1, -(-batch_size // streams.block_size))
    groups = [blocks[i : i + per_batch] for i in range(0, len(blocks), per_batch)]
    tasks = [(sampler, data, streams, j, group) for j, data in enumerate(datasets) for group in groups]
    bar = _progress_bar(trials * len(datasets), progress)
    results: list[NDArray[Any]] = []
    mapped = executor.map(_task, tasks) if executor is not None else map(_task, tasks)
    for arr in mapped:
        results.append(arr)
        if bar is not None:
            bar.update(arr.shape[0])
    if bar is not None:
        bar.close()
    _check_consistent(results, [f"d{t[3]} (block {t[4][0][0]})" for t in tasks])
    per_side = len(groups)
    outputs = [
        results[j * per_side] if per_side == 1 else np.concatenate(results[j * per_side : (j + 1) * per_side], axis=0)
        for j in range(len(datasets))
    ]
    return outputs, time.perf_counter() - start


def _progress_bar(total: int, enabled: bool) -> Any:
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # tqdm is an optional extra ("progress")
        return None
    return tqdm(total=total, desc="sampling", unit="trial", unit_scale=True)
