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

**DISPROVED** needs the kernel's counterexample to an exponent obligation: a rational log-direction inside the regime
along which a derived term outgrows every stated term, re-checked exactly (:mod:`.rate_kernel_refutation`). Such a
direction moves every rate variable to its end of the regime (to infinity, or to 0), so each must be able to get there
inside its declared domain (:data:`~dpaudit.bounds.symbols.SYMBOLS`): a variable bounded on that side (``n >= 1``
cannot shrink to 0, ``delta < 1`` cannot grow) is refused up front, and the domains are printed with the regime.

**Log factors of the rate variables** (in the stated rate, or in a derived term of an O statement, which counts
them) are handled through their log-linear forms (:mod:`.rate_logs`: ``log(2 d^4 m^3 n^4) = log 2 + 4 log d + 3 log m +
4 log n``, an identity the kernel checks): a derived term with more powers of ``log v`` than the stated terms refutes
the statement (:mod:`.rate_kernel_refutation`); for PROVED, each derived term is compared with a stated term of the
same monomial in log space (:mod:`.rate_kernel_log_proof`), where every log of a rate variable is at least 1.

What this does not cover (a log factor that is not log-linear, a derived term of an O statement whose monomial no
stated term has, log factors in the stated rate of an O~ statement) is UNDECIDED, with the reason.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy as sp

from dpaudit.bounds.rate_kernel_context import _constants, _Context, _domain, _exponent_form, _minus
from dpaudit.bounds.rate_kernel_log_proof import _prove_with_logs, decided_restriction
from dpaudit.bounds.rate_kernel_refutation import _refute, _refute_by_log_powers
from dpaudit.bounds.rate_logs import log_factors
from dpaudit.bounds.rate_regime import reachable_ends, regime_directions
from dpaudit.bounds.rates import Monomial, RateError, _merge, _Tropical
from dpaudit.verify.decide import decision
from dpaudit.verify.proof import Proof
from dpaudit.verify.verdict import CheckResult, Verdict, _amend

__all__ = ["decided_restriction", "kernel_rate_check"]


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


@dataclass(frozen=True)
class _Question:
    """The question :func:`kernel_rate_check` puts to the kernel: its arguments, sympified and made tuples."""

    derived: sp.Expr
    claimed: sp.Expr
    key: str
    variables: tuple[sp.Symbol, ...]
    directions: tuple[int, ...]
    ignore_logs: bool
    regime: tuple[Any, ...]
    regime_vectors: tuple[Sequence[Any], ...]
    derived_is_lower_bound: bool


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

    See :func:`_decide` for the obligations.

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
    derived_is_lower_bound : bool
        ``derived`` is only a lower bound on the quantity: it can refute the claim, never prove it.

    Returns
    -------
    CheckResult
        Issued by :meth:`~dpaudit.verify.Proof.result` (kernel-certified when PROVED or DISPROVED). A DISPROVED
        result's ``residual`` is the offending derived monomial; its counterexample names the log-direction
        (``"log-direction y"``, e.g. ``"n: 3/2, m: 1/2, d: 1/2"``) and the exponent margin (and, when the exponents
        tie, the margin in powers of ``t`` of the log factors).

    Raises
    ------
    InvalidArgument
        If a rate variable cannot reach its end of the regime inside its declared domain (``n``, an integer >= 1, asked
        to shrink; ``delta``, in (0, 1), asked to grow; :func:`~dpaudit.bounds.rate_regime.reachable_ends`): a refuting
        log-direction would leave the domain (the regime ``n <= 1`` meets it only at ``n = 1``), so no such question
        is decided.
    """
    regime_directions(tuple(variables), [v for v, s in zip(variables, directions, strict=True) if s < 0], "kernel_rate_check")
    regime, regime_vectors = tuple(regime), tuple(regime_vectors)
    logged = tuple(i for i, rel in enumerate(regime) if has_rate_logs(rel, variables))
    question = _Question(sp.sympify(derived), sp.sympify(claimed), key, tuple(variables), tuple(directions), ignore_logs,
                         regime, regime_vectors, derived_is_lower_bound)
    result = _decide(question, strict=logged)
    if not logged:
        return result
    shown = ", ".join(str(regime[i]) for i in logged)
    if result.verdict is Verdict.PROVED:
        kept = [i for i in range(len(regime)) if i not in logged]
        without = _decide(dataclasses.replace(question, regime=tuple(regime[i] for i in kept),
                                              regime_vectors=tuple(regime_vectors[i] for i in kept)))
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


def _decide(question: _Question, strict: Sequence[int] = ()) -> CheckResult:
    """The kernel's decision of ``question`` (:func:`kernel_rate_check`, which gates the regime constraints with log factors).

    Parameters
    ----------
    question : _Question
        The comparison asked (the parameters of :func:`kernel_rate_check`).
    strict : sequence of int
        Indices of the constraints a refuting log-direction must satisfy strictly (``<c, y*> > 0``): those with log
        factors of the rate variables.

    Returns
    -------
    CheckResult
        As :func:`kernel_rate_check` describes, before its gate.
    """
    proof = Proof(question.key)
    derived, claimed, variables, directions = question.derived, question.claimed, question.variables, question.directions
    ignore_logs, regime, regime_vectors = question.ignore_logs, question.regime, question.regime_vectors
    derived_is_lower_bound = question.derived_is_lower_bound
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
                + " (each rate variable reaches its end of the regime inside its declared domain: "
                + ", ".join(f"{v} {reachable_ends(v)[2]}" for v in variables)
                + "); the other symbols are constants (within their declared domains)",
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
    # a symbolic exponent (n**tau) is a constant within its declared domain (delta < 1): its ends are hypotheses
    exponent_hypotheses = [[*log_space_rel, *_constants(r)] for r in residuals]
    decisions = [decision(r, ">=", h) for r, h in zip(residuals, exponent_hypotheses, strict=True)]
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
        inside = decision(residuals[failed], ">=", [*interior, *_constants(residuals[failed])])
        if inside.verdict is Verdict.DISPROVED and inside.counterexample:
            point = {y: Fraction(inside.counterexample.get(y.name, "0")) for y in ys}
            refuted = _refute(ctx, failed, point)
            if refuted is not None:
                return refuted
        symbolic = sorted(map(str, residuals[failed].free_symbols - set(ys)))
        if symbolic:
            proof.unproved(f"symbolic exponents ({', '.join(symbolic)}) not refuted",
                           f"the exponent obligation of {a_split[failed][1]} fails for some value of "
                           f"{', '.join(symbolic)} in its declared domain: no refutation is issued for a symbolic exponent "
                           "(its value is not fixed) and nothing is proved")
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
    for (_, mono, _), residual, hypotheses in zip(a_split, residuals, exponent_hypotheses, strict=True):
        proof.nonneg(f"exponent of {mono} <= the largest exponent of the stated rate, for every log-direction y of the regime",
                     residual, hypotheses=hypotheses)
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
