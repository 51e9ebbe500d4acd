"""Three-valued verdicts for symbolic checks (house style, convention 11).

sympy answers ``True``, ``False`` or ``None`` (unknown); ``None`` is never turned into ``False``.
A :class:`CheckResult` carries the verdict together with its evidence: the residual expression
that was tested, the assumptions used, a counterexample when one was found, and how many random
points the numerical cross-check evaluated.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CheckResult", "Verdict", "combine_verdicts", "verdict_from_sympy"]


class Verdict(enum.Enum):
    """Outcome of a check: proved, disproved (with a counterexample), or undecided."""

    PROVED = "proved"
    DISPROVED = "disproved"
    UNDECIDED = "undecided"

    def __str__(self) -> str:
        return self.value


def verdict_from_sympy(answer: Any) -> Verdict:
    """Map sympy's three-valued answer (True / False / None or a relational) to a Verdict."""
    import sympy

    if answer is True or answer is sympy.true:
        return Verdict.PROVED
    if answer is False or answer is sympy.false:
        return Verdict.DISPROVED
    return Verdict.UNDECIDED


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
        ``"sympy"``, ``"hypothesis"``, ``"numeric"``, or a combination such as ``"sympy+numeric"``.
    residual : Any
        The expression whose sign or zero-ness decided the check (sympy expression or None).
    assumptions : tuple of str
        Assumptions used, in words or as sympy assumptions.
    counterexample : Mapping or None
        Parameter values at which the claim fails (required for DISPROVED when one is known).
    cases : int
        Cases tried: symbolic cases plus numerical points or hypothesis examples.
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

    @property
    def proved(self) -> bool:
        return self.verdict is Verdict.PROVED

    @property
    def disproved(self) -> bool:
        return self.verdict is Verdict.DISPROVED

    @property
    def undecided(self) -> bool:
        return self.verdict is Verdict.UNDECIDED

    def line(self) -> str:
        """One-line rendering: verdict, claim, citation, and the counterexample if any."""
        text = f"{self.verdict.name:<10} {self.claim}"
        if self.source:
            text += f"  {self.source}"
        if self.counterexample:
            shown = ", ".join(f"{k}={_short(v)}" for k, v in self.counterexample.items())
            text += f"  [counterexample: {shown}]"
        return text

    def __str__(self) -> str:
        return self.line()


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def combine_verdicts(*verdicts: Verdict) -> Verdict:
    """Conjunction of claims: DISPROVED if any part is, PROVED if all parts are, else UNDECIDED."""
    if any(v is Verdict.DISPROVED for v in verdicts):
        return Verdict.DISPROVED
    if verdicts and all(v is Verdict.PROVED for v in verdicts):
        return Verdict.PROVED
    return Verdict.UNDECIDED
