"""Exceptions and warnings raised by dpaudit.

The hierarchy is small on purpose (house style, convention 7):

* :class:`DPAuditError` is the root of every exception dpaudit raises itself.
* :class:`InvalidArgument` is a user mistake in an argument. It subclasses :class:`ValueError`
  so that ``except ValueError`` keeps working.
* :class:`MechanismError` wraps a failure of a user-supplied mechanism (it raised, returned NaN,
  changed its output shape between calls).
* :class:`NotNeighborsError` is raised when a pair of datasets that must be neighbours under a
  relation is not.
* :class:`UnsoundMechanismWarning` is emitted when a deliberately broken mechanism is constructed.
* :class:`UnsoundApproximationWarning` is emitted by modes that are not conservative.
* :class:`NothingToLearnWarning` is emitted when an audit compares a dataset with itself.
"""

from __future__ import annotations

__all__ = [
    "DPAuditError",
    "InvalidArgument",
    "MechanismError",
    "NotNeighborsError",
    "NothingToLearnWarning",
    "UnsoundApproximationWarning",
    "UnsoundMechanismWarning",
]


class DPAuditError(Exception):
    """Root of every exception raised by dpaudit itself."""


class InvalidArgument(DPAuditError, ValueError):
    """An argument is outside its allowed domain.

    The message always names the argument, the allowed range and the value given.
    """


class MechanismError(DPAuditError, RuntimeError):
    """A mechanism under audit misbehaved: it raised, returned NaN, or changed output shape."""


class NotNeighborsError(InvalidArgument):
    """Two datasets that must be neighbours under a relation are not."""


class UnsoundMechanismWarning(UserWarning):
    """A deliberately non-private mechanism was constructed (for demos and power tests)."""


class UnsoundApproximationWarning(UserWarning):
    """A computation uses a non-conservative approximation; its output is not a guarantee."""


class NothingToLearnWarning(UserWarning):
    """An audit compares two identical datasets, so no privacy loss can be observed."""
