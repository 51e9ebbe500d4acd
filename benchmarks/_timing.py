"""Small timing helpers shared by the benchmarks (median of repeats, interleaved)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_seconds(fn: Callable[[], object], repeats: int = 5) -> float:
    """Median wall time of ``fn()`` over ``repeats`` runs (one warm-up run first)."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def interleaved(fns: dict[str, Callable[[], object]], repeats: int = 5, clock: Callable[[], float] = time.perf_counter) -> dict[str, float]:
    """Median times of several functions measured in alternation, so machine noise hits all alike.

    ``clock`` defaults to wall time; ``time.process_time`` (CPU time of this process) is steadier
    on a machine shared with other work.
    """
    for fn in fns.values():
        fn()
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = clock()
            fn()
            samples[name].append(clock() - start)
    return {name: statistics.median(ts) for name, ts in samples.items()}
