"""The truncation point ``kappa`` of Ghazi et al.'s shifted truncated discrete Laplace.

A leaf module: :mod:`dpaudit.mechanisms.discrete` samples the distribution and
:mod:`dpaudit.exact.composition` computes its exact privacy profile, and both need ``kappa``; the
mechanisms reach the exact calculators (lazily), so ``kappa`` lives where neither imports the other.

References
----------
.. [GKKMMZ23] B. Ghazi, P. Kamath, R. Kumar, R. Meka, P. Manurangsi and C. Zhang. On user-level
   private convex optimization. ICML 2023, Definition 3.4.
"""

from __future__ import annotations

import math

from dpaudit._validation import check_positive, check_probability

__all__ = ["tdlap_kappa"]


def tdlap_kappa(epsilon: float, delta: float) -> int:
    """``kappa = 1 + ceil(ln(1/delta) / epsilon)`` [GKKMMZ23, Def 3.4].

    Raised further if floating-point rounding in the ceiling would leave the edge mass
    ``exp(-epsilon kappa) / Z`` above ``delta`` (increasing kappa is always safe).
    """
    epsilon = check_positive("tdlap_kappa", "epsilon", epsilon)
    delta = check_probability("tdlap_kappa", "delta", delta, allow_zero=False)
    kappa = 1 + math.ceil(math.log(1.0 / delta) / epsilon)
    while math.exp(-epsilon * kappa) > delta * math.exp(-epsilon):  # (T1): edge mass <= delta e^-eps
        kappa += 1
    return kappa
