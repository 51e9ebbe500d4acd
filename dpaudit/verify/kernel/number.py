"""The sign of a closed-form number (part of the trusted kernel).

Exact for rationals, otherwise an arb ball at 200, 400, 1000 then 3000 bits that excludes 0. An
exact zero that is not a rational (``sqrt(2)**2 - 2`` written unevaluated) cannot be certified by
balls: its sign stays undecided.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from flint import ctx

from dpaudit.verify.kernel.evaluate import sign_of, value

__all__ = ["PRECISIONS", "number_sign"]

#: Working precisions (bits) tried in turn.
PRECISIONS = (200, 400, 1000, 3000)


def number_sign(e: Any) -> int | None:
    """-1, 0 or 1 when certain, else None. ``e`` must have no free symbol (and no float: refused by the caller)."""
    e = sp.sympify(e)
    if e.free_symbols:
        return None
    if e in (sp.oo, -sp.oo):
        return 1 if e == sp.oo else -1
    old = ctx.prec
    try:
        for bits in PRECISIONS:
            ctx.prec = bits
            s = sign_of(value(e, {}))
            if s is not None:
                return s
        return None
    finally:
        ctx.prec = old
