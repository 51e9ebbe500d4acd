"""PROVED in the kernel's rate comparison when log factors of the rate variables count (an O statement).

For :func:`~dpaudit.bounds.rate_kernel.kernel_rate_check`, each derived term is compared with a stated term of the same
monomial in log space (:mod:`.rate_logs`: ``log v`` replaced by an independent ``l_v >= 1``, a generalisation):
``Q (k_j Lambda_j)^r >= (c_i Lambda_i)^r`` decided by the kernel (:mod:`dpaudit.verify.kernel`) for a candidate ``Q``
free of the rate variables (untrusted; the kernel decides). The bound ``derived <= K claimed`` then holds where every
log of a rate variable is at least 1 (``n, m, d >= e``, ``eps <= 1/e``; printed), with ``K = sum_i Q_i^(1/r)``, or on
the whole domain when the kernel proves it there (:func:`_prove_with_logs`); :func:`decided_restriction` reads the
domain decided back from a result.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import sympy as sp

from dpaudit.bounds.rate_kernel_context import _Context, _minus
from dpaudit.bounds.rate_logs import log_end, log_space, log_space_domain
from dpaudit.verify.decide import decision
from dpaudit.verify.verdict import CheckResult, Verdict, _amend

__all__ = ["decided_restriction"]

def _prove_with_logs(ctx: _Context, derived_is_lower_bound: bool) -> CheckResult:
    """PROVED for an O statement with log factors: each derived term against a stated term with the same monomial.

    Obligations (kernel): ``derived <= sum_i c_i m_i Lambda_i``, ``claimed >= sum_j k_j b_j Lambda_j`` with ``k_j > 0``
    and ``Lambda_j >= 0``; the log-linear rewrite of every log factor; and, in log space (:func:`~.rate_logs.log_space`),
    ``Q (k_j Lambda_j)^r >= (c_i Lambda_i)^r`` with ``r`` clearing the fractional powers and ``Q`` a candidate built from
    the ratio at the corner ``log v = 1`` (untrusted: the kernel decides). Then ``derived <= K claimed`` with
    ``K = sum_i Q_i^(1/r_i)``.

    The whole domain first: there every log of a rate variable is ``>= 0`` (``l_v >= 0``). When the kernel does not
    prove every obligation there (``1 <= K log n`` fails at ``n = 1`` for every ``K``), the domain decided is where
    every log of a rate variable with a log factor is ``>= 1`` (``n >= e``, ``epsilon <= 1/e``): the proof's domain
    then names it (:func:`decided_restriction`), and so must the claim.
    """
    pairs: list[list[tuple[sp.Expr, sp.Expr, str]]] = []
    for factors in [*ctx.a_logs, *ctx.b_logs]:
        if isinstance(factors, str):
            ctx.proof.unproved("log factors", factors)
            return ctx.proof.result()
    for i, (c, mono, lg) in enumerate(ctx.a_split):
        partners = [j for j, t in enumerate(ctx.b_terms) if t.exponents == ctx.a_terms[i].exponents]
        if not partners:
            ctx.proof.unproved(f"the derived term {mono}", "no stated term has the same monomial: comparing a log factor "
                               "with a different power is not reduced to kernel obligations")
            return ctx.proof.result()
        pairs.append([(c * lg, k * lg_b, f"{c * mono * lg} <= K {k * mono * lg_b}")
                      for k, _, lg_b in (ctx.b_split[j] for j in partners)])
    whole = _log_plan(ctx, pairs, floor=0)
    floor = 0 if whole is not None and all(decision(e, kind, h).verdict is Verdict.PROVED for _, kind, e, h in whole[0]) else 1
    steps, constants = whole if floor == 0 and whole is not None else (_log_plan(ctx, pairs, floor=1) or ([], None))
    proof = ctx.proof
    if floor == 0:
        proof.given("the domain covered: the whole domain (every log of a rate variable is >= 0 there)",
                    "log v is replaced by an independent variable l_v >= 0 and log s of a constant s in (0, 1) by "
                    "-lambda_s < 0 (a generalisation: the inequality proved covers every point of the domain)")
    else:
        proof.given("the domain covered: every rate variable with a log factor is >= e (growing) or <= 1/e (shrinking); "
                    "not the rest of the regime (1 <= K log n fails at n = 1 for every K)",
                    "log v is replaced by an independent variable l_v >= 1 and log s of a constant s in (0, 1) by "
                    "-lambda_s < 0 (a generalisation: the inequality proved covers every point of that domain)")
    record = {">=": proof.nonneg, ">": proof.positive, "==": proof.zero}
    for label, kind, expr, hypotheses in steps:
        record[kind](label, expr, hypotheses=hypotheses)
    if constants is None:
        failed = next((options[0][2] for options in pairs
                       if all(_log_power_candidate(ctx, small, big, floor) is None for small, big, _ in options)),
                      "a log power comparison")
        proof.unproved(failed, f"no candidate K in (1, 2, 4, 16) times the ratio at the corner log v = 1 was proved by "
                       f"the kernel with every log v >= {floor}, against any stated term with the same monomial")
    if derived_is_lower_bound:
        proof.unproved("derived is only a lower bound", "the derived expression is a lower bound on the quantity, so "
                       "bounding it proves nothing about the quantity")
    result = proof.result()
    if result.verdict is Verdict.PROVED and constants is not None:
        where = ("on the whole domain (every log v >= 0)" if floor == 0 else
                 "where every log v >= 1 (" + ", ".join(map(str, _restriction(ctx))) + "), not on the rest of the regime")
        result = _amend(result, details=f"derived <= K * claimed {where}, K = {sp.Add(*constants)}; " + result.details)
    return result


_Step = tuple[str, str, sp.Expr, list[Any]]


def _restriction(ctx: _Context) -> list[Any]:
    """``v >= e`` (growing) or ``v <= 1/e`` (shrinking) for every rate variable with a log factor in either rate."""
    logged = {v for factors in [*ctx.a_logs, *ctx.b_logs] if not isinstance(factors, str)
              for f in factors for v, _ in f.coefficients}
    return [log_end(v, s) for v, s in zip(ctx.variables, ctx.directions, strict=True) if v in logged]


def decided_restriction(result: CheckResult, variables: Sequence[sp.Symbol], directions: Sequence[int]) -> list[Any]:
    """The ends ``v >= e`` / ``v <= 1/e`` (:func:`~.rate_logs.log_end`) a kernel rate result was decided on.

    Non-empty when a PROVED comparison with log factors holds only where every log of those rate variables is at
    least 1 (:func:`_prove_with_logs`): the certified claim must say so.
    """
    return [end for v, s in zip(variables, directions, strict=True) for end in [log_end(v, s)] if str(end) in result.domain]


def _log_plan(ctx: _Context, pairs: Sequence[Sequence[tuple[sp.Expr, sp.Expr, str]]], floor: int
              ) -> tuple[list[_Step], list[sp.Expr] | None] | None:
    """The obligations of :func:`_prove_with_logs` with every log of a rate variable ``>= floor`` (not yet decided).

    ``pairs`` holds, per derived term, its comparisons with the stated terms of the same monomial: the first one
    with a candidate ``K`` the kernel proves is used (the choice is untrusted; the obligation is decided).

    Returns the steps ``(label, kind, expr, hypotheses)`` and the constants ``Q_i^(1/r_i)`` (None when no candidate
    ``Q`` of some pair is proved: the caller records that step as unproved), or None when ``floor == 0`` and no
    candidate is proved there.
    """
    domain = list(ctx.domain) + (_restriction(ctx) if floor else [])
    a_sum = sp.Add(*(c * mono * lg for c, mono, lg in ctx.a_split))
    b_sum = sp.Add(*(k * b * lg for k, b, lg in ctx.b_split))
    steps: list[_Step] = [
        (f"the derived bound is at most the sum of its terms {a_sum}", ">=", _minus(a_sum, ctx.derived), domain),
        (f"the stated rate is at least the sum of its terms {b_sum}", ">=", _minus(ctx.claimed, b_sum), domain)]
    for factors in [*ctx.a_logs, *ctx.b_logs]:
        for f in [] if isinstance(factors, str) else factors:  # a str (not log-linear) is refused by the caller
            steps.append((f"log({f.arg}) = {f.linear()}", "==", f.identity(), []))
    steps += [(f"coefficient of {b} in the stated rate is positive", ">", k, domain) for k, b, _ in ctx.b_split]
    constants: list[sp.Expr] = []
    for options in pairs:
        found, label = next(((f, lbl) for f, lbl in ((_log_power_candidate(ctx, sm, bg, floor), lbl)
                                                       for sm, bg, lbl in options) if f is not None), (None, ""))
        if found is None:
            if floor == 0:
                return None
            return _with_log_signs(ctx, steps, floor), None
        q, r, obligation, hypotheses, constant = found
        steps.append((f"{label} in log space, K^{r} = {q}", ">=", obligation, hypotheses))
        constants.append(constant)
    return _with_log_signs(ctx, steps, floor), constants


def _with_log_signs(ctx: _Context, steps: list[_Step], floor: int) -> list[_Step]:
    """``steps`` and, for each log factor ``Lambda_j`` of the stated rate, ``Lambda_j >= 0`` in log space."""
    for _, b, lg in ctx.b_split:
        if lg != 1:
            space, _ = log_space(lg, ctx.variables, ctx.directions)
            steps.append((f"log factor {lg} of {b} is >= 0", ">=", space,
                          log_space_domain(space, ctx.variables, ctx.directions, floor=floor)))
    return steps


def _log_power_candidate(ctx: _Context, small: sp.Expr, big: sp.Expr, floor: int
                         ) -> tuple[sp.Expr, int, sp.Expr, list[Any], sp.Expr] | None:
    """A candidate ``K`` with ``small <= K big`` in log space (every ``l_v >= floor``) that the kernel proves, or None.

    Returns ``(K^r, r, the obligation, its hypotheses, K)``; the caller records the obligation as a proof step.
    """
    s_space, back = log_space(small, ctx.variables, ctx.directions)
    b_space, back_b = log_space(big, ctx.variables, ctx.directions)
    back.update(back_b)
    powers = [p for e in (s_space, b_space) for p in e.atoms(sp.Pow) if p.exp.is_Rational]
    r = math.lcm(1, *(int(p.exp.q) for p in powers))
    s_r, b_r = sp.expand_power_base(s_space**r, force=True), sp.expand_power_base(b_space**r, force=True)
    hypotheses = log_space_domain(s_r - b_r, ctx.variables, ctx.directions, floor=floor)
    corner = {s: 1 for s in (s_r.free_symbols | b_r.free_symbols) if s.name.startswith("log_")}
    shrinking = [v for v, d in zip(ctx.variables, ctx.directions, strict=True) if d < 0]
    ends = [{v: end for v in shrinking} for end in (0, 1)] if shrinking else [{}]
    at_ends = [(s_r / b_r).subs(corner).subs(end) for end in ends]
    finite = [value for value in at_ends if not value.has(sp.nan, sp.zoo, sp.oo, -sp.oo)]
    if not finite:
        return None
    ratio = sp.Add(*finite)
    for factor in (1, 2, 4, 16):
        q = factor * ratio
        if decision(_minus(q * b_r, s_r), ">=", hypotheses).verdict is Verdict.PROVED:
            return q, r, _minus(q * b_r, s_r), hypotheses, (q ** sp.Rational(1, r)).xreplace(back)
    return None
