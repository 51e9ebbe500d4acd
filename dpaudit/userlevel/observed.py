"""What one run of a mechanism shows its caller: a release, a non-finite release, or an exception.

A mechanism that returns NaN or inf, or raises, on one dataset but a finite number on its neighbour
tells them apart in a single run, whatever epsilon it claims. The auditor refuses NaN outputs and
stops at an exception (:class:`~dpaudit.errors.MechanismError`), so such a leak would end an audit
instead of being measured. :class:`ObservedRelease` makes it measurable: it runs the mechanism and
releases what the caller observes, the finite part of the output plus an outcome code, so the auditor
can bound epsilon on it like on any other output.

The claim is the inner mechanism's: a mechanism that keeps its promise on every dataset its claim
covers releases finite values and never raises there, and then the outcome code is the constant 0.
Data outside the inner mechanism's declared domain, which it refuses with ``InvalidArgument``
before drawing anything, is refused here too: its claim does not cover such data.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_int
from dpaudit.errors import InvalidArgument
from dpaudit.guarantees import Guarantee
from dpaudit.mechanisms.base import MechanismBase, check_size

__all__ = ["FINITE", "NON_FINITE", "RAISED", "ObservedRelease"]

#: Outcome codes in the last column of :meth:`ObservedRelease.sample`.
FINITE, NON_FINITE, RAISED = 0.0, 1.0, 2.0


@dataclass(frozen=True)
class ObservedRelease(MechanismBase):
    """The inner mechanism's release as its caller sees it: ``(finite values..., outcome)`` per run.

    Parameters
    ----------
    inner : Mechanism
        The mechanism observed.
    width : int
        Number of numbers in one output of ``inner`` (its flattened size), so that a run that raises
        has the same shape as one that releases.

    Notes
    -----
    Each row holds the inner output flattened (non-finite entries replaced by 0) and, last, the
    outcome: :data:`FINITE` (0), :data:`NON_FINITE` (1: some entry was NaN or infinite) or
    :data:`RAISED` (2: the call raised; the row's values are 0). An exception ends the whole call,
    so every row of that call is :data:`RAISED`.

    Examples
    --------
    >>> import numpy as np
    >>> from dpaudit.mechanisms import LaplaceMechanism
    >>> ObservedRelease(LaplaceMechanism(1.0), width=1).sample(0.0, 3, rng=np.random.default_rng(0))[:, -1]
    array([0., 0., 0.])
    """

    inner: Any
    width: int

    def __post_init__(self) -> None:
        check_int(type(self).__name__, "width", self.width, minimum=1)

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` observed releases: the inner output's finite values (0 where not finite), then the outcome code.

        Data the inner mechanism refuses before drawing (its declared domain) is refused here too; any
        other failure is an outcome (``RAISED``) the caller observes.

        Returns
        -------
        ndarray of float
            Shape ``(size, width + 1)``.
        """
        size = check_size(f"{type(self).__name__}.sample", size)
        before = copy.deepcopy(rng.bit_generator.state)
        try:
            out = np.asarray(self.inner.sample(data, size, rng=rng), dtype=np.float64)
        except InvalidArgument:
            if rng.bit_generator.state == before:  # refused up front: data outside the declared domain
                raise
            rows = np.zeros((size, self.width + 1))
            rows[:, -1] = RAISED
            return rows
        except Exception:  # what the caller observes is that the run failed; the failure is the outcome
            rows = np.zeros((size, self.width + 1))
            rows[:, -1] = RAISED
            return rows
        flat = out.reshape(size, -1)
        if flat.shape[1] != self.width:
            raise argument_error(type(self).__name__, "width", f"the inner output's size {flat.shape[1]}", self.width)
        finite = np.isfinite(flat)
        rows = np.empty((size, flat.shape[1] + 1))
        rows[:, :-1] = np.where(finite, flat, 0.0)
        rows[:, -1] = np.where(finite.all(axis=1), FINITE, NON_FINITE)
        return rows

    def claimed_guarantee(self) -> Guarantee:
        """The inner mechanism's claim."""
        guarantee: Guarantee = self.inner.claimed_guarantee()
        return guarantee
