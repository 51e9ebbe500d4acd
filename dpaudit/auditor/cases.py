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

from dpaudit._validation import argument_error, check_positive
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
        arguments given to :meth:`audit` take precedence field by field (an object's fields that
        differ from the defaults, and keywords, over the same fields; the case's others stay).
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

        ``scale`` multiplies its fixed trial count; ``trials=`` replaces it (then ``scale`` must be 1, as it must
        for a case audited in stages). Other arguments go to :func:`audit`, over the case's ``options``, field
        by field: the fields an :class:`AttackOptions` or :class:`ExecutionOptions` sets (those that differ from
        the defaults) and the keywords override the case's same fields and keep its others (a bit-level case
        keeps ``float_bits=True`` under ``attack=AttackOptions(candidates=3)``); to set a field back to its
        default, pass it as a keyword. A schedule (``trials=AdaptiveTrials(...)``) replaces the case's.
        One field given twice, by an object and a keyword of the same mapping, is refused.
        """
        scale = check_positive("AuditCase.audit", "scale", scale)
        case, given = _grouped(self.options), _grouped(kwargs)
        if scale != 1.0 and ("trials" in given.get(None, {}) or isinstance(self.trials, str | AdaptiveTrials)):
            raise argument_error("AuditCase.audit", "scale", "1 when the trials are given or the case is audited in stages "
                                 "(it multiplies a fixed trial count)", scale)
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
    """``options`` by the object that holds them (``None``: the common keywords); objects become their set fields."""
    owner = {name: cls for cls, names in KEYWORDS.items() for name in names}
    out: dict[Any, dict[str, Any]] = {}
    from_objects: set[str] = set()
    for key, value in options.items():
        if key in ("attack", "execution") and value is not None:
            wanted = AttackOptions if key == "attack" else ExecutionOptions
            if not isinstance(value, wanted):
                raise argument_error("AuditCase.audit", key, f"an {wanted.__name__} (or None)", value)
            fields = _fields(value)
            from_objects.update(fields)
            out.setdefault(wanted, {}).update(fields)
        elif key == "trials" and isinstance(value, AdaptiveTrials):
            out.setdefault(None, {})["trials"] = "auto"
            out.setdefault(AdaptiveTrials, {}).update(_fields(value))
    for key, value in options.items():
        if (key in ("attack", "execution") and value is not None) or (key == "trials" and isinstance(value, AdaptiveTrials)):
            continue
        if key in owner:
            if key in from_objects:
                raise argument_error("AuditCase.audit", key, "given once (it is also set by an options object)", value)
            out.setdefault(owner[key], {})[key] = value
        else:
            out.setdefault(None, {})[key] = value
    return out


def _fields(value: Any) -> dict[str, Any]:
    """The fields of an options object that differ from its class's defaults (the ones it sets)."""
    default = type(value)()
    return {name: getattr(value, name) for name in KEYWORDS.get(type(value), ())
            if getattr(value, name) != getattr(default, name)}


def _replaced(options: Mapping[str, Any]) -> set[Any]:
    """The groups ``options`` gives whole: a schedule (``trials=AdaptiveTrials(...)``) replaces the case's."""
    return {AdaptiveTrials} if isinstance(options.get("trials"), AdaptiveTrials) else set()
