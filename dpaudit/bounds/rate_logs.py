"""Log factors of the rate variables, turned into kernel obligations for :mod:`.rate_kernel`.

A log factor ``log(arg)`` of a term is *log-linear* when sympy's exact rewrite ``expand_log`` (every symbol is
positive) gives ``log(arg) = sum_v a_v log(v) + r`` with numbers ``a_v`` and a remainder ``r`` that contains no
growing rate variable and is a polynomial in the shrinking ones (``log(2 d^4 m^3 n^4) = 4 log d + 3 log m + 4 log n +
log 2``; ``log(5 e^eps/(2 delta)) = eps - log delta + log(5/2)``). The rewrite is an obligation the kernel decides
(:meth:`LogFactor.identity`).

Two uses, both with every decision left to the kernel:

* **comparison of log powers** (for PROVED): in the coordinates ``l_v = log v`` (``l_v >= 1``, i.e. ``v >= e`` for a
  growing variable, ``eps <= 1/e`` for a shrinking one) and ``lambda_s = -log s`` for a constant ``s`` in ``(0, 1)``
  (``delta``), a term's log factors are powers of *linear* forms, so "``c_i Lambda_i <= K k_j Lambda_j``" between two
  terms with the same monomial is an algebraic inequality (:func:`log_space`). Replacing ``log v`` by an independent
  variable ``l_v`` ranging over all of ``[1, oo)`` is a generalisation (the claim proved covers more points), so it is
  sound;
* **growth along a log-direction** (for DISPROVED): along ``v = exp(t direction_v y_v)`` a log-linear factor is
  ``t <a, direction * y> + r``: it grows like ``t`` when that slope is positive, and when every ``a_v`` is 0 it stays
  between two positive constants if ``r > 0`` on the closed range ``[0, 1]`` of the shrinking variables (a continuous
  positive function on a compact set; the kernel decides ``r > 0`` there, :meth:`LogFactor.flat_positive`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy as sp

from dpaudit.bounds.symbols import SYMBOLS

__all__ = ["LogFactor", "log_end", "log_factors", "log_space", "log_space_domain", "regime_domain"]


def _log_symbol(v: sp.Symbol) -> sp.Symbol:
    return sp.Symbol(f"log_{v.name}", positive=True)


def _lambda_symbol(s: sp.Symbol) -> sp.Symbol:
    return sp.Symbol(f"minus_log_{s.name}", positive=True)


@dataclass(frozen=True)
class LogFactor:
    """``log(arg) ** power`` with its log-linear form ``sum_v a_v log(v) + rest``."""

    arg: sp.Expr
    power: sp.Expr
    coefficients: tuple[tuple[sp.Symbol, Fraction], ...]
    rest: sp.Expr

    @property
    def expr(self) -> sp.Expr:
        """The factor as written, ``log(arg) ** power``."""
        return sp.log(self.arg) ** self.power

    @property
    def flat(self) -> bool:
        """No log of a rate variable in the linear form: the factor stays bounded."""
        return all(a == 0 for _, a in self.coefficients)

    def linear(self) -> sp.Expr:
        """The linear form ``sum_v a_v log(v) + rest`` (equal to ``log(arg)``)."""
        return sp.Add(*(sp.Rational(a.numerator, a.denominator) * sp.log(v) for v, a in self.coefficients), self.rest)

    def identity(self) -> sp.Expr:
        """``log(arg) - linear form``: the kernel must show it is identically 0."""
        return sp.Add(sp.log(self.arg), sp.Mul(-1, self.linear(), evaluate=False), evaluate=False)

    def slope(self, directions: Mapping[sp.Symbol, int], y: Mapping[sp.Symbol, Fraction]) -> Fraction:
        """Growth rate of ``log(arg)`` in ``t`` along ``v = exp(t direction_v y_v)`` (exact)."""
        return sum((a * directions[v] * y[v] for v, a in self.coefficients), Fraction(0))

    def flat_positive(self, shrinking: Sequence[sp.Symbol]) -> tuple[sp.Expr, list[Any]]:
        """``rest`` with each shrinking variable on its closed range ``[0, 1]``: the kernel must show it is > 0."""
        closed = {s: sp.Symbol(f"{s.name}_closed", nonnegative=True) for s in shrinking}
        return self.rest.xreplace(closed), [sp.Le(c, 1, evaluate=False) for c in closed.values()]


def _fraction(value: sp.Expr) -> Fraction | None:
    value = sp.nsimplify(value) if isinstance(value, sp.Float) else value
    if not value.is_Rational:
        return None
    return Fraction(int(value.p), int(value.q))


def log_factors(logs: Sequence[tuple[sp.Expr, sp.Expr]], variables: Sequence[sp.Symbol],
                directions: Sequence[int]) -> list[LogFactor] | str:
    """The log-linear forms of a term's log factors of the rate variables, or the reason one is not log-linear."""
    var_set = set(variables)
    growing = {v for v, s in zip(variables, directions, strict=True) if s > 0}
    shrinking = [v for v, s in zip(variables, directions, strict=True) if s < 0]
    out = []
    for arg, power in logs:
        if not sp.sympify(arg).free_symbols & var_set:
            continue
        expanded = sp.expand(sp.expand_log(sp.log(arg), force=True))
        coefficients = []
        rest = expanded
        for v in variables:
            a = expanded.coeff(sp.log(v))
            frac = _fraction(sp.sympify(a))
            if frac is None:
                return f"log({arg}) is not log-linear in {v} (coefficient {a})"
            if frac:
                coefficients.append((v, frac))
                rest = rest - a * sp.log(v)
        rest = sp.expand(rest)
        if any(rest.has(sp.log(v)) for v in variables) or rest.free_symbols & growing:
            return f"log({arg}) is not log-linear: its remainder {rest} still depends on a growing variable"
        if shrinking and not rest.is_polynomial(*shrinking):
            return f"log({arg}): the remainder {rest} is not a polynomial in {', '.join(map(str, shrinking))}"
        out.append(LogFactor(sp.sympify(arg), sp.sympify(power), tuple(coefficients), rest))
    return out


def log_space(expr: sp.Expr, variables: Sequence[sp.Symbol], directions: Sequence[int]) -> tuple[sp.Expr, dict[sp.Symbol, sp.Expr]]:
    """``expr`` with ``log v`` -> ``l_v`` (``-l_v`` for a shrinking v) and ``log s`` -> ``-lambda_s`` for a constant in (0, 1).

    Returns the rewritten expression and the map back (``l_v`` -> ``log v``), for printing the constant.
    """
    expr = sp.expand_log(expr, force=True)
    dirs = dict(zip(variables, directions, strict=True))
    subs: dict[Any, sp.Expr] = {}
    back: dict[sp.Symbol, sp.Expr] = {}
    for lg in expr.atoms(sp.log):
        (s,) = lg.args if isinstance(lg.args[0], sp.Symbol) else (None,)
        if s is None:
            continue
        if s in dirs:
            sym = _log_symbol(s)
            subs[lg] = sym if dirs[s] > 0 else -sym
            back[sym] = lg if dirs[s] > 0 else -lg
            continue
        info = SYMBOLS.get(s.name)
        if info is not None and info.symbol == s and info.low >= 0 and info.high <= 1 and not info.high_closed:
            sym = _lambda_symbol(s)
            subs[lg] = -sym
            back[sym] = -lg
    return expr.xreplace(subs), back


def regime_domain(symbols: Sequence[sp.Symbol], variables: Sequence[sp.Symbol], directions: Sequence[int]) -> list[Any]:
    """The domain every monomial step is decided on.

    The regime of the rate variables (``v >= 1`` growing, ``v <= 1`` shrinking) and the declared ends of the
    other canonical symbols (``delta < 1``).
    """
    out: list[Any] = []
    dirs = dict(zip(variables, directions, strict=True))
    for s in sorted(symbols, key=lambda t: t.name):
        if s in dirs:
            out.append(sp.Ge(s, 1, evaluate=False) if dirs[s] > 0 else sp.Le(s, 1, evaluate=False))
            continue
        info = SYMBOLS.get(s.name)
        if info is None or info.symbol != s:
            continue
        if not math.isinf(info.high):
            high = sp.Rational(Fraction(info.high))
            out.append(sp.Le(s, high, evaluate=False) if info.high_closed else sp.Lt(s, high, evaluate=False))
        if info.low > 0:
            low = sp.Rational(Fraction(info.low))
            out.append(sp.Ge(s, low, evaluate=False) if info.low_closed else sp.Gt(s, low, evaluate=False))
    return out


def log_space_domain(expr: sp.Expr, variables: Sequence[sp.Symbol], directions: Sequence[int], *,
                     floor: int = 1) -> list[Any]:
    """The hypotheses of a log-space obligation: ``l_v >= floor``; shrinking variables ``<= 1``; the constants' ends.

    ``floor = 0`` is the whole regime (``log v >= 0`` for ``v >= 1`` growing, ``v <= 1`` shrinking); ``floor = 1``
    the part where every log is at least 1 (:func:`log_end`).
    """
    logs = {_log_symbol(v) for v in variables}
    out: list[Any] = []
    for s in sorted(expr.free_symbols, key=lambda t: t.name):  # in name order, as printed
        out += [sp.Ge(s, floor, evaluate=False)] if s.name.startswith("log_") and s in logs else \
            regime_domain([s], variables, directions)
    return out


def log_end(v: sp.Symbol, direction: int) -> Any:
    """Where ``log v`` (``log(1/v)`` for a shrinking variable) is at least 1: ``v >= e`` or ``v <= 1/e``."""
    return sp.Ge(v, sp.E, evaluate=False) if direction > 0 else sp.Le(v, 1 / sp.E, evaluate=False)
