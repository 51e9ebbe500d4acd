"""Theorems and bounds as frozen data: expression, settings, conditions, citation.

A :class:`Bound` is one stated quantity of one result (an excess-risk rate, a gradient count, a
noise scale, a privacy parameter), with the parameter settings the result assumes, its conditions,
whether it is exact or asymptotic, and where it is stated. A :class:`Theorem` groups the bounds of
one numbered result; a :class:`Paper` groups the theorems of one paper.

The objects are plain data (convention 5 of ``docs/conventions.md``): checks in the paper modules read them and
never mutate them. To test that a check can fail, build a mutated copy with
:meth:`Bound.with_expression` and pass it to the check.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import sympy as sp

from dpaudit.errors import ArgumentTypeError, InvalidArgument, UnknownName

__all__ = [
    "Bound",
    "Citation",
    "Condition",
    "Kind",
    "Paper",
    "Quantity",
    "Theorem",
]


@dataclass(frozen=True)
class Citation:
    """Where a formula is stated.

    Parameters
    ----------
    paper : str
        Bibliography key, e.g. ``"LSAKKMS21"`` (Levy et al. 2021).
    location : str
        Theorem, lemma, algorithm or section, e.g. ``"Thm 4"`` or ``"Alg 3, line 2"``.
    equation : str
        Optional equation number, e.g. ``"eq. (6)"``.
    """

    paper: str
    location: str
    equation: str = ""

    def __post_init__(self) -> None:
        if not self.paper or not self.location:
            raise InvalidArgument("a Citation needs both a paper key and a location")

    def __str__(self) -> str:
        parts = [self.paper, self.location] + ([self.equation] if self.equation else [])
        return "[" + ", ".join(parts) + "]"


class Quantity(enum.Enum):
    """Which quantity a bound is about."""

    EXCESS_RISK = "excess population risk"
    EMPIRICAL_RISK = "excess empirical risk"
    MSE = "mean squared error"
    SQUARED_DISTANCE = "squared distance to the minimiser"
    GRADIENT_MAPPING = "squared gradient-mapping norm"
    GRADIENT_COUNT = "gradient evaluations"
    RUNTIME = "running time"
    PRIVACY = "privacy parameter"
    NOISE_SCALE = "noise scale"
    PARAMETER = "parameter setting"
    USERS_REQUIRED = "users required"
    PROBABILITY = "probability"

    def __str__(self) -> str:
        return self.value


class Kind(enum.Enum):
    """Exact (explicit constants) or asymptotic, and in which direction."""

    EXACT_EQUAL = "="
    EXACT_UPPER = "<="
    EXACT_LOWER = ">="
    UPPER_O = "O"
    UPPER_O_TILDE = "Õ"
    LOWER_OMEGA = "Ω"
    LOWER_OMEGA_TILDE = "Ω̃"

    @property
    def is_exact(self) -> bool:
        """True for the kinds with explicit constants (``=``, ``<=``, ``>=``)."""
        return self in (Kind.EXACT_EQUAL, Kind.EXACT_UPPER, Kind.EXACT_LOWER)

    @property
    def is_lower(self) -> bool:
        """True for lower bounds (``>=``, Omega, Omega-tilde)."""
        return self in (Kind.EXACT_LOWER, Kind.LOWER_OMEGA, Kind.LOWER_OMEGA_TILDE)

    @property
    def ignores_logs(self) -> bool:
        """Whether the statement hides logarithmic factors (a tilde)."""
        return self in (Kind.UPPER_O_TILDE, Kind.LOWER_OMEGA_TILDE)

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Condition:
    """A hypothesis of a result.

    Parameters
    ----------
    text : str
        The condition in words (always present).
    relation : sympy relational or None
        A checkable form when the condition has explicit constants; ``None`` when it hides a
        constant (e.g. ``n >= Omega~(sqrt(d)/epsilon)``) and so cannot be evaluated.
    regime : sympy relational or None
        The condition's asymptotic shape, a relation between monomials up to constants and logs
        (e.g. ``n >= sqrt(d)/epsilon``); rate comparisons restrict the regime with it.
    """

    text: str
    relation: Any = None
    regime: Any = None

    @property
    def checkable(self) -> bool:
        """True when the condition has an explicit relation that can be evaluated."""
        return self.relation is not None

    def holds_at(self, values: Mapping[sp.Symbol, float]) -> bool | None:
        """Whether the condition holds at ``values``; ``None`` if it cannot be evaluated there."""
        if self.relation is None:
            return None
        free = self.relation.free_symbols
        if not free <= set(values):
            return None
        answer = self.relation.subs({s: sp.Float(values[s], 30) for s in free})
        if answer is sp.true or answer is True:
            return True
        if answer is sp.false or answer is False:
            return False
        return None


def _freeze_settings(settings: Mapping[sp.Symbol, Any] | None) -> Mapping[sp.Symbol, sp.Expr]:
    out = {}
    for key, value in (settings or {}).items():
        if not isinstance(key, sp.Symbol):
            raise ArgumentTypeError(f"setting keys must be sympy Symbols; got {key!r}")
        out[key] = sp.sympify(value)
    return MappingProxyType(out)


@dataclass(frozen=True)
class Bound:
    """One stated quantity of one result.

    Parameters
    ----------
    name : str
        Stable identifier, ``"<paper>.<result>.<quantity>"``, e.g. ``"levy2021.thm4.risk"``.
    quantity : Quantity
        What is bounded.
    expression : sympy.Expr
        The bound, in the canonical symbols of :mod:`dpaudit.bounds.symbols`.
    kind : Kind
        Exact or asymptotic, upper or lower.
    citation : Citation
        Where it is stated.
    settings : mapping of Symbol to sympy expression
        Parameter settings the result assumes (step size, batch size, noise scale, ...).
    conditions : tuple of Condition
        Hypotheses of the result.
    hidden : str
        What an O(.) hides, in words (e.g. ``"poly(log(1/delta), log(nm), 1/epsilon)"``).
    hidden_variables : frozenset of Symbol
        Rate variables whose dependence the statement hides (e.g. epsilon in an O~_epsilon);
        rate comparisons treat them as constants.
    notes : str
        Departures from the paper (errata, readings of typesetting, concrete constants) and why.
    """

    name: str
    quantity: Quantity
    expression: sp.Expr
    kind: Kind
    citation: Citation
    settings: Mapping[sp.Symbol, sp.Expr] = field(default_factory=dict, hash=False)
    conditions: tuple[Condition, ...] = ()
    hidden: str = ""
    hidden_variables: frozenset[sp.Symbol] = frozenset()
    notes: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "expression", sp.sympify(self.expression))
        object.__setattr__(self, "settings", _freeze_settings(self.settings))
        object.__setattr__(self, "conditions", tuple(self.conditions))
        object.__setattr__(self, "hidden_variables", frozenset(self.hidden_variables))

    @property
    def free_symbols(self) -> frozenset[sp.Symbol]:
        """The symbols the bound's expression depends on."""
        return frozenset(self.expression.free_symbols)

    def with_settings(self, *, max_rounds: int = 10) -> sp.Expr:
        """The expression with the parameter settings substituted (repeatedly, until stable)."""
        expr = self.expression
        for _ in range(max_rounds):
            new = expr.subs(dict(self.settings))
            if new == expr:
                return new
            expr = new
        return expr

    def with_expression(self, expression: Any, *, note: str = "") -> Bound:
        """A copy with another expression (used to build mutated bounds in tests)."""
        notes = (self.notes + " " + note).strip() if note else self.notes
        return replace(self, expression=sp.sympify(expression), notes=notes)

    def __str__(self) -> str:
        return f"{self.name}: {self.quantity} {self.kind} {self.expression}  {self.citation}"


@dataclass(frozen=True)
class Theorem:
    """The bounds of one numbered result of a paper.

    Parameters
    ----------
    key : str
        Identifier, e.g. ``"levy2021.thm4"``.
    title : str
        Short description, e.g. ``"Phased ERM for SCO"``.
    citation : Citation
        Where the result is stated.
    bounds : tuple of Bound
        Its stated quantities.
    setting : str
        Problem setting in words (geometry, assumptions), e.g. ``"convex, L-Lipschitz, smooth, l2"``.
    """

    key: str
    title: str
    citation: Citation
    bounds: tuple[Bound, ...]
    setting: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "bounds", tuple(self.bounds))

    def bound(self, quantity: Quantity) -> Bound:
        """The bound of this theorem on ``quantity``.

        Raises
        ------
        KeyError
            If the theorem states no bound on that quantity, or more than one.
        """
        found = [b for b in self.bounds if b.quantity is quantity]
        if len(found) != 1:
            raise UnknownName(f"{self.key} states {len(found)} bounds on {quantity.name}")
        return found[0]


@dataclass(frozen=True)
class Paper:
    """A paper and its encoded results.

    Parameters
    ----------
    key : str
        Bibliography key, e.g. ``"LSAKKMS21"``.
    short : str
        Short name used in tables, e.g. ``"Levy et al. 2021"``.
    title : str
        Full title.
    source : str
        The text the encoding was read from (the paper and its version).
    theorems : tuple of Theorem
        Encoded results.
    """

    key: str
    short: str
    title: str
    source: str
    theorems: tuple[Theorem, ...]

    def bounds(self) -> tuple[Bound, ...]:
        """Every bound of every encoded result of the paper, in order."""
        return tuple(b for t in self.theorems for b in t.bounds)

    def theorem(self, key: str) -> Theorem:
        """The encoded result with this key (e.g. ``"levy2021.thm4"``).

        Raises
        ------
        UnknownName
            When the paper has no result with that key.
        """
        for t in self.theorems:
            if t.key == key:
                return t
        raise UnknownName(f"{self.short} has no encoded result {key!r}")
