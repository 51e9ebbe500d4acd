"""DISPROVED in the kernel's rate comparison: a derived term that outgrows every stated term along a log-direction.

A refutation of :func:`~dpaudit.bounds.rate_kernel.kernel_rate_check` needs the kernel's counterexample to an exponent
obligation: a rational log-direction ``y*`` inside the regime (every ``y*_v > 0``, so side conditions such as
``n >= log(1/delta) log(m)/eps`` hold far along it) where ``<alpha_i, y*> > max_j <beta_j, y*>``, re-checked exactly,
with (kernel, as supporting facts) ``derived >= c_i m_i Lambda_i``, ``c_i > 0`` and ``claimed <= sum_j k_j b_j Lambda_j``.
Along ``v = e^{t direction_v y*_v}`` the ratio ``derived/claimed`` is then at least ``c_i/(sum_j k_j) e^{t margin}`` up
to polylog factors, larger than any constant: that last, elementary step is printed as a premise ("polynomial growth
beats polylog factors").

**Log factors of the rate variables**, through their log-linear forms (:mod:`.rate_logs`): along a log-direction, a
log-linear factor grows like ``t`` (slope ``<a, direction * y*> > 0``) or stays between positive constants (no log of a
rate variable, a remainder the kernel proves positive); a term is then ``Theta(e^{t E} t^P)`` and the derived term
refutes the statement when ``(E_i, P_i)`` exceeds every ``(E_j, P_j)`` lexicographically (checked exactly; the premise
covers it): ``log(nmd)`` against ``sqrt(log(nmd))`` with equal monomials is DISPROVED for an O statement
(:func:`_refute_by_log_powers`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import sympy as sp

from dpaudit.bounds.rate_kernel_context import _constants, _Context, _exponent_form, _minus
from dpaudit.bounds.rate_logs import LogFactor
from dpaudit.verify.decide import decision, exact_sign
from dpaudit.verify.proof import Proof
from dpaudit.verify.verdict import CheckResult, Verdict, _amend

__all__: list[str] = []  # helpers of dpaudit.bounds.rate_kernel, which imports them by name

_GROWTH_PREMISE = ("along v = exp(t direction_v y_v), with every y_v > 0, a term c e^{t E} t^P (its log factors log-linear, "
                   "each growing like t or staying between positive constants) outgrows every term c' e^{t E'} t^P' with "
                   "(E, P) > (E', P') lexicographically, c, c' > 0: the ratio exceeds every constant for t large (polynomial "
                   "growth beats polylog factors; a higher log power beats a lower one), and side conditions v >= "
                   "polylog(...) of the regime hold there: the statement fails")


def _growth(ctx: _Context, factors: list[LogFactor] | str, point: Mapping[sp.Symbol, Fraction],
            conditions: dict[str, Any], flats: list[LogFactor]) -> Fraction | None:
    """The power of ``t`` of a term's log factors along the ray (None when one is neither growing nor flat).

    A log-linear factor with a positive slope is ``Theta(t)``; a flat one is ``Theta(1)`` once the kernel proves its
    remainder positive on the closed range of the shrinking variables (appended to ``flats``, decided by the caller).
    The exact tests enter ``conditions``.
    """
    if isinstance(factors, str):
        conditions[f"log factors are log-linear ({factors})"] = False
        return None
    dirs = dict(zip(ctx.variables, ctx.directions, strict=True))
    y = {v: point[s] for v, s in zip(ctx.variables, ctx.ys, strict=True)}
    power = Fraction(0)
    for f in factors:
        if not f.power.is_Rational:
            conditions[f"the power of log({f.arg}) is a number"] = False
            return None
        slope = f.slope(dirs, y)
        if slope > 0:
            conditions[f"log({f.arg}) grows like {slope} t along the ray"] = True
            power += Fraction(int(f.power.p), int(f.power.q))
        elif f.flat:
            flats.append(f)
        else:
            conditions[f"log({f.arg}) grows along the ray (slope {slope})"] = False
            return None
    return power


def _flat_facts(ctx: _Context, flats: Sequence[LogFactor], conditions: dict[str, Any]) -> None:
    """Kernel facts: each flat log factor is its log-linear form, which stays between positive constants."""
    shrinking = [v for v, s in zip(ctx.variables, ctx.directions, strict=True) if s < 0]
    for f in dict.fromkeys(flats):
        with ctx.proof.supporting():
            same = ctx.proof.zero(f"log({f.arg}) = {f.linear()}", f.identity())
            rest, closed = f.flat_positive(shrinking)
            positive = ctx.proof.positive(f"log({f.arg}) stays between positive constants: {rest} > 0 with the shrinking "
                                          "variables on [0, 1]", rest, hypotheses=[*closed, *_constants(rest)])
        conditions[f"log({f.arg}) is bounded between positive constants (kernel)"] = (
            same is Verdict.PROVED and positive is Verdict.PROVED)


def _refute(ctx: _Context, index: int, point: Mapping[sp.Symbol, Fraction], *, tie: bool = False) -> CheckResult | None:
    """DISPROVED along the re-checked log-direction ``point``: the derived term ``index`` outgrows every stated term.

    Supporting facts (kernel): ``derived >= c_i m_i Lambda_i``, ``c_i > 0``, ``claimed <= sum_j k_j b_j Lambda_j``,
    ``k_j > 0``. Along ``v = e^{t direction_v y_v}`` term ``i`` is ``Theta(e^{t E_i} t^{P_i})`` and term ``j``
    ``Theta(e^{t E_j} t^{P_j})`` (log factors: :func:`_growth`); the ratio grows without bound when ``(E_i, P_i)``
    exceeds every ``(E_j, P_j)`` lexicographically (checked exactly). None when a condition fails (nothing recorded
    as a refutation then).
    """
    proof = ctx.proof
    c, mono, lg = ctx.a_split[index]
    b_sum = sp.Add(*(k * b * lgb for k, b, lgb in ctx.b_split))
    conditions: dict[str, Any] = {str(h): h.func(h.lhs.subs(point), h.rhs.subs(point)) for h in ctx.interior}
    flats: list[LogFactor] = []
    powers_i = _growth(ctx, ctx.a_logs[index], point, conditions, flats)
    growth_j = [_growth(ctx, f, point, conditions, flats) for f in ctx.b_logs]
    powers_j = [p for p in growth_j if p is not None]
    if powers_i is None or len(powers_j) != len(growth_j):
        return None
    ys_point = {y: sp.Rational(point[y].numerator, point[y].denominator) for y in ctx.ys}
    e_i = _exponent_form(ctx.a_terms[index], ctx.variables, ctx.directions, ctx.ys).subs(ys_point)
    gaps = []
    for term, p_j in zip(ctx.b_terms, powers_j, strict=True):
        e_gap = e_i - _exponent_form(term, ctx.variables, ctx.directions, ctx.ys).subs(ys_point)
        gap = e_gap if e_gap != 0 else sp.Rational((powers_i - p_j).numerator, (powers_i - p_j).denominator)
        conditions[f"(exponent, log power) of the derived term exceeds that of {term.as_expr()} lexicographically"] = \
            _certainly_positive(gap)
        gaps.append(gap)
    if not all(bool(v) for v in conditions.values()):
        return None  # not a refutation along this direction: nothing recorded
    _flat_facts(ctx, flats, conditions)
    with proof.supporting():
        lower = _at_least(proof, ctx.derived, c * mono * lg, ctx.domain)
        pos = proof.positive(f"coefficient {c} is positive", c, hypotheses=ctx.domain)
        upper = proof.nonneg(f"the stated rate is at most the sum of its terms {b_sum}", _minus(b_sum, ctx.claimed),
                             hypotheses=ctx.domain)
        coefs = [proof.positive(f"coefficient {k} of the stated rate is positive", k, hypotheses=ctx.domain) for k, _, _ in ctx.b_split]
    conditions.update({"derived >= the term (kernel)": lower is Verdict.PROVED, "the term's coefficient > 0 (kernel)": pos is Verdict.PROVED,
                       "stated rate <= its terms (kernel)": upper is Verdict.PROVED,
                       "the stated rate's coefficients > 0 (kernel)": all(v is Verdict.PROVED for v in coefs)})
    if not all(bool(v) for v in conditions.values()):
        return None  # a supporting fact is not established: no refutation, and no premise on the verdict
    proof.assume("polynomial growth beats polylog factors", _GROWTH_PREMISE)
    direction = ", ".join(f"{v}: {ys_point[y]}" for v, y in zip(ctx.variables, ctx.ys, strict=True) if ys_point[y] != 0) or "0"
    margin = -sp.Min(*gaps) if len(gaps) > 1 else -gaps[0]
    shown = {"log-direction y": direction, "derived term": str(c * mono * lg), "stated rate": str(ctx.claimed),
             "exponent margin": str(min(e_i - _exponent_form(t, ctx.variables, ctx.directions, ctx.ys).subs(ys_point)
                                        for t in ctx.b_terms))}
    if tie:
        shown["log-power margin"] = str(-margin)
    what = "its log factors outgrow the stated rate's" if tie else "the derived term grows faster than the stated rate"
    if not proof.refute(f"{what}: {mono} along the log-direction ({direction})", shown, margin, conditions=conditions):
        return None
    return _amend(proof.result(), residual=mono)  # the offending term (the verdict and certificate unchanged)


def _certainly_positive(gap: sp.Expr) -> bool:
    """``gap > 0`` for certain: the exact sign of a closed-form number (:func:`~dpaudit.verify.decide.exact_sign`).

    A gap with a free symbol (a symbolic exponent, ``n**tau`` against ``n``: ``tau - 1``) has no fixed sign along
    the ray, and a float is already rounded: neither supports a refutation (False).
    """
    gap = sp.sympify(gap)
    if gap.free_symbols or gap.has(sp.Float):
        return False
    return exact_sign(gap) == 1


def _addends(expr: sp.Expr) -> list[sp.Expr]:
    """``expr`` as a sum of addends.

    Products are distributed over sums none of whose terms carries a minus sign (so each addend of a sum of positive
    terms stays positive; ``(1 - 2^-q)`` is kept whole).
    """
    if isinstance(expr, sp.Add):
        return [x for a in expr.args for x in _addends(a)]
    if isinstance(expr, sp.Mul):
        parts = [_addends(f) if isinstance(f, sp.Add) and not any(a.could_extract_minus_sign() for a in f.args) else [f]
                 for f in expr.args]
        return [sp.Mul(*combo) for combo in itertools.product(*parts)]
    return [expr]


def _at_least(proof: Proof, derived: sp.Expr, term: sp.Expr, domain: Sequence[Any]) -> Verdict:
    """Kernel: ``derived >= term``, as one obligation or, when the kernel does not decide that, addend by addend.

    The second way: ``derived`` equals the sum of its addends (:func:`_addends`), one addend equals ``term``, and every
    other addend is ``>= 0`` (each an identity or a sign the kernel decides; the choice of the addend is untrusted).
    """
    label = f"the derived bound is at least its term {term}"
    if decision(_minus(derived, term), ">=", domain).verdict is Verdict.PROVED:
        return proof.nonneg(label, _minus(derived, term), hypotheses=domain)
    addends = _addends(derived)
    match = next((i for i, a in enumerate(addends) if sp.simplify(a - term) == 0), None)
    if match is None or len(addends) > 64:
        return proof.nonneg(label, _minus(derived, term), hypotheses=domain)
    verdicts = [proof.zero(f"{label}: the derived bound is the sum of its addends", _minus(derived, sp.Add(*addends))),
                proof.zero(f"{label}: one addend is the term", _minus(addends[match], term))]
    verdicts += [proof.nonneg(f"{label}: addend {a} >= 0", a, hypotheses=domain) for i, a in enumerate(addends) if i != match]
    return Verdict.PROVED if all(v is Verdict.PROVED for v in verdicts) else Verdict.UNDECIDED


def _refute_by_log_powers(ctx: _Context, log_space_rel: Sequence[Any]) -> CheckResult | None:
    """The exponents tie and the log powers decide: a derived term with more powers of ``log v`` than the stated terms.

    Candidate log-directions (untrusted: every one is re-checked exactly by :func:`_refute`): all ones, and all ones
    plus one unit vector, kept when inside the regime.
    """
    k = len(ctx.ys)
    candidates = [[Fraction(1)] * k] + [[Fraction(2 if i == j else 1) for j in range(k)] for i in range(k)]
    for vector in candidates:
        point = dict(zip(ctx.ys, vector, strict=True))
        if not all(bool(h.func(h.lhs.subs(point), h.rhs.subs(point))) for h in log_space_rel):
            continue
        for index, factors in enumerate(ctx.a_logs):
            if isinstance(factors, str) or not factors:
                continue
            same = [j for j, t in enumerate(ctx.b_terms) if t.exponents == ctx.a_terms[index].exponents]
            if not same:
                continue
            refuted = _refute(ctx, index, point, tie=True)
            if refuted is not None:
                return refuted
    return None
