"""The inputs of the calibration checks: read exactly, refused when plainly invalid, their hypotheses as obligations.

The checks of :mod:`dpaudit.bounds.calibration` and :mod:`dpaudit.bounds.above_threshold` decide statements about
the numbers they are given. So (1) every numeric input is read at its exact value before any arithmetic: a float is
the exact binary rational it stands for (:func:`dpaudit.verify.decide.exact_floats`), and the reading is printed with
the verdict; (2) the hypotheses of the cited theorem (a positive noise scale [DR14, Thm 3.6 and Thm 3.23], a
nonnegative sensitivity, ``eps`` in (0, 1) and ``delta`` in (0, 1) for [DR14, Thm A.1]) are kernel obligations,
part of the certified conjunction; a numeric input that plainly violates one is refused up front.

References
----------
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from dpaudit._validation import argument_error
from dpaudit.bounds.checks import _decimal, check_inequality
from dpaudit.bounds.symbols import SYMBOLS
from dpaudit.bounds.verdict import CheckResult
from dpaudit.errors import InvalidArgument
from dpaudit.verify.decide import exact_floats
from dpaudit.verify.verdict import combine_results

__all__ = ["ExactInputs", "declared_domains", "positivity_obligation"]


class ExactInputs:
    """Reads a check's inputs exactly and collects the notes on how floats were read.

    Parameters
    ----------
    owner : str
        The public function whose inputs these are (named in errors).
    """

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.notes: list[str] = []

    def read(self, name: str, value: Any) -> sp.Expr:
        """``value`` as an exact real sympy expression (floats at their exact binary value, a ``Decimal`` exactly).

        Plain Python and numpy numbers are accepted. Refused with :class:`~dpaudit.errors.InvalidArgument` naming
        ``name``: strings, booleans, non-numbers, complex values (``I``), NaN and infinities.
        """
        if isinstance(value, (str, bytes, bool, np.bool_)) or value is None:
            raise argument_error(self.owner, name, "a real number or a real sympy expression", value)
        if isinstance(value, Decimal):  # an exact decimal (sympify would round it to a binary Float first)
            if not value.is_finite():
                raise argument_error(self.owner, name, "finite (dpaudit decides statements about real numbers)", value)
            value = Fraction(value)
        try:
            expr = sp.sympify(value, strict=True)
        except (sp.SympifyError, TypeError, ValueError) as exc:
            raise argument_error(self.owner, name, "a real number or a real sympy expression", value) from exc
        if not isinstance(expr, sp.Expr):
            raise argument_error(self.owner, name, "a real number or a real sympy expression", value)
        if expr.has(sp.oo, sp.S.NegativeInfinity) and not expr.has(sp.nan, sp.zoo):
            raise argument_error(self.owner, name, "finite (dpaudit decides statements about real numbers)", value)
        if expr.has(sp.nan, sp.zoo) or (expr.is_number and expr.is_real is False) or expr.has(sp.I):
            raise argument_error(self.owner, name, "real (not complex, not NaN)", value)
        try:
            exact, notes = exact_floats(expr)
        except InvalidArgument as exc:
            raise argument_error(self.owner, name, "finite", value, fix=str(exc)) from exc
        for note in notes:
            text = f"{name}: {note}"
            if text not in self.notes:
                self.notes.append(text)
        return exact

    def refuse_numeric(self, name: str, value: sp.Expr, constraint: str, lower: Any = None, upper: Any = None,
                       *, strict_lower: bool = True, strict_upper: bool = True) -> None:
        """Refuse a *numeric* ``value`` outside the interval of ``constraint`` (exact comparison); symbolic ones pass.

        Only a rational value (the exact reading of every number written in digits) is compared here; any other
        closed form is left to the kernel obligation (UNDECIDED when it cannot be shown).
        """
        if not value.is_Rational:
            return
        below = lower is not None and (value <= lower if strict_lower else value < lower)
        above = upper is not None and (value >= upper if strict_upper else value > upper)
        if below or above:
            raise argument_error(self.owner, name, constraint, value)


def declared_domains(expr: sp.Expr) -> list[sp.Basic]:
    """The declared domains (:data:`dpaudit.bounds.symbols.SYMBOLS`) of the canonical symbols of ``expr``, as relations.

    Part of what the claim says (``delta`` is a probability in (0, 1)), so the obligations are decided on them and
    they are printed as the obligation's domain; other symbols range over what their sympy assumptions allow.
    """
    rels: list[sp.Basic] = []
    for sym in sorted(expr.free_symbols, key=lambda s: s.name):
        info = SYMBOLS.get(sym.name)
        if info is None or info.symbol != sym:
            continue
        if math.isfinite(info.low) and not (info.low == 0 and not info.low_closed and sym.is_positive):
            rels.append((sp.Le if info.low_closed else sp.Lt)(_decimal(info.low), sym, evaluate=False))
        if math.isfinite(info.high):
            rels.append((sp.Le if info.high_closed else sp.Lt)(sym, _decimal(info.high), evaluate=False))
    return rels


def positivity_obligation(name: str, value: sp.Expr, *, strict: bool, source: str, rng: np.random.Generator,
                          where: Sequence[Any] = (), upper: sp.Expr | None = None) -> CheckResult:
    """The kernel's decision of ``0 < value`` (``0 <= value`` without ``strict``), or ``0 < value < upper``.

    A hypothesis of the cited theorem; the result is one part of the check's certified conjunction, decided under
    ``where`` (the check's region), so a symbolic value the kernel cannot sign leaves the check UNDECIDED.
    """
    rel = "<" if strict else "<="
    where = [*where, *declared_domains(value)]
    lower = check_inequality(sp.Integer(0), value, strict=strict, claim=f"hypothesis: 0 {rel} {name}", source=source,
                             rng=rng, count=8, where=list(where))
    if upper is None:
        return lower
    below = check_inequality(value, upper, strict=True, claim=f"hypothesis: {name} < {upper}", source=source, rng=rng,
                             count=8, where=list(where))
    return combine_results(f"hypothesis: 0 {rel} {name} < {upper}", lower, below, source=source,
                           method="kernel", cases=lower.cases + below.cases,
                           details=f"0 {rel} {name}: {lower.verdict.name}; {name} < {upper}: {below.verdict.name}")
