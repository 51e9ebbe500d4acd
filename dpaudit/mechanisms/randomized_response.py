"""k-ary randomized response [War65; KOV16 Sec 2].

References
----------
.. [War65] S. L. Warner. Randomized response. JASA 1965.
.. [KOV16] P. Kairouz, S. Oh and P. Viswanath. Extremal mechanisms for local differential
   privacy. JMLR 2016.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_int, check_positive
from dpaudit.guarantees import PureDP
from dpaudit.mechanisms.base import MechanismBase, check_integer_valued, check_size
from dpaudit.neighbors.relations import ItemReplace

if TYPE_CHECKING:
    from dpaudit.exact import PrivacyProfile

__all__ = ["RandomizedResponse", "randomized_response_keep_probability"]


def randomized_response_keep_probability(epsilon: float, k: int) -> float:
    """``p = e^eps / (e^eps + k - 1)``, the probability of reporting the true category, rounded down.

    ``p`` is returned on the grid ``j / 2**53`` of numpy's ``Generator.random``, so the sampler's
    realised keep probability ``P[U < p]`` equals ``p`` exactly; it is the largest grid point with
    ``p (k - 1) / (1 - p) <= e^eps`` in exact rational arithmetic (``e^eps`` itself rounded down by a
    relative 1e-12 to cover the error of ``exp``).
    """
    epsilon = check_positive("randomized_response_keep_probability", "epsilon", epsilon)
    k = check_int("randomized_response_keep_probability", "k", k, minimum=2)
    ratio = Fraction(math.exp(epsilon)) * (1 - Fraction(1, 10**12))
    grid = 2**53
    j = math.floor(ratio / (ratio + k - 1) * grid)
    while Fraction(j, grid) * (k - 1) > ratio * (1 - Fraction(j, grid)):
        j -= 1
    return j / grid


@dataclass(frozen=True)
class RandomizedResponse(MechanismBase):
    """Report each entry's category truthfully with probability ``e^eps/(e^eps+k-1)``.

    Otherwise report a uniformly drawn *other* category.

    ``data`` is an integer array of categories in ``{0, ..., k-1}``; each entry (one person's value)
    is randomised independently, so the claim is epsilon-DP under :class:`ItemReplace`
    (change one entry).
    """

    epsilon: float
    k: int = 2
    keep_probability: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "keep_probability", randomized_response_keep_probability(self.epsilon, self.k))

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int64]:
        """``size`` randomised copies of ``data``: each entry kept with ``keep_probability``, else a uniform other category.

        Returns
        -------
        ndarray of int64
            Shape ``(size, *data.shape)``; categories in ``{0, ..., k-1}``.
        """
        owner = "RandomizedResponse.sample"
        x = check_integer_valued(owner, "data", data)
        if x.size and (x.min() < 0 or x.max() >= self.k):
            raise argument_error(owner, "data", f"categories in {{0, ..., {self.k - 1}}}", data)
        size = check_size(owner, size)
        shape = (size, *x.shape)
        keep = rng.random(shape) < self.keep_probability
        offset = rng.integers(1, self.k, size=shape)  # uniform over the k-1 other categories
        return np.where(keep, x, (x + offset) % self.k)

    def claimed_guarantee(self) -> PureDP:
        """epsilon-DP when one entry changes (k-ary randomized response [War65; KOV16])."""
        return PureDP(self.epsilon, ItemReplace())

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The exact profile (rationals): each entry that differs is one k-ary randomized response."""
        from dpaudit.exact.closed_forms import randomized_response_profile

        owner = "RandomizedResponse.privacy_profile"
        xs = []
        for name, data in (("d0", d0), ("d1", d1)):
            x = check_integer_valued(owner, name, data)
            if x.size and (x.min() < 0 or x.max() >= self.k):
                raise argument_error(owner, name, f"categories in {{0, ..., {self.k - 1}}}", data)
            xs.append(x)
        if xs[0].shape != xs[1].shape:
            raise argument_error(owner, "d1", f"of the shape of d0 {xs[0].shape}", d1)
        return randomized_response_profile(self.keep_probability, self.k, int(np.count_nonzero(xs[0] != xs[1])))
