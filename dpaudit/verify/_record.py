"""The step record shared by the proof steps (:mod:`dpaudit.verify.proof`) and the cross-checks.

The cross-checks are in :mod:`dpaudit.verify.crosscheck`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from dpaudit.errors import InvalidArgument
from dpaudit.verify.decide import plain
from dpaudit.verify.verdict import APPROX, Premise, Verdict

__all__ = ["STEP_KINDS", "Step", "rng_for"]

#: ``proof``: a sub-claim that, with the others, implies the statement (decided symbolically or
#: exactly); ``cross``: a check on finite instances that can only refute; ``refute``: a
#: counterexample to the statement, verified exactly; ``support``: a proof step of an auxiliary fact the
#: check uses (recorded under :meth:`~dpaudit.verify.Proof.supporting`), not a sub-claim of the statement.
STEP_KINDS = ("proof", "cross", "refute", "support")


def rng_for(key: str) -> np.random.Generator:
    """A Generator seeded from ``key`` (sha256), so a check's random points are the same on every run.

    Examples
    --------
    >>> float(rng_for("a").random()) == float(rng_for("a").random())
    True
    """
    digest = hashlib.sha256(key.encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


@dataclass(frozen=True)
class Step:
    """One recorded step of a :class:`~dpaudit.verify.Proof`.

    Parameters
    ----------
    kind : str
        One of :data:`STEP_KINDS`.
    method : str
        ``"sympy"``, ``"exact"``, ``"coverage"``, ``"lemmas"``, ``"numeric"``, ``"hypothesis"``...
    label : str
        What the step shows, with its citation.
    verdict : Verdict
        The step's own outcome (for a cross-check, DISPROVED means it found a violation).
    cases : int
        Symbolic cases, points or examples the step tried.
    note : str
        Extra information (e.g. the region where a case analysis failed).
    trivial : bool
        The step's residual was already 0 (or a non-negative literal) when the step received it:
        nothing was decided, so it does not count towards PROVED.
    claim : str
        What the step decided, as formulas (``x**2 + 1 >= 0 where x > 0``), not the author's label: the pieces of
        the certified claim of :meth:`~dpaudit.verify.Proof.result`.
    """

    kind: str
    method: str
    label: str
    verdict: Verdict
    cases: int
    note: str = ""
    trivial: bool = False
    claim: str = ""

    def describe(self) -> str:
        """``[method] label: outcome, n case(s) (note)``."""
        if self.kind in ("proof", "support"):
            mark = str(self.verdict) + (" (trivial)" if self.trivial else "")
        elif self.kind == "cross":
            mark = {Verdict.DISPROVED: "VIOLATED", Verdict.UNDECIDED: "violated in floating point (evidence only)"}.get(self.verdict, "ok")
        else:
            mark = "counterexample" if self.verdict is Verdict.DISPROVED else "not a counterexample"
        note = f" ({self.note})" if self.note else ""
        return f"[{self.method}] {self.label}: {mark}, {self.cases} case(s){note}"


def _assumption_text(s: sp.Symbol) -> str:
    """A symbol's declared domain in words (``x > 0``, ``n integer >= 1``, ``x real``): a hypothesis of every step."""
    signs = {"positive": "> 0", "negative": "< 0", "nonnegative": ">= 0", "nonpositive": "<= 0", "nonzero": "!= 0"}
    name = str(s) if isinstance(s, sp.Dummy) else s.name  # a Dummy prints as _x: apart from a symbol x
    default = f"{name} real" if s.is_real else f"{name} read as real (no assumption declared)"
    text = next((f"{name} {t}" for key, t in signs.items() if s.assumptions0.get(key) is True), default)
    return text + (" integer" if s.is_integer else "")


class _Record:
    """Bookkeeping of a proof: steps, residuals, premises, hypotheses and the first counterexample."""

    def __init__(self, key: str) -> None:
        if not isinstance(key, str) or not key:
            raise InvalidArgument(f"Proof key must be a non-empty string (use the check's name), got {key!r}")
        self.key = key
        self.rng: np.random.Generator = rng_for(key)
        self._steps: list[Step] = []
        self._hypotheses: list[str] = []
        self._premises: list[Premise] = []
        self._residuals: list[Any] = []
        self._counterexample: dict[str, Any] | None = None
        self._counterexample_claim = ""  # what the kernel decided false at that counterexample (the DISPROVED's claim)
        self._established: list[Any] = []  # EstablishedFact records
        self._support_depth = 0
        self._symbols: dict[str, str] = {}
        self._domain: list[str] = []
        self._domain_relations: list[Any] = []  # the same restrictions, for the vacuity check of a PROVED
        #: Exact counterexample points the kernel found on a Lipschitz check's pair residuals (re-checked by
        #: :func:`dpaudit.verify.refute.refute_lipschitz`).
        self.kernel_points: list[dict[str, Any]] = []

    def _note_domain(self, relations: Any) -> None:
        """Record restrictions of the domain a step was decided on (printed beside the verdict and in the claim)."""
        for r in relations:
            if r is True or r is sp.true:
                continue  # a hypothesis sympy already found true under the symbols' assumptions restricts nothing
            if str(r) not in self._domain:
                self._domain.append(str(r))
                self._domain_relations.append(r)

    @property
    def steps(self) -> tuple[Step, ...]:
        """The steps recorded so far."""
        return tuple(self._steps)

    @contextlib.contextmanager
    def supporting(self) -> Iterator[None]:
        """Record the proof steps made inside as ``support`` steps.

        Support steps are auxiliary facts (a closed form, a tail bound) that a refutation uses, not
        sub-claims of the statement.
        """
        self._support_depth += 1
        try:
            yield
        finally:
            self._support_depth -= 1

    def _add(self, step: Step, residual: Any = None) -> Verdict:
        if self._support_depth and step.kind == "proof":
            step = dataclasses.replace(step, kind="support")
        self._steps.append(step)
        self._note_symbols(residual)
        if residual is not None:
            self._residuals.append(residual)
        return step.verdict

    def _note_symbols(self, residual: Any) -> None:
        """Record the declared domain of the symbols a step decides over (printed with the verdict)."""
        for expr in residual if isinstance(residual, tuple) else (residual,):
            if isinstance(expr, sp.Basic) and expr.has(sp.Float):  # decided at the floats' exact values: say so
                notes = [f"the float {f} is read as its exact value {sp.Rational(f)}" for f in expr.atoms(sp.Float)]
                self._hypotheses.extend(n for n in notes if n not in self._hypotheses)
            for s in getattr(expr, "free_symbols", ()):
                if not isinstance(s, sp.Dummy):  # a region's slack variables are its parametrisation, not hypotheses
                    text = _assumption_text(s)  # keyed by name and domain: Symbol("x", positive=True) beside a real x
                    self._symbols.setdefault(f"{s.name}\x00{text}", text)

    def _record_counterexample(self, label: str, values: Mapping[str, Any] | Callable[[], Mapping[str, Any]],
                               claim: str) -> None:
        """Keep the first counterexample, with ``claim``: the relation the kernel decided false there."""
        if not claim:
            raise InvalidArgument(f"{self.key}: a counterexample ({label}) needs the relation the kernel decided false there")
        if self._counterexample is None:
            shown = values() if callable(values) else values
            self._counterexample = {"where": label, **{k: (v if k == APPROX else plain(v)) for k, v in dict(shown).items()}}
            self._counterexample_claim = claim


def has_float(values: Any) -> bool:
    """Does a counterexample record hold a float (a value already rounded, so no exact witness)?"""
    if isinstance(values, Mapping):
        return any(has_float(v) for v in values.values())
    if isinstance(values, (list, tuple, np.ndarray)):
        return any(has_float(v) for v in np.asarray(values, dtype=object).ravel())
    if isinstance(values, sp.Basic):
        return bool(values.has(sp.Float))
    return isinstance(values, (float, np.floating))
