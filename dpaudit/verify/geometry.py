"""Case analyses of the 1-D clamp and of the projection onto a Euclidean ball, as reusable proof steps.

Every proof here is a case analysis by ordering (:meth:`dpaudit.verify.Region.orders`): each
ordering of the points and the interval's ends is a region written with non-negative slacks,
sympy evaluates the clamp from its definition (``Min``/``Max``) there, and the coverage of the
orderings is checked. For the ball, two points and the centre span a plane and the projection
moves each point along its ray, so every distance is a function of the two norms and the cosine
of the angle between the rays (law of cosines); that reduction is recorded as an assumed premise.

Examples
--------
>>> from dpaudit.verify import Proof
>>> from dpaudit.verify.geometry import prove_clamp_properties
>>> proof = Proof("example/clamp")
>>> prove_clamp_properties(proof)
>>> proof.result().verdict
<Verdict.PROVED: 'proved'>
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import sympy as sp

from dpaudit.verify.proof import Proof
from dpaudit.verify.regions import Region

__all__ = [
    "COS",
    "NORM_U",
    "NORM_X",
    "NORM_Y",
    "RADIUS",
    "A",
    "B",
    "X",
    "Y",
    "ball_regions",
    "clamp",
    "clamp_regions",
    "distance_sq",
    "prove_ball_nonexpansive",
    "prove_ball_toward_member",
    "prove_clamp_properties",
]

X, Y, A, B = sp.symbols("x y a b", real=True)
NORM_X, NORM_Y, NORM_U = sp.symbols("n_x n_y n_u", nonnegative=True)
RADIUS = sp.Symbol("r", positive=True)
COS = sp.Symbol("c", real=True)


def clamp(x: sp.Expr, low: sp.Expr, high: sp.Expr) -> sp.Expr:
    """``Pi_[low, high](x) = min(max(x, low), high)`` (Levy et al. 2021 section 2; Ghazi et al. 2025 Alg 2)."""
    return sp.Min(sp.Max(x, low), high)


def clamp_regions(*points: sp.Expr, low: sp.Expr = A, high: sp.Expr = B) -> list[Region]:
    """Every ordering of ``points`` and the ends ``low <= high``, as chain regions (12 for two points).

    Memoised, so repeated case analyses reuse the same slack symbols (and the deciders' memo).
    """
    return list(_clamp_regions(tuple(points), low, high))


@functools.lru_cache(maxsize=32)
def _clamp_regions(points: tuple[sp.Expr, ...], low: sp.Expr, high: sp.Expr) -> tuple[Region, ...]:
    return tuple(Region.orders([*points, low, high], domain=[sp.Le(low, high, evaluate=False)]))


def prove_clamp_properties(proof: Proof, prefix: str = "") -> None:
    """Record the case analysis of the 1-D clamp ``Pi = Pi_[a, b]`` (``a <= b``) on ``proof``.

    For all real ``x, y``: monotone ``(Pi(y) - Pi(x))(y - x) >= 0``; 1-Lipschitz
    ``|Pi(x) - Pi(y)| <= |x - y|``; range ``a <= Pi(x) <= b``; width ``|Pi(x) - Pi(y)| <= b - a``;
    idempotence ``Pi(Pi(x)) = Pi(x)``. No symmetry is assumed: all 12 orderings of ``x, y, a, b``
    are cases.
    """
    proof.given(f"{prefix}a <= b real, Pi(x) = min(max(x, a), b)")
    domain = [sp.Le(A, B, evaluate=False)]
    pairs = clamp_regions(X, Y)
    singles = clamp_regions(X)
    px, py = clamp(X, A, B), clamp(Y, A, B)
    proof.cases(f"{prefix}monotone: (Pi(y) - Pi(x)) (y - x) >= 0", (py - px) * (Y - X), pairs, domain=domain)
    proof.cases(f"{prefix}1-Lipschitz: |Pi(x) - Pi(y)| <= |x - y|", sp.Abs(X - Y) - sp.Abs(px - py), pairs, domain=domain)
    proof.cases(f"{prefix}range: a <= Pi(x)", px - A, singles, domain=domain)
    proof.cases(f"{prefix}range: Pi(x) <= b", B - px, singles, domain=domain)
    proof.cases(f"{prefix}width: |Pi(x) - Pi(y)| <= b - a", (B - A) - sp.Abs(px - py), pairs, domain=domain)
    proof.cases(f"{prefix}idempotent: Pi(Pi(x)) = Pi(x)", -(clamp(px, A, B) - px) ** 2, singles, domain=domain)


def distance_sq(n1: sp.Expr, n2: sp.Expr, cos: sp.Expr = COS) -> sp.Expr:
    """``|u - v|^2`` for vectors of norms ``n1``, ``n2`` at an angle of cosine ``cos`` (law of cosines)."""
    return n1**2 + n2**2 - 2 * n1 * n2 * cos


def ball_regions(*norms: sp.Expr, domain: Sequence[Any] = ()) -> list[Region]:
    """Every ordering of the ``norms`` and the radius, each with the cosine written ``c = 1 - w``, ``w >= 0``."""
    return [r.with_conditions(sp.Le(COS, 1, evaluate=False)) for r in Region.orders([*norms, RADIUS], domain=domain)]


def _plane_reduction(proof: Proof) -> None:
    proof.given("ball K = {z : ||z - c0||_2 <= r}, r > 0; P(z) = c0 + (z - c0) min(1, r/||z - c0||)")
    proof.assume("reduction to the plane", "z - c0 and z' - c0 span a plane and P moves each along its ray, so "
                 "||z - z'|| and ||P(z) - P(z')|| are functions of the two norms and the cosine c <= 1 of the angle "
                 "between the rays (law of cosines); P keeps the direction and maps a norm n to min(n, r)")


def prove_ball_nonexpansive(proof: Proof, prefix: str = "") -> None:
    """Record ``||P(x) - P(y)||_2 <= ||x - y||_2`` for the projection onto a Euclidean ball (any dimension)."""
    _plane_reduction(proof)
    residual = distance_sq(NORM_X, NORM_Y) - distance_sq(sp.Min(NORM_X, RADIUS), sp.Min(NORM_Y, RADIUS))
    proof.cases(f"{prefix}|x - y|^2 - |P(x) - P(y)|^2 >= 0", residual, ball_regions(NORM_X, NORM_Y),
                domain=[sp.Le(COS, 1, evaluate=False)])


def prove_ball_toward_member(proof: Proof, prefix: str = "") -> None:
    """Record ``||P(u) - x||_2 <= ||u - x||_2`` for every ``x`` in the ball (norm ``n_x <= r``)."""
    _plane_reduction(proof)
    residual = distance_sq(NORM_U, NORM_X) - distance_sq(sp.Min(NORM_U, RADIUS), NORM_X)
    member = sp.Le(NORM_X, RADIUS, evaluate=False)
    regions = ball_regions(NORM_U, NORM_X, domain=[member])
    proof.cases(f"{prefix}|u - x|^2 - |P(u) - x|^2 >= 0 for ||x|| <= r", residual, regions,
                domain=[member, sp.Le(COS, 1, evaluate=False)])
