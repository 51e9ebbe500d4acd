"""dpaudit: audit and verify differential-privacy implementations.

Three parts, side by side:

* :mod:`dpaudit.mechanisms` and :mod:`dpaudit.userlevel`: vectorised mechanisms with their claims;
* :mod:`dpaudit.bounds` and ``proofs/``: symbolic checks of the papers' bounds and lemmas;
* :func:`dpaudit.audit`: an empirical confidence lower bound on epsilon; :func:`dpaudit.audit_scores`
  the same bound from your own attack's scores; :mod:`dpaudit.one_run` one-run audits (canaries).
"""

from dpaudit import one_run
from dpaudit._version import __version__
from dpaudit.auditor import AuditCase, AuditResult, ScoresAuditResult, audit, audit_scores
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
from dpaudit.guarantees import GDP, ApproxDP, Guarantee, PureDP
from dpaudit.interfaces import Mechanism

__all__ = [
    "GDP",
    "ApproxDP",
    "AuditCase",
    "AuditResult",
    "CheckpointError",
    "DPAuditError",
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
