"""Shared machinery of the lemma checks: :class:`LemmaCheck`, the :class:`Proof` evidence builder,
and the sympy / numeric / hypothesis helpers every check is written with.

How a verdict is computed (house style, ``notes/anchors_style.md`` sections 5 and 7)
-----------------------------------------------------------------------------------
A check records *steps* on a :class:`Proof`:

* **proof steps** (``sympy`` or ``exact``): sub-claims that together imply the statement, each
  decided by sympy (sign or zero-ness of a residual expression under declared symbol
  assumptions) or by exact rational / exhaustive computation. Each has a three-valued outcome;
  sympy's ``None`` stays ``UNDECIDED`` and is never turned into ``False``.
* **cross-checks** (``numeric`` at seeded random points, ``hypothesis`` property tests): they can
  only *refute*. A violation beyond the floating-point tolerance becomes a counterexample.
* **refutations**: a counterexample to the statement, verified exactly (rational arithmetic or
  sympy evaluation to 60 significant digits).

The verdict is DISPROVED when a counterexample was recorded, PROVED when there is at least one
proof step and every proof step is PROVED, and UNDECIDED otherwise. So DISPROVED always comes
with a counterexample, and a statement is never PROVED by sampling alone.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp
from hypothesis import HealthCheck, Verbosity, given, settings
from hypothesis import strategies as st

from dpaudit.bounds.verdict import CheckResult, Verdict

__all__ = [
    "NUMERIC_RTOL",
    "PAPERS",
    "PAPER_ORDER",
    "LemmaCheck",
    "Proof",
    "Violation",
    "decide_nonneg",
    "decide_zero",
    "exact_negative",
    "finite_floats",
    "rng_for",
    "st",
    "uniform_expectation",
    "vectors",
]

#: Paper keys, in the order the runner prints them, with the citation used in ``source``.
PAPERS: dict[str, str] = {
    "levy2021": "Levy, Sun, Amin, Kale, Kulesza, Mohri, Suresh. Learning with User-Level Privacy. NeurIPS 2021",
    "ghazi2023": "Ghazi, Kamath, Kumar, Meka, Manurangsi, Zhang. On User-Level Private Convex Optimization. ICML 2023",
    "lowy2024": "Lowy, Liu, Asi. Faster Algorithms for User-Level Private Stochastic Convex Optimization. 2024",
    "ghazi2025": "Ghazi, Kumar, Liu, Manurangsi. Linear-Time User-Level DP-SCO via Robust Statistics. 2025",
}
PAPER_ORDER: tuple[str, ...] = tuple(PAPERS)

#: Relative tolerance of floating-point cross-checks: 2**12 units in the last place of the larger
#: side, which covers the rounding of the few hundred float operations a cross-check performs.
#: It is never used to decide a verdict by itself: a violation larger than this is a
#: counterexample, and a smaller one is reported as rounding.
NUMERIC_RTOL: float = 4096 * float(np.finfo(float).eps)

ROLES = ("lemma", "printed", "corrected", "control")


def rng_for(key: str) -> np.random.Generator:
    """A Generator seeded from ``key`` (sha256), so each check's random points are fixed."""
    digest = hashlib.sha256(key.encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


# ---------------------------------------------------------------------------------------------
# The check record
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LemmaCheck:
    """One exact lemma of one (or more) of the four papers, with its expected verdict.

    Parameters
    ----------
    name : str
        Unique identifier, ``"<package>/<lemma>"``; ``dpaudit prove --only`` filters on it.
    source : str
        Citation: paper and number (lemma, theorem, equation, algorithm line, or note item).
    statement : str
        The exact statement checked, with its assumptions, in words and formulas.
    expected : Verdict
        The verdict recorded as correct; the runner exits non-zero when the computed one differs.
    papers : tuple of str
        Keys of :data:`PAPERS` the lemma belongs to (a shared fact lists every paper using it).
    check : callable
        Computes the :class:`~dpaudit.bounds.verdict.CheckResult`; never returns a constant.
    role : str
        ``"lemma"``; ``"printed"`` (an erratum: the statement as printed, expected DISPROVED);
        ``"corrected"`` (its corrected sibling, expected PROVED); ``"control"`` (a negative
        control marking where a lemma stops being true, expected DISPROVED).
    sibling : str or None
        For ``printed``/``corrected`` checks, the name of the other half of the pair.
    """

    name: str
    source: str
    statement: str
    expected: Verdict
    papers: tuple[str, ...]
    check: Callable[[], CheckResult] = field(repr=False, compare=False)
    role: str = "lemma"
    sibling: str | None = None

    def __post_init__(self) -> None:
        if not self.name or " " in self.name:
            raise ValueError(f"LemmaCheck.name must be a non-empty identifier without spaces, got {self.name!r}")
        if not self.source.strip():
            raise ValueError(f"LemmaCheck {self.name!r}: source must cite a paper and a number")
        if not isinstance(self.expected, Verdict):
            raise TypeError(f"LemmaCheck {self.name!r}: expected must be a Verdict, got {self.expected!r}")
        if not self.papers or any(p not in PAPERS for p in self.papers):
            raise ValueError(f"LemmaCheck {self.name!r}: papers must be keys of PAPERS, got {self.papers!r}")
        if self.role not in ROLES:
            raise ValueError(f"LemmaCheck {self.name!r}: role must be one of {ROLES}, got {self.role!r}")

    def run(self) -> CheckResult:
        """Run the check; the result carries this check's statement and source."""
        result = self.check()
        return dataclasses.replace(result, claim=self.statement, source=self.source)


# ---------------------------------------------------------------------------------------------
# sympy deciders (three-valued)
# ---------------------------------------------------------------------------------------------


def _rewrites(expr: sp.Expr) -> Iterable[sp.Expr]:
    yield expr
    expanded = sp.expand(expr)
    yield expanded
    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    if symbols:
        # monomials with numeric coefficients such as (3 - E) eps^2: the coefficient's sign is decidable
        yield sp.collect(expanded, symbols)
    yield sp.factor(expr)
    yield sp.together(expr)
    yield sp.simplify(expr)


def _split_sign(form: sp.Expr) -> bool:
    """A sum whose symbol-free part (e.g. 1 - E + 4 log 2) and symbolic part are each >= 0."""
    if not isinstance(form, sp.Add) or not form.free_symbols:
        return False
    const, rest = form.as_independent(*form.free_symbols, as_Add=True)
    return bool(const != 0 and const.is_nonnegative is True and rest.is_nonnegative is True)


def _decide_forms(expr: sp.Expr) -> tuple[bool, bool]:
    seen_false = False
    for form in _rewrites(expr):
        answer = form.is_nonnegative
        if answer is True or (answer is None and _split_sign(form)):
            return True, False
        if answer is False:
            seen_false = True
    return False, seen_false


def decide_nonneg(expr: Any) -> Verdict:
    """Is ``expr >= 0`` for every value allowed by its symbols' assumptions?

    PROVED when sympy's assumption system answers True for the expression or one of its
    rewrites (expand, collect, factor, together, simplify), or for the numerator of its
    ``together`` form with a positive denominator; DISPROVED when it answers False (the
    expression is then known to be negative); UNDECIDED when every answer is None.
    """
    expr = sp.sympify(expr)
    proved, seen_false = _decide_forms(expr)
    if proved:
        return Verdict.PROVED
    numer, denom = sp.fraction(sp.together(expr))
    if denom != 1 and sp.factor(denom).is_positive:
        proved, false_num = _decide_forms(numer)
        if proved:
            return Verdict.PROVED
        seen_false = seen_false or false_num
    return Verdict.DISPROVED if seen_false else Verdict.UNDECIDED


def decide_zero(expr: Any) -> Verdict:
    """Is ``expr`` identically zero? ``simplify`` to 0 proves it; ``equals`` may decide otherwise."""
    expr = sp.sympify(expr)
    for form in (sp.expand(expr), sp.simplify(expr)):
        if form == 0:
            return Verdict.PROVED
    answer = expr.equals(0)
    if answer is True:
        return Verdict.PROVED
    if answer is False:
        return Verdict.DISPROVED
    return Verdict.UNDECIDED


def exact_negative(value: Any) -> bool | None:
    """Sign of a closed-form number (rationals, exp, log, sqrt, erf, ...), decided rigorously.

    sympy's ``is_negative`` on a number evaluates it with increasing precision until the sign is
    certain; if it cannot, a 60-digit evaluation is used only when its magnitude clearly
    exceeds the evaluation error. Returns None if the sign stays unknown.
    """
    value = sp.sympify(value)
    answer = value.is_extended_negative  # -oo counts as negative (a bound violated in the limit)
    if answer is not None:
        return bool(answer)
    approx = sp.N(value, 60)
    if approx.is_Number and abs(approx) > sp.Float("1e-40"):
        return bool(approx < 0)
    return None


# ---------------------------------------------------------------------------------------------
# The evidence builder
# ---------------------------------------------------------------------------------------------


class Violation(AssertionError):
    """Raised by a property test when the property fails; carries the offending values."""

    def __init__(self, message: str, **values: Any) -> None:
        super().__init__(message)
        self.values = values


@dataclass
class _Step:
    kind: str  # "proof" | "cross" | "refute"
    method: str
    label: str
    verdict: Verdict
    cases: int
    note: str = ""

    def describe(self) -> str:
        mark = {"proof": str(self.verdict), "cross": "ok" if self.verdict is not Verdict.DISPROVED else "VIOLATED",
                "refute": "counterexample" if self.verdict is Verdict.DISPROVED else "not a counterexample"}[self.kind]
        note = f" ({self.note})" if self.note else ""
        return f"[{self.method}] {self.label}: {mark}, {self.cases} case(s){note}"


class Proof:
    """Accumulates the steps of one check and turns them into a :class:`CheckResult`.

    Parameters
    ----------
    key : str
        Seeds :attr:`rng` (use the check's name), so random points are the same on every run.
    """

    def __init__(self, key: str) -> None:
        self.rng: np.random.Generator = rng_for(key)
        self._steps: list[_Step] = []
        self._assumptions: list[str] = []
        self._residuals: list[Any] = []
        self._counterexample: dict[str, Any] | None = None

    # -- bookkeeping --------------------------------------------------------------------------

    def assume(self, *texts: str) -> None:
        """Record assumptions the proof uses (hypotheses of the lemma, cited theorems)."""
        self._assumptions.extend(texts)

    def _add(self, step: _Step, residual: Any = None) -> Verdict:
        self._steps.append(step)
        if residual is not None:
            self._residuals.append(residual)
        return step.verdict

    # -- proof steps --------------------------------------------------------------------------

    def nonneg(self, label: str, expr: Any) -> Verdict:
        """Proof step: ``expr >= 0`` under the symbols' assumptions (see :func:`decide_nonneg`)."""
        expr = sp.sympify(expr)
        return self._add(_Step("proof", "sympy", label, decide_nonneg(expr), 1), expr)

    def zero(self, label: str, expr: Any) -> Verdict:
        """Proof step: ``expr`` is identically zero (an identity ``lhs - rhs``)."""
        expr = sp.sympify(expr)
        return self._add(_Step("proof", "sympy", label, decide_zero(expr), 1), expr)

    def zeros(self, label: str, exprs: Sequence[Any]) -> Verdict:
        """Proof step: every expression in ``exprs`` is identically zero (one case each)."""
        verdicts = [decide_zero(sp.sympify(e)) for e in exprs]
        if all(v is Verdict.PROVED for v in verdicts):
            verdict = Verdict.PROVED
        elif any(v is Verdict.DISPROVED for v in verdicts):
            verdict = Verdict.DISPROVED
        else:
            verdict = Verdict.UNDECIDED
        return self._add(_Step("proof", "sympy", label, verdict, len(verdicts)), tuple(exprs))

    def equal(self, label: str, lhs: Any, rhs: Any) -> Verdict:
        """Proof step: the identity ``lhs == rhs``."""
        return self.zero(label, sp.sympify(lhs) - sp.sympify(rhs))

    def cases(self, label: str, residuals: Mapping[str, Any]) -> Verdict:
        """Proof step by case analysis: every residual (one per case) is ``>= 0``.

        Each case is a parametrisation of one region by non-negative slack symbols, so a case
        is proved when sympy shows its residual non-negative for all slack values.
        """
        verdicts = {name: decide_nonneg(expr) for name, expr in residuals.items()}
        bad = [name for name, v in verdicts.items() if v is not Verdict.PROVED]
        if not bad:
            verdict = Verdict.PROVED
        elif any(verdicts[name] is Verdict.DISPROVED for name in bad):
            verdict = Verdict.DISPROVED
        else:
            verdict = Verdict.UNDECIDED
        note = "" if not bad else "not proved in case(s): " + ", ".join(bad)
        return self._add(_Step("proof", "sympy", label, verdict, len(residuals), note), tuple(residuals.values()))

    def certificate(self, label: str, residual: Any, certificate: Any) -> Verdict:
        """Proof step: ``residual >= 0`` because it equals ``certificate`` (identity checked by
        sympy) and ``certificate`` is manifestly non-negative (e.g. a sum of squares)."""
        residual, certificate = sp.sympify(residual), sp.sympify(certificate)
        same = decide_zero(residual - certificate)
        sign = decide_nonneg(certificate)
        if same is Verdict.PROVED and sign is Verdict.PROVED:
            verdict = Verdict.PROVED
        elif decide_nonneg(residual) is Verdict.PROVED:
            verdict = Verdict.PROVED
        else:
            verdict = Verdict.UNDECIDED
        note = f"certificate {certificate}"
        return self._add(_Step("proof", "sympy", label, verdict, 1, note), residual)

    def monotone_nonneg(self, label: str, expr: Any, var: sp.Symbol, lower: Any, depth: int = 3) -> Verdict:
        """Proof step: ``expr(var) >= 0`` for ``var >= lower`` because ``expr(lower) >= 0`` and
        ``d expr / d var >= 0`` there (the derivative is handled the same way, ``depth`` deep)."""
        verdict = _monotone_nonneg(sp.sympify(expr), var, sp.sympify(lower), depth)
        return self._add(_Step("proof", "sympy", label, verdict, 1, f"{var} >= {lower}"), expr)

    def concave_nonneg(self, label: str, expr: Any, var: sp.Symbol, lo: Any, hi: Any) -> Verdict:
        """Proof step: ``expr(var) >= 0`` on ``[lo, hi]`` because it is ``>= 0`` at both ends and
        concave (second derivative ``<= 0`` for every real ``var``)."""
        expr = sp.sympify(expr)
        ends = [decide_nonneg(expr.subs(var, sp.sympify(v))) for v in (lo, hi)]
        free = sp.Symbol(var.name + "_free", real=True)
        curvature = decide_nonneg(-sp.diff(expr, var, 2).subs(var, free))
        parts = [*ends, curvature]
        verdict = Verdict.PROVED if all(p is Verdict.PROVED for p in parts) else Verdict.UNDECIDED
        return self._add(_Step("proof", "sympy", label, verdict, 3, f"{var} in [{lo}, {hi}]"), expr)

    def exact(self, label: str, holds: bool | None, cases: int, note: str = "") -> Verdict:
        """Proof step decided by exact computation (rational arithmetic, exhaustive enumeration)."""
        verdict = Verdict.UNDECIDED if holds is None else (Verdict.PROVED if bool(holds) else Verdict.DISPROVED)
        return self._add(_Step("proof", "exact", label, verdict, cases, note))

    def cite(self, label: str, premise: str) -> None:
        """A premise taken from the literature (recorded as an assumption, not as a step)."""
        self._assumptions.append(f"{label}: {premise}")

    def depends(self, label: str, checks: Sequence[LemmaCheck]) -> Verdict:
        """Proof step: other checks' verdicts (a proof by composition of checked lemmas).

        Each dependency is run once per process (results are deterministic) and memoised.
        """
        results = [_dependency_result(c) for c in checks]
        verdicts = [r.verdict for r in results]
        verdict = Verdict.PROVED if all(v is Verdict.PROVED for v in verdicts) else Verdict.UNDECIDED
        cases = sum(r.cases for r in results)
        return self._add(_Step("proof", "lemmas", label, verdict, cases, "composition of checked lemmas"))

    # -- cross-checks (can only refute) -------------------------------------------------------

    def numeric_le(self, label: str, lhs: Any, rhs: Any, points: Mapping[str, Any], atol: Any = 0.0) -> bool:
        """Cross-check ``lhs <= rhs`` elementwise at seeded random points.

        ``points`` maps parameter names to arrays aligned with ``lhs``/``rhs``; the worst
        violation beyond :data:`NUMERIC_RTOL` (relative to the larger side) plus ``atol`` (the
        rounding error bound of an ill-conditioned evaluation, stated where it is used) is the
        counterexample.
        """
        lhs_a = np.asarray(lhs, dtype=float)
        rhs_a = np.broadcast_to(np.asarray(rhs, dtype=float), lhs_a.shape)
        scale = np.maximum(np.maximum(np.abs(lhs_a), np.abs(rhs_a)), np.finfo(float).tiny)
        slack = np.asarray(atol, dtype=float)
        with np.errstate(invalid="ignore"):
            excess = (lhs_a - rhs_a - slack) / scale
            satisfied = lhs_a - slack <= rhs_a  # also right for infinite sides (e.g. a log-probability of -inf)
        excess = np.where(satisfied, np.minimum(np.nan_to_num(excess, nan=-1.0), 0.0), excess)
        return self._cross(label, excess, points, "lhs <= rhs", lhs_a, rhs_a)

    def numeric_eq(self, label: str, lhs: Any, rhs: Any, points: Mapping[str, Any]) -> bool:
        """Cross-check ``lhs == rhs`` elementwise (relative error within :data:`NUMERIC_RTOL`)."""
        lhs_a = np.asarray(lhs, dtype=float)
        rhs_a = np.broadcast_to(np.asarray(rhs, dtype=float), lhs_a.shape)
        scale = np.maximum(np.maximum(np.abs(lhs_a), np.abs(rhs_a)), np.finfo(float).tiny)
        excess = np.abs(lhs_a - rhs_a) / scale
        return self._cross(label, excess, points, "lhs == rhs", lhs_a, rhs_a)

    def _cross(self, label: str, excess: np.ndarray, points: Mapping[str, Any], what: str,
               lhs: np.ndarray, rhs: np.ndarray) -> bool:
        excess = np.atleast_1d(excess)
        n = int(excess.size)
        bad = np.flatnonzero(~(excess <= NUMERIC_RTOL))  # NaN counts as a violation
        finite = excess[np.isfinite(excess)]
        worst = float(finite.max()) if finite.size else float("nan")
        if bad.size:
            i = int(bad[np.argmax(np.nan_to_num(excess.ravel()[bad], nan=np.inf))])
            point = {k: _item(np.atleast_1d(np.asarray(v)).ravel(), i) for k, v in points.items()}
            point.update(lhs=float(lhs.ravel()[i]), rhs=float(rhs.ravel()[i]))
            self._record_counterexample(f"numeric: {label}", point)
            self._add(_Step("cross", "numeric", label, Verdict.DISPROVED, n, f"{bad.size} violation(s) of {what}"))
            return False
        self._add(_Step("cross", "numeric", label, Verdict.PROVED, n, f"max relative excess {worst:.2e}"))
        return True

    def numeric_count(self, label: str, cases: int, violations: int, counterexample: Mapping[str, Any] | None = None,
                      note: str = "") -> bool:
        """Cross-check whose caller already counted its cases and violations."""
        if violations:
            self._record_counterexample(f"numeric: {label}", dict(counterexample or {}))
            self._add(_Step("cross", "numeric", label, Verdict.DISPROVED, cases, note or f"{violations} violation(s)"))
            return False
        self._add(_Step("cross", "numeric", label, Verdict.PROVED, cases, note))
        return True

    def hypothesis(self, label: str, test: Callable[..., None], *strategies: st.SearchStrategy[Any],
                   max_examples: int = 200) -> bool:
        """Run the property ``test`` as a derandomised hypothesis test with ``max_examples``.

        ``test`` raises :class:`Violation` when the property fails. Every call (generation and
        shrinking) is counted as a case; the run is deterministic, so the runner and pytest see
        the same examples.
        """
        calls = 0

        def body(args: tuple[Any, ...]) -> None:
            nonlocal calls
            calls += 1
            test(*args)

        wrapped = settings(max_examples=max_examples, derandomize=True, database=None, deadline=None,
                           verbosity=Verbosity.quiet, print_blob=False,
                           suppress_health_check=list(HealthCheck))(given(st.tuples(*strategies))(body))
        try:
            wrapped()
        except Violation as exc:
            values = {k: _plain(v) for k, v in exc.values.items()}
            self._record_counterexample(f"hypothesis: {label}: {exc}", values)
            self._add(_Step("cross", "hypothesis", label, Verdict.DISPROVED, calls, str(exc)))
            return False
        self._add(_Step("cross", "hypothesis", label, Verdict.PROVED, calls, f"max_examples={max_examples}"))
        return True

    # -- refutation ---------------------------------------------------------------------------

    def refute(self, label: str, counterexample: Mapping[str, Any], margin: Any, method: str = "exact") -> bool:
        """Record a counterexample to the statement if ``margin < 0`` is verified exactly.

        ``margin`` is a closed-form number that is ``>= 0`` iff the statement holds at
        ``counterexample`` (e.g. ``rhs - lhs``); its sign is decided by :func:`exact_negative`.
        """
        negative = exact_negative(margin)
        if negative:
            values = {k: _plain(v) for k, v in counterexample.items()}
            values["margin (negative = statement fails)"] = _plain(sp.N(margin, 12))
            self._record_counterexample(label, values)
            self._add(_Step("refute", method, label, Verdict.DISPROVED, 1, f"margin {sp.N(margin, 6)}"), margin)
            return True
        state = "holds there" if negative is False else "sign undecided"
        self._add(_Step("refute", method, label, Verdict.UNDECIDED, 1, state), margin)
        return False

    def _record_counterexample(self, label: str, values: dict[str, Any]) -> None:
        if self._counterexample is None:
            self._counterexample = {"where": label, **values}

    # -- result -------------------------------------------------------------------------------

    def result(self) -> CheckResult:
        """Combine the steps (see the module docstring for the rule)."""
        proof_steps = [s for s in self._steps if s.kind == "proof"]
        if self._counterexample is not None:
            verdict = Verdict.DISPROVED
        elif proof_steps and all(s.verdict is Verdict.PROVED for s in proof_steps):
            verdict = Verdict.PROVED
        else:
            verdict = Verdict.UNDECIDED
        methods: list[str] = []
        for s in self._steps:
            if s.method not in methods:
                methods.append(s.method)
        residual: Any = None
        if len(self._residuals) == 1:
            residual = self._residuals[0]
        elif self._residuals:
            residual = tuple(self._residuals)
        return CheckResult(
            verdict=verdict,
            claim="",
            method="+".join(methods) if methods else "none",
            residual=residual,
            assumptions=tuple(self._assumptions),
            counterexample=self._counterexample,
            cases=sum(s.cases for s in self._steps),
            details="; ".join(s.describe() for s in self._steps),
        )


_DEPENDENCY_RESULTS: dict[str, CheckResult] = {}


def _dependency_result(check: LemmaCheck) -> CheckResult:
    if check.name not in _DEPENDENCY_RESULTS:
        _DEPENDENCY_RESULTS[check.name] = check.run()
    return _DEPENDENCY_RESULTS[check.name]


def _monotone_nonneg(expr: sp.Expr, var: sp.Symbol, lower: sp.Expr, depth: int) -> Verdict:
    shift = sp.Symbol(f"_{var.name}_shift", nonnegative=True)
    moved = expr.subs(var, lower + shift)
    start = decide_nonneg(moved.subs(shift, 0))
    if start is not Verdict.PROVED:
        return Verdict.UNDECIDED
    slope = sp.diff(moved, shift)
    if decide_nonneg(slope) is Verdict.PROVED:
        return Verdict.PROVED
    if depth <= 1:
        return Verdict.UNDECIDED
    return _monotone_nonneg(slope, shift, sp.Integer(0), depth - 1)


def _item(values: np.ndarray, i: int) -> Any:
    if values.size == 1:
        return _plain(values[0])
    return _plain(values[i])


def _plain(value: Any) -> Any:
    """A JSON-friendly version of ``value`` for counterexample records."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, sp.Basic):
        if value.is_Rational:
            return str(value)
        if value.is_number:
            return float(sp.N(value, 17))
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def finite_floats(lo: float = -1e3, hi: float = 1e3) -> st.SearchStrategy[float]:
    """Hypothesis floats in ``[lo, hi]`` without NaN/inf (the range keeps products finite)."""
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


def vectors(dim: int, lo: float = -1e3, hi: float = 1e3) -> st.SearchStrategy[list[float]]:
    """Hypothesis lists of ``dim`` finite floats."""
    return st.lists(finite_floats(lo, hi), min_size=dim, max_size=dim)


def uniform_expectation(expr: Any, var: sp.Symbol) -> sp.Expr:
    """``E[expr]`` for ``var`` uniform on ``[-1, 1]`` (the prior of the fingerprinting lower bounds)."""
    return sp.integrate(expr, (var, -1, 1)) / 2
