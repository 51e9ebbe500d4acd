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
statement a derived term may carry log factors ``Lambda_i >= 0`` (proved): ``K`` then contains them (a polylog).

**DISPROVED** needs the kernel's counterexample to an exponent obligation: a rational log-direction ``y*`` inside the
regime (every ``y*_v > 0``, so side conditions such as ``n >= log(1/delta) log(m)/eps`` hold far along it) where
``<alpha_i, y*> > max_j <beta_j, y*>``, re-checked exactly, with (kernel, as supporting facts)
``derived >= c_i m_i``, ``c_i > 0`` and ``claimed <= sum_j k_j b_j``. Along ``v = e^{t direction_v y*_v}`` the ratio
``derived/claimed`` is then at least ``c_i/(sum_j k_j) e^{t margin}``, larger than any constant times any power of
``log t``: that last, elementary step is printed as a premise ("polynomial growth beats polylog factors").

What the kernel route does not cover (log factors of rate variables in the stated rate, or in a derived term of a
statement that counts logs) is UNDECIDED, with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import sympy as sp

from dpaudit.bounds.rates import Monomial, RateError, _merge, _Tropical
from dpaudit.bounds.symbols import SYMBOLS
from dpaudit.verify.decide import decision
from dpaudit.verify.proof import Proof
from dpaudit.verify.verdict import CheckResult, Verdict, _amend

__all__ = ["kernel_rate_check"]

_GROWTH_PREMISE = ("along v = exp(t direction_v y_v), with every y_v > 0, a ratio at least a e^{t margin} with a > 0, margin > 0 "
                   "exceeds every constant times every power of t (every polylog factor of the rates) for t large, and side "
                   "conditions v >= polylog(...) of the regime hold there: the O~-statement fails")


def _domain(symbols: Sequence[sp.Symbol], variables: Sequence[sp.Symbol], directions: Sequence[int]) -> list[Any]:
    """The domain every monomial step is decided on.

    The regime of the rate variables (``v >= 1`` growing, ``v <= 1`` shrinking) and the declared upper ends of the
    other canonical symbols (``delta < 1``).
    """
    out: list[Any] = []
    dirs = dict(zip(variables, directions, strict=True))
    for s in sorted(symbols, key=lambda t: t.name):
        if s in dirs:
            out.append(sp.Ge(s, 1, evaluate=False) if dirs[s] > 0 else sp.Le(s, 1, evaluate=False))
            continue
        info = SYMBOLS.get(s.name)
        if info is None or info.symbol != s:
            continue
        if not math.isinf(info.high):
            high = sp.Rational(Fraction(info.high))
            out.append(sp.Le(s, high, evaluate=False) if info.high_closed else sp.Lt(s, high, evaluate=False))
        if info.low > 0:
            low = sp.Rational(Fraction(info.low))
            out.append(sp.Ge(s, low, evaluate=False) if info.low_closed else sp.Gt(s, low, evaluate=False))
    return out


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
        (``"log-direction y"``, e.g. ``"n: 3/2, m: 1/2, d: 1/2"``) and the exponent margin.
    """
    proof = Proof(key)
    derived, claimed = sp.sympify(derived), sp.sympify(claimed)
    variables, directions = tuple(variables), tuple(directions)
    tro = _Tropical(variables, directions, ignore_logs=False)
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
    if any(lg != 1 for _, _, lg in b_split):
        proof.unproved("log factors", "the stated rate has log factors of the rate variables: not reduced to kernel "
                       "obligations (a log factor in the denominator of the ratio has no positive lower bound)")
        return proof.result()
    if not ignore_logs and any(lg != 1 for _, _, lg in a_split):
        proof.unproved("log factors", "a derived term has log factors of the rate variables and the statement counts them "
                       "(an O, not an O~): comparing log powers is not reduced to kernel obligations")
        return proof.result()
    symbols = sorted(derived.free_symbols | claimed.free_symbols, key=lambda s: s.name)
    domain = _domain(symbols, variables, directions)
    # the log-space coordinates are nonnegative by declaration (the image of the regime), not a restriction of it
    ys = [sp.Symbol(f"y_{v.name}", nonnegative=True) for v in variables]
    log_space = [sp.Ge(sp.Add(*(sp.sympify(cv) * y for cv, y in zip(c, ys, strict=True))), 0, evaluate=False)
                  for c in regime_vectors]
    proof.given("the regime: " + ", ".join(f"{v} {'>=' if s > 0 else '<='} 1" for v, s in zip(variables, directions, strict=True))
                + "; the other symbols are constants (within their declared domains)",
                "log space: y_v = direction_v ln v >= 0, so a monomial prod v^a_v is exp(<a * direction, y>)")
    if regime:
        proof.assume("regime read in log space", "the regime's conditions " + ", ".join(map(str, regime))
                     + " are read as <c, y> >= 0 (their constants and log factors dropped)")
    b_forms = [_exponent_form(t, variables, directions, ys) for t in b_terms]
    top = b_forms[0] if len(b_forms) == 1 else sp.Max(*b_forms, evaluate=False)
    # unevaluated differences: the kernel decides them (sympy's automatic arithmetic would hand it a literal 0)
    residuals = [_minus(top, _exponent_form(t, variables, directions, ys)) for t in a_terms]
    decisions = [decision(r, ">=", log_space) for r in residuals]
    failed = next((i for i, dec in enumerate(decisions) if dec.verdict is Verdict.DISPROVED), None)
    if failed is not None:
        # a direction inside the regime (every y_v > 0): along it the theorem's side conditions of the form
        # "v >= polylog(...)" (n >= log(1/delta) log(m)/eps) hold for t large; one exists when any does (the set of
        # directions with a positive margin is open)
        interior = [sp.Gt(y, 0, evaluate=False) for y in ys] + log_space
        inside = decision(residuals[failed], ">=", interior)
        if inside.verdict is Verdict.DISPROVED and inside.counterexample:
            return _refute(proof, derived, claimed, a_split[failed], b_split, residuals[failed], inside.counterexample,
                           ys, variables, domain, interior)
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
                     residual, hypotheses=log_space)
    if derived_is_lower_bound:
        proof.unproved("derived is only a lower bound", "the derived expression is a lower bound on the quantity, so "
                       "bounding it proves nothing about the quantity")
    constant = sp.Add(*(c * lg for c, _, lg in a_split)) * sp.Add(*(1 / c for c, _, _ in b_split))
    result = proof.result()
    if result.verdict is Verdict.PROVED:
        result = _amend(result, details=f"derived <= K * claimed on the whole domain, K = {constant}; "
                                     + result.details)
    return result


def _refute(proof: Proof, derived: sp.Expr, claimed: sp.Expr, split: tuple[sp.Expr, sp.Expr, sp.Expr],
            b_split: Sequence[tuple[sp.Expr, sp.Expr, sp.Expr]], residual: sp.Expr, point: Any, ys: Sequence[sp.Symbol],
            variables: Sequence[sp.Symbol], domain: Sequence[Any], log_space: Sequence[Any]) -> CheckResult:
    """DISPROVED from the kernel's re-checked log-direction, with the supporting facts that turn it into a growing ratio."""
    c, mono, lg = split
    b_sum = sp.Add(*(k * b for k, b, _ in b_split))
    with proof.supporting():
        lower = proof.nonneg(f"the derived bound is at least its term {c * mono * lg}", _minus(derived, c * mono * lg), hypotheses=domain)
        pos = proof.positive(f"coefficient {c} is positive", c, hypotheses=domain)
        upper = proof.nonneg(f"the stated rate is at most the sum of its monomials {b_sum}", _minus(b_sum, claimed), hypotheses=domain)
        coefs = [proof.positive(f"coefficient {k} of the stated rate is positive", k, hypotheses=domain) for k, _, _ in b_split]
    proof.assume("polynomial growth beats polylog factors", _GROWTH_PREMISE)
    values = {y: sp.Rational(point.get(y.name, "0")) for y in ys}
    margin = residual.subs(values)
    conditions: dict[str, Any] = {str(h): h.func(h.lhs.subs(values), h.rhs.subs(values)) for h in log_space}
    conditions.update({"derived >= the term (kernel)": lower is Verdict.PROVED, "the term's coefficient > 0 (kernel)": pos is Verdict.PROVED,
                       "stated rate <= its monomials (kernel)": upper is Verdict.PROVED,
                       "the stated rate's coefficients > 0 (kernel)": all(v is Verdict.PROVED for v in coefs)})
    direction = ", ".join(f"{v}: {values[y]}" for v, y in zip(variables, ys, strict=True) if values[y] != 0) or "0"
    proof.refute(f"the derived term {mono} grows faster than the stated rate along the log-direction ({direction})",
                 {"log-direction y": direction, "derived term": str(c * mono * lg), "stated rate": str(claimed),
                  "exponent margin": str(-margin)}, margin, conditions=conditions)
    return _amend(proof.result(), residual=mono)  # the offending term (the verdict and certificate unchanged)
