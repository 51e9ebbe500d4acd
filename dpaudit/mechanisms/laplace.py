"""The Laplace mechanism [DR14, Def 3.3, Thm 3.6].

References
----------
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import check_finite_array, check_positive
from dpaudit.accounting.calibrate import laplace_scale
from dpaudit.guarantees import PureDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.neighbors.relations import QueryDistance

if TYPE_CHECKING:
    from dpaudit.exact import PrivacyProfile

__all__ = ["LaplaceMechanism"]


@dataclass(frozen=True)
class LaplaceMechanism(MechanismBase):
    """Add i.i.d. ``Lap(sensitivity / epsilon)`` noise to each coordinate of a query answer.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, in (0, inf).
    sensitivity : float
        l1 sensitivity of the query, in (0, inf).

    Notes
    -----
    ``data`` is the true query answer ``f(D)`` (a scalar or an array). The claim is
    ``epsilon``-DP for answers within l1 distance ``sensitivity`` [DR14, Thm 3.6]. The scale is
    rounded up (:func:`dpaudit.accounting.laplace_scale`).

    Examples
    --------
    >>> import numpy as np
    >>> mech = LaplaceMechanism(epsilon=1.0)
    >>> mech.sample(0.0, 3, rng=np.random.default_rng(0)).shape
    (3,)
    """

    epsilon: float
    sensitivity: float = 1.0
    scale: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_positive("LaplaceMechanism", "epsilon", self.epsilon)
        check_positive("LaplaceMechanism", "sensitivity", self.sensitivity)
        object.__setattr__(self, "scale", laplace_scale(self.sensitivity, self.epsilon))

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` releases ``data + Lap(sensitivity / epsilon)`` per coordinate.

        Returns
        -------
        ndarray of float
            Shape ``(size, *data.shape)``.
        """
        x = check_finite_array("LaplaceMechanism.sample", "data", data)
        size = check_size("LaplaceMechanism.sample", size)
        return rng.laplace(x, self.scale, size=(size, *x.shape))  # loc broadcasts: one pass

    def claimed_guarantee(self) -> PureDP:
        """epsilon-DP for queries of l1 sensitivity ``sensitivity`` [DR14, Thm 3.6]."""
        return PureDP(self.epsilon, QueryDistance(self.sensitivity, "l1"))

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The exact profile: independent ``Lap(scale)`` releases shifted by ``d1 - d0`` per coordinate."""
        from dpaudit.exact import LaplaceStep
        from dpaudit.exact.pairs import exact_shifts, paired_arrays

        x0, x1 = paired_arrays("LaplaceMechanism.privacy_profile", d0, d1)
        return LaplaceStep(tuple(exact_shifts(x0, x1)), self.scale).profile()
