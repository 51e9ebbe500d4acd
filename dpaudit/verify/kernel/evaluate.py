"""Certified evaluation of sympy formulas (part of the trusted kernel).

Exact rationals where the operations are rational, python-flint arb balls otherwise.

:func:`value` evaluates an expression at a point (exact rationals, or arb balls for the coordinates of a box);
the result is a :class:`~fractions.Fraction` (exact), an arb ball that contains every value the expression takes
(an *enclosure*), or None when the expression may be undefined there or uses a function the kernel does not know.
:func:`truth` decides a relation from such values: True / False only when certain. :func:`branch_and_bound`
proves an inequality on a bounded box by splitting it until every piece's enclosure has the right sign.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, cast

import sympy as sp
from flint import arb, ctx, fmpq

__all__ = ["ball", "branch_and_bound", "enclose_constant", "sign_of", "truth", "value"]

Value = Fraction | arb

#: Bits of the enclosures of constants handed to Z3; pieces and bits of a branch and bound; the relative width below
#: which a piece is not split further.
ENCLOSURE_BITS = 200
MAX_BOXES = 4000
BOX_BITS = 120
MIN_WIDTH = Fraction(1, 2**60)

#: Functions evaluated on balls (arb's implementations enclose the exact range on every ball).
_ARB = {sp.exp: arb.exp, sp.sin: arb.sin, sp.cos: arb.cos, sp.tan: arb.tan, sp.tanh: arb.tanh, sp.atan: arb.atan,
        sp.erf: arb.erf, sp.erfc: arb.erfc, sp.sinh: arb.sinh, sp.cosh: arb.cosh, sp.asinh: arb.asinh}


def _arb(v: Value) -> arb:
    return arb(fmpq(v.numerator, v.denominator)) if isinstance(v, Fraction) else v


def ball(lo: Fraction, hi: Fraction) -> arb:
    """An arb ball containing the interval ``[lo, hi]``."""
    mid, rad = (lo + hi) / 2, (hi - lo) / 2
    return _arb(mid) + _arb(rad) * arb("[+/- 1]") if rad else _arb(mid)


def sign_of(v: Value | None) -> int | None:
    """The sign of a value when it is certain (an exact rational, or a ball that excludes 0)."""
    if v is None:
        return None
    if isinstance(v, Fraction):
        return (v > 0) - (v < 0)
    if not v.is_finite():
        return None
    if v > 0:
        return 1
    if v < 0:
        return -1
    return 0 if v.is_exact() and v.is_zero() else None


def _hull(values: Sequence[Value]) -> Value:
    if all(isinstance(v, Fraction) for v in values) and len(set(values)) == 1:
        return values[0]
    out = _arb(values[0])
    for v in values[1:]:
        out = out.union(_arb(v))
    return out


def _binary(op: str, a: Value, b: Value) -> Value | None:
    if op == "+":
        return a + b if isinstance(a, Fraction) and isinstance(b, Fraction) else _arb(a) + _arb(b)
    return a * b if isinstance(a, Fraction) and isinstance(b, Fraction) else _arb(a) * _arb(b)


def _power(base: Value, exp: sp.Expr, at: Mapping[sp.Symbol, Value]) -> Value | None:
    if exp.is_Integer:
        n = int(exp)
        if n < 0 and sign_of(base) in (None, 0):
            return None  # may divide by zero
        return base**n if isinstance(base, Fraction) else _arb(base) ** n
    s = sign_of(base)
    if s == 0 and exp.is_Rational and exp > 0:
        return Fraction(0)
    if s != 1:
        return None  # a real power needs a base shown > 0 (or 0 with a positive constant exponent)
    e = value(exp, at)
    return None if e is None else (_arb(e) * _arb(base).log()).exp()


def value(e: Any, at: Mapping[sp.Symbol, Value]) -> Value | None:
    """An exact value or an enclosure of ``e`` with its symbols at ``at`` (None: possibly undefined, or unknown)."""
    e = sp.sympify(e)
    if e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    if isinstance(e, sp.Symbol):
        return at.get(e)
    if e is sp.pi:
        return arb.pi()
    if e is sp.E:
        return arb.const_e()
    if isinstance(e, (sp.Add, sp.Mul)):
        out: Value | None = value(e.args[0], at)
        for a in e.args[1:]:
            v = value(a, at)
            if out is None or v is None:
                return None
            out = _binary("+" if isinstance(e, sp.Add) else "*", out, v)
        return out
    if isinstance(e, sp.Pow):
        base = value(e.args[0], at)
        return None if base is None else _power(base, e.args[1], at)
    maybe = [value(a, at) for a in e.args] if not isinstance(e, sp.Piecewise) else []
    args = [a for a in maybe if a is not None]
    if len(args) != len(maybe):
        return None
    if isinstance(e, (sp.Max, sp.Min)):
        exact = [a for a in args if isinstance(a, Fraction)]
        if len(exact) == len(args):
            return max(exact) if isinstance(e, sp.Max) else min(exact)
        out = _arb(args[0])
        for a in args[1:]:
            out = out.max(_arb(a)) if isinstance(e, sp.Max) else out.min(_arb(a))
        return out
    if isinstance(e, sp.Abs):
        return cast(Value, abs(args[0]))  # abs of a Fraction is a Fraction, of an arb an arb (the union types as object)
    if isinstance(e, (sp.sign, sp.Heaviside)):
        s = sign_of(args[0])
        at0 = (args[1] if len(args) > 1 else Fraction(1, 2)) if isinstance(e, sp.Heaviside) else Fraction(0)
        table = {1: Fraction(1), -1: Fraction(-1) if isinstance(e, sp.sign) else Fraction(0), 0: at0}
        if s is not None:
            return table[s]
        return _hull(list(table.values()))
    if isinstance(e, (sp.floor, sp.ceiling)):
        a = args[0]
        if isinstance(a, Fraction):
            return Fraction(a.numerator // a.denominator) if isinstance(e, sp.floor) else -Fraction((-a.numerator) // a.denominator)
        return a.floor() if isinstance(e, sp.floor) else a.ceil()
    if isinstance(e, sp.log):
        return _arb(args[0]).log() if sign_of(args[0]) == 1 else None
    if isinstance(e, sp.Piecewise):
        return _piecewise(e, at)
    func = _ARB.get(e.func)
    if func is not None and len(args) == 1:
        out = func(_arb(args[0]))
        return out if out.is_finite() else None
    return None  # a function the kernel does not know


def _piecewise(e: sp.Piecewise, at: Mapping[sp.Symbol, Value]) -> Value | None:
    possible: list[Value] = []
    for branch, cond in e.args:
        t = truth(cond, at)
        if t is False:
            continue
        v = value(branch, at)
        if v is None:
            return None
        possible.append(v)
        if t is True:
            return _hull(possible)
    return None  # no branch certainly applies: undefined somewhere


def truth(c: Any, at: Mapping[sp.Symbol, Value]) -> bool | None:
    """Whether a relation (or And/Or/Not of relations) holds at ``at``: True / False when certain, else None."""
    if c is True or c == sp.true:
        return True
    if c is False or c == sp.false:
        return False
    if isinstance(c, (sp.And, sp.Or)):
        parts = [truth(a, at) for a in c.args]
        want = isinstance(c, sp.Or)
        if want in parts:
            return want
        return None if None in parts else not want
    if isinstance(c, sp.Not):
        t = truth(c.args[0], at)
        return None if t is None else not t
    if isinstance(c, sp.Implies):
        return truth(sp.Or(sp.Not(c.args[0]), c.args[1], evaluate=False), at)
    if not isinstance(c, sp.core.relational.Relational):
        return None
    lhs, rhs = value(c.lhs, at), value(c.rhs, at)
    if lhs is None or rhs is None:
        return None
    s = sign_of(_binary("+", lhs, _binary("*", Fraction(-1), rhs)))  # type: ignore[arg-type]
    if s is None:
        return None
    return {sp.Equality: s == 0, sp.Unequality: s != 0, sp.LessThan: s <= 0, sp.StrictLessThan: s < 0,
            sp.GreaterThan: s >= 0, sp.StrictGreaterThan: s > 0}[type(c)]


def enclose_constant(e: sp.Expr, bits: int = ENCLOSURE_BITS) -> tuple[Fraction, Fraction] | None:
    """Rational bounds ``lo <= e <= hi`` of a closed-form constant, from an arb enclosure at ``bits`` bits."""
    old = ctx.prec
    ctx.prec = bits
    try:  # the ends are rounded at the working precision: read them inside it
        v = value(e, {})
        if v is None or isinstance(v, Fraction):
            return None if v is None else (v, v)
        lo, hi = v.lower(), v.upper()
        if not (lo.is_finite() and hi.is_finite()):
            return None
        return _exact(lo), _exact(hi)
    finally:
        ctx.prec = old


def _exact(x: arb) -> Fraction:
    man, exp = x.man_exp()
    return Fraction(int(man)) * (Fraction(2) ** int(exp))


def branch_and_bound(goal: Any, hypotheses: Sequence[Any], box: Mapping[sp.Symbol, tuple[Fraction, Fraction]],
                     max_boxes: int = MAX_BOXES, bits: int = BOX_BITS,
                     deadline: float | None = None) -> tuple[bool | None, dict[sp.Symbol, Fraction] | None]:
    """Prove ``goal`` on every point of ``box`` where the ``hypotheses`` hold, by splitting the box.

    Returns ``(True, None)`` when every piece is certified (the goal certainly holds on it, or a hypothesis
    certainly fails on it), ``(False, point)`` when a box's midpoint certainly satisfies the hypotheses and
    certainly violates the goal (re-checked by the caller), ``(None, None)`` when ``max_boxes`` pieces were not enough
    or the clock passed ``deadline`` (a :func:`time.monotonic` value).
    """
    old = ctx.prec
    ctx.prec = bits
    try:
        stack = [dict(box)]
        seen = 0
        while stack:
            seen += 1
            if seen > max_boxes or (deadline is not None and time.monotonic() > deadline):
                return None, None
            piece = stack.pop()
            at = {s: ball(lo, hi) for s, (lo, hi) in piece.items()}
            if any(truth(h, at) is False for h in hypotheses) or truth(goal, at) is True:
                continue
            mid = {s: (lo + hi) / 2 for s, (lo, hi) in piece.items()}
            if all(truth(h, mid) is True for h in hypotheses) and truth(goal, mid) is False:
                return False, mid
            if not piece:  # no symbol to split (a closed-form goal Z3 could not read): nothing more to try
                return None, None
            widest = max(piece, key=lambda s: piece[s][1] - piece[s][0])
            lo, hi = piece[widest]
            if hi - lo < MIN_WIDTH * max(1, abs(lo), abs(hi)):  # below arb's resolution: give up
                return None, None
            middle = (lo + hi) / 2
            stack.append({**piece, widest: (lo, middle)})
            stack.append({**piece, widest: (middle, hi)})
        return True, None
    finally:
        ctx.prec = old
