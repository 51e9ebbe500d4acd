"""Audit a diffprivlib mechanism object (IBM's differential-privacy library), as it is.

Needs the ``diffprivlib`` extra (``pip install 'dpaudit[diffprivlib]'``; diffprivlib 0.6.6 imports
only beside scikit-learn 1.6.x).

The claim is read from the object: ``epsilon``, ``delta`` and, for mechanisms that add noise to a
number, ``sensitivity``. A mechanism is only ever as private as its configuration: a Laplace
mechanism built with ``sensitivity=0.5`` and applied to a query whose answers on neighbouring
datasets differ by 1 leaks twice its epsilon. Say so with ``query_sensitivity=1.0``: the claim
becomes "epsilon-DP for inputs within 1 of each other", which the audit then tests.

Randomness: diffprivlib draws from ``secrets.SystemRandom`` unless given a ``random_state``. For
reproducible audits each ``sample`` call runs a copy of the mechanism on a ``RandomState`` seeded
from the audit's own stream (diffprivlib's documented deterministic mode); the mechanism's sampling
code is unchanged. ``randomise`` takes one value at a time, so trials are a Python loop (about
3 microseconds per Laplace draw).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._extras import require_extra
from dpaudit._validation import argument_error, check_positive
from dpaudit.guarantees import ApproxDP, Guarantee, PureDP
from dpaudit.neighbors.relations import QueryDistance

__all__ = ["DiffprivlibMechanism"]

OWNER = "DiffprivlibMechanism"


@dataclass(frozen=True, eq=False)
class DiffprivlibMechanism:
    """A diffprivlib mechanism as a dpaudit mechanism.

    Parameters
    ----------
    mechanism : diffprivlib.mechanisms.DPMechanism
        For example ``diffprivlib.mechanisms.Laplace(epsilon=1.0, sensitivity=1.0)``.
    query_sensitivity : float, optional
        The sensitivity of the query whose answers the mechanism privatises, in (0, inf). The
        claim's neighbour relation is "answers within ``query_sensitivity`` in l1"; the default is
        the mechanism's own ``sensitivity`` (no relation for mechanisms without one).

    Examples
    --------
    A Laplace mechanism configured for sensitivity 0.5 but applied to a sensitivity-1 query::

        from diffprivlib.mechanisms import Laplace
        wrapped = DiffprivlibMechanism(Laplace(epsilon=1.0, sensitivity=0.5), query_sensitivity=1.0)
        dpaudit.audit(wrapped, 0.0, 1.0, trials=20_000, seed=0).violation   # True
    """

    mechanism: Any
    query_sensitivity: float | None = None

    def __post_init__(self) -> None:
        base = require_extra("diffprivlib.mechanisms.base", "diffprivlib")
        if not isinstance(self.mechanism, base.DPMechanism):
            raise argument_error(OWNER, "mechanism", "a diffprivlib mechanism (diffprivlib.mechanisms.DPMechanism)", self.mechanism)
        if self.query_sensitivity is not None:
            object.__setattr__(self, "query_sensitivity", check_positive(OWNER, "query_sensitivity", self.query_sensitivity))

    @property
    def sensitivity(self) -> float | None:
        """The sensitivity the claim covers: ``query_sensitivity``, else the mechanism's own."""
        if self.query_sensitivity is not None:
            return self.query_sensitivity
        own = getattr(self.mechanism, "sensitivity", None)
        return None if own is None else float(own)

    def claimed_guarantee(self) -> Guarantee:
        """``epsilon``-DP (or ``(epsilon, delta)``-DP) for inputs within :attr:`sensitivity`."""
        sensitivity = self.sensitivity
        relation = QueryDistance(sensitivity, "l1") if sensitivity is not None and sensitivity > 0 else None
        epsilon, delta = float(self.mechanism.epsilon), float(self.mechanism.delta)
        return PureDP(epsilon, relation) if delta == 0 else ApproxDP(epsilon, delta, relation)

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[Any]:
        """``size`` outputs of ``mechanism.randomise(data)``, on a copy seeded from ``rng``."""
        utils = require_extra("diffprivlib.utils", "diffprivlib")
        value = _as_python(data)  # refused (non-finite) before anything is drawn from rng
        seeded = copy.copy(self.mechanism)
        state = np.random.RandomState(int(rng.integers(0, 2**32, dtype=np.uint64)))
        # every diffprivlib mechanism draws from `_rng`, built by check_random_state (mechanisms/base.py)
        seeded.random_state = state
        seeded._rng = utils.check_random_state(state, True)
        return np.asarray([seeded.randomise(value) for _ in range(size)])

    def __reduce__(self) -> tuple[Any, ...]:
        # secrets.SystemRandom cannot be pickled; `sample` replaces the generator anyway
        bare = copy.copy(self.mechanism)
        bare.random_state = None
        bare._rng = None
        return (_rebuild, (bare, self.query_sensitivity))

    def __repr__(self) -> str:
        m = self.mechanism
        parts = [f"epsilon={m.epsilon:g}"]
        if getattr(m, "delta", 0):
            parts.append(f"delta={m.delta:g}")
        if getattr(m, "sensitivity", None) is not None:
            parts.append(f"sensitivity={m.sensitivity:g}")
        used = "" if self.query_sensitivity is None else f", used at sensitivity {self.query_sensitivity:g}"
        return f"diffprivlib {type(m).__name__}({', '.join(parts)}){used}"


def _rebuild(mechanism: Any, query_sensitivity: float | None) -> DiffprivlibMechanism:
    return DiffprivlibMechanism(mechanism, query_sensitivity)


def _as_python(data: Any) -> Any:
    """A 0-d array becomes the Python number diffprivlib's type checks expect."""
    arr = np.asarray(data)
    if arr.ndim == 0:
        value = arr.item()
        if isinstance(value, float) and not math.isfinite(value):
            raise argument_error(OWNER, "data", "finite", data)
        return value
    return arr
