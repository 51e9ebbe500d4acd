"""The one place where argument errors are formatted.

Every message follows one template (convention 7 of ``docs/conventions.md``)::

    `<owner>`: `<name>` must be <constraint>; got <name>=<value!r>.

Helpers return the validated value (converted to the canonical Python type) so that call sites
read ``epsilon = check_positive("LaplaceMechanism", "epsilon", epsilon)``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.errors import InvalidArgument

__all__ = [
    "argument_error",
    "check_array",
    "check_count",
    "check_exact_float",
    "check_exact_float_array",
    "check_exact_floats",
    "check_finite_array",
    "check_in_range",
    "check_int",
    "check_nonnegative",
    "check_one_of",
    "check_positive",
    "check_probability",
    "check_real",
    "exact_rational",
    "nonfinite_entries",
]


def argument_error(owner: str, name: str, constraint: str, value: Any, fix: str | None = None) -> InvalidArgument:
    """Build (not raise) the standard :class:`InvalidArgument` for ``name`` of ``owner``."""
    shown = _short_repr(value)
    message = f"`{owner}`: `{name}` must be {constraint}; got {name}={shown}."
    if fix:
        message += f" To fix: {fix}"
    return InvalidArgument(message)


def _short_repr(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array(shape={value.shape}, dtype={value.dtype})"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_real(owner: str, name: str, value: Any) -> float:
    """Return ``value`` as a float; reject non-numbers, booleans and NaN."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise argument_error(owner, name, "a real number", value)
    out = float(value)
    if math.isnan(out):
        raise argument_error(owner, name, "a real number, not NaN", value)
    return out


def exact_rational(owner: str, name: str, value: Any) -> Fraction | float:
    """The exact value of a real number: a Fraction, or a float when it is infinite.

    Accepts floats (their exact binary value), integers, Fractions and other rationals (numpy and
    sympy integers, sympy Rationals), Decimals and other reals with an exact rational value (numpy
    floats of any width, sympy Floats). Refuses booleans, non-numbers and NaN. Nothing is rounded.
    """
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, Decimal)):
        raise argument_error(owner, name, "a real number", value)
    exact: Fraction | float
    if isinstance(value, Fraction):
        exact = value
    elif isinstance(value, numbers.Integral):
        exact = Fraction(int(value))
    elif isinstance(value, numbers.Rational):
        exact = Fraction(int(value.numerator), int(value.denominator))
    elif isinstance(value, (float, Decimal, np.floating)):
        if isinstance(value, Decimal):
            if value.is_nan():
                raise argument_error(owner, name, "a real number, not NaN", value)
        elif math.isnan(value):
            raise argument_error(owner, name, "a real number, not NaN", value)
        if (isinstance(value, Decimal) and value.is_infinite()) or (not isinstance(value, Decimal) and math.isinf(value)):
            return math.inf if value > 0 else -math.inf
        # numpy floats of every width (long double included) give their exact ratio; Decimal too
        ratio = value.as_integer_ratio()
        exact = Fraction(int(ratio[0]), int(ratio[1]))
    else:  # another real type (a sympy Float): read through sympy's exact conversion, or refuse
        exact = _other_real(owner, name, value)
    return exact


def _other_real(owner: str, name: str, value: Any) -> Fraction | float:
    import sympy

    try:
        rational = sympy.Rational(value)
    except (TypeError, ValueError) as exc:
        raise argument_error(owner, name, "a float, an integer, a Fraction or a Decimal", value) from exc
    if rational.is_infinite or rational is sympy.nan:
        as_float = float(value)
        if math.isnan(as_float):
            raise argument_error(owner, name, "a real number, not NaN", value)
        return as_float
    return Fraction(int(rational.p), int(rational.q))


def check_exact_float(owner: str, name: str, value: Any) -> float:
    """Return ``value`` as the float64 equal to it; refuse a number no float64 holds exactly.

    For computations that use a float's exact binary value (exact and certified arithmetic): a
    float is taken as it is, any other real number (int, Fraction, Decimal, numpy or sympy number)
    only when it equals a float64 exactly (``2**53 + 1`` and ``Fraction(1, 3)`` are refused, not
    rounded, so that a certified result is about the inputs given). Infinities pass (range checks
    are the caller's); NaN, booleans and non-numbers are refused.
    """
    if type(value) is float or isinstance(value, np.float64):
        if math.isnan(value):
            raise argument_error(owner, name, "a real number, not NaN", value)
        return float(value)
    exact = exact_rational(owner, name, value)
    if isinstance(exact, float):  # infinite
        return exact
    try:
        nearest = float(exact)
    except OverflowError:
        nearest = math.inf if exact > 0 else -math.inf
    if math.isinf(nearest) or Fraction(nearest) != exact:
        fix = ("rescale the inputs into float64's range." if math.isinf(nearest) else
               f"pass the float you mean (float(x) = {nearest!r}), or rescale the inputs so that they are floats.")
        raise argument_error(owner, name, "a number float64 holds exactly (the exact computation reads a float's exact "
                             "binary value and rounds nothing)", value, fix=fix)
    return nearest


def check_exact_floats(owner: str, name: str, values: Any) -> list[float]:
    """Every entry of a number, sequence or array through :func:`check_exact_float` (entries named ``name[i]``)."""
    if isinstance(values, np.ndarray) and values.dtype.kind == "f" and values.dtype.itemsize <= 8:
        flat = values.ravel().tolist()  # float16/32/64 entries are float64 values exactly
        if any(math.isnan(v) for v in flat):
            raise argument_error(owner, name, "real numbers, not NaN", values)
        return flat
    if isinstance(values, np.ndarray):
        items: Iterable[Any] = values.ravel().tolist() if values.dtype.kind in "biuf" else values.ravel()
    elif isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise argument_error(owner, name, "a sequence of real numbers", values)
    else:
        items = values
    return [check_exact_float(owner, f"{name}[{i}]", v) for i, v in enumerate(items)]


def check_exact_float_array(owner: str, name: str, values: Any) -> NDArray[np.float64]:
    """A flat float64 array of ``values``, each entry through :func:`check_exact_float` (NaN kept for the caller).

    A float array (float16 to float64) passes as it is, with no per-entry work; any other input is
    read entry by entry and refused when an entry is not a float64 value.
    """
    if isinstance(values, np.ndarray) and values.dtype.kind == "f" and values.dtype.itemsize <= 8:
        return np.ascontiguousarray(values, dtype=np.float64).ravel()
    if isinstance(values, np.ndarray) and values.dtype.kind in "biu":
        items: Iterable[Any] = values.ravel().tolist()
    elif isinstance(values, np.ndarray):
        items = values.ravel()
    elif isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        items = [values]
    else:
        items = np.asarray(values, dtype=object).ravel().tolist()
    out = []
    for i, v in enumerate(items):
        is_nan = isinstance(v, (float, np.floating)) and math.isnan(v)
        out.append(float(v) if is_nan else check_exact_float(owner, f"{name}[{i}]", v))
    return np.array(out, dtype=np.float64)


def check_positive(owner: str, name: str, value: Any, *, allow_inf: bool = False) -> float:
    """Return ``value`` as a float in (0, inf) (or (0, inf] with ``allow_inf``)."""
    out = check_real(owner, name, value)
    upper = "inf]" if allow_inf else "inf)"
    if not out > 0 or (math.isinf(out) and not allow_inf):
        raise argument_error(owner, name, f"in (0, {upper}", value)
    return out


def check_nonnegative(owner: str, name: str, value: Any, *, allow_inf: bool = False) -> float:
    """Return ``value`` as a float in [0, inf) (or [0, inf] with ``allow_inf``)."""
    out = check_real(owner, name, value)
    upper = "inf]" if allow_inf else "inf)"
    if not out >= 0 or (math.isinf(out) and not allow_inf):
        raise argument_error(owner, name, f"in [0, {upper}", value)
    return out


def check_in_range(
    owner: str,
    name: str,
    value: Any,
    low: float,
    high: float,
    *,
    low_closed: bool = True,
    high_closed: bool = True,
) -> float:
    """Return ``value`` as a float inside the interval between ``low`` and ``high``."""
    out = check_real(owner, name, value)
    ok_low = out >= low if low_closed else out > low
    ok_high = out <= high if high_closed else out < high
    if not (ok_low and ok_high):
        left = "[" if low_closed else "("
        right = "]" if high_closed else ")"
        raise argument_error(owner, name, f"in {left}{low:g}, {high:g}{right}", value)
    return out


def check_probability(owner: str, name: str, value: Any, *, allow_one: bool = False, allow_zero: bool = True) -> float:
    """Return ``value`` as a float probability, in [0, 1) by default."""
    return check_in_range(owner, name, value, 0.0, 1.0, low_closed=allow_zero, high_closed=allow_one)


def check_int(owner: str, name: str, value: Any, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int within the optional bounds; reject booleans and floats."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise argument_error(owner, name, "an integer", value)
    out = int(value)
    if minimum is not None and out < minimum:
        bound = f"an integer >= {minimum}" if maximum is None else f"an integer in [{minimum}, {maximum}]"
        raise argument_error(owner, name, bound, value)
    if maximum is not None and out > maximum:
        bound = f"an integer <= {maximum}" if minimum is None else f"an integer in [{minimum}, {maximum}]"
        raise argument_error(owner, name, bound, value)
    return out


def check_count(owner: str, name: str, value: Any, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return a count (trials, bytes) as an int; integral floats such as ``1e6`` are accepted.

    Counts are often written in scientific notation (``trials=1e6``); a float is taken when it is
    finite and a whole number, and refused otherwise (``1.5e0``, ``nan``), as are booleans and strings.
    """
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, numbers.Integral)):
        as_float = float(value)
        if not (math.isfinite(as_float) and as_float.is_integer()):
            raise argument_error(owner, name, "a whole number" + (f" >= {minimum}" if minimum is not None else ""), value)
        value = int(as_float)
    out = check_int(owner, name, value, minimum=minimum)
    if maximum is not None and out > maximum:
        raise argument_error(owner, name, f"a count <= {maximum:.3g}", value)
    return out


def check_one_of(owner: str, name: str, value: Any, allowed: tuple[Any, ...]) -> Any:
    """Return ``value`` if it is one of ``allowed``."""
    if value not in allowed:
        listing = ", ".join(repr(a) for a in allowed)
        raise argument_error(owner, name, f"one of {listing}", value)
    return value


def check_array(
    owner: str,
    name: str,
    value: Any,
    *,
    ndim: int | tuple[int, ...] | None = None,
    min_ndim: int | None = None,
    dtype: type | None = np.float64,
) -> NDArray[Any]:
    """Return ``value`` as an ndarray of ``dtype`` with the required dimensionality.

    Object and string arrays are rejected. NaN is *not* checked here; use :func:`check_finite_array`.
    """
    try:
        arr = np.asarray(value) if dtype is None else np.asarray(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise argument_error(owner, name, "array-like of numbers", value) from exc
    if arr.dtype.kind not in "biuf":
        raise argument_error(owner, name, "array-like of numbers", value)
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else ndim
        if arr.ndim not in allowed:
            wanted = " or ".join(str(k) for k in allowed)
            raise argument_error(owner, name, f"an array with {wanted} dimension(s) (shape {arr.shape})", value)
    if min_ndim is not None and arr.ndim < min_ndim:
        raise argument_error(owner, name, f"an array with at least {min_ndim} dimension(s) (shape {arr.shape})", value)
    return arr


def nonfinite_entries(arr: NDArray[Any], name: str) -> str | None:
    """None when every entry of ``arr`` is finite, else a phrase naming how many are not and the first.

    For example ``"it has 2 NaN or infinite entries, the first d1[0, 3] = inf"`` (``"it is inf"`` for
    a 0-d array); integer, boolean and non-numeric arrays have none.
    """
    if arr.dtype.kind not in "fc":
        return None
    bad = ~np.isfinite(arr)
    if not bad.any():
        return None
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    shown = repr(arr[first].item())
    if not first:  # a 0-d array: the value itself
        return f"it is {shown}"
    return f"it has {int(np.count_nonzero(bad))} NaN or infinite entries, the first {name}[{', '.join(map(str, first))}] = {shown}"


def check_finite_array(owner: str, name: str, value: Any, **kwargs: Any) -> NDArray[Any]:
    """Like :func:`check_array`, and also reject NaN and infinite entries."""
    arr = check_array(owner, name, value, **kwargs)
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        bad = int(np.count_nonzero(~np.isfinite(arr)))
        raise argument_error(owner, name, f"finite (it has {bad} NaN or infinite entries)", value)
    return arr
