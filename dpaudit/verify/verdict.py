"""Three-valued verdicts and the evidence that comes with them.

sympy answers ``True``, ``False`` or ``None`` (unknown); ``None`` is never turned into ``False``.
A :class:`CheckResult` carries the verdict together with its evidence: the residual expression
that was tested, the hypotheses of the statement, the premises taken on trust (cited theorems,
assumed steps), a counterexample when one was found, and how many cases were tried.

The rule every producer of a :class:`CheckResult` follows (``dpaudit.verify``, ``dpaudit.bounds``):

* **PROVED** means a symbolic or exact argument about the whole statement, *given* the premises
  listed in :attr:`CheckResult.premises`;
* **DISPROVED** means a counterexample was found and checked exactly; it is in
  :attr:`CheckResult.counterexample`;
* **UNDECIDED** is everything else, with the reason in :attr:`CheckResult.reason`. Checks on finite
  instances, random points or hypothesis examples can only refute, so they never give PROVED.

Examples
--------
>>> from dpaudit.verify import CheckResult, Premise, Verdict
>>> result = CheckResult(Verdict.PROVED, "sigma is (eps, delta)-DP for eps < 1",
...                      premises=(Premise("cited", "[DR14] Thm A.1", "the classical Gaussian mechanism"),))
>>> result.verdict_text()
'PROVED given [DR14] Thm A.1'
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dpaudit.errors import ArgumentTypeError, InvalidArgument, KernelError

__all__ = ["Certificate", "CheckResult", "Premise", "Verdict", "certified", "certified_fields", "combine_results",
           "combine_verdicts", "uncertified_as_undecided", "verdict_from_sympy"]


class Certificate:
    """Issued with a PROVED or DISPROVED :class:`CheckResult` by the code that decided it through the kernel.

    The issuers are :meth:`dpaudit.verify.Proof.result`, :func:`dpaudit.verify.lipschitz`,
    :func:`dpaudit.bounds.check_inequality` and the like. It records the verdict it was issued for and a digest
    of what it certifies: the claim, the domain, the hypotheses, the premises and the counterexample
    (:func:`certified_fields`). ``dpaudit prove`` accepts a PROVED or DISPROVED only with a certificate issued
    for that very result (:func:`certified`): a check cannot build its own PROVED, and a copy edited with
    ``dataclasses.replace`` (a premise or the domain dropped, the counterexample or the claim swapped) is no
    longer certified.
    """

    __slots__ = ("__weakref__", "digest", "verdict")

    def __init__(self, verdict: Verdict, digest: str = "") -> None:
        self.verdict = verdict
        self.digest = digest

    def __repr__(self) -> str:
        return f"<kernel certificate for {self.verdict}>"


_ISSUED: weakref.WeakSet[Certificate] = weakref.WeakSet()


def certified_fields(result: CheckResult) -> str:
    """A SHA-256 digest of what a certificate binds.

    The verdict, claim, domain, hypotheses (``assumptions``), premises, counterexample (exact values as text; a
    float by its shortest round-trip form, so its exact value) and vacuity.
    """
    payload = {
        "verdict": result.verdict.value,
        "claim": result.claim,
        "domain": list(result.domain),
        "assumptions": list(result.assumptions),
        "premises": [[p.kind, p.key, p.text] for p in result.premises],
        "counterexample": None if result.counterexample is None else _json_value(result.counterexample),
        "vacuity": result.vacuity,
    }
    text = json.dumps(payload, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


def _issue(result: CheckResult) -> CheckResult:
    """``result`` with a fresh certificate for its verdict and fields (for the producers listed in :class:`Certificate`)."""
    cert = Certificate(result.verdict, certified_fields(result))
    _ISSUED.add(cert)
    return dataclasses.replace(result, certificate=cert)


def _amend(result: CheckResult, **changes: Any) -> CheckResult:
    """``dataclasses.replace(result, **changes)``, certified again only if ``result`` was.

    For the producers that frame a kernel result they decided (its claim in words, its source) before handing it out.
    """
    out = dataclasses.replace(result, **changes)
    return _issue(out) if certified(result) else dataclasses.replace(out, certificate=None)


def certified(result: CheckResult) -> bool:
    """Was ``result`` issued, exactly as it is, by a producer that decides through the kernel?

    See :class:`Certificate`. ``dataclasses.replace`` keeps the certificate object, but a copy whose verdict,
    claim, domain, hypotheses, premises or counterexample differ from what was issued is not certified.
    """
    cert = result.certificate
    return (isinstance(cert, Certificate) and cert in _ISSUED and cert.verdict is result.verdict
            and cert.digest == certified_fields(result))


def uncertified_as_undecided(result: CheckResult, who: str) -> CheckResult:
    """``result`` itself when certified or UNDECIDED; else an UNDECIDED copy saying why (``who`` returned it).

    PROVED and DISPROVED come only from the kernel: a verdict built by hand (around ``combine_verdicts``, a sympy
    simplification, a float counterexample) or edited after it was issued is not one. Used where user or check code
    hands results to dpaudit (:meth:`dpaudit.verify.LemmaCheck.run`, :class:`dpaudit.bounds.checks.CheckSpec`).
    """
    if not isinstance(result, CheckResult):
        raise ArgumentTypeError(f"{who} returned {type(result).__name__}, not a CheckResult")
    if result.verdict is Verdict.UNDECIDED or certified(result):
        return result
    why = (f"{who} returned a {result.verdict.name} it did not get from the kernel (a CheckResult built by hand, or its "
           "verdict, claim, domain, hypotheses, premises or counterexample changed after it was issued): PROVED and "
           "DISPROVED come only from Proof.result(), dpaudit.verify.lipschitz / sensitivity, "
           "dpaudit.bounds.check_inequality / check_identity, or combine_results of such results")
    return dataclasses.replace(result, verdict=Verdict.UNDECIDED, reason=why, counterexample=None, certificate=None)


def _part_claim(part: CheckResult) -> str:
    """A part's certified claim with the domain it was decided on (what the part's verdict is about)."""
    text = part.claim or "(a part with no claim)"
    return f"{text} [on the domain: {'; '.join(part.domain)}]" if part.domain and "domain:" not in text else text


def combine_results(claim: str, *parts: CheckResult, **fields: Any) -> CheckResult:
    """The conjunction of ``parts`` as one result, certified when the parts it rests on are.

    The verdict is :func:`combine_verdicts`'; this is the way to combine kernel results by hand (a
    CheckResult built around :func:`combine_verdicts` is not certified). The certified claim is the conjunction
    of the parts' own claims, each with the domain it was decided on; ``claim`` (the caller's words) is kept as
    the result's :attr:`~CheckResult.statement`, a label that nothing checks.

    * **PROVED**: the result carries every part's premises, domain restrictions and hypotheses (a part proved on
      ``[0, 1]`` makes the conjunction hold on ``[0, 1]`` only): ``premises``, ``domain`` and ``assumptions``
      given in ``fields`` are added to them (a further restriction), never substituted; a part's vacuity is kept.
    * **DISPROVED**: the conjunction fails where its first certified failing part fails: the result carries that
      part's re-checked counterexample, domain and hypotheses, and nothing else. A ``domain=`` or ``assumptions=``
      restriction in ``fields`` that this part was not decided under is not part of the refuted claim (nothing here
      re-checks the counterexample against it): it is named in ``details`` and left out of ``domain`` and
      ``assumptions``, so the result never says it fails on a domain its counterexample may lie outside of. A
      ``counterexample=`` in ``fields`` must be a failing part's own.
    * **UNDECIDED** otherwise, with the parts' reasons (or ``reason=``). A part whose PROVED or DISPROVED was not
      issued by the kernel (a CheckResult built by hand, or one edited after it was issued: :func:`certified` is
      False) counts as UNDECIDED: the conjunction is PROVED only when every part is a certified PROVED, and
      DISPROVED only through a certified failing part. The reason names the uncertified parts.

    The other ``fields`` (``source``, ``method``, ``residual``, ``cases``, ``details``, ``reason``) are the caller's
    annotations: printed with the result, not part of what its certificate binds (:func:`certified_fields`).

    Raises
    ------
    InvalidArgument
        If no part is given, a part is not a CheckResult, ``fields`` holds ``certificate`` or ``established``, or a
        ``counterexample``
        that is no failing part's.
    KernelError
        If a certified DISPROVED part carries no counterexample (every DISPROVED issued by the kernel has one).
    """
    if not parts:
        raise InvalidArgument("combine_results: give at least one part (a CheckResult) to combine")
    for i, p in enumerate(parts):
        if not isinstance(p, CheckResult):
            raise InvalidArgument(f"combine_results: part {i} must be a CheckResult, got {type(p).__name__}")
    for name in ("certificate", "established"):
        if name in fields:
            raise InvalidArgument(f"combine_results: {name}= cannot be given (it comes from what the parts decided)")
    # a verdict the kernel did not issue is no verdict here: an uncertified PROVED or DISPROVED part counts as UNDECIDED
    verdict = combine_verdicts(*(p.verdict if certified(p) else Verdict.UNDECIDED for p in parts))
    statement = fields.pop("statement", None) or claim
    given_counterexample = fields.pop("counterexample", None)
    extra_premises = tuple(fields.pop("premises", ()))
    extra_domain = _texts(fields.pop("domain", ()))
    extra_assumptions = _texts(fields.pop("assumptions", ()))
    extra_vacuity = fields.pop("vacuity", "")
    texts = [_part_claim(p) for p in parts]
    conjunction = texts[0] if len(texts) == 1 else " AND ".join(f"({t})" for t in texts)
    if verdict is Verdict.DISPROVED:
        return _combined_disproved(statement, conjunction, parts, given_counterexample, extra_premises, extra_domain,
                                   extra_assumptions, fields)
    if given_counterexample is not None:
        raise InvalidArgument("combine_results: counterexample= given, but no part is a certified DISPROVED (a "
                              "counterexample comes only from a failing part the kernel refuted)")
    premises = unique_premises([*(q for p in parts for q in p.premises), *extra_premises])
    domain = tuple(dict.fromkeys([*(d for p in parts for d in p.domain), *extra_domain]))
    assumptions = tuple(dict.fromkeys([*(a for p in parts for a in p.assumptions), *extra_assumptions]))
    if verdict is Verdict.PROVED:  # a part proved on hypotheses with no common solution says nothing: the whole says so
        fields["vacuity"] = "; ".join(dict.fromkeys(v for v in (*(p.vacuity for p in parts), extra_vacuity) if v))
    else:
        fields.setdefault("reason", "; ".join(f"part {i + 1}: {_part_reason(p)}" for i, p in enumerate(parts)
                                              if p.verdict is not Verdict.PROVED or not certified(p)))
    established = tuple(e for p in parts for e in p.established) if verdict is Verdict.PROVED else ()
    result = CheckResult(verdict, conjunction, premises=premises, domain=domain, assumptions=assumptions,
                         statement=statement, established=established, **fields)
    return _issue(result) if verdict is Verdict.PROVED else result


def _part_reason(part: CheckResult) -> str:
    """Why a part leaves the conjunction undecided: its own reason, or that its verdict was not issued by the kernel."""
    if part.verdict is not Verdict.UNDECIDED and not certified(part):
        return (f"its {part.verdict.name} ({part.claim or 'no claim'}) was not issued by the kernel (a CheckResult built "
                "by hand, or edited after it was issued), so it counts as UNDECIDED")
    return part.reason or str(part.verdict)


def _texts(value: Any) -> tuple[str, ...]:
    """A ``domain=`` or ``assumptions=`` as a tuple of conditions: one string is one condition, not its characters."""
    return (value,) if isinstance(value, str) else tuple(value)


def _combined_disproved(statement: str, conjunction: str, parts: tuple[CheckResult, ...], given: Any,
                        extra_premises: tuple[Premise, ...], extra_domain: tuple[str, ...],
                        extra_assumptions: tuple[str, ...], fields: dict[str, Any]) -> CheckResult:
    """The DISPROVED conjunction: it rests on one failing part's re-checked counterexample (see :func:`combine_results`)."""
    failing = [p for p in parts if p.verdict is Verdict.DISPROVED and certified(p)]
    for p in failing:
        if p.counterexample is None:
            raise KernelError(f"combine_results: the certified DISPROVED part {p.claim!r} carries no counterexample")
    if given is not None:
        chosen = [p for p in failing if p.counterexample is not None and dict(p.counterexample) == dict(given)]
        if not chosen:
            raise InvalidArgument(f"combine_results: counterexample={given!r} is not the counterexample of a failing part "
                                  "(a DISPROVED conjunction keeps its failing part's own re-checked counterexample)")
        failing = chosen
    part = failing[0]
    premises = unique_premises([*part.premises, *extra_premises])
    unchecked = [d for d in extra_domain if d not in part.domain] + [a for a in extra_assumptions if a not in part.assumptions]
    if unchecked:  # the refuted claim is the part's, on its own domain: a restriction it was not decided under is not in it
        fields["details"] = (f"not part of the refuted claim (its counterexample is not checked against them): "
                             f"{'; '.join(unchecked)}" + (f"; {fields['details']}" if fields.get("details") else ""))
    fields.pop("vacuity", None)
    result = CheckResult(Verdict.DISPROVED, conjunction, premises=premises, domain=part.domain,
                         assumptions=part.assumptions, counterexample=part.counterexample, statement=statement, **fields)
    return _issue(result)


class Verdict(enum.Enum):
    """Outcome of a check: proved, disproved (with a counterexample), or undecided."""

    PROVED = "proved"
    DISPROVED = "disproved"
    UNDECIDED = "undecided"

    def __str__(self) -> str:
        return self.value


def verdict_from_sympy(answer: Any) -> Verdict:
    """Map sympy's three-valued answer (True / False / None or a relational) to a Verdict.

    Examples
    --------
    >>> verdict_from_sympy(True), verdict_from_sympy(None)
    (<Verdict.PROVED: 'proved'>, <Verdict.UNDECIDED: 'undecided'>)
    """
    import sympy

    if answer is True or answer is sympy.true:
        return Verdict.PROVED
    if answer is False or answer is sympy.false:
        return Verdict.DISPROVED
    return Verdict.UNDECIDED


def combine_verdicts(*verdicts: Verdict) -> Verdict:
    """Conjunction of claims: DISPROVED if any part is, PROVED if all parts are, else UNDECIDED.

    Examples
    --------
    >>> combine_verdicts(Verdict.PROVED, Verdict.UNDECIDED)
    <Verdict.UNDECIDED: 'undecided'>
    """
    if any(v is Verdict.DISPROVED for v in verdicts):
        return Verdict.DISPROVED
    if verdicts and all(v is Verdict.PROVED for v in verdicts):
        return Verdict.PROVED
    return Verdict.UNDECIDED


@dataclass(frozen=True)
class Premise:
    """A premise a verdict rests on without checking it.

    Parameters
    ----------
    kind : str
        ``"cited"`` (a theorem from the literature), ``"assumed"`` (a step of the argument taken
        on trust: a reduction, a symmetry, a standard fact) or ``"fact"`` (a :class:`~dpaudit.verify.Fact` of a
        dependency that the dependency's own proof did not establish).
    key : str
        Short name printed beside the verdict, e.g. ``"[DR14] Thm A.1"`` or ``"reduction to the plane"``.
    text : str
        The premise in full.
    """

    kind: str
    key: str
    text: str

    def __post_init__(self) -> None:
        if self.kind not in ("cited", "assumed", "fact"):
            raise InvalidArgument(f"Premise.kind must be 'cited', 'assumed' or 'fact', got {self.kind!r}")
        if not self.key.strip():
            raise InvalidArgument("Premise.key must be a non-empty short name")

    def __str__(self) -> str:
        return self.key


def unique_premises(premises: Iterable[Premise]) -> tuple[Premise, ...]:
    """``premises`` without repeats, in first-seen order."""
    seen: dict[tuple[str, str, str], Premise] = {}
    for p in premises:
        seen.setdefault((p.kind, p.key, p.text), p)
    return tuple(seen.values())


@dataclass(frozen=True)
class CheckResult:
    """A verdict with its evidence.

    Parameters
    ----------
    verdict : Verdict
        The outcome.
    claim : str
        What was checked, in words.
    source : str
        Citation, e.g. ``"[LSAKKMS21, Thm 3]"``.
    method : str
        ``"sympy"``, ``"exact"``, ``"hypothesis"``, ``"numeric"``, or a combination such as
        ``"sympy+numeric"``.
    residual : Any
        The expression whose sign or zero-ness decided the check (sympy expression or None).
    assumptions : tuple of str
        Hypotheses of the statement (part of what is proved, not taken on trust).
    counterexample : Mapping or None
        Parameter values at which the claim fails; present exactly when the verdict is DISPROVED.
    cases : int
        Cases tried: symbolic cases plus numerical points or hypothesis examples.
    details : str
        Every step with its outcome, for the record.
    premises : tuple of Premise
        What the verdict takes on trust: cited theorems and assumed steps. A PROVED verdict reads
        "PROVED given <premises>".
    reason : str
        Why the verdict is UNDECIDED (e.g. a timeout, a step sympy could not decide).
    evidence : Mapping or None
        Search statistics of a check that could only refute (pairs searched, the largest ratio seen).
    established : tuple of EstablishedFact
        The :class:`~dpaudit.verify.Fact` s the proof established, with exactly what was proved
        (:meth:`~dpaudit.verify.Proof.establish`, or :meth:`~dpaudit.verify.Proof.depends` with ``establishes=``).
    domain : tuple of str
        Restrictions of the domain the proof steps were decided on (a case analysis's ``domain=``, a step's
        ``hypotheses=``): printed beside the verdict and in the claim, since the statement holds only there.
    certificate : Certificate or None
        Set by the producers that decide through the kernel (see :class:`Certificate`); never by hand.
    vacuity : str
        PROVED only: ``""`` when the hypotheses the proof rests on (its domain, ``where=``) are shown to have a
        common solution (or there are none); ``"vacuous: the hypotheses ... have no common solution"`` when the
        kernel shows they have none (the statement holds and says nothing); ``"hypotheses not shown satisfiable:
        ..."`` when that is undecided. Printed right after the claim, and beside the verdict.
    statement : str
        The statement of the :class:`~dpaudit.verify.LemmaCheck` that produced the result, as its author wrote it:
        a label, not checked (``claim`` is what the kernel decided).
    """

    verdict: Verdict
    claim: str
    source: str = ""
    method: str = "sympy"
    residual: Any = None
    assumptions: tuple[str, ...] = ()
    counterexample: Mapping[str, Any] | None = None
    cases: int = 0
    details: str = field(default="", compare=False)
    premises: tuple[Premise, ...] = ()
    reason: str = field(default="", compare=False)
    evidence: Mapping[str, Any] | None = field(default=None, compare=False)
    established: tuple[Any, ...] = field(default=(), compare=False)
    certificate: Certificate | None = field(default=None, compare=False, repr=False)
    domain: tuple[str, ...] = field(default=(), compare=False)
    vacuity: str = field(default="", compare=False)
    statement: str = field(default="", compare=False)

    @property
    def vacuous(self) -> bool:
        """A PROVED whose hypotheses have no common solution: it holds and says nothing."""
        return self.vacuity.startswith("vacuous")

    @property
    def proved(self) -> bool:
        """True when the verdict is PROVED."""
        return self.verdict is Verdict.PROVED

    @property
    def disproved(self) -> bool:
        """True when the verdict is DISPROVED."""
        return self.verdict is Verdict.DISPROVED

    @property
    def undecided(self) -> bool:
        """True when the verdict is UNDECIDED."""
        return self.verdict is Verdict.UNDECIDED

    def premises_text(self, kind: str | None = None) -> str:
        """The premises' short names joined by ``"; "`` (only those of ``kind`` if given)."""
        return "; ".join(p.key for p in self.premises if kind is None or p.kind == kind)

    def verdict_text(self) -> str:
        """``"PROVED given [DR14] Thm A.1"``, ``"PROVED (vacuous)"``, ``"DISPROVED"``, or ``"UNDECIDED (reason)"``."""
        text = self.verdict.name
        if self.verdict is Verdict.PROVED and self.vacuity:
            text += f" ({self.vacuity.split(':')[0]})"
        if self.verdict is Verdict.PROVED and self.premises:
            text += " given " + self.premises_text()
        if self.verdict is Verdict.UNDECIDED and self.reason:
            text += f" ({self.reason})"
        return text

    def line(self) -> str:
        """One-line rendering: verdict, the claim decided (with its vacuity) and the check's statement as a label.

        Then the citation, the premises (beside a PROVED, and beside a DISPROVED whose refutation rests on any: what
        was taken on trust is printed whatever it led to), the counterexample or why undecided. A PROVED or DISPROVED
        that is not :func:`certified` (built by hand, or edited after the kernel issued it) says so at the end.
        """
        text = f"{self.verdict.name:<10} {self.claim}"
        if self.verdict is Verdict.PROVED and self.vacuity:
            text += f" ({self.vacuity})"
        if self.statement and self.statement != self.claim:
            text += f"  [statement (label, not checked): {self.statement}]"
        if self.source:
            text += f"  {self.source}"
        if self.verdict in (Verdict.PROVED, Verdict.DISPROVED) and self.premises:
            text += f"  [given {self.premises_text()}]"
        if self.domain:
            text += f"  [on the domain: {'; '.join(self.domain)}]"
        if self.assumptions:  # what the statement assumes, whatever the verdict (a counterexample satisfies them)
            text += f"  [hypotheses: {'; '.join(self.assumptions)}]"
        if self.counterexample:
            text += f"  [counterexample: {counterexample_text(self.counterexample)}]"
        if self.verdict is Verdict.UNDECIDED and self.reason:
            text += f"  [{self.reason}]"
        if self.verdict is not Verdict.UNDECIDED and not certified(self):
            text += "  [not certified: this verdict was not issued by the kernel, or was edited after it was]"
        return text

    def __str__(self) -> str:
        return self.line()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly record of the result.

        The counterexample is kept as the producer exposed it: exact coordinates (rationals as strings such as
        ``"1/3"``, closed forms, or the floats a callable was evaluated at, which are exact numbers), floats
        of derived quantities only under ``"approx"``.
        """
        return {
            "verdict": self.verdict.value,
            "claim": self.claim,
            "vacuity": self.vacuity,
            "statement": self.statement,
            "source": self.source,
            "method": self.method,
            "residual": None if self.residual is None else str(self.residual),
            "assumptions": list(self.assumptions),
            "domain": list(self.domain),
            "premises": [{"kind": p.kind, "key": p.key, "text": p.text} for p in self.premises],
            "counterexample": None if self.counterexample is None else _json_value(self.counterexample),
            "cases": self.cases,
            "reason": self.reason,
            "details": self.details,
            "certified": certified(self),
        }

    def to_json(self, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text (a float is written in its shortest round-trip form: no rounding)."""
        return json.dumps(self.to_dict(), indent=indent)


def counterexample_text(counterexample: Mapping[str, Any]) -> str:
    """The exact point first, the floats under ``"approx"`` only after it, labelled.

    For example ``p=100000000000000000001/100000000000000000000 (approx. p=1.0, lhs=1.0, rhs=1)``.

    A float is printed with ``repr`` (its shortest round-trip form, so the exact binary value it stands for),
    never rounded for display.
    """
    exact = ", ".join(f"{k}={_text(v)}" for k, v in counterexample.items() if k != APPROX)
    approx = counterexample.get(APPROX)
    if isinstance(approx, Mapping) and approx:
        exact += " (approx. " + ", ".join(f"{k}={_text(v)}" for k, v in approx.items()) + ")"
    return exact


#: Key of the floats that accompany an exact counterexample, for display only.
APPROX = "approx"


def _json_value(value: Any) -> Any:
    """``value`` with mappings, sequences and numpy values made JSON-friendly.

    Exact values (sympy numbers, Fractions) become their exact text, never a float.
    """
    if isinstance(value, Mapping):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if hasattr(value, "tolist"):  # numpy arrays and scalars: the floats they hold, exactly
        return _json_value(value.tolist())
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def _text(value: Any) -> str:
    return repr(value) if isinstance(value, float) else str(value)
