"""dpaudit: audit and verify differential-privacy implementations.

Three parts, side by side:

* :mod:`dpaudit.mechanisms` and :mod:`dpaudit.userlevel`: vectorised mechanisms with their claims;
* :mod:`dpaudit.bounds` and ``proofs/``: symbolic checks of the papers' bounds and lemmas;
* :func:`dpaudit.audit`: an empirical confidence lower bound on epsilon.
"""

from dpaudit.auditor import AuditCase, AuditResult, audit
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

__version__ = "0.1.0"

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
    "UnsoundApproximationWarning",
    "UnsoundMechanismWarning",
    "__version__",
    "audit",
]
