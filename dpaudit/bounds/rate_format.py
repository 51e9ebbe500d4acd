"""Text of monomials and rates (Unicode names for epsilon, delta, ...), for tables and reports.

A leaf module: it reads a :class:`~dpaudit.bounds.rates.Monomial`'s exponents and log factors and a
:class:`~dpaudit.bounds.rates.Rate`'s terms and imports neither at run time, so that ``Rate.__str__``
can use it without an import cycle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

if TYPE_CHECKING:
    from dpaudit.bounds.rates import Monomial, Rate

__all__ = ["format_monomial", "format_rate"]


_PRETTY = {"epsilon": "ε", "delta": "δ", "beta": "β", "mu": "μ", "sigma": "σ", "sigma_sg": "σ", "lam": "λ",
           "eta": "η", "tau": "τ", "gamma": "γ", "zeta": "ζ", "Delta": "Δ"}


def _pretty_name(v: sp.Symbol) -> str:
    return _PRETTY.get(v.name, v.name)


def _factor_text(name: str, e: sp.Expr) -> str:
    e = sp.sympify(e)
    if e == 1:
        return name
    if e == sp.Rational(1, 2):
        return f"√{name}"
    if e == sp.Rational(3, 2):
        return f"{name}√{name}" if len(name) == 1 else f"{name}^(3/2)"
    if e.is_Integer:
        return f"{name}^{e}"
    return f"{name}^({e})"


def _log_text(arg: sp.Expr, pw: sp.Expr) -> str:
    inner = str(arg).replace("epsilon", "ε").replace("delta", "δ").replace("*", "")
    base = f"log({inner})"
    pw = sp.sympify(pw)
    return base if pw == 1 else f"{base}^{pw}" if pw.is_Integer else f"{base}^({pw})"


def format_monomial(mono: Monomial, *, with_logs: bool = True, with_coefficient: bool = False) -> str:
    """Human-readable monomial, e.g. ``√d/(n√m ε)``."""
    num: list[str] = []
    den: list[str] = []
    order = ["d", "n", "m", "epsilon"]
    items = sorted(mono.exponents, key=lambda t: (order.index(t[0].name) if t[0].name in order else 9, t[0].name))
    for v, e in items:
        e = sp.sympify(e)
        target = num if (e.is_number and e > 0) or not e.is_number else den
        target.append(_factor_text(_pretty_name(v), e if target is num else -e))
    if with_logs:
        for arg, pw in mono.logs:
            pw = sp.sympify(pw)
            if pw.is_number and pw < 0:
                den.append(_log_text(arg, -pw))
            else:
                num.append(_log_text(arg, pw))
    coef = ""
    if with_coefficient and mono.coefficient != 1:
        coef = str(mono.coefficient)
    top = " ".join(([coef] if coef else []) + num) or "1"
    if not den:
        return top
    bottom = " ".join(den)
    bottom = f"({bottom})" if len(den) > 1 else bottom
    return f"{top}/{bottom}"


def format_rate(rate: Rate, *, with_coefficients: bool = False) -> str:
    """Human-readable rate: possibly dominant terms joined by ``+``."""
    return " + ".join(format_monomial(t, with_logs=not rate.ignore_logs, with_coefficient=with_coefficients)
                      for t in rate.terms)
