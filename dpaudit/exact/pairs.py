"""What changes between the two datasets of a pair, exactly: the helpers mechanisms' ``privacy_profile`` use.

Differences are taken in exact rational arithmetic (``Fraction`` of each float), never as float
subtractions, so the shift a profile is computed for is the one between the two inputs.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_finite_array

__all__ = ["exact_shifts", "paired_arrays"]


def paired_arrays(owner: str, d0: Any, d1: Any, **kwargs: Any) -> tuple[NDArray[Any], NDArray[Any]]:
    """Both datasets validated as :func:`check_finite_array` does for ``sample``, and of one shape."""
    x0 = check_finite_array(owner, "d0", d0, **kwargs)
    x1 = check_finite_array(owner, "d1", d1, **kwargs)
    if x0.shape != x1.shape:
        raise argument_error(owner, "d1", f"of the shape of d0 {x0.shape}", d1)
    return x0, x1


def exact_shifts(x0: NDArray[Any], x1: NDArray[Any]) -> list[Fraction]:
    """``x1 - x0`` entry by entry, as exact rationals (flattened)."""
    return [Fraction(float(b)) - Fraction(float(a)) for a, b in zip(np.ravel(x0), np.ravel(x1), strict=True)]
