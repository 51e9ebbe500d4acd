"""The rate engine: does a derived bound have the stated leading rate over the regime?

The verdict comes from the trusted kernel (:func:`~dpaudit.bounds.rate_kernel.kernel_rate_check`: the comparison
reduced to exact obligations on the monomials and, in log space, on their exponents). The engine's own reading is
kept as evidence in ``details``: :func:`~dpaudit.bounds.rate_comparison.compare_rates` (an LP certificate, or a
witness direction) and slopes of the log-ratio along random rays of the regime (floats: evidence only).
"""


from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from dpaudit._validation import argument_error
from dpaudit.bounds.checks import DIGITS, _mp_eval, _mp_fn, _shown, _symbols_of, random_points
from dpaudit.bounds.rate_comparison import compare_rates, regime_vectors
from dpaudit.bounds.rate_kernel import decided_restriction, kernel_rate_check
from dpaudit.bounds.rate_kernel_context import _domain
from dpaudit.bounds.rate_regime import regime_directions
from dpaudit.bounds.rates import RateError
from dpaudit.bounds.symbols import RATE_VARIABLES
from dpaudit.bounds.theorem import Bound
from dpaudit.bounds.verdict import CheckResult, Verdict
from dpaudit.verify.decide import vacuity
from dpaudit.verify.verdict import _amend

__all__ = ["check_rate"]


_SCALE_LO = 1e50
_SCALE_HI = 1e100
"""Scales t of the rays v = t^(direction * y) on which numerical slopes are measured."""
_RAY_BASE = 10.0
"""Rays start at n = m = d = 10 and epsilon = 1/10, away from the degenerate point log(1) = 0."""


def _ray_point(rate_vars: Sequence[sp.Symbol], directions: Sequence[int], y: Mapping[sp.Symbol, float],
               scale: float, constants: Mapping[sp.Symbol, float]) -> dict[sp.Symbol, float]:
    pt = dict(constants)
    for v, s in zip(rate_vars, directions, strict=True):
        pt[v] = math.exp(s * (math.log(_RAY_BASE) + float(y.get(v, 0.0)) * math.log(scale)))
    return pt


def _random_direction(rate_vars: Sequence[sp.Symbol], cvecs: Sequence[Sequence[Any]], rng: np.random.Generator,
                      tries: int = 200) -> dict[sp.Symbol, float] | None:
    """A random direction of the simplex inside the regime cone (rejection sampling), or None."""
    for _ in range(tries):
        raw = rng.exponential(size=len(rate_vars))
        y = raw / raw.sum()
        if all(sum(float(c[i]) * y[i] for i in range(len(y))) >= 0 for c in cvecs):
            return {v: float(w) for v, w in zip(rate_vars, y, strict=True)}
    return None


def _log_ratio(f_a: Any, f_b: Any, syms: Sequence[sp.Symbol], pt: Mapping[sp.Symbol, float]) -> float | None:
    with mpmath.workdps(DIGITS):
        a, b = _mp_eval(f_a, syms, pt), _mp_eval(f_b, syms, pt)
        if a is None or b is None or a <= 0 or b <= 0:
            return None
        return float(mpmath.log(a) - mpmath.log(b))


def check_rate(
    derived: Any,
    claimed: Bound | Any,
    *,
    claim: str,
    source: str,
    rng: np.random.Generator,
    variables: Sequence[sp.Symbol] = RATE_VARIABLES,
    small: Iterable[sp.Symbol] | None = None,
    ignore_logs: bool | None = None,
    directions_tried: int = 8,
    assumptions: Sequence[str] = (),
    derived_is_lower_bound: bool = False,
    constraints: Sequence[Any] = (),
) -> CheckResult:
    """Check that ``derived`` is at most the ``claimed`` rate (up to constants) over the regime.

    The verdict is the trusted kernel's (:func:`~dpaudit.bounds.rate_kernel.kernel_rate_check`): PROVED means
    ``derived <= K claimed`` on the whole domain for a constant ``K`` free of the rate variables (printed in
    ``details``; for an O~ statement, ``ignore_logs``, ``K`` holds the derived terms' log factors of the rate
    variables, ``details`` says so and the claim reads "Õ(...) (log factors of the rate variables ignored)");
    DISPROVED means a log-direction of the regime, re-checked exactly, along which a derived term outgrows the stated
    rate (the ratio then exceeds every constant times every polylog: a printed premise).
    The rate engine's reading (:func:`_engine_reading`: LP certificate or witness, numeric slopes) is evidence,
    appended to ``details``; when it disagrees with the kernel, ``details`` says so. Log factors of the rate variables
    are decided by the kernel too (log-linear forms, :mod:`~dpaudit.bounds.rate_logs`). Where the kernel route does not
    decide (a log factor that is not log-linear, a bound not reduced to its monomials), the verdict is UNDECIDED, the
    engine's reading kept in ``details`` and ``reason`` as evidence. A regime constraint with log factors of the rate
    variables (``d <= log(n)``, read in log space without them) never proves (a PROVED that needs it is UNDECIDED),
    and refutes only along a log-direction that satisfies it strictly in log space (see
    :func:`~dpaudit.bounds.rate_kernel.kernel_rate_check`). A PROVED is marked with the regime's ``vacuity`` when the
    kernel does not show the regime (with the domain) has a point.

    The certified ``claim`` is the formula decided (:func:`certified_claim`: ``"derived = O(claimed) over the regime
    ..."``); the caller's ``claim=`` text is a label, recorded as ``CheckResult.statement``.

    Parameters
    ----------
    derived : sympy expression
        The rate obtained by substituting the theorem's parameter settings into the lemmas.
    claimed : Bound or sympy expression
        The stated rate. For a Bound, its hidden variables are treated as constants and its tilde
        decides ``ignore_logs`` unless given.
    derived_is_lower_bound : bool
        ``derived`` is only a lower bound on the quantity (e.g. one term of a sum). It can then show
        the claim fails (DISPROVED) but never prove it: a PROVED comparison is reported UNDECIDED.
    constraints : sequence of sympy relations
        Asymptotic regime constraints (see :func:`~dpaudit.bounds.rate_comparison.regime_vectors`), added to
        the ``regime`` forms of the claimed bound's conditions.

    Returns
    -------
    CheckResult
        Kernel-certified when PROVED or DISPROVED; the counterexample is the log-direction.

    Raises
    ------
    InvalidArgument
        If a constraint is not an inequality (one sympy already evaluated to True or False included), or the kernel
        shows the regime (the constraints with the domain of the rate variables) has no point, or ``small`` asks a
        rate variable to move where its declared domain does not reach (``n``, an integer >= 1, among ``small``:
        it cannot shrink to 0; ``delta``, in (0, 1), left out of it: it cannot grow). A refuting log-direction moves
        every rate variable to its end of the regime, so each must reach that end inside its domain; the domains are
        printed with the regime in ``assumptions``.
    """
    if not isinstance(claim, str):
        raise argument_error("check_rate", "claim", "a string (a label for the result)", claim)
    constraints = _checked_constraints(constraints)
    hidden = set(claimed.hidden_variables) if isinstance(claimed, Bound) else set()
    rate_vars = tuple(v for v in variables if v not in hidden)
    directions = regime_directions(rate_vars, small, "check_rate")  # each variable can reach its end of the regime
    engine = _engine_reading(derived, claimed, claim=claim, source=source, rng=rng, variables=variables, small=small,
                             ignore_logs=ignore_logs, directions_tried=directions_tried, assumptions=assumptions,
                             derived_is_lower_bound=derived_is_lower_bound, constraints=constraints)
    claimed_expr = claimed.expression if isinstance(claimed, Bound) else sp.sympify(claimed)
    if ignore_logs is None:
        ignore_logs = claimed.kind.ignores_logs if isinstance(claimed, Bound) else False
    regime = list(constraints)
    if isinstance(claimed, Bound):
        regime += [cond.regime for cond in claimed.conditions if cond.regime is not None]
    regime = [r for r in regime if r.free_symbols & set(rate_vars)]
    empty = _regime_vacuity(derived, claimed_expr, rate_vars, directions, regime)
    if empty.startswith("vacuous"):
        raise argument_error("check_rate", "constraints", "a regime with points in the domain", empty)
    label = claim
    claim = certified_claim(derived, claimed_expr, rate_vars, directions, bool(ignore_logs), regime, derived_is_lower_bound)
    # a regime constraint with log factors of the rate variables (read in log space without them) supports neither
    # verdict unless checked exactly: kernel_rate_check leaves such a PROVED or DISPROVED UNDECIDED, with the reason
    kernel = _kernel(derived, claimed_expr, claim, rate_vars, directions, bool(ignore_logs), regime,
                     derived_is_lower_bound)
    reading = f"rate engine (evidence, not a decision): {engine.verdict.name}: {engine.details}"
    if engine.verdict is not Verdict.UNDECIDED and kernel.verdict is not Verdict.UNDECIDED and engine.verdict is not kernel.verdict:
        reading += " [the engine's reading disagrees with the kernel: investigate]"
    # every PROVED / DISPROVED is the kernel's: where the kernel does not decide (a log factor that is not
    # log-linear, a bound it cannot reduce to its monomials), the verdict is UNDECIDED and the engine's reading
    # stays in ``details`` as evidence only
    if kernel.verdict is Verdict.PROVED:  # proved only where every log of a logged rate variable is >= 1: say so
        claim = certified_claim(derived, claimed_expr, rate_vars, directions, bool(ignore_logs), regime,
                                derived_is_lower_bound, restricted=decided_restriction(kernel, rate_vars, directions))
    result = _amend(kernel, claim=claim, statement=label, source=source, method="kernel+rates",
                    assumptions=(*assumptions, *kernel.assumptions), cases=kernel.cases + engine.cases,
                    details=f"{kernel.details}; {reading}",
                    reason=(f"kernel: {kernel.reason}; {reading}" if kernel.verdict is Verdict.UNDECIDED else kernel.reason))
    if result.verdict is Verdict.PROVED and empty and not result.vacuity:
        result = _amend(result, vacuity=empty)
    return result


def certified_claim(derived: Any, claimed: Any, rate_vars: Sequence[sp.Symbol], directions: Sequence[int],
                    ignore_logs: bool, regime: Sequence[Any], derived_is_lower_bound: bool,
                    restricted: Sequence[Any] = ()) -> str:
    """What :func:`check_rate` decides, as a formula: ``"derived = O(claimed) over the regime ..."``.

    An O~ comparison (``ignore_logs``) reads ``"derived = Õ(claimed) (log factors of the rate variables ignored)"``:
    its constant may hold log factors of the rate variables. ``restricted`` are the ends ``n >= E`` /
    ``epsilon <= exp(-1)`` a comparison with log factors was proved on
    (:func:`~dpaudit.bounds.rate_kernel.decided_restriction`): the claim then reads "... restricted to n >= E" (``1 <=
    K log n`` fails at ``n = 1`` for every ``K``, so "over the regime n >= 1" would be false).
    """
    used = set().union(sp.sympify(derived).free_symbols, sp.sympify(claimed).free_symbols,
                       *(r.free_symbols for r in regime))
    ends = [f"{v} {'>=' if s > 0 else '<='} 1" for v, s in zip(rate_vars, directions, strict=True) if v in used]
    text = f"{derived} = {'Õ' if ignore_logs else 'O'}({claimed})"
    if ignore_logs:
        text += " (log factors of the rate variables ignored)"
    if ends:
        text += " over the regime " + ", ".join(ends)
    if restricted:
        text += " restricted to " + ", ".join(map(str, restricted)) + " (where every log of those variables is >= 1)"
    if regime:
        text += " with " + ", ".join(map(str, regime))
    if derived_is_lower_bound:
        text += " (the derived rate a lower bound on the quantity)"
    return text


def _checked_constraints(constraints: Sequence[Any]) -> list[Any]:
    """The regime constraints, each a sympy relation; one sympy already evaluated (to True/False) is refused."""
    out = []
    for rel in constraints:
        rel = sp.sympify(rel)
        if not isinstance(rel, sp.core.relational.Relational) or isinstance(rel, (sp.Eq, sp.Ne)):
            raise argument_error("check_rate", "constraints", "inequalities between monomials (e.g. n >= sqrt(d)/epsilon), "
                                 "not already evaluated by sympy (build them with evaluate=False)", rel)
        out.append(rel)
    return out


def _regime_vacuity(derived: Any, claimed: Any, rate_vars: Sequence[sp.Symbol], directions: Sequence[int],
                    regime: Sequence[Any]) -> str:
    """The kernel's verdict on the regime (with the domain) having a point: ``""``, ``"vacuous: ..."`` or undecided."""
    if not regime:
        return ""
    symbols = sorted(set().union(sp.sympify(derived).free_symbols, sp.sympify(claimed).free_symbols,
                                 *(r.free_symbols for r in regime)), key=lambda s: s.name)
    return vacuity([*_domain(symbols, rate_vars, directions), *regime])


def _kernel(derived: Any, claimed: Any, claim: str, rate_vars: Sequence[sp.Symbol], directions: Sequence[int],
            ignore_logs: bool, regime: Sequence[Any], derived_is_lower_bound: bool) -> CheckResult:
    return kernel_rate_check(derived, claimed, key=f"rate: {claim}", variables=rate_vars, directions=directions,
                             ignore_logs=ignore_logs, regime=regime,
                             regime_vectors=regime_vectors(regime, rate_vars, directions),
                             derived_is_lower_bound=derived_is_lower_bound)


def _engine_reading(
    derived: Any,
    claimed: Bound | Any,
    *,
    claim: str,
    source: str,
    rng: np.random.Generator,
    variables: Sequence[sp.Symbol] = RATE_VARIABLES,
    small: Iterable[sp.Symbol] | None = None,
    ignore_logs: bool | None = None,
    directions_tried: int = 8,
    assumptions: Sequence[str] = (),
    derived_is_lower_bound: bool = False,
    constraints: Sequence[Any] = (),
) -> CheckResult:
    """The rate engine's own reading of the comparison (uncertified: evidence for :func:`check_rate`).

    The symbolic part is :func:`~dpaudit.bounds.rate_comparison.compare_rates` (exact LP certificate or a
    witness direction). The numerical part evaluates ``log(derived/claimed)`` in 50-digit
    arithmetic along rays ``v = 10 t^(direction_v * y_v)`` at ``t = 1e50`` and ``t = 1e100``, with
    all other symbols fixed at random values:

    * when the rate comparison finds a witness direction, the slope of the log-ratio along it
      must be at least half the LP margin for DISPROVED;
    * when it proves dominance, the slope along random directions must stay below the allowance
      for the log factors present (about 0.006 per unit of log power).

    Parameters
    ----------
    derived : sympy expression
        The rate obtained by substituting the theorem's parameter settings into the lemmas.
    claimed : Bound or sympy expression
        The stated rate. For a Bound, its hidden variables are treated as constants and its tilde
        decides ``ignore_logs`` unless given.
    derived_is_lower_bound : bool
        ``derived`` is only a lower bound on the quantity (e.g. one term of a sum). It can then show
        the claim fails (DISPROVED) but never prove it: a PROVED comparison is reported UNDECIDED.
    constraints : sequence of sympy relations
        Asymptotic regime constraints (see :func:`~dpaudit.bounds.rate_comparison.regime_vectors`), added to
        the ``regime`` forms of the claimed bound's conditions.

    Returns
    -------
    CheckResult
        ``residual`` is the offending derived term (DISPROVED) or the derived rate; a
        counterexample gives a concrete point deep in the regime where derived/claimed is large.
    """
    claimed_expr = claimed.expression if isinstance(claimed, Bound) else sp.sympify(claimed)
    hidden = set(claimed.hidden_variables) if isinstance(claimed, Bound) else set()
    if ignore_logs is None:
        ignore_logs = claimed.kind.ignores_logs if isinstance(claimed, Bound) else False
    rate_vars = tuple(v for v in variables if v not in hidden)
    derived = sp.sympify(derived)
    regime = list(constraints)
    if isinstance(claimed, Bound):
        regime += [cond.regime for cond in claimed.conditions if cond.regime is not None]
    regime = [r for r in regime if r.free_symbols & set(rate_vars)]
    try:
        cmp = compare_rates(derived, claimed_expr, rate_vars, small=small, ignore_logs=ignore_logs, constraints=regime,
                            certify=False)
    except RateError as exc:
        return CheckResult(Verdict.UNDECIDED, claim, source, "rates", derived, tuple(assumptions), None, 0,
                           f"rate extraction failed: {exc}")
    dom = cmp.a_le_b
    syms = _symbols_of(derived, claimed_expr)
    others = [s for s in syms if s not in rate_vars]
    f_a, f_b = _mp_fn(derived, syms), _mp_fn(claimed_expr, syms)
    directions = cmp.a.directions
    cvecs = regime_vectors(regime, cmp.a.variables, directions)
    cases = 0
    details = f"rate comparison: {cmp.summary}" + (f" (regime: {', '.join(map(str, regime))})" if regime else "")
    if dom.verdict is Verdict.DISPROVED and dom.witness is not None:
        y = {v: float(w) for v, w in dom.witness.items()}
        consts = random_points(others, rng, 1, corners=False)[0] if others else {}
        lo = _log_ratio(f_a, f_b, syms, _ray_point(rate_vars, directions, y, _SCALE_LO, consts))
        hi = _log_ratio(f_a, f_b, syms, _ray_point(rate_vars, directions, y, _SCALE_HI, consts))
        shown_pt = _ray_point(rate_vars, directions, y, 1e12, consts)
        shown = _log_ratio(f_a, f_b, syms, shown_pt)
        cases = 3
        if lo is None or hi is None or shown is None:
            return CheckResult(Verdict.UNDECIDED, claim, source, "rates+numeric", dom.offending.as_expr() if dom.offending else derived,
                               tuple(assumptions), None, cases, details + "; could not evaluate along the witness ray")
        slope = (hi - lo) / math.log(_SCALE_HI / _SCALE_LO)
        details += f"; numeric slope of log(derived/claimed) along the witness = {slope:.3g} (LP margin {dom.margin:.3g})"
        if slope >= dom.margin / 2:
            counterexample = {**_shown(shown_pt), "derived/claimed": float(math.exp(min(shown, 700.0)))}
            offending = dom.offending.as_expr(with_coefficient=False) if dom.offending else derived
            return CheckResult(Verdict.DISPROVED, claim, source, "rates+numeric", offending, tuple(assumptions),
                               counterexample, cases, details)
        return CheckResult(Verdict.UNDECIDED, claim, source, "rates+numeric", derived, tuple(assumptions), None,
                           cases, details + "; numbers do not confirm the witness: investigate")
    # numeric probe along random rays of the regime (for PROVED and UNDECIDED comparisons alike)
    worst = -math.inf
    for _ in range(directions_tried):
        ray = _random_direction(rate_vars, cvecs, rng)
        if ray is None:
            continue
        consts = random_points(others, rng, 1, corners=False)[0] if others else {}
        lo = _log_ratio(f_a, f_b, syms, _ray_point(rate_vars, directions, ray, _SCALE_LO, consts))
        hi = _log_ratio(f_a, f_b, syms, _ray_point(rate_vars, directions, ray, _SCALE_HI, consts))
        if lo is None or hi is None:
            continue
        cases += 2
        worst = max(worst, (hi - lo) / math.log(_SCALE_HI / _SCALE_LO))
    # between t = 1e50 and t = 1e100 a log factor grows by a factor of about 2, so each unit of log
    # power moves the slope by about log(2)/log(1e50) = 0.006; a polynomial excess would move it by the
    # excess exponent times the ray's weight
    log_power = sum(abs(float(pw)) for t in cmp.a.terms + cmp.b.terms for _, pw in t.logs if sp.sympify(pw).is_number)
    tolerance = 2 * (1 + log_power) * math.log(2) / math.log(_SCALE_LO)
    details += (f"; max numeric slope of log(derived/claimed) over {cases // 2} random rays = {worst:.3g}"
                f" (log-factor allowance {tolerance:.3g})")
    if dom.verdict is not Verdict.PROVED:
        return CheckResult(Verdict.UNDECIDED, claim, source, "rates+numeric", derived, tuple(assumptions), None,
                           cases, details + (f"; {dom.note}" if dom.note else ""))
    if worst > tolerance:
        return CheckResult(Verdict.UNDECIDED, claim, source, "rates+numeric", derived, tuple(assumptions), None,
                           cases, details + "; numbers disagree with the LP certificate: investigate")
    if cases == 0:
        return CheckResult(Verdict.UNDECIDED, claim, source, "rates+numeric", derived, tuple(assumptions), None,
                           cases, details + "; no ray could be evaluated")
    if derived_is_lower_bound:
        return CheckResult(Verdict.UNDECIDED, claim, source, "rates+numeric", derived, tuple(assumptions), None,
                           cases, details + "; derived is only a lower bound, so this proves nothing")
    return CheckResult(Verdict.PROVED, claim, source, "rates+numeric", cmp.a.as_expr(), tuple(assumptions), None,
                       1 + cases, details)
