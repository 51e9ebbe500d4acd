"""Check engines: identities and inequalities (rates: :mod:`.rate_checks`), each symbolic *and* numeric.

Every engine returns a :class:`~dpaudit.bounds.verdict.CheckResult` and decides through the same trusted
kernel as :mod:`dpaudit.verify` (:mod:`dpaudit.verify.kernel`; one decider for both):

* the kernel is asked first (Z3 on the exact translation, certified interval arithmetic); an inequality
  with kinks (``Min``, ``Max``, ``Abs``, ``Piecewise``) it leaves open is then split into cases, one per
  ordering of the terms deciding the kinks (:func:`dpaudit.verify.prove_by_cases`; coverage checked), each
  case decided by the kernel too;
* the claim is then evaluated at random points drawn with the caller's seeded generator (plus the
  corners of the sampling box), in 50-digit arithmetic; a violation there is only a candidate;
* PROVED needs the kernel's proof; DISPROVED needs a point re-checked exactly by the kernel (the kernel's
  own counterexample, or a numerical one at its exact rational coordinates, with ``where`` verified
  there); anything else is UNDECIDED, with the evidence in ``details``.

A kernel proof together with a re-checked counterexample raises
:class:`~dpaudit.verify.kernel.KernelError`: it is a bug, never silently resolved either way.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from dpaudit._validation import argument_error, check_int
from dpaudit.bounds.symbols import SYMBOLS, SymbolInfo
from dpaudit.bounds.verdict import CheckResult, Premise, Verdict
from dpaudit.errors import ArgumentTypeError
from dpaudit.verify._record import _assumption_text, rng_for
from dpaudit.verify.decide import decision, exact_floats, refuse_same_names, vacuity
from dpaudit.verify.kernel import Decision, KernelError, point_keys, recheck
from dpaudit.verify.piecewise import CaseSplitError, has_kinks, prove_by_cases
from dpaudit.verify.proof import Proof
from dpaudit.verify.verdict import APPROX, _issue, uncertified_as_undecided

__all__ = [
    "CheckSpec",
    "check_identity",
    "check_inequality",
    "random_points",
]

DIGITS = 50
"""Working precision (decimal digits) of the numerical cross-checks."""

_REL_TOL = mpmath.mpf(10) ** -30


def _info(symbol: sp.Symbol) -> SymbolInfo:
    """Declared domain of a canonical symbol; auxiliary positive (or real) symbols get a default box."""
    info = SYMBOLS.get(symbol.name)
    if info is not None and info.symbol == symbol:
        return info
    if symbol.is_positive:  # an integer one (a phase count) is drawn as an integer: its points must satisfy its assumptions
        return SymbolInfo(symbol, "auxiliary positive symbol", 0.0, math.inf, False, False, (1e-2, 1e2),
                          integer=bool(symbol.is_integer))
    if symbol.is_nonnegative:
        return SymbolInfo(symbol, "auxiliary nonnegative symbol", 0.0, math.inf, True, False, (0.0, 10.0),
                          log_scale=False)
    if symbol.is_real:
        return SymbolInfo(symbol, "auxiliary real symbol", -math.inf, math.inf, False, False, (-10.0, 10.0),
                          log_scale=False)
    raise argument_error("random_points", "symbols", "canonical dpaudit.bounds symbols or positive/real symbols",
                         symbol.name)


def _draw(lo: float, hi: float, info: SymbolInfo, u: float) -> float:
    if info.log_scale and lo > 0:
        value = math.exp(math.log(lo) + u * (math.log(hi) - math.log(lo)))
    else:
        value = lo + u * (hi - lo)
    if info.integer:
        value = float(min(max(round(value), math.ceil(lo)), math.floor(hi)))
    return value


def random_points(
    symbols: Iterable[sp.Symbol],
    rng: np.random.Generator,
    count: int,
    *,
    region: Mapping[sp.Symbol, tuple[float, float]] | None = None,
    where: Sequence[Any] = (),
    corners: bool = True,
) -> list[dict[sp.Symbol, float]]:
    """Random parameter points for numerical cross-checks.

    Parameters
    ----------
    symbols : iterable of Symbol
        Canonical symbols to assign.
    rng : numpy.random.Generator
        Source of randomness (seeded by the caller).
    count : int
        Number of random points (before filtering by ``where``).
    region : mapping, optional
        Sampling box per symbol, overriding the typical range declared in
        :mod:`dpaudit.bounds.symbols`.
    where : sequence of sympy relationals
        Constraints the points must satisfy (e.g. a theorem's conditions); points that violate
        one are discarded.
    corners : bool
        Also include the corners of the sampling box (all of them for up to 6 symbols, otherwise
        64 random corners).

    Returns
    -------
    list of dict
        Points, each mapping every symbol to a float (integers for integer symbols).
    """
    if not isinstance(rng, np.random.Generator):
        raise argument_error("random_points", "rng", "a numpy.random.Generator", rng)
    count = check_int("random_points", "count", count, minimum=0)
    syms = sorted(set(symbols), key=lambda s: s.name)
    region = dict(region or {})
    boxes = []
    for s in syms:
        info = _info(s)
        lo, hi = region.get(s, info.typical)
        boxes.append((s, float(lo), float(hi), info))
    points: list[dict[sp.Symbol, float]] = []
    if corners and boxes:
        combos: Iterable[tuple[int, ...]]
        if len(boxes) <= 6:
            combos = itertools.product((0, 1), repeat=len(boxes))
        else:
            combos = [tuple(int(b) for b in rng.integers(0, 2, size=len(boxes))) for _ in range(64)]
        for combo in combos:
            points.append({s: _draw(lo, hi, info, float(bit)) for (s, lo, hi, info), bit in zip(boxes, combo, strict=True)})
    uniforms = rng.random((count, len(boxes)))
    for row in uniforms:
        points.append({s: _draw(lo, hi, info, float(u)) for (s, lo, hi, info), u in zip(boxes, row, strict=True)})
    if where:
        points = [pt for pt in points if all(_holds(rel, pt) for rel in where)]
    return points


def _holds(relation: Any, point: Mapping[sp.Symbol, float]) -> bool:
    """Whether a sympy relation holds at a point (evaluated in 50-digit arithmetic)."""
    rel = sp.sympify(relation)
    syms = tuple(sorted(rel.free_symbols, key=lambda s: s.name))
    fn = _relation_fn(rel, syms)
    if fn is None:
        return False
    with mpmath.workdps(DIGITS):
        try:
            return bool(fn(*(mpmath.mpf(point[s]) for s in syms)))
        except _NOT_EVALUATED:  # e.g. sqrt(x) < 0 at x < 0 (no order on complex numbers): the point is not in the domain
            return False


#: What evaluating a claim numerically may raise at a point outside its domain or on a form mpmath cannot evaluate
#: (a complex comparison, a ``Piecewise`` with no branch there, a ``Sum`` with a float bound): the point is skipped.
_NOT_EVALUATED = (ArithmeticError, ValueError, TypeError)


@functools.lru_cache(maxsize=256)
def _relation_fn(rel: Any, syms: tuple[sp.Symbol, ...]) -> Any:
    return _mp_fn(rel, syms)


def _mp_fn(expr: Any, symbols: Sequence[sp.Symbol]) -> Any:
    """``expr`` as an mpmath function of ``symbols``, or ``None`` when sympy cannot print it for mpmath.

    E.g. an unevaluated ``Derivative``: the numerical cross-check, which can only refute, is then skipped.
    """
    try:  # dummify: two symbols named alike stay two arguments
        return sp.lambdify(tuple(symbols), expr, modules="mpmath", dummify=True)
    except (ValueError, TypeError, KeyError, NotImplementedError):
        return None


def _mp_eval(fn: Any, symbols: Sequence[sp.Symbol], point: Mapping[sp.Symbol, float]) -> mpmath.mpf | None:
    if fn is None:
        return None
    try:
        value = fn(*(mpmath.mpf(point[s]) for s in symbols))
        if isinstance(value, mpmath.mpc):
            if abs(value.imag) > _REL_TOL * max(1, abs(value.real)):
                return None
            value = value.real
        value = mpmath.mpf(value)
    except _NOT_EVALUATED:
        return None
    if mpmath.isnan(value):
        return None
    return value


def _shown(point: Mapping[sp.Symbol, float]) -> dict[str, float]:
    return {s.name: float(v) for s, v in sorted(point.items(), key=lambda t: t[0].name)}


def _decimal(value: float) -> sp.Rational:
    """A region end given as a float, read as the decimal it was written as (``1e-3`` is 1/1000)."""
    return sp.Rational(repr(float(value)))


def _exact_point(point: Mapping[sp.Symbol, float]) -> dict[str, Fraction]:
    """A numerical point at the exact values of its floats (the point :func:`_confirmed` re-checks).

    Keyed by :func:`~dpaudit.verify.kernel.point_keys` (two symbols named alike keep both coordinates).
    """
    keys = point_keys(list(point))
    return {keys[s]: Fraction(float(v)) for s, v in point.items()}


def _symbols_of(*exprs: Any) -> list[sp.Symbol]:
    out: set[sp.Symbol] = set()
    for e in exprs:
        out |= sp.sympify(e).free_symbols
    return sorted(out, key=lambda s: s.name)


def _exact_inputs(lhs: Any, rhs: Any, where: Sequence[Any], assumptions: Sequence[str]
                  ) -> tuple[sp.Expr, sp.Expr, list[Any], tuple[str, ...]]:
    """The claim with every float read at its exact binary value, the readings added to the printed assumptions.

    See :func:`dpaudit.verify.decide.exact_floats`; a sympy Float is never rounded to a nearby
    decimal. The strings of ``assumptions`` are words, which the kernel cannot read: they are printed as
    ``"stated, not used by the decision: ..."`` (a restriction the decision must use goes in ``where=``).
    """
    if isinstance(assumptions, str):
        raise argument_error("check_inequality", "assumptions", "a sequence of strings (restrictions the decision must use "
                             "go in where=, as sympy relations)", assumptions)
    lhs, n_l = exact_floats(lhs)
    rhs, n_r = exact_floats(rhs)
    converted = [exact_floats(w) for w in where]
    notes = list(dict.fromkeys([*n_l, *n_r, *(n for _, ns in converted for n in ns)]))
    stated = tuple(f"stated, not used by the decision: {a}" for a in assumptions)
    return lhs, rhs, [w for w, _ in converted], (*stated, *notes)


def _label(function: str, claim: str | None) -> str:
    """The caller's ``claim=`` text: a label recorded as ``CheckResult.statement``, never the certified claim."""
    if claim is not None and not isinstance(claim, str):
        raise argument_error(function, "claim", "a string (a label for the result) or None", claim)
    return claim or ""


def _decided(lhs: sp.Expr, relation: str, rhs: sp.Expr, symbols: Sequence[sp.Symbol]) -> str:
    """The certified claim: the formula the kernel decided, quantified over its symbols (domains: the hypotheses)."""
    names = ", ".join(str(s) if isinstance(s, sp.Dummy) else s.name for s in symbols)
    return f"{lhs} {relation} {rhs}" + (f" for all {names}" if names else "")


def _hypotheses(symbols: Sequence[sp.Symbol], assumptions: Sequence[str]) -> tuple[str, ...]:
    """The printed hypotheses: ``assumptions`` and every symbol's declared domain.

    The domains (``p > 0``, ``n > 0 integer``) are what the kernel decided under.
    """
    return (*assumptions, "symbols: " + ", ".join(_assumption_text(s) for s in symbols)) if symbols else tuple(assumptions)


def _kernel(residual: sp.Expr, kind: str, where: Sequence[Any]) -> tuple[bool | None, sp.Expr, Decision | None]:
    """The kernel's answer on ``residual >= 0`` (``>``, ``==``) under ``where``.

    (True, ...) PROVED, (False, ...) DISPROVED with a re-checked point, (None, ...) undecided. A
    formula the kernel refuses (a float) is undecided.
    """
    try:
        d = decision(residual, kind, list(where))
    except TypeError:
        return None, residual, None
    answer = {Verdict.PROVED: True, Verdict.DISPROVED: False}.get(d.verdict)
    return answer, residual, d


def _confirmed(lhs: sp.Expr, rhs: sp.Expr, point: Mapping[sp.Symbol, float], kind: str, where: Sequence[Any] = ()) -> bool:
    """Is the numerical counterexample at ``point`` a counterexample in exact arithmetic?

    The point's floats are exact rationals; the kernel re-checks there that ``where`` holds and the claim
    fails (:func:`dpaudit.verify.kernel.recheck`). ``kind`` is ``"le"`` (claim lhs <= rhs), ``"lt"`` or ``"eq"``.
    """
    exact = {s: Fraction(float(v)) for s, v in point.items()}
    build = {"le": sp.Le, "lt": sp.Lt, "eq": sp.Eq}[kind]
    try:
        return recheck(build(lhs, rhs, evaluate=False), list(where), exact)
    except TypeError:  # a float in the claim: not exact
        return False


def _sides(f_l: Any, f_r: Any, syms: Sequence[sp.Symbol], point: Mapping[str, Fraction]) -> dict[str, float]:
    """Both sides at a counterexample, in 50-digit arithmetic, as floats for the record (display only)."""
    keys = point_keys(syms)
    with mpmath.workdps(DIGITS):
        at = {s: mpmath.mpf(point[keys[s]].numerator) / point[keys[s]].denominator for s in syms if keys[s] in point}
        if len(at) != len(syms):
            return {}
        a, b = _mp_eval(f_l, syms, at), _mp_eval(f_r, syms, at)
    return {} if a is None or b is None else {"lhs": float(a), "rhs": float(b)}


def exact_counterexample(point: Mapping[str, Fraction], approx: Mapping[str, float] | None = None) -> dict[str, Any]:
    """A counterexample as it is exposed: each coordinate the exact rational that the kernel re-checked.

    Each is a string (``"100000000000000000001/100000000000000000000"``; ``sympy.Rational`` reads it back), and
    under ``"approx"`` the floats of the coordinates and of both sides, labelled as approximations (display only:
    a float may round the point onto one that satisfies the claim).
    """
    exact = {k: str(sp.Rational(v.numerator, v.denominator)) for k, v in sorted(point.items())}
    return {**exact, APPROX: {**{k: float(v) for k, v in sorted(point.items())}, **dict(approx or {})}}


def _combine(symbolic: bool | None, counterexample: Mapping[str, Fraction] | None, points: int,
             decision_: Decision | None = None) -> tuple[Verdict, str, Mapping[str, Fraction] | None]:
    """The verdict, the details and the exact re-checked point (the kernel's own, or a numerical one) if DISPROVED."""
    kernel = "" if decision_ is None else f"kernel ({decision_.method}): {decision_.note}"
    if symbolic is True and counterexample is not None:
        raise KernelError(f"the kernel proved the claim and a re-checked counterexample was found: {counterexample}")
    if symbolic is True:
        return Verdict.PROVED, f"{kernel}; no counterexample at {points} points", None
    if counterexample is not None:
        return Verdict.DISPROVED, "numerical counterexample, re-checked exactly by the kernel", counterexample
    if symbolic is False and decision_ is not None and decision_.counterexample is not None:
        exact = {k: Fraction(v) for k, v in decision_.counterexample.items()}
        return Verdict.DISPROVED, f"{kernel}; exact point {dict(decision_.counterexample)}", exact
    return Verdict.UNDECIDED, f"{kernel or 'not decided'}; no counterexample at {points} points", None


def check_identity(
    lhs: Any,
    rhs: Any,
    *,
    claim: str | None = None,
    source: str = "user claim",
    rng: np.random.Generator | None = None,
    region: Mapping[sp.Symbol, tuple[float, float]] | None = None,
    where: Sequence[Any] = (),
    count: int = 48,
    assumptions: Sequence[str] = (),
) -> CheckResult:
    """Check ``lhs == rhs`` symbolically (simplify / equals) and at random points.

    ``claim``, ``source`` and ``rng`` are optional as in :func:`check_inequality`: the certified claim is the formula
    decided (``"lhs = rhs for all x, ..."``), ``claim`` the caller's label (``CheckResult.statement``, not checked).

    Returns
    -------
    CheckResult
        PROVED if sympy shows the difference is zero and no point disagrees; DISPROVED with the
        first disagreeing point; UNDECIDED otherwise. ``residual`` is the simplified difference.
    """
    refuse_same_names("check_identity", "lhs", lhs, rhs, *where)
    lhs, rhs, where, assumptions = _exact_inputs(lhs, rhs, where, assumptions)
    label = _label("check_identity", claim)
    if rng is None:  # seeded as before the claim became the formula: the same points, the same verdicts
        rng = rng_for(label or f"{lhs} = {rhs}")
    symbolic, residual, dec = _kernel(lhs - rhs, "==", where)
    syms = _symbols_of(lhs, rhs, *where)
    claim = _decided(lhs, "=", rhs, syms)
    pts = random_points(syms, rng, count, region=region, where=where)
    f_l, f_r = _mp_fn(lhs, syms), _mp_fn(rhs, syms)
    counterexample: Mapping[str, Any] | None = None
    evaluated = 0
    with mpmath.workdps(DIGITS):
        for pt in pts:
            a, b = _mp_eval(f_l, syms, pt), _mp_eval(f_r, syms, pt)
            if a is None or b is None:
                continue
            evaluated += 1
            scale = max(abs(a), abs(b), mpmath.mpf(10) ** -40)
            if abs(a - b) > _REL_TOL * scale and _confirmed(lhs, rhs, pt, "eq", where):
                counterexample = _exact_point(pt)
                break
    verdict, details, point = _combine(symbolic, counterexample, evaluated, dec)
    shown = None if point is None else exact_counterexample(point, _sides(f_l, f_r, syms, point))
    return _issue(CheckResult(verdict, claim, source, "sympy+numeric", residual, _hypotheses(syms, assumptions), shown,
                              1 + evaluated, details, domain=tuple(map(str, where)),
                              vacuity=vacuity(where) if verdict is Verdict.PROVED else "", statement=label))


def _by_cases(residual: sp.Expr, where: Sequence[Any], claim: str) -> tuple[bool | None, str]:
    """``residual >= 0`` on ``where`` by a case split over its kinks.

    (True, note) when every case is proved and the cases cover the domain, (None, why) otherwise.
    """
    proof = Proof(f"bounds/cases/{claim}")
    try:
        verdict = prove_by_cases(proof, claim, residual, domain=list(where))
    except CaseSplitError as exc:
        return None, f"case split not available ({exc})"
    cases = sum(s.cases for s in proof.steps if s.method == "sympy")
    if verdict is Verdict.PROVED:
        return True, f"proved by a case split over {cases} orderings of the kinks' terms (coverage checked)"
    return None, f"case split over {cases} orderings: {verdict}"


def check_inequality(
    lhs: Any,
    rhs: Any,
    *,
    claim: str | None = None,
    source: str = "user claim",
    rng: np.random.Generator | None = None,
    strict: bool = False,
    region: Mapping[sp.Symbol, tuple[float, float]] | None = None,
    where: Sequence[Any] = (),
    count: int = 64,
    assumptions: Sequence[str] = (),
    extra_points: Sequence[Mapping[sp.Symbol, float]] = (),
    reparametrize: Mapping[sp.Symbol, Any] | None = None,
    symbolic: bool = True,
) -> CheckResult:
    """Check ``lhs <= rhs`` (``<`` with ``strict``) symbolically and at random points.

    Parameters
    ----------
    claim : str, optional
        The caller's words for the inequality: a label only, recorded as ``CheckResult.statement`` and printed
        "[statement (label, not checked): ...]". The certified ``CheckResult.claim`` is always the formula the kernel
        decided, ``"lhs <= rhs for all x, ..."`` (the symbols' domains among the hypotheses): a label that says
        something else is never printed as proved.
    source : str
        Where the claim comes from (default ``"user claim"``).
    rng : numpy.random.Generator, optional
        Source of the random points (default: a generator seeded from ``claim``, or from ``"lhs <= rhs"`` without
        one, so the check is reproducible).
    extra_points : sequence of mappings
        Additional points to test (e.g. a counterexample reported in the notes); they are subject
        to ``where`` like the random ones.
    reparametrize : mapping, optional
        Substitutions used for the *symbolic* attempt only, encoding a domain sympy's assumptions
        cannot express (e.g. ``delta -> 1/(1 + u)`` with u > 0 for 0 < delta < 1). Each must map
        the positive reals onto the intended domain; that is not checked, so a PROVED verdict rests on it
        (the premise "reparametrisation", printed beside it), and a counterexample to the claim itself wins.
    symbolic : bool
        Skip the symbolic attempt (the verdict is then at best UNDECIDED); for purely numerical
        cross-checks of a form sympy is known not to handle (e.g. with ``ceiling``).

    Returns
    -------
    CheckResult
        ``residual`` is ``rhs - lhs`` simplified; ``details`` reports the largest ``lhs/rhs``
        seen (how tight the inequality is on the sampled points).
    """
    refuse_same_names("check_inequality", "lhs", lhs, rhs, *where)
    lhs, rhs, where, assumptions = _exact_inputs(lhs, rhs, where, assumptions)
    label = _label("check_inequality", claim)
    relation = "<" if strict else "<="
    if rng is None:  # seeded as before the claim became the formula: the same points, the same verdicts
        rng = rng_for(label or f"{lhs} {relation} {rhs}")
    claim = _decided(lhs, relation, rhs, _symbols_of(lhs, rhs, *where))
    method = "kernel+numeric"
    cases_note = ""
    premises: tuple[Premise, ...] = ()
    dec: Decision | None = None
    kind = ">" if strict else ">="
    if not symbolic:
        symbolic_answer: bool | None = None
        residual = rhs - lhs
    elif reparametrize:
        subs = {k: exact_floats(v)[0] for k, v in reparametrize.items()}
        sl, sr = lhs.subs(subs), rhs.subs(subs)
        symbolic_answer, residual, dec = _kernel(sr - sl, kind, [w.subs(subs) for w in where])
        if symbolic_answer is False:
            symbolic_answer, dec = None, None  # a point of the reparametrised form is re-checked on the claim below
        assumptions = (*assumptions, *(f"{k} = {v}" for k, v in subs.items()))
        # that the substitutions reach the whole intended domain is not checked: a premise of a PROVED verdict
        premises = (Premise("assumed", "reparametrisation", "the substitutions " + ", ".join(f"{k} = {v}" for k, v in
                                                                                              subs.items())
                            + " map the positive reals onto the claim's domain"),)
    else:
        symbolic_answer, residual, dec = _kernel(rhs - lhs, kind, where)
    if symbolic and symbolic_answer is None and not strict and not reparametrize and has_kinks(rhs - lhs):
        symbolic_answer, cases_note = _by_cases(rhs - lhs, where, f"{lhs} {relation} {rhs}")
        if symbolic_answer:
            method = "cases+numeric"
    syms = _symbols_of(lhs, rhs, *where)
    pts = random_points(syms, rng, count, region=region, where=where)
    for extra in extra_points:
        pt = {s: float(extra[s]) for s in syms}
        if all(_holds(rel, pt) for rel in where):
            pts.insert(0, pt)
    f_l, f_r = _mp_fn(lhs, syms), _mp_fn(rhs, syms)
    counterexample: Mapping[str, Any] | None = None
    evaluated = 0
    worst = -mpmath.inf
    with mpmath.workdps(DIGITS):
        for pt in pts:
            a, b = _mp_eval(f_l, syms, pt), _mp_eval(f_r, syms, pt)
            if a is None or b is None:
                continue
            evaluated += 1
            if b > 0:
                worst = max(worst, a / b)
            slack = _REL_TOL * max(abs(a), abs(b), mpmath.mpf(10) ** -40)
            violated = a >= b if strict else a > b + slack
            if violated and counterexample is None and _confirmed(lhs, rhs, pt, "lt" if strict else "le", where):
                counterexample = _exact_point(pt)
    if reparametrize and counterexample is not None:  # the claim fails: the reparametrised form was not the claim
        symbolic_answer, dec = None, None
    verdict, details, point = _combine(symbolic_answer, counterexample, evaluated, dec)
    shown = None if point is None else exact_counterexample(point, _sides(f_l, f_r, syms, point))
    if verdict is not Verdict.PROVED:
        premises = ()
    if not symbolic:
        details = details.replace("sympy answered None", "numeric only")
    if cases_note:
        details += f"; {cases_note}"
    if worst > -mpmath.inf:
        details += f"; max lhs/rhs = {float(worst):.6g}"
    reason = details if verdict is Verdict.UNDECIDED else ""
    return _issue(CheckResult(verdict, claim, source, method, residual, _hypotheses(syms, assumptions), shown,
                              1 + evaluated, details, premises=premises, reason=reason, domain=tuple(map(str, where)),
                              vacuity=vacuity(where) if verdict is Verdict.PROVED else "", statement=label))


@dataclass(frozen=True)
class CheckSpec:
    """A named check of a paper: what it checks, and a callable that runs it.

    Parameters
    ----------
    name : str
        Identifier, ``"<paper>.<what>"``.
    category : str
        ``"re-derivation"``, ``"calibration"``, ``"composition"`` or ``"consistency"``.
    description : str
        What is checked, in words, with the citation.
    run : callable
        ``run(rng) -> CheckResult``; takes the seeded generator of the numerical cross-check.

    Calling the spec (what :func:`dpaudit.bounds.registry.run_checks` does) returns ``run``'s result, except that a
    PROVED or DISPROVED the kernel did not issue (:func:`dpaudit.verify.verdict.certified` is False: a
    ``CheckResult`` built by hand, or one changed after it was issued) becomes UNDECIDED, with a reason that says
    so, as :meth:`dpaudit.verify.LemmaCheck.run` does.
    """

    name: str
    category: str
    description: str
    run: Callable[[np.random.Generator], CheckResult]

    def __call__(self, *, rng: np.random.Generator) -> CheckResult:
        """Run the check with the seeded generator of its numerical cross-check (see the class docstring)."""
        result = self.run(rng)
        if not isinstance(result, CheckResult):
            raise ArgumentTypeError(f"{self.name}: run returned {type(result).__name__}, not a CheckResult")
        return uncertified_as_undecided(result, self.name)
