"""Three-valued deciders: the sign or zero-ness of an expression, and the exact sign of a number.

Every decider answers PROVED, DISPROVED or UNDECIDED (or True / False / None); sympy's ``None``
(unknown) is never turned into ``False``.

Examples
--------
>>> import sympy as sp
>>> from dpaudit.verify import decide_nonneg, decide_zero, exact_sign
>>> x = sp.Symbol("x", real=True)
>>> decide_nonneg(x**2), decide_nonneg(-x**2 - 1), decide_nonneg(x)
(<Verdict.PROVED: 'proved'>, <Verdict.DISPROVED: 'disproved'>, <Verdict.UNDECIDED: 'undecided'>)
>>> decide_zero((x + 1)**2 - x**2 - 2*x - 1)
<Verdict.PROVED: 'proved'>
>>> exact_sign(sp.E - 3), exact_sign(sp.pi - 3)
(-1, 1)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

import numpy as np
import sympy as sp

from dpaudit.verify.verdict import Verdict

__all__ = ["decide_nonneg", "decide_positive", "decide_zero", "exact_negative", "exact_sign", "plain"]


def _rewrites(expr: sp.Expr) -> Iterable[sp.Expr]:
    yield expr
    expanded = sp.expand(expr)
    yield expanded
    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    if symbols:
        # monomials with numeric coefficients such as (3 - E) eps^2: the coefficient's sign is decidable
        yield sp.collect(expanded, symbols)
    yield sp.factor(expr)
    yield sp.together(expr)
    yield sp.simplify(expr)


def _split_sign(form: sp.Expr) -> bool:
    """A sum whose symbol-free part (e.g. 1 - E + 4 log 2) and symbolic part are each >= 0."""
    if not isinstance(form, sp.Add) or not form.free_symbols:
        return False
    const, rest = form.as_independent(*form.free_symbols, as_Add=True)
    return bool(const != 0 and const.is_nonnegative is True and rest.is_nonnegative is True)


def _decide_forms(expr: sp.Expr) -> tuple[bool, bool]:
    seen_false = False
    for form in _rewrites(expr):
        answer = form.is_nonnegative
        if answer is True or (answer is None and _split_sign(form)):
            return True, False
        if answer is False:
            seen_false = True
    return False, seen_false


def decide_nonneg(expr: Any) -> Verdict:
    """Is ``expr >= 0`` for every value allowed by its symbols' assumptions?

    PROVED when sympy's assumption system answers True for the expression or one of its
    rewrites (expand, collect, factor, together, simplify), or for the numerator of its
    ``together`` form with a positive denominator, or for a lower bound obtained by replacing a
    ``Max`` or ``Abs`` (with a positive coefficient) or a ``Min`` (negative coefficient) by one of
    its arguments (or, with the opposite signs, for every such replacement); DISPROVED when it answers False (the expression is then negative for every allowed
    value); UNDECIDED when every answer is None. Answers are memoised (sympy's deciders are deterministic).

    Parameters
    ----------
    expr : sympy expression or number
        The residual, e.g. ``rhs - lhs`` of a claimed ``lhs <= rhs``.

    Returns
    -------
    Verdict
    """
    return _decide_nonneg(sp.sympify(expr))


def _lower_bounds(expr: sp.Expr) -> Iterable[sp.Expr]:
    """Expressions ``<= expr`` for every value: a term ``c Max(u, v)`` with ``c > 0`` is ``>= c u``,
    ``>= c v`` and ``>= c (u + v)/2`` (and ``c Min(u, v)`` with ``c < 0`` likewise), so ``expr >= 0``
    follows from any replacement being ``>= 0``."""
    for term, coeff, args in _extremum_terms(expr):
        if (args[0] == "max" and coeff.is_positive is True) or (args[0] == "min" and coeff.is_negative is True):
            for arg in args[1]:
                yield expr - term + coeff * arg
            if len(args[1]) > 1:  # a maximum is at least the mean of its arguments (a minimum at most)
                yield expr - term + coeff * sp.Add(*args[1]) / len(args[1])


def _branches(expr: sp.Expr) -> Iterable[list[sp.Expr]]:
    """For a term ``c Max(u, v)`` with ``c < 0`` (or ``c Min(u, v)`` with ``c > 0``): the expression
    equals one of its replacements by ``c u`` or ``c v``, so it is ``>= 0`` if every replacement is."""
    for term, coeff, args in _extremum_terms(expr):
        if (args[0] == "max" and coeff.is_negative is True) or (args[0] == "min" and coeff.is_positive is True):
            yield [expr - term + coeff * arg for arg in args[1]]


def _extremum_terms(expr: sp.Expr) -> Iterable[tuple[sp.Expr, sp.Expr, tuple[str, tuple[sp.Expr, ...]]]]:
    """Terms ``c Max(...)``, ``c Min(...)`` and ``c Abs(u)`` (= ``c Max(u, -u)``) of a sum."""
    for term in sp.Add.make_args(sp.expand(expr, mul=False, multinomial=False, power_exp=False, log=False)):
        coeff, rest = term.as_coeff_Mul()
        if isinstance(rest, sp.Max):
            yield term, coeff, ("max", rest.args)
        elif isinstance(rest, sp.Min):
            yield term, coeff, ("min", rest.args)
        elif isinstance(rest, sp.Abs):
            yield term, coeff, ("max", (rest.args[0], -rest.args[0]))


@functools.lru_cache(maxsize=4096)
def _decide_nonneg(expr: sp.Expr, depth: int = 2) -> Verdict:
    # cheap answers first, then the Max/Min bounds (whose pieces are often decided at once), then the rewrites
    if expr.is_nonnegative is True or sp.expand(expr).is_nonnegative is True:
        return Verdict.PROVED
    if depth > 0 and expr.has(sp.Max, sp.Min, sp.Abs):
        for bound in _lower_bounds(expr):
            if _decide_nonneg(sp.sympify(bound), depth - 1) is Verdict.PROVED:
                return Verdict.PROVED
        for branches in _branches(expr):
            if all(_decide_nonneg(sp.sympify(b), depth - 1) is Verdict.PROVED for b in branches):
                return Verdict.PROVED
    proved, seen_false = _decide_forms(expr)
    if proved:
        return Verdict.PROVED
    numer, denom = sp.fraction(sp.together(expr))
    if denom != 1 and sp.factor(denom).is_positive:
        proved, false_num = _decide_forms(numer)
        if proved:
            return Verdict.PROVED
        seen_false = seen_false or false_num
    return Verdict.DISPROVED if seen_false else Verdict.UNDECIDED


def decide_positive(expr: Any) -> Verdict:
    """Is ``expr > 0`` for every value allowed by its symbols' assumptions? (as :func:`decide_nonneg`, strictly)

    Examples
    --------
    >>> import sympy as sp
    >>> e = sp.Symbol("e", positive=True)
    >>> decide_positive(1 + e), decide_positive((1 - 2 * e) ** 2)
    (<Verdict.PROVED: 'proved'>, <Verdict.UNDECIDED: 'undecided'>)
    """
    expr = sp.sympify(expr)
    seen_false = False
    for form in (*_rewrites(expr), *_numerator_forms(expr)):
        answer = form.is_positive
        if answer is True:
            return Verdict.PROVED
        seen_false = seen_false or answer is False
    return Verdict.DISPROVED if seen_false else Verdict.UNDECIDED


def _numerator_forms(expr: sp.Expr) -> Iterable[sp.Expr]:
    numer, denom = sp.fraction(sp.together(expr))
    if denom != 1 and sp.factor(denom).is_positive:
        yield from _rewrites(numer)


def decide_zero(expr: Any) -> Verdict:
    """Is ``expr`` identically zero? ``simplify`` to 0 proves it; ``equals`` may decide otherwise.

    Parameters
    ----------
    expr : sympy expression or number
        The residual ``lhs - rhs`` of a claimed identity.

    Returns
    -------
    Verdict
    """
    expr = sp.sympify(expr)
    for form in (sp.expand(expr), sp.simplify(expr)):
        if form == 0:
            return Verdict.PROVED
    answer = expr.equals(0)
    if answer is True:
        return Verdict.PROVED
    if answer is False:
        return Verdict.DISPROVED
    return Verdict.UNDECIDED


def exact_sign(value: Any) -> int | None:
    """Sign (-1, 0 or 1) of a closed-form number (rationals, exp, log, sqrt, erf, ...), decided rigorously.

    sympy evaluates the number with increasing precision until its sign is certain (its
    assumption system for numbers); if it cannot, a 60-digit evaluation decides only when the
    magnitude clearly exceeds the evaluation error. Floats are refused: a float is already
    rounded, so its sign says nothing exact about the quantity it approximates.

    Parameters
    ----------
    value : sympy number or int / Fraction
        A closed form without free symbols; ``-oo`` counts as negative (a bound violated in the limit).

    Returns
    -------
    int or None
        None when the sign cannot be decided.

    Raises
    ------
    TypeError
        If ``value`` is a float or contains a float, or has free symbols.
    """
    if isinstance(value, (float, np.floating)):
        raise TypeError(f"exact_sign needs an exact number, got the float {value!r}; use sympy.Rational or a closed form")
    value = sp.sympify(value)
    if value.free_symbols:
        raise TypeError(f"exact_sign needs a number, got an expression in {sorted(map(str, value.free_symbols))}")
    if value.has(sp.Float):
        raise TypeError(f"exact_sign needs an exact number, got {value} which contains a float; use sympy.Rational")
    if value.is_zero is True:
        return 0
    negative = value.is_extended_negative
    if negative is not None:
        return -1 if negative else (1 if value.is_extended_positive else None)
    approx = sp.N(value, 60)
    if approx.is_Number and abs(approx) > sp.Float("1e-40"):
        return -1 if approx < 0 else 1
    return None


def exact_negative(value: Any) -> bool | None:
    """Is the closed-form number ``value`` negative? ``None`` when undecided (see :func:`exact_sign`)."""
    sign = exact_sign(value)
    return None if sign is None else sign < 0


def plain(value: Any) -> Any:
    """A JSON-friendly version of ``value`` for counterexample records."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, sp.Basic):
        if value.is_Rational:
            return str(value)
        if value.is_number:
            return float(sp.N(value, 17))
        return str(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value
