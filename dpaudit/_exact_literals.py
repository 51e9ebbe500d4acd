"""Whether reading decimal text as float64 keeps a neighbouring pair the pair the files hold.

A ``.csv`` or ``.json`` dataset is text; the audit runs on its float64 values. Rounding each
number to float64 is harmless for the audit as long as it does not change how the two datasets
differ: a mechanism's privacy loss on a pair depends on the pair's differences, and a rounding
that turns a difference of 1 into 2 (``9007199254740993.0`` is read as ``...992``, ``...994``
stays) audits a pair twice as far apart, a false violation. So each literal is also read
exactly (:class:`fractions.Fraction` from its text) and, where the two datasets differ, the
difference of the values audited must equal the exact difference of the literals to a relative
:data:`DIFFERENCE_TOLERANCE` (``2**-26``):

* ``2**-26`` is half of float64's 53-bit significand. Each rounding moves a value by at most
  ``2**-53`` of its magnitude (above the subnormal range), so two values ``a``, ``b`` with
  ``|a - b| >= 2**-26 (|a| + |b|)`` always pass (their difference changes by at most ``2**-27``
  of it): numbers that differ within their first 7 significant digits (``0.1`` and ``0.2``,
  ``1.5`` and ``1.500001``) are never refused, whatever their digits. Only pairs that differ in
  float64's last bits are examined, and refused where rounding changed their difference by more
  than ``2**-26`` of it.
* A change of ``2**-26`` (1.5e-8) of the difference moves the privacy loss of a mechanism whose
  loss scales with the distance (Laplace, Gaussian) by that factor: far below what any
  feasible number of trials resolves. Literals equal as numbers (``0.1``, ``0.10``) round to the
  same float64 and stay equal.

Only datasets of one shape are compared, position by position. Datasets of different shapes
(adding or removing rows) need no check: numbers equal as written round alike, so rows the two
files share stay shared and an added row moves by at most ``2**-53`` of its size; the pair audited
is then a neighbouring pair whenever the files' pair is one, and a DP claim covers every
neighbouring pair, so a violation found on it is a real one.

Functions here raise nothing about the command line: :mod:`dpaudit._cli_inputs` words the error.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import numpy as np

__all__ = [
    "DIFFERENCE_TOLERANCE",
    "RoundedDifference",
    "csv_literals",
    "describe",
    "first_overflow",
    "first_rounded_difference",
    "json_literals",
]

#: The relative change of a difference between the pair's literals that float64 rounding may cause
#: (half of float64's 53-bit significand; see the module docstring).
DIFFERENCE_TOLERANCE = Fraction(1, 2**26)

# Pairs at least this fraction of their magnitude apart pass without an exact check: every rounding
# involved (each literal's, an integer's cast, the float subtraction) is then below 2**-30 of the
# difference, far inside DIFFERENCE_TOLERANCE. Above float64's subnormal range only.
_FAR_APART = 2.0**-20
_ABOVE_SUBNORMAL = 2.0**-1000


@dataclass(frozen=True)
class RoundedDifference:
    """A position where rounding to float64 changed the pair's difference by more than the tolerance."""

    index: tuple[int, ...]
    literal0: str
    literal1: str
    exact: Fraction
    audited: Fraction


def csv_literals(file: Path, shape: tuple[int, ...]) -> np.ndarray | None:
    """The CSV's number texts, stripped, in the array's shape (None if they do not line up)."""
    texts = np.asarray(np.char.strip(np.loadtxt(file, delimiter=",", dtype=str)))
    return texts if texts.shape == shape else None


def json_literals(text: str, shape: tuple[int, ...]) -> np.ndarray | None:
    """The JSON's numbers as their texts (``true``/``false``/``NaN`` as parsed), in the array's shape."""
    parsed = json.loads(text, parse_float=str, parse_int=str)
    try:
        texts = np.array(parsed, dtype=object)
    except ValueError:  # ragged: the float parse refuses it with its own message
        return None
    return texts if texts.shape == shape else None


def _exact(literal: object, value: object) -> Fraction | None:
    """The exact number a literal (or, with none, a binary value) stands for; None if not finite."""
    source = value if literal is None else literal
    if isinstance(source, str):
        try:
            return Fraction(source)
        except ValueError:  # 'inf', 'nan', or a spelling Fraction does not take: use the value read
            source = value
    number = source.item() if isinstance(source, np.generic) else source
    if isinstance(number, float) and not math.isfinite(number):
        return None
    return Fraction(number)  # type: ignore[arg-type]


def first_overflow(data: np.ndarray, literals: np.ndarray | None) -> tuple[tuple[int, ...], str] | None:
    """The first finite literal that float64 reads as infinite (``1e400``), with its index."""
    if literals is None or data.dtype.kind != "f" or np.all(np.isfinite(data)):
        return None
    for flat in np.flatnonzero(~np.isfinite(data)):
        index = tuple(int(i) for i in np.unravel_index(flat, data.shape))
        if _exact(literals[index], data[index]) is not None:
            return index, str(literals[index])
    return None


def first_rounded_difference(d0: np.ndarray, literals0: np.ndarray | None, d1: np.ndarray,
                             literals1: np.ndarray | None) -> RoundedDifference | None:
    """The first position where float64 rounding changed ``d0 - d1`` by more than :data:`DIFFERENCE_TOLERANCE`.

    Only pairs of one shape are compared, position by position; ``literals`` is None for a binary
    file (its values are exactly what it holds). The exact check runs only where the two texts
    differ and the values are not far apart (vectorised pre-selection; see ``_FAR_APART``).
    """
    if d0.shape != d1.shape or (literals0 is None and literals1 is None) or d0.size == 0:
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        f0, f1 = d0.astype(np.float64), d1.astype(np.float64)
        gap = np.abs(f0 - f1)
        near = ~((gap >= _FAR_APART * (np.abs(f0) + np.abs(f1))) & (gap >= _ABOVE_SUBNORMAL))
    if literals0 is not None and literals1 is not None:
        near &= np.asarray(literals0, dtype=str) != np.asarray(literals1, dtype=str)
    for flat in np.flatnonzero(near):
        index = tuple(int(i) for i in np.unravel_index(flat, d0.shape))
        text0 = None if literals0 is None else literals0[index]
        text1 = None if literals1 is None else literals1[index]
        exact0, exact1 = _exact(text0, d0[index]), _exact(text1, d1[index])
        audited0, audited1 = _exact(None, d0[index]), _exact(None, d1[index])
        if None in (exact0, exact1, audited0, audited1):
            continue  # a non-finite literal is what it says; a finite one read as infinite is refused on its own
        exact, audited = exact0 - exact1, audited0 - audited1  # type: ignore[operator]
        if abs(audited - exact) > DIFFERENCE_TOLERANCE * abs(exact):
            literal0 = str(d0[index].item()) if text0 is None else str(text0)
            literal1 = str(d1[index].item()) if text1 is None else str(text1)
            return RoundedDifference(index, literal0, literal1, exact, audited)
    return None


def describe(number: Fraction) -> str:
    """An exact difference as a short decimal (17 significant digits; any exponent)."""
    with localcontext() as context:
        context.prec = 40
        value = Decimal(number.numerator) / Decimal(number.denominator)
    return format(value, ".17g")
