"""What the parts of the kernel's rate comparison share: its context and the helpers building its obligations.

:func:`~dpaudit.bounds.rate_kernel.kernel_rate_check` builds a :class:`_Context` (the proof under way, the two rates
split into terms, the domains) and hands it to the refutations (:mod:`.rate_kernel_refutation`) and to the log-power
proof (:mod:`.rate_kernel_log_proof`); each records exact obligations, decided by :mod:`dpaudit.verify.kernel` through
a :class:`~dpaudit.verify.Proof`. The helpers here write those obligations: a monomial's exponent in log space
(``y_v = direction_v ln v``), a difference left unevaluated for the kernel, and the declared domains of the regime and
the canonical constants (:func:`~.rate_logs.regime_domain`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp

from dpaudit.bounds.rate_logs import LogFactor, regime_domain
from dpaudit.bounds.rates import Monomial
from dpaudit.verify.proof import Proof

__all__: list[str] = []  # shared by dpaudit.bounds.rate_kernel and its two helper modules, by name

_domain = regime_domain  # the rate variables' regime and the canonical symbols' declared ends


def _exponent_form(term: Monomial, variables: Sequence[sp.Symbol], directions: Sequence[int],
                   ys: Sequence[sp.Symbol]) -> sp.Expr:
    """``<alpha, y>``: the log of the term's monomial in the coordinates ``y_v = direction_v ln v``."""
    return sp.Add(*(sp.sympify(term.exponent(v)) * s * y for v, s, y in zip(variables, directions, ys, strict=True)))


def _minus(a: Any, b: Any) -> sp.Expr:
    """``a - b`` left unevaluated, so that the kernel (not sympy's automatic arithmetic) decides its sign."""
    return sp.Add(a, sp.Mul(-1, b, evaluate=False), evaluate=False)


def _constants(expr: sp.Expr) -> list[Any]:
    """The declared domains of the canonical constants in ``expr`` (delta < 1, ...)."""
    return _domain(sorted(expr.free_symbols, key=lambda s: s.name), (), ())


@dataclass(frozen=True)
class _Context:
    """What the refutations and the log-power proof share: the proof, the two rates split, the domains."""

    proof: Proof
    derived: sp.Expr
    claimed: sp.Expr
    variables: tuple[sp.Symbol, ...]
    directions: tuple[int, ...]
    ys: Sequence[sp.Symbol]
    domain: Sequence[Any]
    interior: Sequence[Any]
    a_split: Sequence[tuple[sp.Expr, sp.Expr, sp.Expr]]
    b_split: Sequence[tuple[sp.Expr, sp.Expr, sp.Expr]]
    a_terms: Sequence[Monomial]
    b_terms: Sequence[Monomial]
    a_logs: Sequence[list[LogFactor] | str]
    b_logs: Sequence[list[LogFactor] | str]
