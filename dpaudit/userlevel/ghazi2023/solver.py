"""Deterministic minimisers of the regularised ERM objectives, batched over problems.

One call solves ``P`` problems that share grouped data and differ in the weights of the groups
(which users remain after a deletion), the regulariser centre and the constraint balls:

    phi*_p = argmin_{phi in C_p} sum_g w_pg L_g(phi) / sum_g w_pg + (lam/2) ||phi - e_p||^2,

with ``L_g`` the mean unit-scale loss of group ``g`` and ``C_p`` an intersection of balls. ``f`` of
Alg 1 must be a deterministic function of the retained users (note P12); every branch below is.

How exact each branch is (``tau`` is the public tolerance of :func:`solver_tolerance`):

* squared loss, d = 1: closed form ``clip((b + lam e)/(A + lam), C)`` (a strictly convex quadratic
  on an interval): exact up to rounding;
* logistic loss, d = 1: bisection of the increasing derivative on the interval, to width ``tau``;
* squared loss, d > 1: the linear solve ``(A + lam I)^{-1}(b + lam e)`` when it lies in ``C``;
* otherwise accelerated projected gradient (V-FISTA, constant momentum) from the projection of the
  regulariser centre, stopped when the gradient mapping ``G`` at the extrapolated point gives
  ``||phi_out - phi*|| <= ||G|| / lam <= tau/2``, or after the a-priori iteration count of
  :func:`fista_iteration_bound`, after which the linear rate guarantees the same accuracy.

So ``||phi_out - phi*|| <= tau`` for every problem, including every sub-dataset Alg 1 touches: this
is what the certified fast path (ALG-C) needs. Privacy itself never depends on it: Alg 1 is
private for *any* deterministic ``f`` (Thm 3.3), and the solver's output is that ``f``.

References
----------
.. [Beck17] A. Beck. First-Order Methods in Optimization. SIAM, 2017, Thm 10.7 (the gradient-mapping
   inequality) and Sec. 10.7.7 (V-FISTA, Thm 10.42).
.. [GKKMMZ23] B. Ghazi, P. Kamath, R. Kumar, R. Meka, P. Manurangsi and C. Zhang. On user-level
   private convex optimization. ICML 2023.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import special

from dpaudit._validation import argument_error
from dpaudit.userlevel.ghazi2023.erm import ERMProblem, GroupedData

__all__ = ["MAX_FISTA_ITERATIONS", "Balls", "fista_iteration_bound", "group_gradients", "minimise", "project",
           "solver_tolerance"]

MAX_FISTA_ITERATIONS = 200_000
_NEVER = 2**62
"""Iteration cap of V-FISTA; a configuration whose a-priori bound exceeds it gets no certified fast path."""
_CHUNK_ELEMENTS = 1 << 23


@dataclass(frozen=True)
class Balls:
    """``P`` intersections of ``k`` balls in ``R^d``: centres ``(P, k, d)``, radii ``(P, k)``. Ball 0 is ``K``."""

    centres: NDArray[np.float64]
    radii: NDArray[np.float64]

    @staticmethod
    def of(problems: int, dim: int, *balls: tuple[NDArray[np.float64] | float, NDArray[np.float64] | float]) -> Balls:
        """``problems`` copies of the intersection of the given balls in ``R^dim``.

        Each ball is ``(centre, radius)``, with the centre a ``(dim,)`` or ``(problems, dim)`` array and
        the radius a number or a ``(problems,)`` array (broadcast to every problem).
        """
        centres = np.stack([np.broadcast_to(np.asarray(c, dtype=float), (problems, dim)) for c, _ in balls], axis=1)
        radii = np.stack([np.broadcast_to(np.asarray(r, dtype=float), (problems,)) for _, r in balls], axis=1)
        return Balls(np.ascontiguousarray(centres), np.ascontiguousarray(radii))

    def take(self, index: NDArray[np.int64]) -> Balls:
        """The problems selected by ``index``."""
        return Balls(self.centres[index], self.radii[index])


def solver_tolerance(problem: ERMProblem, reg: float, rtol: float = 1e-10) -> float:
    """The public accuracy ``tau`` (phi units): ``rtol`` times the scale of any minimiser.

    ``||phi*|| <= min(radius, G/lam)`` by first-order optimality, so this scale does not depend on data.
    """
    scale = min(problem.unit_radius, problem.unit_lipschitz(problem.unit_radius) / reg)
    return rtol * max(scale, 1e-300)


def fista_iteration_bound(problem: ERMProblem, reg: float, tau: float, balls_radius: float, centre_norm: float) -> int:
    """Iterations after which V-FISTA is within ``tau/2`` of the minimiser whatever the data [Beck17, Thm 10.42].

    ``F(x_k) - F* <= (1 - sqrt(q))^k (F(x_0) - F* + (lam/2)||x_0 - x*||^2)`` with ``q = lam/L``; the
    bracket is at most ``G_F D + lam D^2/2`` (``D`` the diameter of the feasible set, ``G_F`` the
    gradient bound on it), and ``(lam/2)||x_k - x*||^2 <= F(x_k) - F*``.
    """
    q = reg / (problem.unit_smoothness + reg)
    diam = 2.0 * balls_radius
    grad = problem.unit_lipschitz(problem.unit_radius) + reg * (problem.unit_radius + centre_norm)
    try:  # in logs: the public numbers may be extreme (unit scale of a domain near the float limits)
        log_start = float(np.logaddexp(math.log(grad) + math.log(diam), math.log(0.5 * reg) + 2.0 * math.log(diam)))
        log_target = math.log(0.5 * reg) + 2.0 * math.log(tau / 2.0)
    except (ValueError, OverflowError):
        return _NEVER
    gap = log_start - log_target
    if not math.isfinite(gap) or q <= 0.0:
        return _NEVER
    return 1 if gap <= 0 else int(min(gap / math.sqrt(q), float(_NEVER))) + 1


# -- projections ---------------------------------------------------------------------------------


def _norm(v: NDArray[np.float64]) -> NDArray[np.float64]:
    """Row norms without overflow of the squares: ``max|v| * ||v / max|v|||`` (inf only when the norm itself is)."""
    top = np.max(np.abs(v), axis=-1)
    safe = np.where(top > 0, top, 1.0)
    with np.errstate(over="ignore"):
        return top * np.sqrt(np.sum((v / safe[..., None]) ** 2, axis=-1))


def _project_ball(x: NDArray[np.float64], c: NDArray[np.float64], r: NDArray[np.float64]) -> NDArray[np.float64]:
    v = x - c
    top = np.max(np.abs(v), axis=-1, keepdims=True)
    unit = v / np.where(top > 0, top, 1.0)  # the direction, at unit scale (no overflow in the norm)
    length = np.sqrt(np.sum(unit**2, axis=-1, keepdims=True))
    outside = top * length > r[..., None]
    return np.where(outside, c + unit * (r[..., None] / np.where(length > 0, length, 1.0)), x)


def _inside(x: NDArray[np.float64], c: NDArray[np.float64], r: NDArray[np.float64], slack: float = 1e-12) -> NDArray[np.bool_]:
    return _norm(x - c) <= r * (1.0 + slack) + slack


def _project_two(x: NDArray[np.float64], c1: NDArray[np.float64], r1: NDArray[np.float64], c2: NDArray[np.float64],
                 r2: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Exact projection onto ``B(c1, r1) ∩ B(c2, r2)``; the second output flags empty intersections."""
    out = _project_ball(x, c1, r1)
    ok2 = _inside(out, c2, r2)
    q2 = _project_ball(x, c2, r2)
    use2 = ~ok2 & _inside(q2, c1, r1)
    out = np.where(use2[:, None], q2, out)
    rest = ~ok2 & ~use2
    u = c2 - c1
    dist = _norm(u)
    empty = dist > r1 + r2
    circle = rest & ~empty
    if circle.any():
        # the projection lies on the intersection of the two spheres: centre c0 on the axis, radius rho
        uh = u[circle] / dist[circle, None]
        a = (dist[circle] ** 2 + r1[circle] ** 2 - r2[circle] ** 2) / (2.0 * dist[circle])
        rho = np.sqrt(np.maximum(r1[circle] ** 2 - a**2, 0.0))
        c0 = c1[circle] + a[:, None] * uh
        w = x[circle] - c0
        w_perp = w - np.sum(w * uh, axis=-1, keepdims=True) * uh
        norm = np.linalg.norm(w_perp, axis=-1, keepdims=True)
        # a fixed direction orthogonal to the axis when x lies on the axis (deterministic tie-break)
        e = np.zeros_like(uh)
        e[np.arange(len(uh)), np.argmin(np.abs(uh), axis=-1)] = 1.0
        fallback = e - np.sum(e * uh, axis=-1, keepdims=True) * uh
        direction = np.where(norm > 0, w_perp / np.where(norm > 0, norm, 1.0), fallback / np.linalg.norm(fallback, axis=-1,
                                                                                                           keepdims=True))
        out[circle] = c0 + rho[:, None] * direction
    return out, empty


def project(x: NDArray[np.float64], balls: Balls) -> NDArray[np.float64]:
    """Project each row of ``x`` (``(P, d)``) onto its intersection of balls.

    Exact for d = 1 (intervals) and for at most two balls; three or more (only under
    ``preset="paper"`` in Algorithms 5-6) use Dykstra's alternating projections for a fixed number of
    sweeps. When an intersection is empty, which only the printed algorithms can produce (E6: the
    previous iterate left ``K``), the printed step is undefined and the projection onto ball 0 (``K``)
    is returned instead.
    """
    c, r = balls.centres, balls.radii
    k = r.shape[1]
    if x.shape[1] == 1:
        lo = np.max(c[..., 0] - r, axis=1)
        hi = np.min(c[..., 0] + r, axis=1)
        empty = lo > hi
        lo = np.where(empty, c[:, 0, 0] - r[:, 0], lo)
        hi = np.where(empty, c[:, 0, 0] + r[:, 0], hi)
        return np.clip(x, lo[:, None], hi[:, None])
    if k == 1:
        return _project_ball(x, c[:, 0], r[:, 0])
    if k == 2:
        out, empty = _project_two(x, c[:, 0], r[:, 0], c[:, 1], r[:, 1])
        return np.where(empty[:, None], _project_ball(x, c[:, 0], r[:, 0]), out)
    y = x.copy()
    incr = np.zeros((k, *x.shape))
    for _ in range(500):  # Dykstra [Boyle-Dykstra 1986]; fixed sweeps keep the map deterministic
        for j in range(k):
            prev = y + incr[j]
            y = _project_ball(prev, c[:, j], r[:, j])
            incr[j] = prev - y
    feasible = np.all([_inside(y, c[:, j], r[:, j], 1e-9) for j in range(k)], axis=0)
    return np.where(feasible[:, None], _project_ball(y, c[:, 0], r[:, 0]), _project_ball(x, c[:, 0], r[:, 0]))


# -- gradients -----------------------------------------------------------------------------------


def _squared_moments(owner: str, groups: GroupedData) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The per-type moments ``(A, b)`` the squared loss needs (:class:`GroupedData` computes them for it)."""
    if groups.second_moment is None or groups.cross_moment is None:
        raise argument_error(owner, "groups", "grouped for the squared loss (with its per-type moments)", None)
    return groups.second_moment, groups.cross_moment


def group_gradients(problem: ERMProblem, groups: GroupedData, phi: NDArray[np.float64]) -> NDArray[np.float64]:
    """Mean unit-scale data-loss gradient of every group at every point: ``(P, g, d)`` for ``phi`` ``(P, d)``."""
    if problem.is_squared:
        second, cross = _squared_moments("group_gradients", groups)
        return np.einsum("gij,pj->pgi", second, phi) - cross[None]
    x, y, w = groups.features, groups.labels, groups.item_weights
    margin = np.einsum("gkd,pd->pgk", x, phi)
    slope = -y[None] * special.expit(-y[None] * margin)  # d/dmargin log(1 + e^{-y margin})
    return np.einsum("pgk,gk,gkd->pgd", slope, w, x)


def _data_gradient(problem: ERMProblem, groups: GroupedData, weights: NDArray[np.float64],
                   phi: NDArray[np.float64], moments: tuple[NDArray[np.float64], NDArray[np.float64]] | None) -> NDArray[np.float64]:
    if moments is not None:
        a, b = moments
        return np.einsum("pij,pj->pi", a, phi) - b
    return np.einsum("pg,pgd->pd", weights, group_gradients(problem, groups, phi))


# -- the minimiser -------------------------------------------------------------------------------


def minimise(problem: ERMProblem, groups: GroupedData, weights: NDArray[np.float64], *, reg: float,
             centre: NDArray[np.float64], balls: Balls, tau: float) -> NDArray[np.float64]:
    """``P`` minimisers (``(P, d)``, phi units); ``weights`` ``(P, g)`` (normalised here), ``centre`` ``(P, d)``.

    ``reg > 0`` is the total regulariser coefficient (strong convexity) and ``centre`` the point it
    pulls towards. See the module docstring for the accuracy of each branch.
    """
    p, d = centre.shape
    w = np.asarray(weights, dtype=float)
    w = np.broadcast_to(w, (p, groups.n_types)) / np.sum(w, axis=-1, keepdims=True)
    per = max(1, groups.n_types * (groups.features.shape[1] if not problem.is_squared else d * d))
    chunk = max(1, _CHUNK_ELEMENTS // per)
    if p > chunk:
        parts = [minimise(problem, groups, w[i:i + chunk], reg=reg, centre=centre[i:i + chunk],
                          balls=Balls(balls.centres[i:i + chunk], balls.radii[i:i + chunk]), tau=tau)
                 for i in range(0, p, chunk)]
        return np.concatenate(parts, axis=0)
    if problem.is_squared:
        second, cross = _squared_moments("minimise", groups)
        a = np.einsum("pg,gij->pij", w, second)
        b = np.einsum("pg,gi->pi", w, cross)
        rhs = b + reg * centre
        if d == 1:
            return project(rhs / (a[:, :, 0] + reg), balls)  # exact: 1-d strictly convex quadratic
        try:
            sol = np.linalg.solve(a + reg * np.eye(d), rhs[..., None])[..., 0]
            inside = np.all([_inside(sol, balls.centres[:, j], balls.radii[:, j], 0.0)
                             for j in range(balls.radii.shape[1])], axis=0)
        except np.linalg.LinAlgError:  # numerically singular (reg below the rounding of A): the iterative branch
            sol, inside = np.zeros((p, d)), np.zeros(p, dtype=bool)
        if inside.all():
            return sol
        out = sol.copy()
        idx = np.flatnonzero(~inside)
        sub = Balls(balls.centres[idx], balls.radii[idx])
        out[idx] = _fista(problem, groups, w[idx], reg, centre[idx], sub, tau, (a[idx], b[idx]))
        return out
    if d == 1:
        return _bisect(problem, groups, w, reg, centre, balls, tau)
    return _fista(problem, groups, w, reg, centre, balls, tau, None)


def _bisect(problem: ERMProblem, groups: GroupedData, w: NDArray[np.float64], reg: float, centre: NDArray[np.float64],
            balls: Balls, tau: float) -> NDArray[np.float64]:
    """1-d: the minimiser over ``[lo, hi]`` of a strictly convex function, by bisection of its derivative."""
    c, r = balls.centres[..., 0], balls.radii
    lo, hi = np.max(c - r, axis=1), np.min(c + r, axis=1)
    empty = lo > hi
    lo, hi = np.where(empty, c[:, 0] - r[:, 0], lo), np.where(empty, c[:, 0] + r[:, 0], hi)

    def slope(at: NDArray[np.float64]) -> NDArray[np.float64]:
        return _data_gradient(problem, groups, w, at[:, None], None)[:, 0] + reg * (at - centre[:, 0])

    left, right = lo.copy(), hi.copy()
    at_lo, at_hi = slope(lo) >= 0, slope(hi) <= 0
    width = max(float(np.max(hi - lo)), tau)
    steps = math.ceil(math.log2(width) - math.log2(tau)) + 1  # halvings to width tau (logs: no overflow)
    for _ in range(steps):
        mid = 0.5 * (left + right)
        up = slope(mid) > 0
        right = np.where(up, mid, right)
        left = np.where(up, left, mid)
    out = np.where(at_lo, lo, np.where(at_hi, hi, 0.5 * (left + right)))
    return out[:, None]


def _fista(problem: ERMProblem, groups: GroupedData, w: NDArray[np.float64], reg: float, centre: NDArray[np.float64],
           balls: Balls, tau: float, moments: tuple[NDArray[np.float64], NDArray[np.float64]] | None) -> NDArray[np.float64]:
    """V-FISTA with the gradient-mapping stop (see the module docstring) [Beck17, Sec. 10.7.7]."""
    big_l = problem.unit_smoothness + reg
    sq = math.sqrt(reg / big_l)
    momentum = (1.0 - sq) / (1.0 + sq)
    radius = float(np.min(balls.radii))
    cap = min(MAX_FISTA_ITERATIONS, fista_iteration_bound(problem, reg, tau, radius, float(np.max(np.linalg.norm(centre, axis=1)))))
    x = project(centre.copy(), balls)
    y = x.copy()
    out = x.copy()
    active = np.ones(len(x), dtype=bool)
    for _ in range(cap):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        sub = Balls(balls.centres[idx], balls.radii[idx])
        mom = None if moments is None else (moments[0][idx], moments[1][idx])
        grad = _data_gradient(problem, groups, w[idx], y[idx], mom) + reg * (y[idx] - centre[idx])
        x_new = project(y[idx] - grad / big_l, sub)
        mapping = big_l * np.linalg.norm(y[idx] - x_new, axis=1)
        done = mapping / reg <= tau / 2.0  # ||x_new - x*|| <= ||G(y)||/lam [Beck17, Thm 10.7 with strong convexity]
        out[idx] = x_new
        y[idx] = x_new + momentum * (x_new - x[idx])
        x[idx] = x_new
        active[idx[done]] = False
    return out
