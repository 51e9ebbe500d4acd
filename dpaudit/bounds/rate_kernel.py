"""Rate comparisons decided by the trusted kernel: the rate engine only builds the obligations.

"``derived`` is at most the stated rate" over the regime of the rate variables (n, m, d grow: ``v >= 1``;
epsilon shrinks: ``v <= 1``) is reduced to exact obligations, each decided by :mod:`dpaudit.verify.kernel`
through a :class:`~dpaudit.verify.Proof` (so the verdict carries a kernel certificate):

1. **the monomials** (found by :mod:`dpaudit.bounds.rates`, not trusted): ``derived <= sum_i c_i m_i`` and
   ``claimed >= sum_j k_j b_j`` on the domain, every coefficient ``c_i``, ``k_j`` positive (kernel: Z3 with
   ``sqrt`` as an auxiliary root, or interval arithmetic);
2. **the exponents**, in log space (``y_v = direction_v ln v``, so the regime is the orthant ``y >= 0``, cut by the
   regime's constraints ``<c, y> >= 0`` and ``m_i = exp(<alpha_i, y>)``): for every derived term,
   ``<alpha_i, y> <= max_j <beta_j, y>`` for every ``y`` of the regime (linear real arithmetic with ``Max``: Z3 decides
   it exactly; the LP certificate of :mod:`.rate_comparison` is not needed).

**PROVED** (every obligation proved) then means the concrete, non-asymptotic bound
``derived <= K * claimed`` at every point of the domain, with ``K = (sum_i c_i) * (sum_j 1/k_j)`` (free of the rate
variables): ``m_i = e^{<alpha_i, y>} <= max_j e^{<beta_j, y>} <= sum_j b_j <= claimed * sum_j 1/k_j``. For an O~
statement a derived term may carry log factors ``Lambda_i >= 0`` (proved): ``K`` then contains them (a polylog of the
rate variables, not a constant; ``details`` says so).

**DISPROVED** needs the kernel's counterexample to an exponent obligation: a rational log-direction ``y*`` inside the
regime (every ``y*_v > 0``, so side conditions such as ``n >= log(1/delta) log(m)/eps`` hold far along it) where
``<alpha_i, y*> > max_j <beta_j, y*>``, re-checked exactly, with (kernel, as supporting facts)
``derived >= c_i m_i Lambda_i``, ``c_i > 0`` and ``claimed <= sum_j k_j b_j Lambda_j``. Along ``v = e^{t direction_v y*_v}``
the ratio ``derived/claimed`` is then at least ``c_i/(sum_j k_j) e^{t margin}`` up to polylog factors, larger than any
constant: that last, elementary step is printed as a premise ("polynomial growth beats polylog factors").

**Log factors of the rate variables** (in the stated rate, or in a derived term of an O statement, which counts
them) are handled through their log-linear forms (:mod:`.rate_logs`: ``log(2 d^4 m^3 n^4) = log 2 + 4 log d + 3 log m +
4 log n``, an identity the kernel checks):

* along a log-direction, a log-linear factor grows like ``t`` (slope ``<a, direction * y*> > 0``) or stays between
  positive constants (no log of a rate variable, a remainder the kernel proves positive); a term is then
  ``Theta(e^{t E} t^P)`` and the derived term refutes the statement when ``(E_i, P_i)`` exceeds every ``(E_j, P_j)``
  lexicographically (checked exactly; the premise covers it): ``log(nmd)`` against ``sqrt(log(nmd))`` with equal
  monomials is DISPROVED for an O statement;
* for PROVED, each derived term is compared with a stated term of the same monomial in log space (``log v`` replaced by
  an independent ``l_v >= 1``, a generalisation): ``Q (k_j Lambda_j)^r >= (c_i Lambda_i)^r`` decided by the kernel for
  a candidate ``Q`` free of the rate variables (untrusted; the kernel decides). The bound ``derived <= K claimed`` then
  holds where every log of a rate variable is at least 1 (``n, m, d >= e``, ``eps <= 1/e``; printed), with
  ``K = sum_i Q_i^(1/r)``.

What this does not cover (a log factor that is not log-linear, a derived term of an O statement whose monomial no
stated term has, log factors in the stated rate of an O~ statement) is UNDECIDED, with the reason.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy as sp

from dpaudit.bounds.rate_logs import (
    LogFactor,
    log_factors,
    log_space,
    log_space_domain,
    regime_domain,
)
from dpaudit.bounds.rates import Monomial, RateError, _merge, _Tropical
from dpaudit.verify.decide import decision
from dpaudit.verify.proof import Proof
from dpaudit.verify.verdict import CheckResult, Verdict, _amend

__all__ = ["kernel_rate_check"]

_GROWTH_PREMISE = ("along v = exp(t direction_v y_v), with every y_v > 0, a term c e^{t E} t^P (its log factors log-linear, "
                   "each growing like t or staying between positive constants) outgrows every term c' e^{t E'} t^P' with "
                   "(E, P) > (E', P') lexicographically, c, c' > 0: the ratio exceeds every constant for t large (polynomial "
                   "growth beats polylog factors; a higher log power beats a lower one), and side conditions v >= "
                   "polylog(...) of the regime hold there: the statement fails")


_domain = regime_domain  # the rate variables' regime and the canonical symbols' declared ends


def _split(term: Monomial, variables: Sequence[sp.Symbol]) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """Split a term into ``(coefficient, monomial, rate logs)``.

    The log factors of constants go into the coefficient; those of the rate variables are returned apart.
    """
    var_set = set(variables)
    coefficient = sp.sympify(term.coefficient)
    rate_logs = sp.Integer(1)
    for arg, power in term.logs:
        factor = sp.log(arg) ** power
        if sp.sympify(arg).free_symbols & var_set:
            rate_logs *= factor
        else:
            coefficient *= factor
    return coefficient, term.as_expr(with_coefficient=False, with_logs=False), rate_logs


def _exponent_form(term: Monomial, variables: Sequence[sp.Symbol], directions: Sequence[int],
                   ys: Sequence[sp.Symbol]) -> sp.Expr:
    """``<alpha, y>``: the log of the term's monomial in the coordinates ``y_v = direction_v ln v``."""
    return sp.Add(*(sp.sympify(term.exponent(v)) * s * y for v, s, y in zip(variables, directions, ys, strict=True)))


def _minus(a: Any, b: Any) -> sp.Expr:
    """``a - b`` left unevaluated, so that the kernel (not sympy's automatic arithmetic) decides its sign."""
    return sp.Add(a, sp.Mul(-1, b, evaluate=False), evaluate=False)


class _ExactLogs(_Tropical):
    """The rate engine's split into monomials, with every log factor kept at its exact argument.

    :func:`~dpaudit.bounds.rates.canonical_log_argument` replaces ``log(20 n m e^eps/delta)`` by ``log(m n/delta)``
    (equal up to a constant factor for large arguments, not equal): the kernel's obligations ``derived >= its term``
    and ``derived <= its monomials`` are exact only with the argument as written.
    """

    def terms(self, expr: sp.Expr) -> list[Monomial]:
        if isinstance(expr, sp.log) and expr.args[0].free_symbols:
            return [Monomial.build(1, {}, {expr.args[0]: 1})]
        return super().terms(expr)


def has_rate_logs(relation: Any, variables: Sequence[sp.Symbol]) -> bool:
    """The relation has a log factor of a rate variable (``d <= log(n)``, ``epsilon n >= log(n)``)."""
    return any(lg.args[0].free_symbols & set(variables) for lg in sp.sympify(relation).atoms(sp.log))


def kernel_rate_check(
    derived: Any,
    claimed: Any,
    *,
    key: str,
    variables: Sequence[sp.Symbol],
    directions: Sequence[int],
    ignore_logs: bool,
    regime: Sequence[Any] = (),
    regime_vectors: Sequence[Sequence[Any]] = (),
    derived_is_lower_bound: bool = False,
) -> CheckResult:
    """Decide "``derived`` is at most ``claimed`` (up to a constant) over the regime" through the kernel.

    A regime constraint with log factors of the rate variables (``epsilon n >= log(n)``) is read in log space without
    them (``y_n - y_epsilon >= 0``): a regime larger in one way and smaller in another, so alone it decides nothing.

    * PROVED only without such constraints (the bound then holds on a larger regime); a PROVED that needs one is
      UNDECIDED, with the reason.
    * DISPROVED only along a log-direction where each such constraint holds *strictly* in log space
      (``<c, y*> > 0``, re-checked exactly): its monomial ratio then grows like ``e^{t <c, y*>}`` and beats its
      log factors (powers of ``t``), so the constraint holds far along the ray. On the boundary ``<c, y*> = 0``
      (``log n <= epsilon n <= 1`` forces ``y_n = y_epsilon``, where ``n`` stays bounded) no refutation is issued:
      UNDECIDED, with the reason.

    See :func:`_kernel_rate_check` for the obligations.
    """
    regime, regime_vectors = tuple(regime), tuple(regime_vectors)
    logged = tuple(i for i, rel in enumerate(regime) if has_rate_logs(rel, variables))
    result = _kernel_rate_check(derived, claimed, key=key, variables=variables, directions=directions,
                                ignore_logs=ignore_logs, regime=regime, regime_vectors=regime_vectors,
                                derived_is_lower_bound=derived_is_lower_bound, strict=logged)
    if not logged:
        return result
    shown = ", ".join(str(regime[i]) for i in logged)
    if result.verdict is Verdict.PROVED:
        kept = [i for i in range(len(regime)) if i not in logged]
        without = _kernel_rate_check(derived, claimed, key=key, variables=variables, directions=directions,
                                     ignore_logs=ignore_logs, regime=[regime[i] for i in kept],
                                     regime_vectors=[regime_vectors[i] for i in kept],
                                     derived_is_lower_bound=derived_is_lower_bound)
        if without.verdict is Verdict.PROVED:
            return without
        reason = (f"PROVED only with the regime constraints {shown} read in log space, which drops their log factors "
                  "of the rate variables: such a constraint is used to refute, never to prove")
    elif result.verdict is Verdict.UNDECIDED:
        reason = (f"the regime constraints {shown} have log factors of the rate variables: a refutation needs a "
                  "log-direction where each holds strictly in log space (<c, y> > 0), and none was found; "
                  f"{result.reason}")
    else:
        return result  # DISPROVED along a direction checked strictly against every such constraint
    return dataclasses.replace(result, verdict=Verdict.UNDECIDED, counterexample=None, premises=(), vacuity="",
                               reason=reason, details=f"{reason}; {result.details}", certificate=None)


def _kernel_rate_check(
    derived: Any,
    claimed: Any,
    *,
    key: str,
    variables: Sequence[sp.Symbol],
    directions: Sequence[int],
    ignore_logs: bool,
    regime: Sequence[Any] = (),
    regime_vectors: Sequence[Sequence[Any]] = (),
    derived_is_lower_bound: bool = False,
    strict: Sequence[int] = (),
) -> CheckResult:
    """The kernel's decision (:func:`kernel_rate_check`, which gates the regime constraints with log factors).

    Parameters
    ----------
    derived, claimed : sympy expressions
        The derived bound and the stated rate (its expression).
    key : str
        The proof's key (seeds nothing random; names the proof).
    variables, directions : sequences
        The rate variables and their directions (``+1`` grows, ``-1`` shrinks); every other symbol is a constant.
    ignore_logs : bool
        The statement is an O~ one: log factors of the derived terms are allowed (they go into the constant).
    regime, regime_vectors : sequences
        The regime's constraints (sympy relations) and their log-space vectors ``c`` (``<c, y> >= 0``), from
        :func:`~dpaudit.bounds.rate_comparison.regime_vectors`; a constraint is read exactly in log space (its
        constants and log factors dropped), a premise printed beside the verdict.
    strict : sequence of int
        Indices of the constraints a refuting log-direction must satisfy strictly (``<c, y*> > 0``): those with log
        factors of the rate variables.
    derived_is_lower_bound : bool
        ``derived`` is only a lower bound on the quantity: it can refute the claim, never prove it.

    Returns
    -------
    CheckResult
        Issued by :meth:`~dpaudit.verify.Proof.result` (kernel-certified when PROVED or DISPROVED). A DISPROVED
        result's ``residual`` is the offending derived monomial; its counterexample names the log-direction
        (``"log-direction y"``, e.g. ``"n: 3/2, m: 1/2, d: 1/2"``) and the exponent margin (and, when the exponents
        tie, the margin in powers of ``t`` of the log factors).
    """
    proof = Proof(key)
    derived, claimed = sp.sympify(derived), sp.sympify(claimed)
    variables, directions = tuple(variables), tuple(directions)
    tro = _ExactLogs(variables, directions, ignore_logs=False)
    try:
        a_terms = _merge(tro.terms(derived), ignore_logs=False)
        b_terms = _merge(tro.terms(claimed), ignore_logs=False)
    except RateError as exc:
        proof.unproved("monomials of the two rates", f"rate extraction failed: {exc}")
        return proof.result()
    if not a_terms or not b_terms:
        proof.unproved("monomials of the two rates", "a rate has no positive term")
        return proof.result()
    a_split = [_split(t, variables) for t in a_terms]
    b_split = [_split(t, variables) for t in b_terms]
    a_logs = [log_factors(t.logs, variables, directions) for t in a_terms]
    b_logs = [log_factors(t.logs, variables, directions) for t in b_terms]
    stated_logs = any(lg != 1 for _, _, lg in b_split)
    counted_logs = stated_logs or (not ignore_logs and any(lg != 1 for _, _, lg in a_split))
    if stated_logs and ignore_logs:
        proof.unproved("log factors", "the stated rate of an O~ statement has log factors of the rate variables: not "
                       "reduced to kernel obligations (a log factor in the denominator of the ratio has no positive lower bound)")
        return proof.result()
    symbols = sorted(derived.free_symbols | claimed.free_symbols, key=lambda s: s.name)
    domain = _domain(symbols, variables, directions)
    # the log-space coordinates are nonnegative by declaration (the image of the regime), not a restriction of it
    ys = [sp.Symbol(f"y_{v.name}", nonnegative=True) for v in variables]
    log_space_rel = [sp.Ge(sp.Add(*(sp.sympify(cv) * y for cv, y in zip(c, ys, strict=True))), 0, evaluate=False)
                     for c in regime_vectors]
    proof.given("the regime: " + ", ".join(f"{v} {'>=' if s > 0 else '<='} 1" for v, s in zip(variables, directions, strict=True))
                + "; the other symbols are constants (within their declared domains)",
                "log space: y_v = direction_v ln v >= 0, so a monomial prod v^a_v is exp(<a * direction, y>)")
    if regime:
        proof.assume("regime read in log space", "the regime's conditions " + ", ".join(map(str, regime))
                     + " are read as <c, y> >= 0 (their constants and log factors dropped)"
                     + ("; those with log factors of the rate variables (" + ", ".join(str(regime[i]) for i in strict)
                        + ") as <c, y> > 0 along a refuting direction, where they hold for t large" if strict else ""))
    b_forms = [_exponent_form(t, variables, directions, ys) for t in b_terms]
    top = b_forms[0] if len(b_forms) == 1 else sp.Max(*b_forms, evaluate=False)
    # unevaluated differences: the kernel decides them (sympy's automatic arithmetic would hand it a literal 0)
    residuals = [_minus(top, _exponent_form(t, variables, directions, ys)) for t in a_terms]
    decisions = [decision(r, ">=", log_space_rel) for r in residuals]
    # a refuting direction lies inside the regime (every y_v > 0) and strictly inside each constraint with log factors
    interior = [sp.Gt(y, 0, evaluate=False) for y in ys] + [
        sp.Gt(rel.lhs, 0, evaluate=False) if i in strict else rel for i, rel in enumerate(log_space_rel)]
    ctx = _Context(proof, derived, claimed, variables, directions, ys, domain, interior, a_split, b_split, a_terms, b_terms,
                   a_logs, b_logs)
    failed = next((i for i, dec in enumerate(decisions) if dec.verdict is Verdict.DISPROVED), None)
    if failed is not None:
        # a direction inside the regime (every y_v > 0): along it the theorem's side conditions of the form
        # "v >= polylog(...)" (n >= log(1/delta) log(m)/eps) hold for t large; one exists when any does (the set of
        # directions with a positive margin is open)
        inside = decision(residuals[failed], ">=", interior)
        if inside.verdict is Verdict.DISPROVED and inside.counterexample:
            point = {y: Fraction(inside.counterexample.get(y.name, "0")) for y in ys}
            refuted = _refute(ctx, failed, point)
            if refuted is not None:
                return refuted
    if counted_logs and not any(d.verdict is Verdict.DISPROVED for d in decisions):
        refuted = _refute_by_log_powers(ctx, log_space_rel)
        if refuted is not None:
            return refuted
    if counted_logs:
        return _prove_with_logs(ctx, derived_is_lower_bound)
    # the upper bound: derived <= sum_i c_i m_i, claimed >= sum_j k_j b_j, and each exponent obligation
    a_sum = sp.Add(*(c * mono * lg for c, mono, lg in a_split))
    b_sum = sp.Add(*(c * mono for c, mono, _ in b_split))
    proof.nonneg(f"the derived bound is at most the sum of its monomials {a_sum}", _minus(a_sum, derived), hypotheses=domain)
    proof.nonneg(f"the stated rate is at least the sum of its monomials {b_sum}", _minus(claimed, b_sum), hypotheses=domain)
    for c, mono, lg in a_split:
        proof.positive(f"coefficient of {mono} in the derived bound is positive", c, hypotheses=domain)
        if lg != 1:
            proof.nonneg(f"log factor {lg} of {mono} is >= 0 (it goes into the constant: O~)", lg, hypotheses=domain)
    for c, mono, _ in b_split:
        proof.positive(f"coefficient of {mono} in the stated rate is positive", c, hypotheses=domain)
    for (_, mono, _), residual in zip(a_split, residuals, strict=True):
        proof.nonneg(f"exponent of {mono} <= the largest exponent of the stated rate, for every log-direction y of the regime",
                     residual, hypotheses=log_space_rel)
    if derived_is_lower_bound:
        proof.unproved("derived is only a lower bound", "the derived expression is a lower bound on the quantity, so "
                       "bounding it proves nothing about the quantity")
    constant = sp.Add(*(c * lg for c, _, lg in a_split)) * sp.Add(*(1 / c for c, _, _ in b_split))
    result = proof.result()
    if result.verdict is Verdict.PROVED:
        where = (" where the regime's constraints hold without their constants (<c, y> >= 0; elsewhere in the regime "
                 "the constraints' constants enter K)" if regime else " on the whole domain")
        result = _amend(result, details=f"derived <= K * claimed{where}, {_constant_text(constant, variables)}; "
                                     + result.details)
    return result


def _constant_text(constant: sp.Expr, variables: Sequence[sp.Symbol]) -> str:
    """``K = ...``, saying whether ``K`` is free of the rate variables or holds their log factors (an O~ bound)."""
    held = sorted(sp.sympify(constant).free_symbols & set(variables), key=lambda s: s.name)
    if held:
        return (f"K = {constant}, which holds log factors of the rate variables {', '.join(map(str, held))} (an O~ "
                "bound: log factors ignored; K is not a constant)")
    return f"K = {constant}, free of the rate variables"


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


def _constants(expr: sp.Expr) -> list[Any]:
    """The declared domains of the canonical constants in ``expr`` (delta < 1, ...)."""
    return _domain(sorted(expr.free_symbols, key=lambda s: s.name), (), ())


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
        conditions[f"(exponent, log power) of the derived term exceeds that of {term.as_expr()} lexicographically"] = bool(gap > 0)
        gaps.append(gap)
    if not all(bool(g > 0) for g in gaps) or not all(bool(v) for v in conditions.values()):
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


def _prove_with_logs(ctx: _Context, derived_is_lower_bound: bool) -> CheckResult:
    """PROVED for an O statement with log factors: each derived term against a stated term with the same monomial.

    Obligations (kernel): ``derived <= sum_i c_i m_i Lambda_i``, ``claimed >= sum_j k_j b_j Lambda_j`` with ``k_j > 0``
    and ``Lambda_j >= 0``; the log-linear rewrite of every log factor; and, in log space (:func:`~.rate_logs.log_space`,
    ``log v >= 1``), ``Q (k_j Lambda_j)^r >= (c_i Lambda_i)^r`` with ``r`` clearing the fractional powers and ``Q``
    a candidate built from the ratio at the corner ``log v = 1`` (untrusted: the kernel decides). Then ``derived <= K
    claimed`` for ``log v >= 1``, with ``K = sum_i Q_i^(1/r_i)``.
    """
    proof = ctx.proof
    parsed: list[list[LogFactor]] = []
    for factors in [*ctx.a_logs, *ctx.b_logs]:
        if isinstance(factors, str):
            proof.unproved("log factors", factors)
            return proof.result()
        parsed.append(factors)
    proof.given("the domain covered: every rate variable with a log factor is >= e (growing) or <= 1/e (shrinking)",
                "log v is replaced by an independent variable l_v >= 1 and log s of a constant s in (0, 1) by -lambda_s < 0 "
                "(a generalisation: the inequality proved covers every point of the domain)")
    a_sum = sp.Add(*(c * mono * lg for c, mono, lg in ctx.a_split))
    b_sum = sp.Add(*(k * b * lg for k, b, lg in ctx.b_split))
    logged = {v for factors in parsed for f in factors for v, _ in f.coefficients}
    dirs = dict(zip(ctx.variables, ctx.directions, strict=True))
    domain = [*ctx.domain, *(sp.Ge(v, sp.E, evaluate=False) if dirs[v] > 0 else sp.Le(v, 1 / sp.E, evaluate=False)
                             for v in sorted(logged, key=lambda s: s.name))]
    proof.nonneg(f"the derived bound is at most the sum of its terms {a_sum}", _minus(a_sum, ctx.derived), hypotheses=domain)
    proof.nonneg(f"the stated rate is at least the sum of its terms {b_sum}", _minus(ctx.claimed, b_sum), hypotheses=domain)
    for factors in parsed:
        for f in factors:
            proof.zero(f"log({f.arg}) = {f.linear()}", f.identity())
    for k, b, _ in ctx.b_split:
        proof.positive(f"coefficient of {b} in the stated rate is positive", k, hypotheses=domain)
    constants = []
    for i, (c, mono, lg) in enumerate(ctx.a_split):
        partners = [j for j, t in enumerate(ctx.b_terms) if t.exponents == ctx.a_terms[i].exponents]
        if not partners:
            proof.unproved(f"the derived term {mono}", "no stated term has the same monomial: comparing a log factor with a "
                           "different power is not reduced to kernel obligations")
            return proof.result()
        k, _, lg_b = ctx.b_split[partners[0]]
        bound = _log_power_bound(ctx, c * lg, k * lg_b, f"{c * mono * lg} <= K {k * mono * lg_b}")
        if bound is None:
            return proof.result()
        constants.append(bound)
    for _, b, lg in ctx.b_split:
        if lg != 1:
            space, _ = log_space(lg, ctx.variables, ctx.directions)
            proof.nonneg(f"log factor {lg} of {b} is >= 0", space, hypotheses=log_space_domain(space, ctx.variables, ctx.directions))
    if derived_is_lower_bound:
        proof.unproved("derived is only a lower bound", "the derived expression is a lower bound on the quantity, so "
                       "bounding it proves nothing about the quantity")
    result = proof.result()
    if result.verdict is Verdict.PROVED:
        result = _amend(result, details=f"derived <= K * claimed where every log v >= 1, K = {sp.Add(*constants)}; " + result.details)
    return result


def _log_power_bound(ctx: _Context, small: sp.Expr, big: sp.Expr, label: str) -> sp.Expr | None:
    """A kernel-proved ``K`` with ``small <= K big`` in log space, or None (the failed attempt is recorded)."""
    proof = ctx.proof
    s_space, back = log_space(small, ctx.variables, ctx.directions)
    b_space, back_b = log_space(big, ctx.variables, ctx.directions)
    back.update(back_b)
    powers = [p for e in (s_space, b_space) for p in e.atoms(sp.Pow) if p.exp.is_Rational]
    r = math.lcm(1, *(int(p.exp.q) for p in powers))
    s_r, b_r = sp.expand_power_base(s_space**r, force=True), sp.expand_power_base(b_space**r, force=True)
    hypotheses = log_space_domain(s_r - b_r, ctx.variables, ctx.directions)
    corner = {s: 1 for s in (s_r.free_symbols | b_r.free_symbols) if s.name.startswith("log_")}
    shrinking = [v for v, d in zip(ctx.variables, ctx.directions, strict=True) if d < 0]
    ends = [{v: end for v in shrinking} for end in (0, 1)] if shrinking else [{}]
    at_ends = [(s_r / b_r).subs(corner).subs(end) for end in ends]
    finite = [value for value in at_ends if not value.has(sp.nan, sp.zoo, sp.oo, -sp.oo)]
    if not finite:
        proof.unproved(label, "the ratio of the log factors is not finite at the corner log v = 1")
        return None
    ratio = sp.Add(*finite)
    for factor in (1, 2, 4, 16):
        q = factor * ratio
        if decision(_minus(q * b_r, s_r), ">=", hypotheses).verdict is Verdict.PROVED:
            proof.nonneg(f"{label} in log space, K^{r} = {q}", _minus(q * b_r, s_r), hypotheses=hypotheses)
            return (q ** sp.Rational(1, r)).xreplace(back)
    proof.unproved(label, f"no candidate K^{r} in (1, 2, 4, 16) times {ratio} was proved by the kernel")
    return None
