"""The attacks' shared vocabulary: a fitted :class:`Score` and the category score every family builds on.

A leaf module (it imports nothing else of the auditor but :mod:`.features`), so that the family
modules (:mod:`.attacks`, :mod:`.columns`, :mod:`.bits`) and the ranking (:mod:`.ranking`) share these
types without importing each other.

Every attack reduces an output to a real *score*; an *event* is ``{score > t}`` or ``{score <= t}``
(ranked in :mod:`.ranking`). :func:`category_score` is the estimated log-likelihood ratio of each
distinct output pattern, the event search of [DWWZK18] for discrete outputs.

References
----------
.. [DWWZK18] Z. Ding, Y. Wang, G. Wang, D. Zhang and D. Kifer. Detecting violations of
   differential privacy. CCS 2018.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.auditor.features import encode_rows

__all__ = ["Family", "Score", "category_score"]

DENSE_CATEGORY_LIMIT = 1 << 22
MAX_LISTED = 4


@dataclass(frozen=True)
class Score:
    """A fitted score function; ``name`` says what it is, ``fn`` maps flattened outputs to scores."""

    name: str
    fn: Callable[[NDArray[Any]], NDArray[np.float64]] = field(repr=False, compare=False)
    members: Callable[[float, bool], str | None] | None = field(default=None, repr=False, compare=False)
    family: str = field(default="", compare=False)
    # a real value with a smooth distribution (a noisy released value): tail fits may rank its thresholds
    smooth: bool = field(default=False, compare=False)

    def __call__(self, x: NDArray[Any]) -> NDArray[np.float64]:
        """The scores of the flattened outputs ``x`` (one per row), as floats."""
        return np.asarray(self.fn(x), dtype=float)


Family = Callable[[NDArray[Any], NDArray[Any]], list[Score]]
"""Fits one family's scores on the training rows ``(a0, a1)`` of the selection split."""


def category_score(
    name: str,
    codes_fn: Callable[[NDArray[Any]], NDArray[np.int64]],
    a0: NDArray[Any],
    a1: NDArray[Any],
    label_row: Callable[[NDArray[np.int64]], str] | None = None,
) -> Score:
    """Score = smoothed log-ratio of the two datasets' frequencies of each category (row of codes).

    Categories are looked up in a dense table when the integer codes span a small box (fast, the
    common case: indices, counts, answer patterns), and through 64-bit row hashes otherwise.
    """
    c0, c1 = codes_fn(a0), codes_fn(a1)
    both = np.concatenate([c0, c1])
    low, high = both.min(axis=0), both.max(axis=0)
    # in floating point: for codes at the int64 limits, high - low + 1 overflows int64
    extent = high.astype(np.float64) - low.astype(np.float64) + 1.0
    if float(np.prod(extent)) <= DENSE_CATEGORY_LIMIT:
        strides = np.concatenate([np.cumprod(extent[::-1])[::-1][1:], [1.0]]).astype(np.int64)
        size = int(np.prod(extent))

        def index(codes: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
            inside = np.all((codes >= low) & (codes <= high), axis=1)
            idx = ((np.clip(codes, low, high) - low) @ strides).astype(np.int64)
            return idx, inside

        def decode(i: int) -> str:
            row = (i // strides) % extent.astype(np.int64) + low
            return label_row(row) if label_row else "(" + ", ".join(str(int(v)) for v in row) + ")"
    else:
        decode = None  # type: ignore[assignment]
        keys = np.unique(encode_rows(both))
        size = len(keys)

        def index(codes: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
            kx = encode_rows(codes)
            idx = np.minimum(np.searchsorted(keys, kx), size - 1)
            return idx.astype(np.int64), keys[idx] == kx

    i0, _ = index(c0)
    i1, _ = index(c1)
    n0 = np.bincount(i0, minlength=size)
    n1 = np.bincount(i1, minlength=size)
    # add-1/2 smoothing keeps categories seen on one side only finite
    ratio = np.log((n0 + 0.5) / (len(c0) + 1.0)) - np.log((n1 + 0.5) / (len(c1) + 1.0))

    def score(x: NDArray[Any]) -> NDArray[np.float64]:
        idx, known = index(codes_fn(x))
        return np.where(known, ratio[idx], 0.0)  # unseen categories are neutral

    seen = np.flatnonzero((n0 + n1) > 0)

    def members(threshold: float, upper: bool) -> str | None:
        """The seen categories inside the event (decoded when the table is dense), for the report."""
        inside = seen[ratio[seen] > threshold] if upper else seen[ratio[seen] <= threshold]
        if decode is None or inside.size == 0:
            return None
        inside = inside[np.argsort(-(n0 + n1)[inside])]
        shown = ", ".join(decode(int(i)) for i in inside[:MAX_LISTED])
        more = f", ... ({inside.size} categories)" if inside.size > MAX_LISTED else ""
        return "{" + shown + more + "}"

    return Score(name, score, members)
