"""Symbolic case analyses shared by several checks: the 1-D clamp and the Euclidean ball.

Every proof here is a *case analysis by parametrisation*: each region of the input space is
written with non-negative slack symbols (e.g. ``x <= a <= y`` as ``x = a - u, y = a + p``), sympy
evaluates the clamp / projection from its definition (``Min``/``Max``, law of cosines) in that
region, and the residual of the claimed inequality must be provably non-negative there.
"""

from __future__ import annotations

import sympy as sp

from proofs._core import Proof

__all__ = [
    "ball_pair_residuals",
    "ball_toward_member_residuals",
    "clamp",
    "clamp_ordered_cases",
    "prove_clamp_properties",
]

A = sp.Symbol("a", real=True)
_U, _V, _W, _P, _Q, _S, _T = sp.symbols("u v w p q s t", nonnegative=True)


def clamp(x: sp.Expr, low: sp.Expr, high: sp.Expr) -> sp.Expr:
    """``Pi_[low, high](x) = min(max(x, low), high)`` (Levy et al. 2021 section 2; Ghazi et al. 2025 Alg 2)."""
    return sp.Min(sp.Max(x, low), high)


def clamp_ordered_cases() -> list[tuple[str, dict[str, sp.Expr]]]:
    """The six placements of two ordered points ``x <= y`` relative to ``[a, b]``.

    Each value is ``{"x": ..., "y": ..., "b": ...}`` in terms of ``a`` and non-negative slacks;
    together they cover every real ``a <= b`` and ``x <= y``.
    """
    a = A
    return [
        ("x<=y<=a", {"x": a - _U - _V, "y": a - _U, "b": a + _W}),
        ("x<=a<=y<=b", {"x": a - _U, "y": a + _P, "b": a + _P + _S}),
        ("x<=a<=b<=y", {"x": a - _U, "y": a + _W + _V, "b": a + _W}),
        ("a<=x<=y<=b", {"x": a + _P, "y": a + _P + _Q, "b": a + _P + _Q + _S}),
        ("a<=x<=b<=y", {"x": a + _P, "y": a + _P + _S + _V, "b": a + _P + _S}),
        ("b<=x<=y", {"x": a + _W + _V, "y": a + _W + _V + _T, "b": a + _W}),
    ]


def prove_clamp_properties(proof: Proof, prefix: str = "") -> None:
    """Record the case analysis of the 1-D clamp on ``proof``.

    For ``x <= y`` and ``a <= b`` (the statement is symmetric in ``x, y``):
    monotone ``Pi(y) - Pi(x) >= 0``; 1-Lipschitz ``(y - x) - (Pi(y) - Pi(x)) >= 0``;
    range ``Pi(x) - a >= 0`` and ``b - Pi(x) >= 0``; width ``(b - a) - (Pi(y) - Pi(x)) >= 0``;
    idempotence ``Pi(Pi(x)) = Pi(x)``.
    """
    mono, lip, rng_lo, rng_hi, width, idem = {}, {}, {}, {}, {}, {}
    for name, c in clamp_ordered_cases():
        cx, cy = clamp(c["x"], A, c["b"]), clamp(c["y"], A, c["b"])
        mono[name] = cy - cx
        lip[name] = (c["y"] - c["x"]) - (cy - cx)
        rng_lo[name] = cx - A
        rng_hi[name] = c["b"] - cx
        width[name] = (c["b"] - A) - (cy - cx)
        idem[name] = -(clamp(cx, A, c["b"]) - cx) ** 2  # >= 0 iff the two are equal
    proof.cases(f"{prefix}monotone: Pi(y) - Pi(x) >= 0 for x <= y", mono)
    proof.cases(f"{prefix}1-Lipschitz: Pi(y) - Pi(x) <= y - x for x <= y", lip)
    proof.cases(f"{prefix}range: a <= Pi(x)", rng_lo)
    proof.cases(f"{prefix}range: Pi(x) <= b", rng_hi)
    proof.cases(f"{prefix}width: |Pi(x) - Pi(y)| <= b - a", width)
    proof.cases(f"{prefix}idempotent: Pi(Pi(x)) = Pi(x)", idem)


# -- Euclidean ball ----------------------------------------------------------------------------
# Two points x, y and the centre span a plane; the projection onto B(centre, r) moves each point
# along its ray, so all distances involved are fixed by the two norms and the cosine c of the
# angle between the rays (law of cosines). c = 1 - w with w in [0, 2]; only w >= 0 is used.

_R = sp.Symbol("r", positive=True)


def _dist2(n1: sp.Expr, n2: sp.Expr, cos: sp.Expr) -> sp.Expr:
    return n1**2 + n2**2 - 2 * n1 * n2 * cos


def ball_pair_residuals() -> dict[str, tuple[sp.Expr, sp.Expr]]:
    """Residual ``|x - y|^2 - |P(x) - P(y)|^2`` and a non-negative certificate, per case.

    Cases: both outside (norms ``r + u``, ``r + v``); one inside (norm ``q <= r``, written
    ``r = q + p``) and one outside (norm ``r + v``). Both inside is the identity (residual 0).
    """
    c = 1 - _W
    out: dict[str, tuple[sp.Expr, sp.Expr]] = {}
    nx, ny = _R + _U, _R + _V
    out["both outside"] = (_dist2(nx, ny, c) - _dist2(_R, _R, c),
                           (_U - _V) ** 2 + 2 * _W * (_R * _U + _R * _V + _U * _V))
    r_in = _Q + _P  # radius when the inside point has norm q <= r
    nx, ny = _Q, r_in + _V
    out["x inside, y outside"] = (_dist2(nx, ny, c) - _dist2(_Q, r_in, c),
                                  _V * (_V + 2 * _P + 2 * _Q * _W))
    out["both inside"] = (sp.Integer(0), sp.Integer(0))
    return out


def ball_toward_member_residuals() -> dict[str, tuple[sp.Expr, sp.Expr]]:
    """Residual ``|u - x|^2 - |P(u) - x|^2`` for ``x`` in the ball, with a certificate."""
    c = 1 - _W
    r_in = _Q + _P  # x has norm q <= r = q + p
    return {
        "u outside": (_dist2(r_in + _V, _Q, c) - _dist2(r_in, _Q, c), _V * (_V + 2 * _P + 2 * _Q * _W)),
        "u inside": (sp.Integer(0), sp.Integer(0)),
    }
