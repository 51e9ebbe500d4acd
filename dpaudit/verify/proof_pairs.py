"""The exact re-check of a pair that violates a Lipschitz or sensitivity bound (for ``Proof.rechecked_pair``).

A search over a callable (:func:`dpaudit.verify.lipschitz`, :func:`dpaudit.verify.sensitivity`) finds a pair in
floating point; :func:`exact_violation` recomputes the two distances from the numbers given, read exactly (a float
is its exact binary value), and the kernel decides ``||a - b|| > constant ||u - v||`` on exact rationals (the l2
norm compared on squares). Nothing is taken from the caller but the numbers: not a ratio, not a verdict.

Examples
--------
>>> claim, values = exact_violation("demo", {"x": [0.0], "y": [1.0], "f(x)": [0.0], "f(y)": [3.0]}, constant=2, norm=2)
>>> values["||f(x) - f(y)||_2"], values["2 ||x - y||_2"]
('3', '2')
>>> exact_violation("demo", {"x": [0.0], "y": [1.0], "f(x)": [0.0], "f(y)": [1.0]}, constant=1, norm=2) is None
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from dpaudit.errors import InvalidArgument
from dpaudit.verify.decide import exact_sign

__all__ = ["exact_number", "exact_violation"]


def exact_number(owner: str, name: str, value: Any) -> sp.Rational:
    """``value`` as an exact rational: a float (numpy's too) is its exact binary value, text is read as a rational.

    Raises
    ------
    InvalidArgument
        For a bool, a non-finite float, or text or an object that is not a rational number.
    """
    if isinstance(value, (bool, np.bool_)):
        raise InvalidArgument(f"{owner}: {name} must be a number, got the truth value {value!r}")
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(float(value)):
            raise InvalidArgument(f"{owner}: {name} must be finite, got {value!r}")
        return sp.Rational(float(value))
    if isinstance(value, (int, np.integer)):
        return sp.Integer(int(value))
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    try:
        number = sp.Rational(value) if isinstance(value, str) else sp.sympify(value)
    except (sp.SympifyError, TypeError, ValueError) as exc:
        raise InvalidArgument(f"{owner}: {name} must be a rational number, got {value!r}") from exc
    if not isinstance(number, sp.Rational):
        raise InvalidArgument(f"{owner}: {name} must be a rational number (exactly), got {value!r}")
    return number


def _vector(owner: str, point: Mapping[str, Any], key: str) -> list[sp.Rational]:
    if key not in point:
        raise InvalidArgument(f"{owner}: the pair has no value {key!r} (it has {sorted(map(str, point))})")
    raw = np.asarray(point[key], dtype=object).ravel()
    return [exact_number(owner, f"{key}[{i}]", v) for i, v in enumerate(raw)]


def _norm_power(owner: str, diffs: Sequence[sp.Rational], norm: float) -> sp.Rational:
    """``||d||_1``, ``||d||_2^2`` or ``||d||_inf``, exactly."""
    if norm == 1:
        return sp.Add(*(abs(d) for d in diffs)) if diffs else sp.Integer(0)
    if norm == 2:
        return sp.Add(*(d * d for d in diffs)) if diffs else sp.Integer(0)
    if norm == math.inf:
        return max((abs(d) for d in diffs), default=sp.Integer(0))
    raise InvalidArgument(f"{owner}: norm must be 1, 2 or inf, got {norm!r}")


def exact_violation(owner: str, point: Mapping[str, Any], *, constant: Any, norm: float,
                    image: tuple[str, str] = ("f(x)", "f(y)"),
                    preimage: tuple[str, str] | None = ("x", "y")) -> tuple[str, dict[str, str]] | None:
    """Does ``||a - b|| > constant ||u - v||`` hold exactly at the numbers of ``point``? See ``Proof.rechecked_pair``.

    Returns
    -------
    (claim, values) or None
        ``claim`` is the relation refuted, ``||a - b|| <= constant ||u - v||`` at these numbers (with both sides,
        exact); ``values`` the two sides as exact text. None when the pair does not violate the relation.

    Raises
    ------
    InvalidArgument
        A missing or non-numeric value, vectors of different lengths, a negative or inexact constant, a norm other
        than 1, 2 or inf.
    """
    norm = float(norm)
    L = exact_number(owner, "constant", constant)
    if L < 0:
        raise InvalidArgument(f"{owner}: constant must be >= 0, got {constant!r}")
    a, b = (_vector(owner, point, k) for k in image)
    if len(a) != len(b):
        raise InvalidArgument(f"{owner}: {image[0]} and {image[1]} have different lengths ({len(a)}, {len(b)})")
    p_name = "inf" if norm == math.inf else str(int(norm)) if norm in (1, 2) else str(norm)
    left = _norm_power(owner, [p - q for p, q in zip(a, b, strict=True)], norm)
    vectors = {image[0]: a, image[1]: b}
    if preimage is None:  # a sensitivity bound: ||a - b|| <= constant
        right, right_name = (L * L if norm == 2 else L), str(L)
    else:
        u, v = (_vector(owner, point, k) for k in preimage)
        if len(u) != len(v):
            raise InvalidArgument(f"{owner}: {preimage[0]} and {preimage[1]} have different lengths ({len(u)}, {len(v)})")
        dist = _norm_power(owner, [p - q for p, q in zip(u, v, strict=True)], norm)
        right = L * L * dist if norm == 2 else L * dist
        right_name = f"{L} ||{preimage[0]} - {preimage[1]}||_{p_name}"
        vectors = {preimage[0]: u, preimage[1]: v, **vectors}
    if exact_sign(left - right) != 1:  # the kernel, on exact rationals
        return None
    left_value, right_value = (sp.sqrt(left), sp.sqrt(right)) if norm == 2 else (left, right)  # l2: compared squared
    left_name = f"||{image[0]} - {image[1]}||_{p_name}"
    at = ", ".join(f"{k} = {[str(c) for c in w]}" for k, w in vectors.items())
    claim = f"{left_name} <= {right_name} at {at} (re-checked exactly: {left_value} > {right_value})"
    return claim, {left_name: str(left_value), ("bound" if preimage is None else right_name): str(right_value)}


def _kernel_truth(owner: str, relation: Any) -> bool:
    """A relation between exact closed-form numbers, decided by the kernel (And / Or / Not of them recursively)."""
    if isinstance(relation, (sp.And, sp.Or)):
        parts = [_kernel_truth(owner, a) for a in relation.args]
        return all(parts) if isinstance(relation, sp.And) else any(parts)
    if isinstance(relation, sp.Not):
        return not _kernel_truth(owner, relation.args[0])
    if not isinstance(relation, sp.core.relational.Relational):
        raise InvalidArgument(f"{owner}: an exact step takes the relation the kernel decides (e.g. sp.Le(a, b, evaluate=False) "
                              f"of exact numbers, or sp.Eq(sp.Integer(number_of_failures), 0, evaluate=False) for an "
                              f"enumeration), not a truth value computed elsewhere; got {relation!r} "
                              f"({type(relation).__name__})")
    if relation.free_symbols:
        raise InvalidArgument(f"{owner}: an exact step is about numbers; {relation} has the free symbols "
                              f"{sorted(map(str, relation.free_symbols))} (use nonneg, zero or cases)")
    if relation.has(sp.Float):
        raise InvalidArgument(f"{owner}: {relation} holds a float, which is not exact; use sympy.Rational")
    sign = exact_sign(sp.sympify(relation.lhs) - sp.sympify(relation.rhs))  # the kernel: rationals, or arb balls excluding 0
    if sign is None:
        raise InvalidArgument(f"{owner}: the kernel cannot certify the sign of {relation.lhs} - ({relation.rhs})")
    return {sp.Equality: sign == 0, sp.Unequality: sign != 0, sp.LessThan: sign <= 0, sp.StrictLessThan: sign < 0,
            sp.GreaterThan: sign >= 0, sp.StrictGreaterThan: sign > 0}[type(relation)]
