"""Lipschitz proofs in l2 for radial maps ``f(x) = x G(||x||_2)`` (the l2-ball projection, radial clipping).

The pair residual ``L^2 ||x - y||^2 - ||f(x) - f(y)||^2`` of such a map depends on ``x, y`` only through three
numbers, ``a = ||x||``, ``b = ||y||`` and ``c = <x, y>``:

    ``||f(x) - f(y)||^2 = G(a)^2 a^2 - 2 G(a) G(b) c + G(b)^2 b^2`` and ``||x - y||^2 = a^2 - 2c + b^2``,

and every pair ``(x, y)`` gives numbers with ``a, b >= 0`` and ``c^2 <= a^2 b^2`` (Cauchy-Schwarz). So the claim
follows from the *reduced* inequality in ``(a, b, c)`` under those hypotheses: a problem in three variables
(and the map's parameters) that Z3 decides where the four-variable original with two square roots is beyond its
resource limit. Every step goes to the kernel: the identity linking the two residuals (exact expansion), the
Cauchy-Schwarz inequality (a polynomial), and the reduced inequality.

This is the standard argument for the nonexpansiveness of the projection onto a ball (e.g. Bauschke and Combettes,
*Convex Analysis and Monotone Operator Theory*, Prop. 4.16 for projections onto closed convex sets), written so
that the kernel checks it instead of citing it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy as sp

from dpaudit.verify.decide import decision
from dpaudit.verify.proof import Proof
from dpaudit.verify.verdict import Verdict

__all__ = ["by_radial", "radial_factor"]

NORM_X = sp.Symbol("|x|", nonnegative=True)
NORM_Y = sp.Symbol("|y|", nonnegative=True)
INNER = sp.Symbol("<x,y>", real=True)


def _in_norm(e: Any, xs: Sequence[sp.Symbol], norm: sp.Symbol) -> sp.Expr | None:
    """``e`` written in ``norm`` = ``sqrt(sum x_i^2)``, or None if it depends on the ``xs`` otherwise."""
    square = sp.Add(*(v**2 for v in xs))
    out = sp.sympify(e).replace(lambda t: t.is_Pow and t.base == square and t.exp.is_Rational,
                                lambda t: norm ** (2 * t.exp))
    out = out.xreplace({square: norm**2})
    return None if out.free_symbols & set(xs) else out


def radial_factor(exprs: Sequence[Any], xs: Sequence[sp.Symbol]) -> sp.Expr | None:
    """``G(|x|)`` (in the symbol ``|x|``) when ``exprs[i] == xs[i] * G(||xs||_2)`` for every i, else None.

    Examples
    --------
    >>> x1, x2 = sp.symbols("x1 x2", real=True)
    >>> radial_factor([x1 * sp.Min(1, 1 / sp.sqrt(x1**2 + x2**2)), x2 * sp.Min(1, 1 / sp.sqrt(x1**2 + x2**2))], [x1, x2])
    Min(1, 1/|x|)
    """
    if len(exprs) != len(xs) or len(xs) < 2:
        return None
    found = None
    for e, v in zip(exprs, xs, strict=True):
        factors = list(sp.Mul.make_args(sp.sympify(e)))
        if v not in factors:
            return None
        factors.remove(v)
        g = _in_norm(sp.Mul(*factors), xs, NORM_X)
        if g is None or (found is not None and g != found):
            return None
        found = g
    return found


def by_radial(proof: Proof, exprs: Sequence[sp.Expr], xs: Sequence[sp.Symbol], to_y: dict[sp.Symbol, sp.Symbol],
              L: sp.Expr, residual: sp.Expr, where: Sequence[Any]) -> bool:
    """Prove the l2 pair residual of a radial map through ``(|x|, |y|, <x,y>)``; True if every step is PROVED.

    Nothing is recorded in ``proof`` unless the reduced inequality is proved (the route is then complete); the
    ``where`` conditions must be conditions on ``||x||`` alone (e.g. ``x1**2 + x2**2 > 0``).
    """
    g = radial_factor(exprs, xs)
    if g is None or any(v.assumptions0.get(k) for v in xs for k in ("positive", "negative", "nonnegative", "nonpositive")):
        return False  # a sign assumption on a coordinate is not a condition on the norm
    ys = [to_y[v] for v in xs]
    on_x = [_in_norm(h, xs, NORM_X) for h in where]
    if any(h is None for h in on_x):
        return False
    hypotheses = [*on_x, *(h.xreplace({NORM_X: NORM_Y}) for h in on_x),  # type: ignore[union-attr]
                  sp.Le(INNER**2, NORM_X**2 * NORM_Y**2, evaluate=False)]
    ga, gb = g, g.xreplace({NORM_X: NORM_Y})
    reduced = L**2 * (NORM_X**2 - 2 * INNER + NORM_Y**2) - (ga**2 * NORM_X**2 - 2 * ga * gb * INNER + gb**2 * NORM_Y**2)
    if decision(reduced, ">=", hypotheses).verdict is not Verdict.PROVED:
        return False
    sx, sy = sp.Add(*(v**2 for v in xs)), sp.Add(*(v**2 for v in ys))
    inner = sp.Add(*(v * w for v, w in zip(xs, ys, strict=True)))
    back = reduced.xreplace({NORM_X: sp.sqrt(sx), NORM_Y: sp.sqrt(sy), INNER: inner})
    proof.zero(f"f(x) = x G(||x||_2) with G(|x|) = {g}: the pair residual is the reduced residual at |x| = ||x||_2, "
               "|y| = ||y||_2, <x,y> = sum x_i y_i (an identity, by expansion)", residual - back,
               hypotheses=[*where, *(sp.sympify(h).xreplace(to_y) for h in where)])  # where both sides are defined
    proof.nonneg("Cauchy-Schwarz: ||x||^2 ||y||^2 - <x,y>^2 >= 0", sx * sy - inner**2)
    proof.nonneg(f"reduced residual {reduced} >= 0 for all |x|, |y| >= 0, <x,y>^2 <= |x|^2 |y|^2", reduced,
                 hypotheses=hypotheses)
    return True
