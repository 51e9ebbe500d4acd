"""One record for "audit this mechanism on this pair against this claim", shared by every catalogue.

The built-in catalogue (:mod:`dpaudit.catalogue`), Levy et al.'s cases
(:func:`dpaudit.userlevel.levy2021.audit_cases.levy2021_audit_cases`) and Ghazi et al.'s
(:func:`dpaudit.userlevel.ghazi2025.audit_cases.ghazi2025_audit_cases`) all produce :class:`AuditCase`
records. ``broken``, ``bug`` and ``note`` are metadata for readers and tests: the auditor only ever
sees the mechanism's outputs on ``d0`` and ``d1``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dpaudit._validation import argument_error
from dpaudit.auditor.options import (
    KEYWORDS,
    AdaptiveTrials,
    AttackOptions,
    ExecutionOptions,
    resolve_options,
)
from dpaudit.auditor.result import AuditResult
from dpaudit.auditor.runner import audit

__all__ = ["AuditCase"]


@dataclass(frozen=True, eq=False)
class AuditCase:
    """A mechanism, a neighbouring pair, the claim to audit against, and the trial count.

    Parameters
    ----------
    name : str
        What is audited, for reports.
    mechanism : Mechanism
        The mechanism (or callable) under audit.
    d0, d1 : array_like
        The neighbouring datasets that expose the mechanism (or test a correct one hard).
    epsilon, delta : float or None
        The claim audited against; ``None`` uses the mechanism's ``claimed_guarantee()``. A
        component of a larger algorithm is audited against its own share of the budget.
    trials : int, "auto" or AdaptiveTrials
        Trials per dataset (``"auto"`` or an :class:`AdaptiveTrials`: an adaptive audit,
        :mod:`dpaudit.auditor.adaptive`).
    broken : bool
        Whether the mechanism is known to violate the claim (what a sound, powerful auditor reports).
    bug : str or None
        A short tag for the flaw (e.g. a paper note's bug number).
    note : str
        Why the pair exposes the mechanism, or what is correct about it.
    group : str
        Where the case comes from (for grouped reports).
    options : mapping
        Further :func:`audit` arguments the case is audited with: option objects
        (``{"attack": AttackOptions(float_bits=True)}``) or their fields (``{"float_bits": True}``);
        arguments given to :meth:`audit` take precedence (a field over the same field, an object
        over its whole group).
    """

    name: str
    mechanism: Any
    d0: Any
    d1: Any
    epsilon: float | None
    delta: float | None
    trials: int | str | AdaptiveTrials
    broken: bool
    bug: str | None = None
    note: str = ""
    group: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def attack_options(self) -> AttackOptions:
        """The case's :class:`AttackOptions` (its ``options``, with ``audit()``'s defaults for the rest)."""
        return AttackOptions(**_grouped(self.options).get(AttackOptions, {}))

    @property
    def execution_options(self) -> ExecutionOptions:
        """The case's :class:`ExecutionOptions` (its ``options``, with ``audit()``'s defaults for the rest)."""
        return ExecutionOptions(**_grouped(self.options).get(ExecutionOptions, {}))

    def audit(self, *, seed: Any, scale: float = 1.0, **kwargs: Any) -> AuditResult:
        """Audit the case.

        ``scale`` multiplies its trial count, ``trials=`` replaces it; other arguments go to
        :func:`audit`, over the case's ``options``.
        """
        case, given = _grouped(self.options), _grouped(kwargs)
        merged = {key: {**case.get(key, {}), **fields} if key not in _replaced(kwargs) else dict(fields)
                  for key, fields in {**case, **given}.items()}
        common = merged.pop(None, {})
        common.setdefault("epsilon", self.epsilon)
        common.setdefault("delta", self.delta)
        if "trials" not in common:
            common["trials"] = self.trials if isinstance(self.trials, str | AdaptiveTrials) else max(100, round(self.trials * scale))
        schedule = merged.pop(AdaptiveTrials, {})
        trials, attack, execution = resolve_options(
            "AuditCase.audit", common.pop("trials"), AttackOptions(**merged.pop(AttackOptions, {})),
            ExecutionOptions(**merged.pop(ExecutionOptions, {})), schedule)
        return audit(self.mechanism, self.d0, self.d1, trials=trials, seed=seed, attack=attack, execution=execution,
                     **common)


def _grouped(options: Mapping[str, Any]) -> dict[Any, dict[str, Any]]:
    """``options`` by the object that holds them (``None``: the common keywords); objects become fields."""
    owner = {name: cls for cls, names in KEYWORDS.items() for name in names}
    out: dict[Any, dict[str, Any]] = {}
    for key, value in options.items():
        if key in ("attack", "execution") and value is not None:
            wanted = AttackOptions if key == "attack" else ExecutionOptions
            if not isinstance(value, wanted):
                raise argument_error("AuditCase.audit", key, f"an {wanted.__name__} (or None)", value)
            out.setdefault(wanted, {}).update(_fields(value))
        elif key == "trials" and isinstance(value, AdaptiveTrials):
            out.setdefault(None, {})["trials"] = "auto"
            out.setdefault(AdaptiveTrials, {}).update(_fields(value))
        elif key in owner:
            out.setdefault(owner[key], {})[key] = value
        else:
            out.setdefault(None, {})[key] = value
    return out


def _fields(value: Any) -> dict[str, Any]:
    return {name: getattr(value, name) for name in KEYWORDS.get(type(value), ())}


def _replaced(options: Mapping[str, Any]) -> set[Any]:
    """The groups ``options`` gives as whole objects (they replace the case's group)."""
    out: set[Any] = {type(options[key]) for key in ("attack", "execution") if options.get(key) is not None}
    if isinstance(options.get("trials"), AdaptiveTrials):
        out.add(AdaptiveTrials)
    return out
