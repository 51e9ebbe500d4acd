"""The proof routes of :func:`dpaudit.verify.lipschitz.lipschitz` on symbolic maps.

Each route builds obligations ``L ||x - y||_p - ||f(x) - f(y)||_p >= 0`` (or their pieces) on the pair
``(x, y)`` and hands them to the trusted kernel through :class:`~dpaudit.verify.proof.Proof`: the kernel on the
whole residual, the radial route, the case split over kinks, or (for C^1 maps on convex sets) the mean value
inequality with a Jacobian bound. Moved out of :mod:`.lipschitz`, which parses the user's input and reports.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import sympy as sp

from dpaudit.verify.box import ExactBox
from dpaudit.verify.decide import decision, exact_sign
from dpaudit.verify.kernel import NotSmooth, c1_conditions
from dpaudit.verify.piecewise import case_split
from dpaudit.verify.proof import Proof
from dpaudit.verify.radial import by_radial
from dpaudit.verify.regions import le, lt
from dpaudit.verify.verdict import Verdict

__all__: list[str] = []  # helpers of dpaudit.verify.lipschitz, which imports them by name

_MEAN_VALUE = ("mean value inequality",
               "a C^1 map whose Jacobian satisfies ||J(z)||_{p->p} <= L at every z of a convex set is L-Lipschitz "
               "there in the p-norm (integrate J along the segment; e.g. Rudin, Principles of Mathematical "
               "Analysis, Thm 9.19)")


def _point_labels(parameters: set[str]) -> tuple[str, str]:
    """The names of the two points in the printed claim and counterexample.

    ``x, y``, unless a parameter has one of these names (``f = y x`` with a parameter ``y``), then the first free
    pair of ``u, v``, ``p, q``, ``z1, z2``, ``x1, y1``...
    """
    for pair in (("x", "y"), ("u", "v"), ("p", "q"), ("z1", "z2")):
        if not set(pair) & parameters:
            return pair
    k = 1
    while {f"x{k}", f"y{k}"} & parameters:
        k += 1
    return f"x{k}", f"y{k}"


def _second_point(xs: Sequence[sp.Symbol], taken: set[str]) -> list[sp.Symbol]:
    """Copies ``x'`` of the inputs for the second point, named apart from every symbol of the claim.

    A parameter already called ``x'`` gets ``x''``: the pair residual must not identify two
    different quantities.
    """
    taken = set(taken)
    out = []
    for v in xs:
        name = v.name + "'"
        while name in taken:
            name += "'"
        taken.add(name)
        out.append(sp.Symbol(name, **v.assumptions0))
    return out


def _pair_residuals(exprs: list[sp.Expr], xs: list[sp.Symbol], to_y: Mapping[sp.Symbol, sp.Symbol], L: sp.Expr,
                    p: float) -> list[tuple[str, sp.Expr]]:
    """Residuals ``>= 0`` that together are the claim, split per component where that is exact."""
    deps = [[v for v in xs if v in e.free_symbols] for e in exprs]
    gaps = [e - e.xreplace(dict(to_y)) for e in exprs]

    def dist(vs: Sequence[sp.Symbol]) -> sp.Expr:
        d = [v - to_y[v] for v in vs]
        if len(d) == 1:
            return sp.Abs(d[0])
        if p == 1:
            return sp.Add(*(sp.Abs(t) for t in d))
        if p == math.inf:
            return sp.Max(*(sp.Abs(t) for t in d))
        return sp.sqrt(sp.Add(*(t**2 for t in d)))

    disjoint = all(not (set(a) & set(b)) for a, b in itertools.combinations(deps, 2))
    if p == math.inf or disjoint or len(exprs) == 1:
        out = []
        for i, (dep, gap) in enumerate(zip(deps, gaps, strict=True)):
            if not dep:
                continue  # a component that does not depend on the inputs cannot move
            lhs = sp.Abs(gap)
            if p == 2 and len(dep) > 1:
                out.append((f"component {i}: {L}^2 ||x - y||^2 - |f_{i}(x) - f_{i}(y)|^2 >= 0",
                            L**2 * sp.Add(*((v - to_y[v]) ** 2 for v in dep)) - gap**2))
            else:
                out.append((f"component {i}: {L} |x - y| - |f_{i}(x) - f_{i}(y)| >= 0 (inputs {', '.join(map(str, dep))})",
                            L * dist(dep) - lhs))
        return out
    used = [v for v in xs if any(v in d for d in deps)]
    if p == 1:
        return [("joint: L ||x - y||_1 - ||f(x) - f(y)||_1 >= 0", L * dist(used) - sp.Add(*(sp.Abs(g) for g in gaps)))]
    return [("joint: L^2 ||x - y||_2^2 - ||f(x) - f(y)||_2^2 >= 0",
             L**2 * sp.Add(*((v - to_y[v]) ** 2 for v in used)) - sp.Add(*(g**2 for g in gaps)))]


def _by_cases(proof: Proof, exprs: list[sp.Expr], xs: list[sp.Symbol], to_y: Mapping[sp.Symbol, sp.Symbol],
              L: sp.Expr, p: float, pair_domain: list[Any]) -> list[tuple[sp.Expr, list[Any]]]:
    """Case split of each pair residual; returns the residuals with their cells (for the refutation)."""
    residuals = _pair_residuals(exprs, xs, to_y, L, p)
    if len(residuals) > 1:
        _split_per_component(proof, exprs, xs, p)
    split = []
    for label, residual in residuals:
        cells, relations = case_split(residual, [h for h in pair_domain if h.free_symbols & residual.free_symbols])
        proof.cases(label, residual, cells, domain=relations)
        split.append((residual, cells))
    return split


def _split_per_component(proof: Proof, exprs: list[sp.Expr], xs: list[sp.Symbol], p: float) -> None:
    """Record why the claim splits into one claim per component.

    In l-infinity it is the claim for every component against the largest input gap (a definition: given); in l1
    or l2 the components must depend on disjoint inputs, so the norms add up: the number of inputs shared by two
    components, counted exactly, is 0 (an exact step).
    """
    deps = [{v for v in xs if v in e.free_symbols} for e in exprs]
    shown = {i: sorted(map(str, d)) for i, d in enumerate(deps)}
    if p == math.inf:
        proof.given(f"split per component: the l-infinity claim is the claim for every component against the largest "
                    f"input gap (inputs per component: {shown})")
        return
    shared = sum(len(deps[i] & deps[j]) for i in range(len(deps)) for j in range(i + 1, len(deps)))
    proof.exact(f"split per component: the components depend on disjoint inputs, so the norms add up component by "
                f"component (inputs per component: {shown})", sp.Eq(sp.Integer(shared), 0, evaluate=False),
                counterexample={"inputs per component": shown})


def _assumption_relations(v: sp.Symbol) -> list[Any]:
    """A symbol's sign assumption as a relation (``positive=True`` is ``0 < x``): part of the claim's domain."""
    table = {"positive": lt(0, v), "nonnegative": le(0, v), "negative": lt(v, 0), "nonpositive": le(v, 0)}
    return [rel for key, rel in table.items() if v.assumptions0.get(key) is True][:1]


def _by_kernel(proof: Proof, exprs: list[sp.Expr], xs: list[sp.Symbol], to_y: Mapping[sp.Symbol, sp.Symbol],
               L: sp.Expr, p: float, pair_domain: list[Any]) -> bool:
    """The pair residuals decided by the kernel at once (Z3 reads Max, Min, Abs, Piecewise exactly); True if all PROVED."""
    residuals = _pair_residuals(exprs, xs, to_y, L, p)
    decisions = [(label, r, decision(r, ">=", pair_domain)) for label, r in residuals]
    for _, _, d in decisions:
        if d.counterexample:  # a pair the kernel re-checked: the refutation records it (the pair residual is the claim)
            proof.kernel_points.append(dict(d.counterexample))
    if not all(d.verdict is Verdict.PROVED for _, _, d in decisions):
        return False
    if len(residuals) > 1:
        _split_per_component(proof, exprs, xs, p)
    for label, r, d in decisions:
        _step(proof, f"{label} ({d.method})", r, pair_domain)
    return True


def _by_radial(proof: Proof, exprs: list[sp.Expr], xs: list[sp.Symbol], to_y: Mapping[sp.Symbol, sp.Symbol],
               L: sp.Expr, p: float, low: np.ndarray | None, where: list[Any]) -> bool:
    """A radial map ``x G(||x||)`` in l2 on all of R^n (or ``where`` conditions on the norm); True if proved.

    The pair residual is reduced to ``(||x||, ||y||, <x, y>)`` (:mod:`dpaudit.verify.radial`).
    """
    residuals = _pair_residuals(exprs, xs, to_y, L, p)
    if p != 2 or low is not None or len(residuals) != 1:
        return False
    return by_radial(proof, exprs, xs, dict(to_y), L, residuals[0][1], where)


def _step(proof: Proof, label: str, residual: sp.Expr, hypotheses: list[Any]) -> None:
    """A proof step ``residual >= 0``.

    A residual that is already a number (a constant Jacobian, a map equal to its own bound) is a
    fact about that number, decided exactly.
    """
    if not sp.sympify(residual).free_symbols and exact_sign(residual) in (0, 1):
        proof.exact(f"{label} (the residual is the number {residual})", sp.Ge(residual, 0, evaluate=False))
    else:
        proof.nonneg(label, residual, hypotheses=hypotheses)


def _c1_conditions(exprs: list[sp.Expr]) -> list[Any] | None:
    """The conditions under which the map is C^1 (the kernel's whitelist), or None if it is not on it."""
    try:
        return [c for e in exprs for c in c1_conditions(e)]
    except NotSmooth:
        return None


def _convex(hypotheses: list[Any], xs: list[sp.Symbol]) -> bool:
    """Is the set of inputs cut out by the hypotheses convex (each an inequality or equation linear in the inputs)?"""
    for h in hypotheses:
        if not (h.free_symbols & set(xs)):
            continue
        if isinstance(h, sp.Unequality) or not isinstance(h, sp.core.relational.Relational):
            return False
        diff = sp.expand(h.lhs - h.rhs)
        if not all(sp.diff(diff, v).free_symbols.isdisjoint(xs) for v in xs):
            return False  # not linear in the inputs
    return True


def _sign_vectors(k: int) -> Iterable[tuple[int, ...]]:
    return itertools.product((1, -1), repeat=k)


def _by_gradient(proof: Proof, exprs: list[sp.Expr], xs: list[sp.Symbol], L: sp.Expr, p: float,
                 hypotheses: list[Any], box: ExactBox | None, smooth: list[Any]) -> None:
    """The mean value inequality: a C^1 map whose Jacobian's operator norm is ``<= L`` is ``L``-Lipschitz.

    The map must be C^1 (the kernel's whitelist, its conditions proved on the domain) on a convex
    domain, with the Jacobian bound everywhere.
    """
    conditions = list(hypotheses)
    if box is not None:  # the open box; the closed box follows by continuity (the map is C^1, hence continuous)
        conditions = [h for h in hypotheses if not any(h.has(v) for v in xs)]
        conditions += [rel for v, lo, hi in zip(xs, box.low, box.high, strict=True) for rel in (lt(lo, v), lt(v, hi))]
    if not _convex(conditions, xs):
        proof.unproved("the mean value inequality", "the domain cut out by the hypotheses on the inputs is not shown convex")
        return
    for c in smooth:
        residual = c.lhs - c.rhs if isinstance(c, sp.StrictGreaterThan) else sp.Abs(c.lhs - c.rhs)
        proof.positive(f"C^1 on the domain: {c} (kernel's whitelist of C^1 functions)", residual, hypotheses=conditions)
    proof.cite(*_MEAN_VALUE)
    jac = [[sp.diff(e, v) for v in xs] for e in exprs]
    steps: list[tuple[str, sp.Expr]] = []
    if p == math.inf:
        for i, row in enumerate(jac):
            nz = [g for g in row if g != 0]
            steps.extend((f"row {i}: sum_j s_j dF_{i}/dx_j <= {L} for signs {s}", L - sp.Add(*(si * g for si, g in zip(s, nz, strict=True))))
                         for s in _sign_vectors(len(nz)))
    elif p == 1:
        for j in range(len(xs)):
            col = [jac[i][j] for i in range(len(exprs)) if jac[i][j] != 0]
            steps.extend((f"column {j}: sum_i s_i dF_i/dx_{j} <= {L} for signs {s}", L - sp.Add(*(si * g for si, g in zip(s, col, strict=True))))
                         for s in _sign_vectors(len(col)))
    elif len(exprs) == 1 or len(xs) == 1:
        steps.append((f"||J||_2 = l2 norm of the {'gradient' if len(exprs) == 1 else 'derivative'} <= {L}",
                      L**2 - sp.Add(*(g**2 for row in jac for g in row))))
    else:
        # ||J u||^2 <= L^2 ||u||^2 for every direction u: L^2 I - J^T J is PSD, decided exactly (no sufficient test)
        us = [sp.Dummy(f"u{j}", real=True) for j in range(len(xs))]  # a Dummy: never equal to a symbol of the map
        ju = [sp.Add(*(g * u for g, u in zip(row, us, strict=True))) for row in jac]
        steps.append((f"||J u||_2^2 <= {L}^2 ||u||_2^2 for every u (L^2 I - J^T J is PSD)",
                      L**2 * sp.Add(*(u**2 for u in us)) - sp.Add(*(t**2 for t in ju))))
    for label, residual in steps:
        _step(proof, label, residual, conditions)
