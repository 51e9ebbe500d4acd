"""Bit-level attacks on floating-point outputs: the IEEE-754 representation, not the real value.

A mechanism proved private over the reals can leak through its floating-point outputs [Mir12].
Textbook Laplace sampling ``loc + scale * log(U)`` with ``U`` on the grid ``2^-53 Z`` is the
classic case: near ``loc = 1`` every output below 1 in magnitude is a multiple of ``2^-53``
(the sum ``1 + noise`` is rounded to that grid), while near ``loc = 0`` the outputs keep the
fine grid of small floats. Which dataset produced an output is then readable from its last
bits, and epsilon is infinite.

The families read, per float column (the ``MAX_BIT_COLUMNS`` columns whose bit classes differ
most between the datasets on the training rows):

* ``float bits``: a category per (sign, binary exponent, trailing zero bits of the 53-bit
  significand, capped at ``TZ_CAP``): *lattice membership*, i.e. the coarsest grid
  ``2^g Z`` the value lies on, within its binade;
* ``float low bits``: a category per (sign, exponent, lowest ``LOW_BITS`` significand bits), the
  raw low-order bits DP-Sniper's bit-pattern features expose [BSBV21, Sec. VII];
* ``grid exponent``: ``g`` itself as a number, with threshold events ``{g <= t}``: an output on
  a finer grid than any the other dataset produces.

A correct sampler that snaps its outputs to a fixed lattice [Mir12, Sec. 5] gives identical bit
classes on both datasets, so these families find nothing there; a false alarm is as unlikely as
for any other family, since the events are fixed on the selection split like all others.

References
----------
.. [Mir12] I. Mironov. On significance of the least significant bits for differential privacy.
   CCS 2012.
.. [BSBV21] B. Bichsel, S. Steffen, I. Bogunovic and M. Vechev. DP-Sniper: black-box discovery
   of differential privacy violations using classifiers. IEEE S&P 2021.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.auditor.features import OutputLayout
from dpaudit.auditor.score import Score, category_score

__all__ = ["bit_fields", "bit_scores", "grid_exponent"]

TZ_CAP = 16
LOW_BITS = 4
MAX_BIT_COLUMNS = 4
_MANTISSA = np.uint64((1 << 52) - 1)


def bit_fields(x: NDArray[Any]) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.uint64]]:
    """Sign, biased exponent, trailing zeros of the 53-bit significand, and the raw significand field.

    Zero has 53 trailing zeros; infinities keep their exponent 2047.
    """
    bits = np.ascontiguousarray(x, dtype=np.float64).view(np.uint64)
    sign = (bits >> np.uint64(63)).astype(np.int64)
    exponent = ((bits >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    mantissa = bits & _MANTISSA
    significand = np.where(exponent > 0, mantissa | np.uint64(1 << 52), mantissa)
    with np.errstate(over="ignore"):
        lowest = significand & (~significand + np.uint64(1))  # lowest set bit, 0 for zero
    _, e = np.frexp(lowest.astype(np.float64))
    trailing = np.where(significand == 0, 53, e.astype(np.int64) - 1)
    return sign, exponent, trailing, mantissa


def grid_exponent(x: NDArray[Any]) -> NDArray[np.float64]:
    """``g`` with ``x = odd * 2^g`` (the coarsest dyadic grid ``x`` lies on); +inf for 0 and inf."""
    _, exponent, trailing, _ = bit_fields(x)
    g = np.maximum(exponent, 1) - 1075 + trailing
    return np.where((exponent == 2047) | (trailing >= 53), np.inf, g.astype(np.float64))


def _class_codes(x: NDArray[Any], column: int, low: bool) -> NDArray[np.int64]:
    sign, exponent, trailing, mantissa = bit_fields(np.asarray(x)[:, column])
    third = (mantissa & np.uint64((1 << LOW_BITS) - 1)).astype(np.int64) if low else np.minimum(trailing, TZ_CAP)
    return np.stack([sign, exponent, third], axis=1)


def _separation(a0: NDArray[Any], a1: NDArray[Any], column: int) -> float:
    """Total-variation distance between the datasets' bit classes in one column (training rows)."""
    c0, c1 = _class_codes(a0, column, False), _class_codes(a1, column, False)
    keys0 = c0[:, 0] * (1 << 20) + c0[:, 1] * 64 + c0[:, 2]
    keys1 = c1[:, 0] * (1 << 20) + c1[:, 1] * 64 + c1[:, 2]
    keys, inverse = np.unique(np.concatenate([keys0, keys1]), return_inverse=True)
    n0 = np.bincount(inverse[: len(keys0)], minlength=keys.size) / len(keys0)
    n1 = np.bincount(inverse[len(keys0):], minlength=keys.size) / len(keys1)
    return float(0.5 * np.abs(n0 - n1).sum())


def bit_scores(layout: OutputLayout, a0: NDArray[Any], a1: NDArray[Any]) -> list[Score]:
    """The bit-level families for float outputs (nothing for integer or boolean outputs).

    Float outputs that are all atoms (a ``"discrete"`` layout: e.g. only ``0.0`` and ``-0.0``) get
    them too: equal reals with different bit patterns (the sign of zero) are one category for the
    value families, but two for these, which read the IEEE-754 representation.
    """
    if np.asarray(a0).dtype.kind != "f":
        return []
    k = layout.n_columns
    columns = range(k) if k <= MAX_BIT_COLUMNS else np.argsort([-_separation(a0, a1, j) for j in range(k)])[:MAX_BIT_COLUMNS]
    scores: list[Score] = []
    for j in (int(c) for c in columns):
        for low, label in ((False, "float bits"), (True, "float low bits")):
            def codes(x: NDArray[Any], j: int = j, low: bool = low) -> NDArray[np.int64]:
                return _class_codes(x, j, low)

            scores.append(category_score(f"{label}[{j}]", codes, a0, a1))

        def exponent(x: NDArray[Any], j: int = j) -> NDArray[np.float64]:
            return grid_exponent(np.asarray(x)[:, j])

        scores.append(Score(f"grid exponent[{j}]", exponent))
    return scores
