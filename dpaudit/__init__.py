"""dpaudit: audit and verify differential-privacy implementations.

Three parts, side by side:

* :mod:`dpaudit.mechanisms` and :mod:`dpaudit.userlevel`: vectorised mechanisms with their claims;
* :mod:`dpaudit.bounds` and ``proofs/``: symbolic checks of the papers' bounds and lemmas;
* :func:`dpaudit.audit`: an empirical confidence lower bound on epsilon; :func:`dpaudit.audit_scores`
  the same bound from your own attack's scores; :mod:`dpaudit.one_run` one-run audits (canaries).
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

from dpaudit._version import __version__
from dpaudit.errors import (
    CheckpointError,
    DPAuditError,
    InvalidArgument,
    MechanismError,
    NothingToLearnWarning,
    NotNeighborsError,
    UnsoundApproximationWarning,
    UnsoundMechanismWarning,
)

if TYPE_CHECKING:
    from dpaudit import one_run
    from dpaudit.auditor import AuditCase, AuditResult, ScoresAuditResult, audit, audit_scores
    from dpaudit.auditor.options import AdaptiveTrials, AttackOptions, ExecutionOptions
    from dpaudit.guarantees import GDP, ApproxDP, Guarantee, PureDP
    from dpaudit.interfaces import Mechanism

# `import dpaudit` (and so `import dpaudit.<anything>`, the pytest plugin included) stays cheap: the
# names below, and the subpackages, are imported on first attribute access (PEP 562), so that numpy,
# scipy and sympy load only when something needs them.
_LAZY = {
    "AdaptiveTrials": "dpaudit.auditor.options",
    "AttackOptions": "dpaudit.auditor.options",
    "ExecutionOptions": "dpaudit.auditor.options",
    "AuditCase": "dpaudit.auditor",
    "AuditResult": "dpaudit.auditor",
    "ScoresAuditResult": "dpaudit.auditor",
    "audit": "dpaudit.auditor",
    "audit_scores": "dpaudit.auditor",
    "GDP": "dpaudit.guarantees",
    "ApproxDP": "dpaudit.guarantees",
    "Guarantee": "dpaudit.guarantees",
    "PureDP": "dpaudit.guarantees",
    "Mechanism": "dpaudit.interfaces",
}


def __getattr__(name: str) -> Any:
    """Import a public name or a subpackage (``dpaudit.one_run``, ...) on first use."""
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif not name.startswith("__") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})



__all__ = [
    "GDP",
    "AdaptiveTrials",
    "ApproxDP",
    "AttackOptions",
    "AuditCase",
    "AuditResult",
    "CheckpointError",
    "DPAuditError",
    "ExecutionOptions",
    "Guarantee",
    "InvalidArgument",
    "Mechanism",
    "MechanismError",
    "NotNeighborsError",
    "NothingToLearnWarning",
    "PureDP",
    "ScoresAuditResult",
    "UnsoundApproximationWarning",
    "UnsoundMechanismWarning",
    "__version__",
    "audit",
    "audit_scores",
    "one_run",
]
