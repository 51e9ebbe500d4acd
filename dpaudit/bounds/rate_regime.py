"""The regime of the rate variables: which way each one goes, checked against its declared domain.

A rate statement is asymptotic: the growing variables (n, m, d) go to infinity, the shrinking ones (those in
``small=``, by default epsilon and delta) go to 0, and a refuting log-direction ``v = exp(t direction_v y_v)``,
``t -> infinity``, moves every one of them to its end. Each must reach that end inside its declared domain
(:data:`~dpaudit.bounds.symbols.SYMBOLS`): the integer ``n >= 1`` cannot shrink to 0 (the regime ``n <= 1`` meets
the domain only at ``n = 1``), ``delta`` in (0, 1) cannot grow. Such a regime is refused up front, in
:func:`~dpaudit.bounds.rates.leading_rate`, :func:`~dpaudit.bounds.rate_comparison.compare_rates`,
:func:`~dpaudit.bounds.rate_checks.check_rate` and the kernel's
:func:`~dpaudit.bounds.rate_kernel.kernel_rate_check`, so that no verdict is decided on a regime outside the domain.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import sympy as sp

from dpaudit._validation import argument_error
from dpaudit.bounds.symbols import SYMBOLS

__all__ = ["reachable_ends", "regime_directions"]


def regime_directions(variables: Sequence[sp.Symbol], small: Iterable[sp.Symbol] | None,
                      owner: str) -> tuple[int, ...]:
    """``-1`` for the variables in ``small`` (default: those declared shrinking), ``+1`` for the others.

    Each direction is checked against the variable's declared domain (:func:`reachable_ends`): a refuting
    log-direction moves every rate variable to its end of the regime, so a variable must be able to get there.

    Parameters
    ----------
    variables : sequence of Symbol
        The rate variables.
    small : iterable of Symbol or None
        The variables that shrink; None for those declared shrinking (epsilon, delta).
    owner : str
        The public function asking, named in the error.

    Raises
    ------
    InvalidArgument
        If ``small`` is not a subset of ``variables``, or a variable cannot move its way (``n``, an integer >= 1,
        among ``small``; ``delta``, declared in (0, 1), left out of it), naming the variable, its domain and the
        direction asked.
    """
    if small is None:
        small_set = {v for v in variables if v.name in SYMBOLS and SYMBOLS[v.name].direction < 0}
    else:
        small_set = set(small)
        unknown = small_set - set(variables)
        if unknown:
            raise argument_error(owner, "small", "a subset of the rate variables", sorted(map(str, unknown)))
    directions = tuple(-1 if v in small_set else 1 for v in variables)
    shown = None if small is None else sorted(map(str, small_set))
    for v, s in zip(variables, directions, strict=True):
        can_grow, can_shrink, domain = reachable_ends(v)
        if s < 0 and not can_shrink:
            raise argument_error(owner, "small", f"rate variables that can shrink to 0 ({v} is declared {domain}: "
                                 f"it cannot be among small=)", shown,
                                 fix=f"remove {v} from small= (it grows), or drop it from the rate variables.")
        if s > 0 and not can_grow:
            fix = (f"list {v} in small= (it shrinks to 0)." if can_shrink else
                   f"drop {v} from the rate variables (treat it as a constant).")
            raise argument_error(owner, "small", f"a set listing every rate variable that cannot grow without bound "
                                 f"({v} is declared {domain}: list it in small=)", shown, fix=fix)
    return directions


def reachable_ends(v: sp.Symbol) -> tuple[bool, bool, str]:
    """Whether ``v`` can grow without bound, whether it can shrink to 0 inside its declared domain, and that domain.

    A canonical symbol (:data:`~dpaudit.bounds.symbols.SYMBOLS`) has its declared domain: it can grow when the domain
    is unbounded above (n, m, d, epsilon), shrink when the domain reaches down to 0 and is not integer (epsilon,
    delta). Any other symbol has only its sympy assumptions: an integer cannot shrink to 0, a non-positive symbol
    reaches neither end (both ends of the regime are read in ``log v``, which needs ``v > 0``).
    """
    info = SYMBOLS.get(v.name)
    if info is not None and info.symbol == v:
        can_shrink = not info.integer and info.low <= 0 < info.high
        return math.isinf(info.high) and info.high > 0, can_shrink, info.constraint_text()
    if v.is_nonpositive:
        return False, False, "<= 0 (sympy assumption nonpositive)"
    if v.is_integer:
        return True, False, "an integer (sympy assumptions)"
    return True, True, "> 0 (sympy assumptions)" if v.is_positive else "real (no declared bounds)"
