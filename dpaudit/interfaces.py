"""Protocols at the plug points (house style, convention 4).

A *mechanism* is anything with a vectorised ``sample(data, size, *, rng)`` (batch on axis 0) and a
``claimed_guarantee()``. The auditor also accepts plain callables; see :func:`dpaudit.audit`.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from dpaudit.guarantees import Guarantee

__all__ = ["Mechanism"]


@runtime_checkable
class Mechanism(Protocol):
    """A randomised algorithm with a stated privacy claim."""

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[Any]:
        """Return ``size`` independent outputs on ``data``, stacked on axis 0."""
        ...

    def claimed_guarantee(self) -> Guarantee:
        """The privacy guarantee the mechanism claims, with its neighbour relation."""
        ...
