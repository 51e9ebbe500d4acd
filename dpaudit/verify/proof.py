"""The :class:`Proof` builder: record the steps of an argument and compute an honest verdict.

A check records *steps* on a :class:`Proof`:

* **proof steps** (kernel or exact): sub-claims that together imply the statement. The trusted kernel
  (:mod:`dpaudit.verify.kernel`: Z3, certified interval arithmetic, exact rationals) decides the sign or
  zero-ness of a residual under the symbols' declared assumptions (three-valued: undecided stays
  UNDECIDED); sympy only rewrites. An exact step is a fact about the *whole* statement computed exactly
  (never a float comparison), and when it fails it names its counterexample. A case analysis (:meth:`Proof.cases`)
  also checks that its regions cover the domain; a proof by lemmas (:meth:`Proof.depends`) checks
  that the lemmas' facts imply its goal.
* **cross-checks** (finite instances, seeded random points, hypothesis property tests): they can
  only refute (see :mod:`dpaudit.verify.crosscheck`).
* **refutations**: a counterexample to the statement whose failing margin (and the hypotheses it
  must satisfy) are checked exactly.

Premises taken on trust are recorded apart: :meth:`Proof.cite` (a theorem from the literature)
and :meth:`Proof.assume` (a step of the argument not checked, e.g. a reduction to the plane).
They are printed beside the verdict: "PROVED given [DR14] Thm A.1".

The verdict (:meth:`Proof.result`): **DISPROVED** iff a counterexample was recorded (exactly re-checked);
**PROVED** iff there is at least one proof step that needed deciding (not 0 at construction) and every proof
step is PROVED (marked vacuous when the domain restrictions of its steps, taken together, have no common solution:
see :func:`~dpaudit.verify.decide.vacuity`); **UNDECIDED** otherwise, with the reason. Every proof step PROVED together with a counterexample
raises :class:`~dpaudit.verify.kernel.KernelError`. Facts of dependencies that their own proof did not establish
(:meth:`Proof.establish`) become "unproved Fact" premises, printed beside the verdict.

Examples
--------
>>> import sympy as sp
>>> from dpaudit.verify import Proof, Region
>>> proof = Proof("example/abs")
>>> x, y = sp.symbols("x y", real=True)
>>> proof.given("x, y real")
>>> proof.cases("|x| - |y| <= |x - y| (triangle inequality)", sp.Abs(x - y) - (sp.Abs(x) - sp.Abs(y)),
...             Region.orders([x, y, 0]))          # every ordering of x, y and 0 is a case
<Verdict.PROVED: 'proved'>
>>> proof.result().verdict
<Verdict.PROVED: 'proved'>
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sympy as sp

from dpaudit.errors import ArgumentTypeError, InvalidArgument
from dpaudit.verify._record import Step, has_float
from dpaudit.verify.crosscheck import CrossChecks
from dpaudit.verify.decide import (
    approx,
    decide_nonneg,
    decide_positive,
    decide_zero,
    decision,
    exact_sign,
    plain,
    vacuity,
)
from dpaudit.verify.exact_conditions import (
    certified_nonneg,
    condition_holds,
    monotone_nonneg_from,
    smooth_everywhere,
    trivial_residual,
)
from dpaudit.verify.fact_steps import FactSteps, LocalFact, dependency_result
from dpaudit.verify.kernel import KernelError
from dpaudit.verify.proof_pairs import _kernel_truth
from dpaudit.verify.regions import Region, coverage
from dpaudit.verify.verdict import (
    APPROX,
    CheckResult,
    Premise,
    Verdict,
    _issue,
    combine_verdicts,
    counterexample_text,
    unique_premises,
)

__all__ = ["LocalFact", "Proof", "dependency_result"]


def _where(text: str, hypotheses: Sequence[Any]) -> str:
    shown = [str(h) for h in hypotheses if not (h is True or h is sp.true)]
    return f"{text} where {', '.join(shown)}" if shown else text


class Proof(FactSteps, CrossChecks):
    """Accumulates the steps of one check and turns them into a :class:`~dpaudit.verify.CheckResult`.

    Parameters
    ----------
    key : str
        Seeds :attr:`rng` (use the check's name), so random points are the same on every run.
    """

    # -- hypotheses and premises ----------------------------------------------------------------

    def given(self, *hypotheses: str) -> None:
        """Record hypotheses and definitions of the statement (part of what is proved, not trusted)."""
        self._hypotheses.extend(hypotheses)

    def assume(self, label: str, text: str) -> None:
        """Record a step of the argument taken on trust (a reduction, a symmetry, a standard fact).

        It is a premise of the verdict, printed beside it ("PROVED given <label>").
        """
        self._premises.append(Premise("assumed", label, text))

    def cite(self, reference: str, text: str) -> None:
        """Record a theorem from the literature used without proof; printed beside the verdict.

        E.g. ``cite("[DR14] Thm A.1", "for eps in (0, 1) ...")``.
        """
        self._premises.append(Premise("cited", reference, text))

    # -- proof steps decided by sympy -----------------------------------------------------------

    def nonneg(self, label: str, expr: Any, *, hypotheses: Sequence[Any] = ()) -> Verdict:
        """Proof step: ``expr >= 0`` under the symbols' assumptions and ``hypotheses``, decided by the kernel.

        See :func:`~dpaudit.verify.decide_nonneg`.
        """
        expr = sp.sympify(expr)
        note = ("where " + ", ".join(map(str, hypotheses))) if hypotheses else ""
        self._note_domain(hypotheses)
        return self._add(Step("proof", "kernel", label, decide_nonneg(expr, hypotheses), 1, note,
                              trivial=trivial_residual(expr, False), claim=_where(f"{expr} >= 0", hypotheses)), expr)

    def positive(self, label: str, expr: Any, *, hypotheses: Sequence[Any] = ()) -> Verdict:
        """Proof step: ``expr > 0`` under the symbols' assumptions and ``hypotheses`` (decided by the kernel)."""
        expr = sp.sympify(expr)
        note = ("where " + ", ".join(map(str, hypotheses))) if hypotheses else ""
        self._note_domain(hypotheses)
        return self._add(Step("proof", "kernel", label, decide_positive(expr, hypotheses), 1, note,
                              trivial=trivial_residual(expr, False), claim=_where(f"{expr} > 0", hypotheses)), expr)

    def zero(self, label: str, expr: Any, *, hypotheses: Sequence[Any] = ()) -> Verdict:
        """Proof step: ``expr`` is identically zero (an identity ``lhs - rhs``) under ``hypotheses``.

        It must be defined (no denominator vanishing, ...) at every point they allow, as written.
        """
        expr = sp.sympify(expr)
        self._note_domain(hypotheses)
        return self._add(Step("proof", "sympy", label, decide_zero(expr, hypotheses), 1, trivial=trivial_residual(expr, True),
                              claim=_where(f"{expr} == 0", hypotheses)), expr)

    def zeros(self, label: str, exprs: Sequence[Any], *, hypotheses: Sequence[Any] = ()) -> Verdict:
        """Proof step: every expression in ``exprs`` is identically zero (one case each), under ``hypotheses``."""
        exprs = [sp.sympify(e) for e in exprs]
        self._note_domain(hypotheses)
        verdict = combine_verdicts(*(decide_zero(e, hypotheses) for e in exprs))
        trivial = all(trivial_residual(e, True) for e in exprs)
        claim = _where(" and ".join(f"{e} == 0" for e in exprs), hypotheses)
        return self._add(Step("proof", "sympy", label, verdict, len(exprs), trivial=trivial, claim=claim), tuple(exprs))

    def equal(self, label: str, lhs: Any, rhs: Any, *, hypotheses: Sequence[Any] = ()) -> Verdict:
        """Proof step: the identity ``lhs == rhs`` between two separately computed expressions, under ``hypotheses``.

        Both sides must be defined at every point they allow: ``n - 1`` in a denominator needs ``n
        >= 2``.

        The step is trivial (it does not count towards PROVED) when both sides are literal
        numbers: then the caller decided the identity before the step did anything.
        """
        left, right = sp.sympify(lhs), sp.sympify(rhs)
        residual = sp.Add(left, sp.Mul(-1, right, evaluate=False), evaluate=False)
        trivial = left.is_Number and right.is_Number
        self._note_domain(hypotheses)
        return self._add(Step("proof", "sympy", label, decide_zero(residual, hypotheses), 1, trivial=bool(trivial),
                              claim=_where(f"{left} == {right}", hypotheses)), left - right)

    def certificate(self, label: str, residual: Any, certificate: Any) -> Verdict:
        """Proof step: ``residual >= 0`` because it equals a manifestly non-negative ``certificate``.

        The identity is checked by sympy; the certificate is e.g. a sum of squares.
        """
        residual, certificate = sp.sympify(residual), sp.sympify(certificate)
        verdict = certified_nonneg(residual, certificate)
        step = Step("proof", "sympy", label, verdict, 1, f"certificate {certificate}", trivial=trivial_residual(residual, False),
                    claim=f"{residual} >= 0")
        return self._add(step, residual)

    def monotone_nonneg(self, label: str, expr: Any, var: sp.Symbol, lower: Any, depth: int = 3) -> Verdict:
        """Proof step: ``expr(var) >= 0`` for ``var >= lower``, by monotonicity.

        ``expr(lower) >= 0`` and ``d expr / d var >= 0`` there (the derivative is handled the same
        way, ``depth`` deep).
        """
        expr = sp.sympify(expr)
        self._note_domain([sp.Le(sp.sympify(lower), var, evaluate=False)])  # the step covers var >= lower only
        verdict = monotone_nonneg_from(expr, var, sp.sympify(lower), depth)
        return self._add(Step("proof", "sympy", label, verdict, 1, f"{var} >= {lower}", trivial=trivial_residual(expr, False),
                              claim=f"{expr} >= 0 where {var} >= {lower}"), expr)

    def concave_nonneg(self, label: str, expr: Any, var: sp.Symbol, lo: Any, hi: Any) -> Verdict:
        """Proof step: ``expr(var) >= 0`` on ``[lo, hi]``, by concavity.

        It is ``>= 0`` at both ends and concave (second derivative ``<= 0`` for every real ``var``).
        """
        expr = sp.sympify(expr)
        self._note_domain([sp.Le(sp.sympify(lo), var, evaluate=False), sp.Le(var, sp.sympify(hi), evaluate=False)])
        ends = [decide_nonneg(expr.subs(var, sp.sympify(v))) for v in (lo, hi)]
        free = sp.Dummy(var.name + "_free", real=True)  # a Dummy: never equal to another symbol of expr
        moved = expr.subs(var, free)
        curvature = decide_nonneg(-sp.diff(moved, free, 2)) if smooth_everywhere(moved, free, order=2) else Verdict.UNDECIDED
        verdict = Verdict.PROVED if all(p is Verdict.PROVED for p in (*ends, curvature)) else Verdict.UNDECIDED
        return self._add(Step("proof", "sympy", label, verdict, 3, f"{var} in [{lo}, {hi}]",
                              claim=f"{expr} >= 0 where {lo} <= {var} <= {hi}"), expr)

    def cases(self, label: str, residual: Any, regions: Sequence[Region], *, domain: Sequence[Any] = (),
              certificates: Mapping[str, Any] | None = None) -> Verdict:
        """Proof step by case analysis: ``residual >= 0`` on every region, and the regions cover the domain.

        Records two proof steps: the coverage of ``domain`` by ``regions`` (decided exactly by
        :func:`~dpaudit.verify.coverage`), and the residual's sign in each region (after checking
        that the region's slack parametrisation reaches all of it).

        Parameters
        ----------
        residual : sympy expression
            In the original variables; ``Min``, ``Max``, ``Abs``, ``Piecewise`` are evaluated per region.
        regions : sequence of Region
            The cases (see :meth:`Region.where`, :meth:`Region.chain`).
        domain : sequence of sympy relations
            Hypotheses restricting the domain (e.g. ``a <= b``).
        certificates : mapping, optional
            Region name -> a manifestly non-negative expression equal to the residual there.
        """
        residual = sp.sympify(residual)
        certificates = dict(certificates or {})
        unknown = set(certificates) - {r.name for r in regions}
        if unknown:
            raise InvalidArgument(f"cases {label!r}: certificates for unknown regions {sorted(unknown)}")
        self._note_symbols(sp.sympify(residual))
        self._note_domain(domain)
        covered, cover_note, orderings_seen = coverage(regions, domain)
        self._add(Step("proof", "coverage", f"coverage: {label}", covered, orderings_seen, cover_note,
                       claim=_where(f"the {len(regions)} regions of the case split cover the domain", domain)))
        verdicts, bad, shown = [], [], []
        for region in regions:
            ok, why = region.verify()
            expr = region.apply(residual)
            shown.append(expr)
            if not ok:
                verdicts.append(Verdict.UNDECIDED)
                bad.append(f"{region.name} ({why})")
                continue
            cert = certificates.get(region.name)
            v = certified_nonneg(expr, None if cert is None else region.apply(cert))
            if v is Verdict.UNDECIDED and cert is None:
                # the slack parametrisation can turn a polynomial into a rational function Z3 gives up on; the
                # region is exactly its conditions, so the residual as written under them decides the same claim
                if decision(residual, ">=", [*region.conditions, *domain]).verdict is Verdict.PROVED:
                    v = Verdict.PROVED
            verdicts.append(v)
            if v is not Verdict.PROVED:
                bad.append(f"{region.name} ({v})")
        verdict = combine_verdicts(*verdicts) if verdicts else Verdict.UNDECIDED
        note = ("not proved in: " + "; ".join(bad)) if bad else ""
        self._add(Step("proof", "sympy", label, verdict, len(regions), note,
                       claim=_where(f"{residual} >= 0 (in each region)", domain)), tuple(shown))
        return verdict if covered is Verdict.PROVED or verdict is Verdict.DISPROVED else Verdict.UNDECIDED
    # -- exact steps ----------------------------------------------------------------------------

    def exact(self, label: str, holds: Any, *, counterexample: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = None,
              cases: int = 1, note: str = "") -> Verdict:
        """Proof step decided by the kernel's exact arithmetic, about the *whole* statement.

        E.g. a finite statement enumerated completely (``Eq(number_of_failures, 0)``), or an identity between
        rationals. ``holds`` is the relation itself, never its truth value: the kernel decides it
        (exact rationals, or arb balls that exclude 0 for closed forms), so a PROVED exact step is a kernel
        decision. A bare ``True``/``False`` (a Python, numpy or sympy boolean computed elsewhere) is refused.

        A failing exact step is a counterexample to the statement, so it must say where: the
        check becomes DISPROVED. Finitely many instances of an infinite statement are not an
        exact step; use :meth:`instance` (a cross-check) for them.

        Parameters
        ----------
        holds : sympy relation, or a sequence of them (all must hold)
            Between exact closed-form numbers (no free symbol, no float), built unevaluated
            (``sp.Le(a, b, evaluate=False)``); ``And``/``Or``/``Not`` of such relations too.
        counterexample : mapping or callable
            Where the statement fails; required when ``holds`` is False.

        Raises
        ------
        InvalidArgument
            If ``holds`` is a bare truth value, has free symbols, or the kernel cannot decide it; if it fails
            and no counterexample is given.
        """
        owner = f"Proof.exact({label!r})"
        relations = list(holds) if isinstance(holds, (list, tuple)) else [holds]
        if not relations:
            raise InvalidArgument(f"{owner}: no relation to decide")
        truth = all(_kernel_truth(owner, r) for r in relations)
        claim = " and ".join(map(str, relations))
        if not truth:
            if counterexample is None:
                raise InvalidArgument(f"Proof.exact({label!r}) failed: an exact step that fails must name its "
                                 "counterexample (pass counterexample=)")
            shown = counterexample() if callable(counterexample) else counterexample
            if has_float(shown):
                raise ArgumentTypeError(f"Proof.exact({label!r}) failed at a point given with floats ({dict(shown)}): a float "
                                "comparison is not exact; give the point in rationals, or use a cross-check")
            self._record_counterexample(f"exact: {label}", shown, claim)
            return self._add(Step("proof", "exact", label, Verdict.DISPROVED, cases, note or "fails", claim=claim))
        return self._add(Step("proof", "exact", label, Verdict.PROVED, cases, note, claim=claim))

    def unproved(self, label: str, reason: str) -> Verdict:
        """Record a step of the argument that could not be carried out (UNDECIDED, with the reason).

        A proof that gives up part-way must say so: otherwise the steps recorded before the
        failure could make it PROVED.
        """
        return self._add(Step("proof", "none", label, Verdict.UNDECIDED, 0, reason))
    # -- refutation -----------------------------------------------------------------------------

    def refute(self, label: str, counterexample: Mapping[str, Any], margin: Any, *,
               conditions: Mapping[str, Any] | None = None, method: str = "exact") -> bool:
        """Record a counterexample to the statement if ``margin < 0`` is verified exactly.

        ``margin`` is a closed-form number that is ``>= 0`` iff the statement holds at
        ``counterexample`` (e.g. ``rhs - lhs``); its sign is decided by
        :func:`~dpaudit.verify.exact_sign`. ``conditions`` are the statement's hypotheses at the
        counterexample, each an exact boolean or a closed-form number that must be ``>= 0``; a
        refutation whose hypotheses are not all verified is not recorded.

        What the kernel decides is the sign of ``margin``, nothing about the label: the certified claim of the
        DISPROVED is ``<margin> >= 0`` at the point (with the hypotheses checked there), and ``label`` stays a label.

        ``method="quadrature"``: ``margin`` is a float from a numerical integrator (``scipy.integrate.quad``,
        ``mpmath.quad``). Its error estimate is not a bound, so the margin is *evidence* only: a negative one is
        printed in the details and never recorded as a counterexample (returns False). For a DISPROVED, enclose the
        integral rigorously (e.g. :mod:`dpaudit.exact`'s Arb integrals) and pass the closed-form margin.
        """
        if method == "quadrature":
            return self._quadrature_evidence(label, counterexample, margin)
        failed = []
        for name, value in (conditions or {}).items():
            if not condition_holds(f"refute({label!r}) condition {name!r}", value):
                failed.append(name)
        sign = exact_sign(margin)
        if sign is not None and sign < 0 and not failed:
            values = {k: (v if k == APPROX else plain(v)) for k, v in counterexample.items()}
            point = counterexample_text({k: v for k, v in values.items() if k != APPROX})
            margin = sp.sympify(margin)
            values["margin (negative = statement fails)"] = plain(margin)  # exact; its float only under APPROX
            values[APPROX] = {**dict(values.pop(APPROX, None) or {}), "margin": approx(margin)}  # last: after the exact values
            checked = f"; its hypotheses there checked: {', '.join(conditions)}" if conditions else ""
            claim = f"{plain(margin)} >= 0: the margin given for the point {point}{checked}"
            self._record_counterexample(label, values, claim)
            self._add(Step("refute", method, label, Verdict.DISPROVED, 1, f"margin {approx(margin)!s:.10}", claim=claim), margin)
            return True
        if failed:
            state = "hypotheses not verified there: " + ", ".join(failed)
        else:
            state = "holds there" if sign is not None else "sign undecided"
        self._add(Step("refute", method, label, Verdict.UNDECIDED, 1, state), margin)
        return False

    def _quadrature_evidence(self, label: str, counterexample: Mapping[str, Any], margin: Any) -> bool:
        """A margin from numerical quadrature: a violation it shows is evidence, printed in the details, never a DISPROVED."""
        try:
            value = float(margin)
        except (TypeError, ValueError) as exc:
            raise ArgumentTypeError(f"refute({label!r}, method='quadrature'): the margin must be a number, got {margin!r}") from exc
        if not value >= 0:  # NaN too: the integrator failed, which is no evidence that the statement holds
            self._note_evidence(label, "quadrature", 1, counterexample,
                                f"quadrature margin {value:.10g} is not >= 0 (its error estimate is not a bound)")
        else:
            self._add(Step("cross", "quadrature", label, Verdict.PROVED, 1, f"quadrature margin {value:.10g} >= 0"))
        return False

    # -- result ---------------------------------------------------------------------------------

    def claim(self) -> str:
        """What the proof steps decided, as formulas (the certified claim of :meth:`result`; labels are not part of it).

        With a counterexample recorded (a DISPROVED), the relation the kernel decided false there.
        """
        if self._counterexample is not None:  # a DISPROVED: the relation the kernel decided false at its counterexample
            return self._counterexample_claim
        parts = [s.claim or f"[{s.label}]" for s in self._steps if s.kind == "proof" and not s.trivial]
        return "; ".join(dict.fromkeys(parts))

    def result(self) -> CheckResult:
        """Combine the steps (see the module docstring for the rule)."""
        proof_steps = [s for s in self._steps if s.kind == "proof"]
        reason = ""
        if self._counterexample is not None:
            decided = [s for s in proof_steps if not s.trivial]
            if decided and all(s.verdict is Verdict.PROVED for s in proof_steps):
                raise KernelError(f"{self.key}: every proof step is PROVED and a counterexample was recorded "
                                  f"({self._counterexample}): one of them is wrong")
            verdict = Verdict.DISPROVED
        elif not proof_steps:
            verdict, reason = Verdict.UNDECIDED, "no proof step: cross-checks and examples can only refute"
        elif not all(s.verdict is Verdict.PROVED for s in proof_steps):
            verdict = Verdict.UNDECIDED
            open_steps = [f"{s.label} ({s.verdict})" for s in proof_steps if s.verdict is not Verdict.PROVED]
            reason = "not proved: " + "; ".join(open_steps)
        elif all(s.trivial for s in proof_steps):
            verdict, reason = Verdict.UNDECIDED, "every proof step was already 0 at construction (nothing was decided)"
        else:
            verdict = Verdict.PROVED
        methods = list(dict.fromkeys(s.method for s in self._steps))
        residual: Any = None
        if len(self._residuals) == 1:
            residual = self._residuals[0]
        elif self._residuals:
            residual = tuple(self._residuals)
        return _issue(CheckResult(
            verdict=verdict,
            claim=self.claim(),
            method="+".join(methods) if methods else "none",
            residual=residual,
            assumptions=tuple(self._hypotheses) + ((("symbols: " + ", ".join(self._symbols[k] for k in sorted(self._symbols))),)
                                                   if self._symbols else ()),
            counterexample=self._counterexample,
            cases=sum(s.cases for s in self._steps),
            details="; ".join(s.describe() for s in self._steps),
            premises=unique_premises(self._premises),
            reason=reason,
            established=tuple(self._established) if verdict is Verdict.PROVED else (),
            domain=tuple(self._domain),
            vacuity=vacuity(self._domain_relations) if verdict is Verdict.PROVED else "",
        ))
