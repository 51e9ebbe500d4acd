"""Mechanisms for the scale and fault tests, importable by worker processes and subprocesses.

Each is Laplace noise of scale 1 around the (scalar) data: correct at epsilon = 1 for a pair at
distance 1, so any difference between two runs comes from the machinery under test, not the draws.
A fault is keyed to a block's *size*: with ``trials = 1000`` and ``block_size = 300`` only the last
block (index 3) has 100 trials, so the fault hits exactly one block per dataset whatever the
executor.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

FAULTY_SIZE = 100  # the last block of 1000 trials in blocks of 300
CALLS: list[int] = []  # sizes drawn by `counted_laplace` in this process (the tests' call counter)


def laplace(data: Any, rng: np.random.Generator, size: int | None = None) -> Any:
    return rng.laplace(data, 1.0, size)


def paced_laplace(data: Any, rng: np.random.Generator, size: int | None = None) -> Any:
    """Laplace noise, sleeping first when ``DPAUDIT_TEST_PACE`` is "slow" (so a run can be killed mid-way)."""
    if os.environ.get("DPAUDIT_TEST_PACE") in {"slow", "slower"}:  # a set constant: hashed in a per-process order
        time.sleep(0.04 if os.environ["DPAUDIT_TEST_PACE"] == "slow" else 0.2)
    return rng.laplace(data, 1.0, size)


def counted_laplace(data: Any, rng: np.random.Generator, size: int | None = None) -> Any:
    CALLS.append(-1 if size is None else size)
    return rng.laplace(data, 1.0, size)


def raising_on_last_block(data: Any, rng: np.random.Generator, size: int | None = None) -> Any:
    out = rng.laplace(data, 1.0, size)
    if size == FAULTY_SIZE:
        raise ValueError(f"cannot handle a batch whose first draw is {out[0]!r}")
    return out


def dying_on_last_block(data: Any, rng: np.random.Generator, size: int | None = None) -> Any:
    if size == FAULTY_SIZE:
        os._exit(13)  # the worker process dies without a word, as under the OOM killer
    return rng.laplace(data, 1.0, size)


@dataclass(frozen=True)
class DiesOnceOnLastBlock:
    """Kills its worker process the first time it draws the last block, then works (a flaky worker).

    ``marker`` is a file created just before the kill, so the rerun on a fresh worker goes through.
    """

    marker: str

    def __call__(self, data: Any, rng: np.random.Generator, size: int | None = None) -> Any:
        if size == FAULTY_SIZE and not Path(self.marker).exists():
            Path(self.marker).touch()
            os._exit(13)
        return rng.laplace(data, 1.0, size)


_BUFFER = np.empty(1 << 16)  # one buffer, reused by every call of `reused_buffer_laplace`


def reused_buffer_laplace(data: Any, rng: np.random.Generator, size: int | None = None) -> Any:
    """Laplace noise of scale 1/2 (2-DP at distance 1) written into, and returned as a view of, one buffer.

    The next call overwrites the outputs of the previous one: an auditor that keeps the returned
    array without copying it sees d0's outputs turn into d1's.
    """
    out = _BUFFER[: 1 if size is None else size]
    out[:] = rng.laplace(data, 0.5, 1 if size is None else size)
    return out[0] if size is None else out


def leaky_laplace(data: Any, rng: np.random.Generator, size: int | None = None) -> Any:
    """Laplace noise of scale 1/2: 2-DP at distance 1, so a claim of 1 is violated."""
    return rng.laplace(data, 0.5, size)


def huge_laplace(data: Any, rng: np.random.Generator, size: int | None = None) -> Any:
    """Laplace noise of scale 1e307 around 1.5e308 + 1e307 * data, clipped into the finite floats.

    1-DP at distance 1 (a shift of one scale; the clip is post-processing), with outputs near the
    float limit, whose sum overflows: an audit must not blame the mechanism for its own arithmetic.
    """
    return np.clip(rng.laplace(1.5e308 + 1e307 * np.asarray(data), 1e307, size), -1.7e308, 1.7e308)
