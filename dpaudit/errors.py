"""Exceptions and warnings raised by dpaudit.

The hierarchy is small on purpose (convention 7 of ``docs/conventions.md``):

* :class:`DPAuditError` is the root of every exception dpaudit raises itself.
* :class:`InvalidArgument` is a user mistake in an argument. It subclasses :class:`ValueError`
  so that ``except ValueError`` keeps working. :class:`ArgumentTypeError` (an argument of the wrong
  type) and :class:`PathNotFound` (a path that does not exist) are kinds of it that also subclass
  :class:`TypeError` and :class:`FileNotFoundError`.
* :class:`UnknownName` is a lookup of a name (a check, a symbol, a fact) that is not registered; it
  subclasses :class:`KeyError`.
* :class:`CheckFailed` is a check dpaudit runs finding its subject wrong (a privacy assertion of
  :mod:`dpaudit.testing`, a cross-check of two computations); it subclasses :class:`AssertionError`,
  so that pytest reports it as a failed assertion.
* :class:`EnclosureError` is a certified or exact computation that cannot give an answer (an
  enclosure lost all precision, an integral does not converge); it subclasses
  :class:`ArithmeticError`.
* :class:`MechanismError` wraps a failure of a user-supplied mechanism (it raised, returned NaN,
  changed its output shape between calls).
* :class:`CheckpointError` is raised when an audit checkpoint cannot be used: it was written by a
  different audit (mechanism, seed, pair, claim, block size, trial count), or it is corrupt or
  truncated.
* :class:`AuditMemoryError` is raised when an audit runs out of memory drawing a block despite its
  memory estimate (an audit that cannot fit is refused up front with :class:`InvalidArgument`).
* :class:`NotNeighborsError` is raised when a pair of datasets that must be neighbours under a
  relation is not.
* :class:`UnsoundMechanismWarning` is emitted when a deliberately broken mechanism is constructed.
* :class:`UnsoundApproximationWarning` is emitted by modes that are not conservative.
* :class:`NothingToLearnWarning` is emitted when an audit compares a dataset with itself.
"""

from __future__ import annotations

__all__ = [
    "ArgumentTypeError",
    "AuditMemoryError",
    "CheckFailed",
    "CheckpointError",
    "DPAuditError",
    "EnclosureError",
    "InvalidArgument",
    "KernelError",
    "MechanismError",
    "NotNeighborsError",
    "NothingToLearnWarning",
    "PathNotFound",
    "UnknownName",
    "UnsoundApproximationWarning",
    "UnsoundMechanismWarning",
]


class DPAuditError(Exception):
    """Root of every exception raised by dpaudit itself."""


class InvalidArgument(DPAuditError, ValueError):
    """An argument is outside its allowed domain.

    The message always names the argument, the allowed range and the value given.
    """


class ArgumentTypeError(InvalidArgument, TypeError):
    """An argument has the wrong type; it subclasses :class:`TypeError` too."""


class PathNotFound(InvalidArgument, FileNotFoundError):
    """A path given as an argument does not exist; it subclasses :class:`FileNotFoundError` too."""


class UnknownName(DPAuditError, KeyError):
    """A name looked up (a check, a symbol, a fact, an encoded result) is not registered."""


class CheckFailed(DPAuditError, AssertionError):
    """A check found its subject wrong: a privacy assertion, or two computations that disagree."""


class KernelError(DPAuditError, AssertionError):
    """An internal contradiction of the verification kernel: a statement both proved and refuted by a re-checked counterexample."""


class EnclosureError(DPAuditError, ArithmeticError):
    """A certified or exact computation cannot give an answer (lost precision, no convergence)."""


class MechanismError(DPAuditError, RuntimeError):
    """A mechanism under audit misbehaved: it raised, returned NaN, or changed output shape.

    When the failure belongs to one block of trials (or a worker died while drawing it), the
    attributes name that block so it can be replayed: ``dataset`` (0 for ``d0``, 1 for ``d1``),
    ``block`` (its index), ``seed_entropy`` and ``block_size``; they are ``None`` otherwise.
    """

    dataset: int | None = None
    block: int | None = None
    seed_entropy: int | None = None
    block_size: int | None = None


class CheckpointError(DPAuditError, ValueError):
    """An audit checkpoint cannot be used: it belongs to another audit, or it is corrupt or truncated.

    Nothing from such a file is ever mixed into an audit. The message says which recorded fields
    differ, or what is damaged.
    """


class AuditMemoryError(DPAuditError, MemoryError):
    """An audit ran out of memory while drawing a block; the message names the block and its size.

    It subclasses :class:`MemoryError`, so that ``except MemoryError`` keeps working.
    """


class NotNeighborsError(InvalidArgument):
    """Two datasets that must be neighbours under a relation are not."""


class UnsoundMechanismWarning(UserWarning):
    """A deliberately non-private mechanism was constructed (for demos and power tests)."""


class UnsoundApproximationWarning(UserWarning):
    """A computation uses a non-conservative approximation; its output is not a guarantee."""


class NothingToLearnWarning(UserWarning):
    """An audit compares two identical datasets, so no privacy loss can be observed."""
