"""Numerical evaluation of bounds, with validated parameters.

:func:`evaluate` lambdifies a bound (or any expression in the canonical symbols) and evaluates it
at given parameter values. Every value is checked against the domain declared for its symbol in
:mod:`dpaudit.bounds.symbols`; missing, unknown or out-of-domain parameters raise
:class:`~dpaudit.errors.InvalidArgument` with the standard message (convention 7 of ``docs/conventions.md``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_finite_array, check_real
from dpaudit.bounds.symbols import SYMBOLS, SymbolInfo
from dpaudit.bounds.theorem import Bound

__all__ = ["evaluate", "normalize_values"]

_OWNER = "evaluate"


def normalize_values(values: Mapping[Any, Any], owner: str = _OWNER) -> dict[sp.Symbol, Any]:
    """Map names or symbols to canonical symbols and validate each value against its domain.

    Scalars are returned as floats, array-likes as float arrays.

    Raises
    ------
    InvalidArgument
        If a key is not a canonical symbol, or a value is not a number in its symbol's domain.
    """
    if not isinstance(values, Mapping):
        raise argument_error(owner, "values", "a mapping from parameter names to numbers", values)
    out: dict[sp.Symbol, Any] = {}
    for key, value in values.items():
        name = key.name if isinstance(key, sp.Symbol) else key
        info = SYMBOLS.get(name) if isinstance(name, str) else None
        if info is None or (isinstance(key, sp.Symbol) and key != info.symbol):
            known = ", ".join(sorted(SYMBOLS))
            raise argument_error(owner, "values", f"keyed by canonical symbol names ({known})", key,
                                 fix="use dpaudit.bounds.symbols names, e.g. 'epsilon' rather than 'eps'.")
        out[info.symbol] = _check_value(info, value, owner)
    return out


def _check_value(info: SymbolInfo, value: Any, owner: str) -> Any:
    name = info.name
    if isinstance(value, (bool, np.bool_)):
        raise argument_error(owner, name, "a real number", value)
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        out = check_real(owner, name, value)
        if not info.contains(out):
            raise argument_error(owner, name, info.constraint_text(), value)
        return out
    arr = check_finite_array(owner, name, value)
    flat = arr.ravel()
    bad = [v for v in flat if not info.contains(float(v))]
    if bad:
        raise argument_error(owner, name, f"{info.constraint_text()} in every entry (e.g. {bad[0]!r} is not)", value)
    return arr


@lru_cache(maxsize=512)
def _lambdified(expr: sp.Expr, symbols: tuple[sp.Symbol, ...], backend: str) -> Any:
    return sp.lambdify(symbols, expr, modules=backend)


def evaluate(
    target: Bound | sp.Expr,
    values: Mapping[Any, Any],
    *,
    apply_settings: bool = False,
    check_conditions: bool = True,
) -> float | NDArray[np.float64]:
    """Evaluate a bound or expression at the given parameter values.

    Parameters
    ----------
    target : Bound or sympy expression
        What to evaluate. For an asymptotic bound the value is the displayed expression with the
        hidden constant set to 1.
    values : mapping
        Parameter values keyed by canonical symbol (or its name). Scalars give a float; any
        array-like value switches to numpy broadcasting and returns an array.
    apply_settings : bool
        Substitute the bound's parameter settings before evaluating (only for a :class:`Bound`).
    check_conditions : bool
        For a :class:`Bound`, refuse values at which one of its checkable conditions is false.

    Returns
    -------
    float or ndarray
        The value. Scalars are computed with mpmath at 30 digits and rounded once.

    Raises
    ------
    InvalidArgument
        If a free symbol has no value, a key is unknown, a value is outside its domain, or a
        checkable condition of the bound fails at the given values.

    Examples
    --------
    >>> from dpaudit.bounds.symbols import n, epsilon
    >>> evaluate(1 / (n * epsilon), {"n": 10, "epsilon": 0.5})
    0.2
    """
    vals = normalize_values(values)
    if isinstance(target, Bound):
        expr = target.with_settings() if apply_settings else target.expression
    else:
        try:
            expr = sp.sympify(target)
        except (sp.SympifyError, TypeError) as exc:
            raise argument_error(_OWNER, "target", "a Bound or a sympy expression", target) from exc
    free = sorted(expr.free_symbols, key=lambda s: s.name)
    missing = [s.name for s in free if s not in vals]
    if missing:
        raise argument_error(_OWNER, "values", f"a mapping that gives every free symbol (missing: {', '.join(missing)})",
                             {k.name: v for k, v in vals.items()})
    if isinstance(target, Bound) and check_conditions:
        for cond in target.conditions:
            scalar_vals = {s: v for s, v in vals.items() if not isinstance(v, np.ndarray)}
            if cond.holds_at(scalar_vals) is False:
                shown = {s.name: scalar_vals[s] for s in sorted(cond.relation.free_symbols, key=lambda s: s.name)}
                raise argument_error(_OWNER, "values", f"inside the conditions of {target.name} ({cond.text})", shown)
    args = tuple(vals[s] for s in free)
    if any(isinstance(a, np.ndarray) for a in args):
        fn = _lambdified(expr, tuple(free), "numpy")
        with np.errstate(over="ignore"):
            return np.asarray(fn(*args), dtype=float) * np.ones(np.broadcast_shapes(*(np.shape(a) for a in args)))
    fn = _lambdified(expr, tuple(free), "mpmath")
    with mpmath.workdps(30):
        value = fn(*(mpmath.mpf(a) for a in args))
        if isinstance(value, mpmath.mpc):
            if abs(value.imag) > 1e-25 * max(1.0, abs(value.real)):
                raise argument_error(_OWNER, "values", "values at which the expression is real", {s.name: vals[s] for s in free})
            value = value.real
        out = float(value)
    if math.isnan(out):
        raise argument_error(_OWNER, "values", "values at which the expression is defined", {s.name: vals[s] for s in free})
    return out
