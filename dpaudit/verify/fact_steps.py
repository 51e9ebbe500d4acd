"""Proof steps about Facts.

A relation shown, a :class:`~dpaudit.verify.Fact` established, and a goal proved from other checks' Facts
(:meth:`FactSteps.depends`), with the dependencies' results and what their proofs established.

:class:`FactSteps` is the part of :class:`~dpaudit.verify.Proof` (:mod:`dpaudit.verify.proof`) that instantiates Facts:
a Fact a dependency declared but did not establish is printed as an "unproved Fact" premise; one it established is used
exactly as proved (:class:`~dpaudit.verify.lemma.EstablishedFact`), its hypotheses becoming obligations decided by the
kernel.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp

from dpaudit.errors import InvalidArgument
from dpaudit.verify._record import Step, _Record
from dpaudit.verify.decide import decide_nonneg, decide_zero, decision
from dpaudit.verify.exact_conditions import certified_nonneg, goal_sides, trivial_residual
from dpaudit.verify.kernel import decide
from dpaudit.verify.lemma import EstablishedFact, FactInstance, LemmaCheck, substitute
from dpaudit.verify.regions import Region
from dpaudit.verify.verdict import CheckResult, Premise, Verdict

__all__ = ["FactSteps", "LocalFact", "dependency_result"]


@dataclass(frozen=True)
class LocalFact:
    """A relation for :meth:`Proof.depends`: shown by this proof, a hypothesis, or taken on trust.

    Shown by :meth:`Proof.show`; a hypothesis of the statement by :meth:`Proof.given_fact` (``kind="given"``); a
    relation taken on trust by :meth:`Proof.assume_fact` (``kind="assumed"``). A Fact established from those holds
    only under them (they become its hypotheses).
    """

    label: str
    relation: Any
    verdict: Verdict
    kind: str = "shown"


_DEPENDENCY_RESULTS: dict[int, tuple[LemmaCheck, CheckResult]] = {}


def dependency_result(check: LemmaCheck) -> CheckResult:
    """The result of ``check``, run once per process (results are deterministic) and memoised."""
    key = id(check)
    if key not in _DEPENDENCY_RESULTS:
        _DEPENDENCY_RESULTS[key] = (check, check.run())
    return _DEPENDENCY_RESULTS[key][1]


class FactSteps(_Record):
    """The steps of a :class:`~dpaudit.verify.Proof` that show relations, establish Facts and use other checks' Facts."""

    def show(self, label: str, relation: Any, where: Mapping[Any, Any] | None = None) -> LocalFact:
        """Proof step: ``relation`` (``lhs <= rhs`` or ``Eq``) holds.

        Decided after replacing the quantities it names by their expressions in ``where``.

        Returns what was shown, the relation with ``where`` applied (the named quantities are not free to
        take other values afterwards), as a :class:`LocalFact` that :meth:`depends` can combine with other
        checks' facts. For example
        ``show("coordinate <= norm", Le(c, n), where={c: Abs(y), n: sqrt(y**2 + r)})`` with ``r >= 0``.
        """
        lo, hi, kind = goal_sides(relation)
        subs = dict(where or {})
        residual = sp.sympify(hi - lo).subs(subs, simultaneous=True)
        verdict = decide_zero(residual) if kind == "eq" else decide_nonneg(residual)
        trivial = trivial_residual(residual, kind == "eq")
        self._add(Step("proof", "sympy", label, verdict, 1, f"{relation}", trivial=trivial,
                       claim=f"{residual} {'==' if kind == 'eq' else '>='} 0"), residual)
        # what was shown is the relation with where= applied: the named quantities are not free to take other values
        return LocalFact(label, substitute(relation, subs), verdict)

    def establish(self, name: str, relation: Any, where: Mapping[Any, Any] | None = None,
                  hypotheses: Sequence[Any] = ()) -> Verdict:
        """Proof step: the :class:`~dpaudit.verify.Fact` ``name`` this check declares holds.

        Decided by the kernel after replacing the quantities it names by their expressions in ``where`` (under
        ``hypotheses``).

        Only an established fact is used by :meth:`depends` without a premise: a fact its check declares but
        does not establish is printed as an "unproved Fact" premise beside every verdict resting on it.
        What is recorded is exactly what was proved (:class:`~dpaudit.verify.lemma.EstablishedFact`): the relation
        with ``where`` applied, under ``hypotheses``, for the symbols' declared assumptions. A dependent may
        instantiate only its free (universally quantified) symbols, and must prove the instantiated hypotheses and
        the replaced symbols' assumptions (:meth:`depends` decides them).
        """
        lo, hi, kind = goal_sides(relation)
        where = dict(where or {})
        residual = sp.sympify(hi - lo).subs(where, simultaneous=True)
        self._note_domain(hypotheses)
        verdict = decision(residual, "==" if kind == "eq" else ">=", hypotheses).verdict
        if verdict is Verdict.PROVED:  # exactly what was proved: the relation as instantiated by where=, under hypotheses
            self._established.append(EstablishedFact(name, relation, substitute(relation, where),
                                                     tuple(hypotheses), tuple(where)))
        hyps = f" where {', '.join(map(str, hypotheses))}" if hypotheses else ""
        self._add(Step("proof", "kernel", f"establishes Fact {name!r}: {relation}", verdict, 1,
                       claim=f"{residual} {'==' if kind == 'eq' else '>='} 0{hyps}"), residual)
        return verdict

    def given_fact(self, text: str, relation: Any) -> LocalFact:
        """A hypothesis of the statement as a relation, for :meth:`depends` (recorded like :meth:`given`).

        The relation restricts the domain the proof is about: it is printed with the verdict (the premises column of
        ``dpaudit prove``: "domain: ..."), and a PROVED whose hypotheses have no common solution is marked vacuous.
        """
        goal_sides(relation)
        self._hypotheses.append(f"{text}: {relation}")
        self._note_domain([relation])  # the relation, not only the author's text, is a hypothesis of the proof
        self._note_symbols(relation)  # and its symbols' declared domains
        return LocalFact(text, relation, Verdict.PROVED, "given")

    def assume_fact(self, label: str, text: str, relation: Any) -> LocalFact:
        """A relation taken on trust (recorded like :meth:`assume`, printed beside the verdict), for :meth:`depends`.

        A PROVED resting on relations taken on trust that have no common solution with the proof's hypotheses is
        marked vacuous (the relation is a premise, printed as one, not a restriction of the domain).
        """
        goal_sides(relation)
        self._premises.append(Premise("assumed", label, f"{text}: {relation}"))
        self._domain_relations.append(relation)  # checked for joint satisfiability with the hypotheses (vacuity)
        return LocalFact(label, relation, Verdict.PROVED, "assumed")

    def depends(self, label: str, goal: Any, premises: Sequence[FactInstance | LocalFact], *,
                certificate: Any = None, establishes: str | None = None) -> Verdict:
        """Proof step: ``goal`` follows from facts of other checks, and those checks are PROVED.

        A Fact the dependency established is used as it was proved (:class:`~dpaudit.verify.lemma.EstablishedFact`):
        only its universally quantified symbols may be replaced (a quantity its proof defined by ``where=`` may
        not), and its hypotheses and the replaced symbols' assumptions (a ``positive`` symbol replaced by an
        expression that must be proved positive) become obligations, decided by the kernel under the local facts
        among ``premises`` and printed in the step. The implication is checked, not trusted: the instantiated facts are written in slack
        form (:meth:`Region.where`: ``a <= b`` becomes ``b = a + s``), and the goal's residual
        must be non-negative for every slack value (or equal ``certificate``, a manifestly
        non-negative expression). The dependencies' own premises become premises of this proof.

        Parameters
        ----------
        goal : sympy relation
            ``lhs <= rhs`` (or ``Eq``) in the quantities the facts talk about.
        premises : sequence of FactInstance or LocalFact
            From :meth:`LemmaCheck.fact` of each dependency, with its symbols renamed, or
            relations this proof established with :meth:`show`.
        establishes : str, optional
            The name of a :class:`~dpaudit.verify.Fact` of this check that ``goal`` is (written in the Fact's
            own symbols): recorded as established when the step is PROVED.
        """
        if not premises:
            raise InvalidArgument(f"depends {label!r}: name the facts the goal follows from")
        notes = []
        verdicts = []
        relations: list[Any] = []
        context = [p.relation for p in premises if isinstance(p, LocalFact) and p.verdict is Verdict.PROVED]
        # the goal holds under the statement's hypotheses and the relations taken on trust among the premises (and the
        # obligations below are decided under them): an established Fact carries them as its hypotheses
        conditions = tuple(p.relation for p in premises if isinstance(p, LocalFact) and p.kind != "shown")
        for inst in premises:
            if isinstance(inst, LocalFact):
                relations.append(inst.relation)
                if inst.verdict is not Verdict.PROVED:
                    verdicts.append(Verdict.UNDECIDED)
                    notes.append(f"local fact {inst.label!r} is {inst.verdict}")
                continue
            result = dependency_result(inst.check)
            self._premises.extend(result.premises)
            if result.verdict is not Verdict.PROVED:
                verdicts.append(Verdict.UNDECIDED)
                notes.append(f"{inst.check.name} is {result.verdict}")
            record = next((e for e in result.established if isinstance(e, EstablishedFact) and e.name == inst.fact.name
                           and e.relation == inst.fact.relation), None)
            if record is None:
                # declared by the dependency but not established by its proof: a premise, printed beside the verdict
                self._premises.append(Premise("fact", f"unproved Fact {inst.check.name}:{inst.fact.name}",
                                              f"{inst.fact.relation} (declared by {inst.check.name}; its proof does "
                                              "not establish it)"))
                relations.append(inst.relation)
                continue
            # what the dependency proved, instantiated at its quantified symbols only; its hypotheses and the replaced
            # symbols' assumptions are obligations of this proof, decided by the kernel
            relation, obligations, problem = record.instantiate(inst.subs)
            if problem:
                verdicts.append(Verdict.UNDECIDED)
                notes.append(f"{inst.check.name}:{inst.fact.name} cannot be instantiated so: {problem}")
                continue
            relations.append(relation)
            for ob in obligations:
                d = (Verdict.DISPROVED if ob is sp.false else decide(ob, context).verdict)
                verdicts.append(d if d is Verdict.PROVED else Verdict.UNDECIDED)
                shown = "it is an integer" if ob is sp.false else str(ob)
                notes.append(f"obligation of {inst.check.name}:{inst.fact.name}: {shown} ({d})")
        names = ", ".join(dict.fromkeys(_premise_name(p) for p in premises))
        lo, hi, kind = goal_sides(goal)
        direct = decision(hi - lo, "==" if kind == "eq" else ">=", relations)
        if direct.verdict is Verdict.PROVED:
            verdict = Verdict.PROVED if all(v is Verdict.PROVED for v in verdicts) else Verdict.UNDECIDED
            if establishes is not None and verdict is Verdict.PROVED:
                self._established.append(EstablishedFact(establishes, goal, goal, conditions))
            note = f"from {names} ({direct.method})" + ("; " + "; ".join(notes) if notes else "")
            return self._add(Step("proof", "lemmas", label, verdict, len(premises), note,
                                  claim=f"{goal} (from {names})"), hi - lo)
        region, ok, why = _slack_form(label, relations)
        residual: Any = None
        if region is None or not ok:
            verdicts.append(Verdict.UNDECIDED)
            notes.append(f"the facts cannot be put in slack form: {why}")
        else:
            lo, hi, kind = goal_sides(goal)
            residual = region.apply(hi - lo)
            cert = None if certificate is None else region.apply(certificate)
            implied = decide_zero(residual) if kind == "eq" else certified_nonneg(residual, cert)
            verdicts.append(implied if implied is Verdict.PROVED else Verdict.UNDECIDED)
            if implied is not Verdict.PROVED:
                notes.append(f"the goal does not follow (residual {residual})")
        verdict = Verdict.PROVED if all(v is Verdict.PROVED for v in verdicts) else Verdict.UNDECIDED
        if establishes is not None and verdict is Verdict.PROVED:
            self._established.append(EstablishedFact(establishes, goal, goal, conditions))
        note = f"from {names}" + ("; " + "; ".join(notes) if notes else "")
        return self._add(Step("proof", "lemmas", label, verdict, len(premises), note,
                              claim=f"{goal} (from {names})"), residual)


def _premise_name(premise: FactInstance | LocalFact) -> str:
    if isinstance(premise, LocalFact):
        return f"this proof:{premise.label}"
    return f"{premise.check.name}:{premise.fact.name}"


def _slack_form(label: str, relations: Sequence[Any]) -> tuple[Region | None, bool, str]:
    """The premises as one region in slack form; tries their orders until one parametrises."""
    why = "no premises"
    for order in itertools.islice(itertools.permutations(relations), 720):
        try:
            region = Region.where(label, *order)
        except (ValueError, TypeError) as exc:
            why = str(exc)
            continue
        ok, why = region.verify()
        if ok:
            return region, True, ""
    return None, False, why

