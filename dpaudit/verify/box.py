"""Exact boxes ``[low, high]`` for the ``domain=`` arguments of ``lipschitz`` and ``sensitivity``.

They serve :func:`~dpaudit.verify.lipschitz` and :func:`~dpaudit.verify.sensitivity`.

The bounds are kept exact: a statement is decided on the box given, never on a rounded one
(``Rational(1, 3)`` stays 1/3; its nearest float is below it). A float bound is read at its exact binary value,
as floats are everywhere in :mod:`dpaudit.verify` (:func:`~dpaudit.verify.decide.exact_floats`), with a note when
that value is not the decimal printed (``0.1`` is 3602879701896397/36028797018963968). Searches that work in
floats get :meth:`ExactBox.float_bounds`, the box rounded *inward*, so every point they try lies in the exact box.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from dpaudit._validation import argument_error
from dpaudit.verify._inputs import exact_real

__all__ = ["ExactBox", "exact_bound", "exact_box"]

_MAX = float(np.finfo(float).max)


@dataclass(frozen=True)
class ExactBox:
    """A box with exact rational corners (one pair per coordinate) and the notes on floats read exactly."""

    low: tuple[sp.Rational, ...]
    high: tuple[sp.Rational, ...]
    notes: tuple[str, ...] = field(default=())

    def float_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The box rounded inward to floats: ``low_f >= low`` and ``high_f <= high`` coordinate by coordinate.

        Bounds beyond the float range become +-the largest float.
        """
        return (np.array([_inward(v, up=True) for v in self.low]), np.array([_inward(v, up=False) for v in self.high]))

    def text(self) -> str:
        """``[1/3, 1]`` for one coordinate, ``[[0, 0], [1, 1]]`` style corners for several."""
        if len(self.low) == 1:
            return f"[{self.low[0]}, {self.high[0]}]"
        return f"[[{', '.join(map(str, self.low))}], [{', '.join(map(str, self.high))}]]"


def _inward(v: sp.Rational, up: bool) -> float:
    q = Fraction(int(v.p), int(v.q))
    if q > _MAX:
        return _MAX
    if q < -_MAX:
        return -_MAX
    f = float(q)
    if up and Fraction(f) < q:
        f = float(np.nextafter(f, np.inf))
    elif not up and Fraction(f) > q:
        f = float(np.nextafter(f, -np.inf))
    return f


def exact_bound(owner: str, parameter: str, value: Any, notes: list[str]) -> sp.Rational:
    """One bound as an exact rational: int, Fraction, sympy Rational, or a finite float at its exact binary value.

    Any float (Python, numpy of any precision, sympy ``Float``, :class:`decimal.Decimal`) is read exactly
    (:func:`~dpaudit.verify._inputs.exact_real`: a ``longdouble`` is not rounded to a double). A note is appended to
    ``notes`` when that value is not the decimal the float prints as.
    """
    allowed = ("finite real numbers (int, float, numpy scalar, Fraction or sympy Rational; a float is read at its "
               "exact binary value)")
    exact = exact_real(value)
    if exact is None:
        raise argument_error(owner, parameter, allowed, value)
    if isinstance(value, (float, np.floating, sp.Float)):
        shown = repr(value) if isinstance(value, float) else str(value)
        if exact != sp.Rational(shown):
            notes.append(f"the float {shown} in {parameter} is read as its exact value {exact}")
    return exact


def exact_box(owner: str, domain: Any, dim: int) -> ExactBox | None:
    """``domain = (low, high)`` (scalars, or sequences of length ``dim``) as an :class:`ExactBox`; None for None.

    Raises :class:`~dpaudit.errors.InvalidArgument` unless ``low < high`` in every coordinate, with finite
    rational (or float) bounds.
    """
    if domain is None:
        return None
    shape = f"a box (low, high) of scalars or length-{dim} sequences, with low < high in every coordinate"
    try:
        low, high = domain
    except (TypeError, ValueError) as exc:
        raise argument_error(owner, "domain", shape, domain) from exc
    notes: list[str] = []
    corners = []
    for end in (low, high):
        items = list(np.asarray(end, dtype=object).ravel()) if isinstance(end, (list, tuple, np.ndarray)) else [end]
        if len(items) == 1:
            items = items * dim
        if len(items) != dim:
            raise argument_error(owner, "domain", shape, domain)
        corners.append(tuple(exact_bound(owner, "domain", v, notes) for v in items))
    if not all(lo < hi for lo, hi in zip(*corners, strict=True)):
        raise argument_error(owner, "domain", shape, domain)
    return ExactBox(corners[0], corners[1], tuple(dict.fromkeys(notes)))
