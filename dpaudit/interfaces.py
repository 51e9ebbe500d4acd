"""Protocols at the plug points.

A *mechanism* is anything with a vectorised ``sample(data, size, *, rng)`` (batch on axis 0) and a
``claimed_guarantee()``. The auditor also accepts plain callables; see :func:`dpaudit.audit`.

A mechanism that *declares its structure* also has ``privacy_profile(d0, d1)``, returning the
certified privacy profile of its two output laws on that pair (:mod:`dpaudit.exact`); the audit
then reports a certified upper bound beside its lower bound. A plain callable has none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from dpaudit.guarantees import Guarantee

if TYPE_CHECKING:
    from dpaudit.exact.profile import PrivacyProfile

__all__ = ["Mechanism", "StructuredMechanism"]


@runtime_checkable
class Mechanism(Protocol):
    """A randomised algorithm with a stated privacy claim."""

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[Any]:
        """Return ``size`` independent outputs on ``data``, stacked on axis 0."""
        ...

    def claimed_guarantee(self) -> Guarantee:
        """The privacy guarantee the mechanism claims, with its neighbour relation."""
        ...


@runtime_checkable
class StructuredMechanism(Mechanism, Protocol):
    """A mechanism that declares its structure: the exact (or certified) profile of any pair.

    ``privacy_profile(d0, d1)`` returns a :class:`dpaudit.exact.PrivacyProfile` of the mechanism's
    *true* output laws on ``d0`` and ``d1`` (for a deliberately broken mechanism, its real law,
    not its claim), or raises :class:`dpaudit.exact.ProfileUnavailable` saying why it cannot for
    this pair. Data outside the mechanism's domain raise :class:`dpaudit.InvalidArgument`, as
    ``sample`` does.
    """

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The privacy profile of the output laws on ``d0`` and ``d1``."""
        ...
