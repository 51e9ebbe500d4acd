"""Numbers given to :mod:`dpaudit.verify` as exact rationals: a float at its exact binary value, whatever its precision.

A claim is decided on the number given, never on a rounding of it: a numpy ``longdouble`` is not rounded to a double
(``np.longdouble(1) / 3`` is 12297829382473034411/36893488147419103232, not 1/3 and not ``float(1/3)``), and a sympy
``Float`` keeps every bit of its precision (``Float('1e-401')`` is not 0, ``Float('0.99999999999999999999', 30)`` is
not 1). Anything that is not a finite real number is refused with :class:`~dpaudit.errors.InvalidArgument`.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from dpaudit._validation import argument_error
from dpaudit.verify.decide import exact_floats, exact_sign, refuse_huge_constants

__all__ = ["exact_constant", "exact_positive", "exact_real", "shown_number"]


def exact_real(value: Any) -> sp.Rational | None:
    """The exact rational value of a finite real number given as a number; None for anything else.

    int and numpy integers; :class:`fractions.Fraction`; sympy Integer, Rational and Float (at its exact binary
    value, whatever its precision: ``Float('1e-401')`` is not 0, ``Float('0.99999999999999999999', 30)`` is not 1);
    Python, numpy (``float32``, ``float64``, ``longdouble``) and :class:`decimal.Decimal` floats through
    ``as_integer_ratio`` (exact: a ``longdouble`` is never rounded to a double). None for a bool, an infinity, a
    NaN, a complex number, a symbolic expression or any other object.

    Examples
    --------
    >>> import numpy as np
    >>> exact_real(0.5), exact_real(np.float32(0.1)), exact_real(float("inf"))
    (1/2, 13421773/134217728, None)
    """
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, np.integer)):
        return sp.Integer(int(value))
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, (float, np.floating, Decimal)):
        try:
            p, q = value.as_integer_ratio()
        except (OverflowError, ValueError):  # an infinity or a NaN
            return None
        return sp.Rational(p, q)
    if isinstance(value, sp.Float):
        return sp.Rational(value) if value.is_finite else None
    if isinstance(value, sp.Rational):
        return value
    return None


def exact_constant(owner: str, parameter: str, value: Any) -> sp.Expr:
    """A positive constant as an exact sympy expression, or a symbolic one (its floats at their exact values).

    A number (see :func:`exact_real`; a closed form such as ``sqrt(2)``, its floats read exactly) must be finite and
    certainly positive (:func:`~dpaudit.verify.decide.exact_sign`); an expression with free symbols is returned with its
    floats at their exact values (a parameter of the claim, quantified like the others).

    Raises
    ------
    InvalidArgument
        For an infinity, a NaN, a complex number, a number not certainly positive, or anything sympy cannot read.
    """
    allowed = ("a finite positive number (int, float, numpy scalar, Fraction, Decimal or sympy number) or a symbolic "
               "expression")
    exact: Any = exact_real(value)
    if exact is None and isinstance(value, (float, complex, np.generic, Decimal, sp.Float)):
        raise argument_error(owner, parameter, allowed, value)  # an infinity, a NaN, a complex number
    if exact is None:
        try:
            exact = sp.sympify(value)
        except (sp.SympifyError, TypeError, ValueError) as exc:
            raise argument_error(owner, parameter, allowed, value) from exc
    if not isinstance(exact, sp.Expr):
        raise argument_error(owner, parameter, allowed, value)
    if exact.has(sp.oo, sp.S.NegativeInfinity, sp.zoo, sp.nan):
        raise argument_error(owner, parameter, allowed, value)
    exact = exact_floats(exact)[0]  # a Float inside a closed form (Float('0.5', 30) * sqrt(2)) at its exact value
    if exact.free_symbols:
        return exact
    if not exact.is_number or exact.has(sp.oo, -sp.oo, sp.zoo, sp.nan) or exact_sign(exact) != 1:
        raise argument_error(owner, parameter, allowed, value)
    return exact


def exact_positive(owner: str, parameter: str, value: Any) -> Fraction:
    """A finite positive number (:func:`exact_real`: a float of any precision at its exact value) as a Fraction.

    Raises
    ------
    InvalidArgument
        For anything else (a bool, an infinity, a NaN, zero, a negative number, a symbolic expression).
    """
    exact = exact_real(value)
    if exact is not None:
        refuse_huge_constants(f"{owner}: {parameter}", exact)
    if exact is None or not exact > 0:
        raise argument_error(owner, parameter, "a finite positive number (int, float, numpy scalar, Fraction, Decimal or "
                             "sympy Rational or Float; a float is read at its exact value)", value)
    return Fraction(int(exact.p), int(exact.q))


def shown_number(value: Fraction) -> str:
    """``value`` for a person: ``1``, ``0.1`` (a float's shortest text, for a float's value), else exact (``1/3``)."""
    f = float(value)
    if Fraction(f) != value:  # not a double (1/3, a long double): its exact value
        return str(value)
    short = f"{f:g}"
    return short if float(short) == f else repr(f)
