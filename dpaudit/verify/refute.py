"""Exact counterexample pairs for a Lipschitz claim about a sympy map (used by :func:`dpaudit.verify.lipschitz`).

Candidates come from the cells of a case split that were not proved (exact points of each cell) and from a
numerical search on the lambdified map (:mod:`dpaudit.verify.search`); every candidate is re-checked in exact
arithmetic, with the claim's hypotheses verified at the point, before :meth:`Proof.refute` records it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp
from sympy.core.evalf import PrecisionExhausted

from dpaudit.verify.cells import cell_points
from dpaudit.verify.decide import approx, exact_sign, plain
from dpaudit.verify.proof import Proof
from dpaudit.verify.search import search_pairs
from dpaudit.verify.verdict import APPROX, Verdict

__all__ = ["as_fraction", "refute_lipschitz"]


def as_fraction(value: sp.Expr) -> Fraction:
    """A positive sympy number as a Fraction (exact for rationals, 30 digits otherwise)."""
    if value.is_Rational:
        return Fraction(int(value.p), int(value.q))
    return Fraction(approx(value))


def _exact_values(values: Iterable[float], simplify: bool) -> list[sp.Rational]:
    out = []
    for v in values:
        exact = sp.Rational(float(v))
        out.append(sp.Rational(Fraction(float(v)).limit_denominator(1000)) if simplify else exact)
    return out


def _margin(exprs: list[sp.Expr], xs: list[sp.Symbol], params: list[sp.Symbol], L: sp.Expr, p: float,
            xv: Sequence[sp.Expr], yv: Sequence[sp.Expr], pv: Mapping[sp.Symbol, sp.Expr]) -> tuple[sp.Expr, list[sp.Expr], list[sp.Expr]]:
    """``L ||x - y|| - ||f(x) - f(y)||`` (squared norms for l2 in several coordinates), exactly, and ``f`` at both points."""
    at_x = {**dict(zip(xs, xv, strict=True)), **pv}
    at_y = {**dict(zip(xs, yv, strict=True)), **pv}
    fx = [sp.sympify(e).xreplace(at_x) for e in exprs]
    fy = [sp.sympify(e).xreplace(at_y) for e in exprs]
    dx = [a - b for a, b in zip(xv, yv, strict=True)]
    df = [a - b for a, b in zip(fx, fy, strict=True)]
    if p == 1 or (len(dx) == 1 and len(df) == 1):  # one coordinate: every norm is |.|
        margin = L * sp.Add(*map(sp.Abs, dx)) - sp.Add(*map(sp.Abs, df))
    elif p == math.inf:
        margin = L * sp.Max(*map(sp.Abs, dx)) - sp.Max(*map(sp.Abs, df))
    else:
        margin = L**2 * sp.Add(*(d**2 for d in dx)) - sp.Add(*(d**2 for d in df))
    return margin, fx, fy


def _try_pair(proof: Proof, exprs: list[sp.Expr], xs: list[sp.Symbol], ys: list[sp.Symbol], params: list[sp.Symbol], L: sp.Expr,
              p: float, xv: Sequence[sp.Expr], yv: Sequence[sp.Expr], pv: Mapping[sp.Symbol, sp.Expr], pair_domain: list[Any],
              how: str, labels: tuple[str, str] = ("x", "y")) -> bool:
    L = sp.sympify(L).xreplace(dict(pv))  # a symbolic constant takes the parameters' values
    try:
        margin, fx, fy = _margin(exprs, xs, params, L, p, xv, yv, pv)
        sign = exact_sign(margin) if not margin.free_symbols else None
    except PrecisionExhausted:  # sympy's own evaluation gave up on this point: drop the candidate (a search only refutes)
        return False
    if sign is None or sign >= 0:
        return False
    at = {**dict(zip(xs, xv, strict=True)), **dict(zip(ys, yv, strict=True)), **pv}
    conditions = {str(h): _relation_at(h, at) for h in pair_domain}
    dx = [a - b for a, b in zip(xv, yv, strict=True)]
    df = [a - b for a, b in zip(fx, fy, strict=True)]
    norm_dx = _exact_norm_value(dx, p)
    norm_df = _exact_norm_value(df, p)
    a, b = labels  # the two points' names in the claim, apart from every parameter's name (a parameter may be called y)
    counterexample = {a: [plain(v) for v in xv], b: [plain(v) for v in yv], **{str(k): plain(v) for k, v in pv.items()},
                      f"f({a})": [plain(v) for v in fx], f"f({b})": [plain(v) for v in fy],
                      f"|f({a}) - f({b})|": plain(norm_df), f"L |{a} - {b}|": plain(L * norm_dx),
                      APPROX: {f"|f({a}) - f({b})|": approx(norm_df), f"L |{a} - {b}|": approx(L * norm_dx)}}
    return proof.refute(f"pair found by {how}: ||f({a}) - f({b})|| > {L} ||{a} - {b}||", counterexample, margin,
                        conditions=conditions)


def _exact_norm_value(d: Sequence[sp.Expr], p: float) -> sp.Expr:
    if p == 1:
        return sp.Add(*map(sp.Abs, d))
    if p == math.inf:
        return sp.Max(*map(sp.Abs, d))
    return sp.sqrt(sp.Add(*(t**2 for t in d)))


def _parameter_settings(params: list[sp.Symbol], where: list[Any], rng: np.random.Generator, count: int = 3) -> list[dict[sp.Symbol, sp.Expr]]:
    if not params:
        return [{}]
    settings: list[dict[sp.Symbol, sp.Expr]] = []
    for _ in range(200):
        raw = rng.standard_normal(len(params)) * 10.0 ** rng.integers(-1, 3, size=len(params))
        vals = {}
        for s, v in zip(params, raw, strict=True):
            v = abs(v) if (s.is_nonnegative or s.is_positive) else v
            vals[s] = sp.Rational(Fraction(float(v)).limit_denominator(100)) + (sp.Rational(1, 100) if s.is_positive and v == 0 else 0)
            if s.is_integer:
                vals[s] = sp.Integer(max(1, round(abs(float(v))))) if s.is_positive else sp.Integer(round(float(v)))
        if all(_holds_at(w, vals) for w in where if not (w.free_symbols - set(params))):
            settings.append(vals)
        if len(settings) >= count:
            break
    return settings


def _relation_at(relation: Any, values: Mapping[sp.Symbol, sp.Expr]) -> Any:
    """``relation`` at ``values``, or ``false`` where a side is not real.

    Sympy refuses to compare a non-real side (``sqrt(a) < -1`` at ``a < 0``): such a point is no counterexample, and
    a search only refutes, so dropping it is safe.
    """
    try:
        return relation.xreplace(dict(values))
    except TypeError:  # sympy: "Invalid comparison of non-real ..."
        return sp.false


def _holds_at(relation: Any, values: Mapping[sp.Symbol, sp.Expr]) -> bool:
    """Does ``relation`` hold exactly at ``values`` (see :func:`_relation_at`)?"""
    return _holds_exactly(_relation_at(relation, values))


def _holds_exactly(relation: Any) -> bool:
    if relation in (sp.true, True):
        return True
    if relation in (sp.false, False) or not isinstance(relation, sp.core.relational.Relational):
        return False
    sign = exact_sign(relation.lhs - relation.rhs) if not (relation.lhs - relation.rhs).free_symbols else None
    if sign is None:
        return False
    if isinstance(relation, sp.Equality):
        return sign == 0
    strict = isinstance(relation, (sp.StrictLessThan, sp.StrictGreaterThan))
    below = isinstance(relation, (sp.LessThan, sp.StrictLessThan))
    s = sign if below else -sign
    return s < 0 or (s == 0 and not strict)


def refute_lipschitz(proof: Proof, split: list[tuple[sp.Expr, list[Any]]], exprs: list[sp.Expr], xs: list[sp.Symbol],
            ys: list[sp.Symbol], params: list[sp.Symbol], L: sp.Expr,
            p: float, low: np.ndarray | None, high: np.ndarray | None, where: list[Any], pair_domain: list[Any],
            rng: np.random.Generator, budget: int | None, tol: Fraction, labels: tuple[str, str] = ("x", "y")) -> dict[str, Any]:
    """Look for an exact counterexample pair.

    First points of the cells that were not proved, then a numerical search on the lambdified map;
    each candidate is re-checked in exact arithmetic. ``labels`` name the two points in the record.
    """
    result_so_far = proof.result()
    by_name = {str(s): s for s in (*xs, *ys, *params)}
    for point in proof.kernel_points:  # pairs the kernel found on the pair residual
        if set(point) & {str(v) for v in (*xs, *ys)}:
            # a component's pair: the coordinates it does not involve are equal in x and y (0 here)
            exact = {s: sp.Integer(0) for s in (*xs, *ys)}
            exact.update({by_name[k]: sp.Rational(v) for k, v in point.items() if k in by_name})
            pv = {s: exact.get(s, sp.Integer(1)) for s in params}
            if _try_pair(proof, exprs, xs, ys, params, L, p, [exact[v] for v in xs], [exact[v] for v in ys], pv, pair_domain,
                         "the kernel (Z3, re-checked exactly)", labels):
                return {"found in": "the kernel"}
    if result_so_far.verdict is not Verdict.PROVED:
        for residual, cells in split:
            for cell in cells:
                for point in cell_points(cell, [*xs, *ys, *params], rng, count=2):
                    try:
                        value = residual.xreplace(point)
                    except (ValueError, TypeError):  # sympy refuses the point (Min(1, zoo) at a division by 0): no pair here
                        continue
                    if value.free_symbols:
                        continue
                    if value.is_number and exact_sign(value) == -1:
                        pv = {s: point[s] for s in params}
                        if _try_pair(proof, exprs, xs, ys, params, L, p, [point[v] for v in xs], [point[v] for v in ys], pv,
                                     pair_domain, f"the case {cell.name}", labels):
                            return {"found in": f"the case {cell.name}"}
    fn = sp.lambdify([*xs, *params], exprs, modules="numpy")
    per = budget or (600 if result_so_far.verdict is not Verdict.PROVED else 200)
    evidence: dict[str, Any] = {"parameter settings": 0, "pairs searched": 0, "largest ratio (after the tolerance)": 0.0}
    for pv in _parameter_settings(params, where, rng):
        pvals = [float(pv[s]) for s in params]
        inputs_where = [w.xreplace(pv) for w in where if w.free_symbols & set(xs)]

        def f(v: np.ndarray, _pvals: list[float] = pvals) -> np.ndarray:
            with np.errstate(all="ignore"):
                return np.asarray(fn(*v, *_pvals), dtype=float)

        L_here = sp.sympify(L).xreplace(pv)
        if L_here.free_symbols or exact_sign(L_here) != 1:
            continue  # a parameter setting where the constant is not a positive number
        search = search_pairs(f, len(xs), norm=p, constant=as_fraction(L_here), rng=rng, budget=per, low=low, high=high, tolerance=tol)
        evidence["parameter settings"] += 1
        evidence["pairs searched"] += search.pairs
        evidence["largest ratio (after the tolerance)"] = max(evidence["largest ratio (after the tolerance)"], search.best_ratio)
        if search.violation is None:
            continue
        for simplify in (True, False):
            xv = _exact_values(search.violation["x"], simplify)
            yv = _exact_values(search.violation["y"], simplify)
            ok_inputs = all(_holds_at(w, dict(zip(xs, xv, strict=True))) and
                            _holds_at(w, dict(zip(xs, yv, strict=True))) for w in inputs_where)
            if ok_inputs and _try_pair(proof, exprs, xs, ys, params, L, p, xv, yv, pv, pair_domain, "the numerical search",
                                       labels):
                evidence["found in"] = "the numerical search"
                return evidence
    return evidence
