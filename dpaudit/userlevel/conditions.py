"""Stated preconditions and privacy requirements, evaluated for one configuration (shared by the papers).

A :class:`Condition` records a printed condition (``value relation bound``), where it is stated, and
whether it holds; the papers' parameter records carry a tuple of them so that a user can see which
of a theorem's hypotheses a configuration meets (``report()``), and presets can refuse the ones their
privacy proof needs.
"""

from __future__ import annotations

from dataclasses import dataclass

from dpaudit.errors import InvalidArgument

__all__ = ["Condition", "evaluate_condition"]

#: Relative slack of a comparison: both sides are computed in floating point.
RELATIVE_SLACK = 1e-12


@dataclass(frozen=True)
class Condition:
    """One stated precondition or privacy requirement, evaluated for a configuration.

    ``enforced`` says whether the preset refuses configurations that violate it.
    """

    name: str
    citation: str
    value: float
    relation: str
    bound: float
    holds: bool
    enforced: bool = False

    def __str__(self) -> str:
        mark = "ok" if self.holds else "VIOLATED"
        return f"[{mark}] {self.name}: {self.value:.6g} {self.relation} {self.bound:.6g}  ({self.citation})"


def evaluate_condition(name: str, citation: str, value: float, relation: str, bound: float,
                       enforced: bool = False) -> Condition:
    """Evaluate ``value relation bound`` (``relation`` is ``"<="`` or ``">="``) with relative slack.

    The slack is one part in 10^12 of the larger side, never an absolute amount, so conditions on
    tiny quantities (``delta <= 1/n^2``) are decided at their own scale.

    Examples
    --------
    >>> evaluate_condition("delta <= 1/n^2", "LSA+21 Thm 4", 1e-13, "<=", 1e-14).holds
    False
    >>> evaluate_condition("B >= 4", "Note000 A13", 4.0, ">=", 4.0).holds
    True
    """
    if relation not in ("<=", ">="):
        raise InvalidArgument(f"`evaluate_condition`: `relation` must be '<=' or '>='; got relation={relation!r}.")
    tol = RELATIVE_SLACK * max(abs(value), abs(bound))
    holds = value <= bound + tol if relation == "<=" else value >= bound - tol
    return Condition(name, citation, float(value), relation, float(bound), bool(holds), enforced)
