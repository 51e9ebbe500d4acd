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
    trials : int or "auto"
        Trials per dataset (``"auto"``: an adaptive audit, :mod:`dpaudit.auditor.adaptive`).
    broken : bool
        Whether the mechanism is known to violate the claim (what a sound, powerful auditor reports).
    bug : str or None
        A short tag for the flaw (e.g. a paper note's bug number).
    note : str
        Why the pair exposes the mechanism, or what is correct about it.
    group : str
        Where the case comes from (for grouped reports).
    options : mapping
        Further :func:`audit` arguments the case is audited with (for example
        ``float_bits=True``); explicit keyword arguments to :meth:`audit` take precedence.
    """

    name: str
    mechanism: Any
    d0: Any
    d1: Any
    epsilon: float | None
    delta: float | None
    trials: int | str
    broken: bool
    bug: str | None = None
    note: str = ""
    group: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)

    def audit(self, *, seed: Any, scale: float = 1.0, **kwargs: Any) -> AuditResult:
        """Audit the case.

        ``scale`` multiplies its trial count, ``trials=`` replaces it; other arguments go to
        :func:`audit`.
        """
        kwargs = {**self.options, **kwargs}
        kwargs.setdefault("epsilon", self.epsilon)
        kwargs.setdefault("delta", self.delta)
        if "trials" in kwargs:
            trials = kwargs.pop("trials")
        else:
            trials = self.trials if isinstance(self.trials, str) else max(100, round(self.trials * scale))
        return audit(self.mechanism, self.d0, self.d1, trials=trials, seed=seed, **kwargs)
