"""Composition theorems, conservative by construction.

References
----------
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from dpaudit._validation import check_int, check_nonnegative, check_probability
from dpaudit.guarantees import ApproxDP

__all__ = ["advanced_composition", "basic_composition"]


def basic_composition(guarantees: Sequence[ApproxDP]) -> ApproxDP:
    """Sum of epsilons and deltas [DR14, Thm 3.16]."""
    eps = math.fsum(g.epsilon for g in guarantees)
    delta = math.fsum(g.delta for g in guarantees)
    # a total delta >= 1 promises nothing; keep it representable as the largest delta < 1
    return ApproxDP(eps, min(delta, 1.0 - 2**-53))


def advanced_composition(epsilon: float, delta: float, count: int, delta_prime: float) -> ApproxDP:
    """k-fold adaptive composition of (epsilon, delta)-DP mechanisms [DR14, Thm 3.20].

    ``epsilon' = sqrt(2 k ln(1/delta')) epsilon + k epsilon (e^epsilon - 1)``, ``delta' + k delta``.
    """
    owner = "advanced_composition"
    epsilon = check_nonnegative(owner, "epsilon", epsilon)
    delta = check_probability(owner, "delta", delta)
    count = check_int(owner, "count", count, minimum=1)
    delta_prime = check_probability(owner, "delta_prime", delta_prime, allow_zero=False)
    eps_total = math.sqrt(2 * count * math.log(1 / delta_prime)) * epsilon + count * epsilon * math.expm1(epsilon)
    return ApproxDP(eps_total, min(delta_prime + count * delta, 1.0 - 2**-53))
