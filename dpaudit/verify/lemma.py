"""A registered check: :class:`LemmaCheck`, and the :class:`Fact` s a check establishes for others to use.

Examples
--------
A user's own check needs no paper (``papers=()``):

>>> import sympy as sp
>>> from dpaudit.verify import LemmaCheck, Proof, Verdict
>>> def _run():
...     proof = Proof("mine/am_gm")
...     a, b = sp.symbols("a b", nonnegative=True)
...     proof.certificate("a^2 + b^2 - 2ab = (a - b)^2", a**2 + b**2 - 2*a*b, (a - b)**2)
...     return proof.result()
>>> CHECK = LemmaCheck(name="mine/am_gm", source="my notes, eq. 1",
...                    statement="a^2 + b^2 >= 2ab for all a, b >= 0", expected=Verdict.PROVED, check=_run)
>>> CHECK.run().verdict
<Verdict.PROVED: 'proved'>
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from dpaudit.errors import ArgumentTypeError, DPAuditError, InvalidArgument, UnknownName
from dpaudit.verify.verdict import CheckResult, Verdict, _amend, uncertified_as_undecided

__all__ = ["ROLES", "CircularDependency", "EstablishedFact", "Fact", "FactInstance", "LemmaCheck"]

#: ``lemma``: a statement (expected PROVED, or UNDECIDED where no exact proof is available);
#: ``printed`` / ``corrected``: an erratum of a statement, as printed (expected DISPROVED) and
#: corrected; ``gap``: a step of a published *proof* that fails (expected DISPROVED) although
#: the statement may hold by another route; ``control``: a negative control marking where a
#: statement stops being true (expected DISPROVED).
ROLES = ("lemma", "printed", "corrected", "gap", "control")


class CircularDependency(DPAuditError, RecursionError):
    """Checks that depend on one another in a cycle (the message names the cycle)."""


_STATE = threading.local()


def _running() -> list[LemmaCheck]:
    """The checks being run by this thread, outermost first (to detect a cycle of dependencies)."""
    if not hasattr(_STATE, "stack"):
        _STATE.stack = []
    return _STATE.stack


@dataclass(frozen=True)
class Fact:
    """A statement in symbolic form, universally quantified over its free symbols.

    A :class:`LemmaCheck` lists the facts its statement establishes (``facts=``); another proof
    uses them with :meth:`at` and :meth:`dpaudit.verify.Proof.depends`, which checks that the
    instantiated facts imply its own goal.

    Parameters
    ----------
    name : str
        Short name, unique within its check.
    relation : sympy relation
        ``lhs <= rhs`` (or ``<``, ``>=``, ``>``, ``Eq``) in symbols standing for the statement's
        quantities, e.g. ``gap <= dist`` for "the map is 1-Lipschitz".
    """

    name: str
    relation: Any

    def __post_init__(self) -> None:
        if not isinstance(self.relation, sp.core.relational.Relational):
            raise ArgumentTypeError(f"Fact {self.name!r}: relation must be a sympy relation such as a <= b, got {self.relation!r}")


@dataclass(frozen=True)
class FactInstance:
    """A :class:`Fact` of a check with its symbols replaced (see :meth:`LemmaCheck.fact`).

    ``relation`` is the declared relation with ``subs`` applied; :meth:`dpaudit.verify.Proof.depends` uses instead
    what the check's proof established (:class:`EstablishedFact`), instantiated by ``subs``.
    """

    check: LemmaCheck
    fact: Fact
    relation: Any
    subs: Mapping[Any, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class EstablishedFact:
    """Exactly what a proof established for one of its :class:`Fact` s.

    ``statement`` is the Fact's relation with the ``where=`` substitutions applied, proved for every value of its
    free symbols (within their declared assumptions) that satisfies ``hypotheses``. ``defined`` are the symbols
    that ``where=`` defined: they are not quantified, so a dependent cannot choose them.
    """

    name: str
    relation: Any
    statement: Any
    hypotheses: tuple[Any, ...] = ()
    defined: tuple[Any, ...] = ()

    def quantified(self) -> set[Any]:
        """The universally quantified symbols: the only ones an instantiation may replace."""
        return set(sp.sympify(self.statement).free_symbols).union(*(sp.sympify(h).free_symbols for h in self.hypotheses))

    def instantiate(self, subs: Mapping[Any, Any]) -> tuple[Any, list[Any], str]:
        """``(relation, obligations, problem)``: the statement with ``subs`` applied, and what using it requires.

        ``obligations`` are the relations the dependent must prove to use it (the hypotheses,
        instantiated, and each replaced symbol's assumptions about its value); ``problem`` is
        non-empty when ``subs`` replaces a symbol that is not quantified.
        """
        quantified = self.quantified()
        bad = [k for k in subs if k not in quantified]
        if bad:
            why = [f"{k} (defined by where= in its proof)" if k in self.defined else f"{k} (not in the statement)" for k in bad]
            return None, [], (f"only its universally quantified symbols "
                              f"({', '.join(sorted(map(str, quantified))) or 'none'}) can be instantiated, not "
                              f"{', '.join(why)}; it proved {self.statement}"
                              + (f" under {', '.join(map(str, self.hypotheses))}" if self.hypotheses else ""))
        relation = substitute(self.statement, subs)
        obligations = [substitute(h, subs) for h in self.hypotheses]
        for k, v in subs.items():
            obligations += _assumption_obligations(k, sp.sympify(v))
        return relation, obligations, ""


def substitute(relation: Any, subs: Mapping[Any, Any]) -> Any:
    """``relation`` with ``subs`` applied to both sides at once, left unevaluated.

    sympy would turn a relation it can decide from its assumptions into True or False, and the
    kernel decides nothing from those.
    """
    relation = sp.sympify(relation)
    if not isinstance(relation, sp.core.relational.Relational):
        return relation.subs(dict(subs), simultaneous=True)
    lhs, rhs = (sp.sympify(side).subs(dict(subs), simultaneous=True) for side in (relation.lhs, relation.rhs))
    return relation.func(lhs, rhs, evaluate=False)


def _assumption_obligations(symbol: Any, value: Any) -> list[Any]:
    """What must hold of ``value`` to put it in place of ``symbol``.

    Its declared sign, and that it is a real number (defined: the kernel proves an expression
    defined before deciding anything about it).
    """
    table = {"positive": sp.Gt, "negative": sp.Lt, "nonnegative": sp.Ge, "nonpositive": sp.Le, "nonzero": sp.Ne}
    out = [build(value, 0, evaluate=False) for key, build in table.items() if symbol.assumptions0.get(key) is True][:1]
    if symbol.is_integer and not (value.is_Integer or (isinstance(value, sp.Symbol) and value.is_integer)):
        out.append(sp.false)  # an integer symbol takes integers only: not decided by the kernel
    if not out and not (isinstance(value, sp.Symbol) and value.is_real):
        out.append(sp.Eq(value, value, evaluate=False))  # defined and real everywhere
    return out


@dataclass(frozen=True, kw_only=True)
class LemmaCheck:
    """One checked statement (a paper's lemma, or a user's own) with its expected verdict.

    Parameters
    ----------
    name : str
        Unique identifier without spaces, e.g. ``"<package>/<lemma>"``; ``dpaudit prove --only`` filters on it.
    source : str
        Citation: where the statement comes from (paper and number, or the user's own reference).
    statement : str
        The statement, with its quantifiers and hypotheses, as a label: :meth:`run` keeps the claim the kernel
        decided (``CheckResult.claim``) and records this text apart (``CheckResult.statement``); ``dpaudit prove``
        prints both.
    expected : Verdict
        The verdict recorded by the last review (a regression snapshot): the runner reports a
        different verdict as a mismatch, except UNDECIDED -> PROVED, which it reports as an improvement.
    check : callable
        Computes the :class:`~dpaudit.verify.CheckResult`; never returns a constant.
    papers : tuple of str
        Keys of the papers the statement belongs to; empty for a user's own check.
    role : str
        One of :data:`ROLES`.
    sibling : str or None
        For ``printed`` / ``gap`` / ``corrected`` checks, the name of the other half of the pair.
    facts : tuple of Fact
        The statement in symbolic form, for other checks to build on (see :meth:`fact`).
    timeout : float or None
        Seconds this check may run (None: the runner's default).
    """

    name: str
    source: str
    statement: str
    expected: Verdict
    check: Callable[[], CheckResult] = field(repr=False, compare=False)
    papers: tuple[str, ...] = ()
    role: str = "lemma"
    sibling: str | None = None
    facts: tuple[Fact, ...] = field(default=(), repr=False, compare=False)
    timeout: float | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or any(ch.isspace() for ch in self.name):
            raise InvalidArgument(f"LemmaCheck.name must be a non-empty identifier without spaces, got {self.name!r}")
        if not isinstance(self.source, str) or not self.source.strip():
            raise InvalidArgument(f"LemmaCheck {self.name!r}: source must say where the statement comes from")
        if not isinstance(self.statement, str) or not self.statement.strip():
            raise InvalidArgument(f"LemmaCheck {self.name!r}: statement must state what is checked")
        if not isinstance(self.expected, Verdict):
            raise ArgumentTypeError(f"LemmaCheck {self.name!r}: expected must be a Verdict, got {self.expected!r}")
        if not callable(self.check):
            raise ArgumentTypeError(f"LemmaCheck {self.name!r}: check must be a callable returning a CheckResult")
        if isinstance(self.papers, str) or any(not isinstance(p, str) or not p for p in self.papers):
            raise InvalidArgument(f"LemmaCheck {self.name!r}: papers must be a tuple of paper keys (possibly empty), got {self.papers!r}")
        if self.role not in ROLES:
            raise InvalidArgument(f"LemmaCheck {self.name!r}: role must be one of {ROLES}, got {self.role!r}")
        if self.timeout is not None and not self.timeout > 0:
            raise InvalidArgument(f"LemmaCheck {self.name!r}: timeout must be a positive number of seconds or None, got {self.timeout!r}")
        names = [f.name for f in self.facts]
        if len(names) != len(set(names)):
            raise InvalidArgument(f"LemmaCheck {self.name!r}: fact names must be unique, got {names}")

    def fact(self, name: str, subs: Mapping[Any, Any] | None = None) -> FactInstance:
        """The fact ``name`` of this check, with its symbols replaced by ``subs`` (all at once).

        Raises
        ------
        KeyError
            If the check declares no such fact.
        """
        for fact in self.facts:
            if fact.name == name:
                relation = fact.relation.subs(dict(subs or {}), simultaneous=True)
                return FactInstance(self, fact, relation, dict(subs or {}))
        raise UnknownName(f"{self.name} declares no fact {name!r} (it declares {[f.name for f in self.facts]})")

    def run(self) -> CheckResult:
        """Run the check; the result carries this check's statement and source.

        Raises
        ------
        CircularDependency
            If the check depends, directly or through others, on itself (``Proof.depends`` on its own Facts).
        """
        running = _running()
        if self in running:
            cycle = [c.name for c in running[running.index(self):]] + [self.name]
            raise CircularDependency(f"circular dependency between checks: {' -> '.join(cycle)} (a check cannot rest "
                                     "on its own Facts)")
        running.append(self)
        try:
            result = self.check()
        finally:
            running.pop()
        if not isinstance(result, CheckResult):
            raise ArgumentTypeError(f"{self.name}: check returned {type(result).__name__}, not a CheckResult")
        result = uncertified_as_undecided(result, "the check")
        # the claim is what the kernel decided (a Proof's steps as formulas, lipschitz's inequality, ...); the statement
        # is the author's text, a label only: a statement that says one thing beside a proof of another is not bound
        claim = result.claim or self.statement
        if result.domain and "[decided on the domain:" not in claim:  # a restricted domain: the claim says so
            claim += f" [decided on the domain: {'; '.join(result.domain)}]"
        return _amend(result, claim=claim, source=self.source, statement=self.statement)
