"""Shared machinery for mechanisms: the base class and small helpers.

A mechanism is a frozen dataclass of its parameters (convention 3 of ``docs/conventions.md``) with

* ``sample(data, size, *, rng)``: ``size`` independent outputs stacked on axis 0;
* ``claimed_guarantee()``: what it promises, bound to a neighbour relation;
* ``__call__(data, rng, size=None)``: numpy's convention, one output when ``size`` is None.

Sampling code never computes privacy parameters beyond reading cached calibrations, and bound
code never samples.
"""

from __future__ import annotations

import abc
import warnings
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_finite_array, check_int
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.guarantees import Guarantee

__all__ = ["MechanismBase", "UnsafeMechanism", "check_integer_valued", "check_size"]


def check_size(owner: str, size: Any) -> int:
    """Validate a trial count: an int >= 1."""
    return check_int(owner, "size", size, minimum=1)


#: Largest magnitude of an integer query: noise added to it in int64 arithmetic cannot wrap around
#: (a wrapped sum would tell neighbours apart), and every such float converts to int64 exactly.
MAX_INTEGER_QUERY = 2**62


def check_integer_valued(owner: str, name: str, data: Any) -> NDArray[np.int64]:
    """Return ``data`` as int64, refusing what discrete noise cannot take, before any conversion.

    Non-integral values are refused (their shifts break discrete noise), and so are values beyond
    ``+-2^62`` (:data:`MAX_INTEGER_QUERY`).
    """
    x = check_finite_array(owner, name, data, dtype=None)
    if x.dtype.kind == "f" and not np.all(x == np.round(x)):
        raise argument_error(owner, name, "integer-valued (discrete noise is private only on integer queries)", data)
    if x.size and not (np.all(x >= -MAX_INTEGER_QUERY) and np.all(x <= MAX_INTEGER_QUERY)):
        raise argument_error(owner, name, "integers in [-2^62, 2^62] (so that adding noise cannot overflow int64)", data)
    return x.astype(np.int64, copy=False)


class MechanismBase(abc.ABC):
    """Base of dpaudit mechanisms (subclasses are frozen dataclasses)."""

    #: Trials per random-stream block that :func:`dpaudit.audit` uses by default (``None``: chosen
    #: from the output size). Algorithms whose every trial is expensive set a small block, so that a
    #: long audit spreads over workers and a checkpoint records progress block by block.
    audit_block_size: ClassVar[int | None] = None

    @abc.abstractmethod
    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[Any]:
        """Return ``size`` independent outputs on ``data``, stacked on axis 0."""

    @abc.abstractmethod
    def claimed_guarantee(self) -> Guarantee:
        """The privacy guarantee the mechanism claims, with its neighbour relation."""

    def __call__(self, data: Any, rng: np.random.Generator, size: int | None = None) -> NDArray[Any]:
        """numpy convention: one output when ``size`` is None, else ``size`` outputs on axis 0."""
        if size is None:
            return self.sample(data, 1, rng=rng)[0]
        return self.sample(data, size, rng=rng)


class UnsafeMechanism(MechanismBase):
    """Mixin for deliberately broken mechanisms: construction emits :class:`UnsoundMechanismWarning`.

    Subclasses set ``flaw`` to a one-line description of what is wrong. They exist so that demos
    and power tests can show the auditor catching them; never use them to release data.
    """

    flaw: str = "this mechanism is deliberately not private"

    def __post_init__(self) -> None:
        warnings.warn(f"{type(self).__name__} is deliberately unsound: {self.flaw}", UnsoundMechanismWarning, stacklevel=3)
