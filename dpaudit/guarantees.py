"""What a mechanism claims: frozen privacy guarantees bound to a neighbour relation.

``Guarantee = PureDP | ApproxDP | GDP``. Each is a frozen dataclass; the relation says which
datasets count as neighbours (see :mod:`dpaudit.neighbors`). ``epsilon_at(delta)`` answers the
auditor's question "what epsilon does this claim promise at this delta?".

References
----------
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
.. [DRS19] J. Dong, A. Roth and W. Su. Gaussian differential privacy. arXiv:1905.02383v3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dpaudit._validation import check_nonnegative, check_probability

if TYPE_CHECKING:
    from dpaudit.neighbors.relations import NeighborRelation

__all__ = ["GDP", "ApproxDP", "Guarantee", "PureDP"]


@dataclass(frozen=True)
class PureDP:
    """epsilon-DP: ``P[M(D) in S] <= e^epsilon P[M(D') in S]`` for neighbours D, D' [DR14, Def 2.4]."""

    epsilon: float
    relation: NeighborRelation | None = field(default=None, compare=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_nonnegative("PureDP", "epsilon", self.epsilon, allow_inf=True))

    @property
    def delta(self) -> float:
        """Zero: a pure guarantee holds at every delta >= 0."""
        return 0.0

    def epsilon_at(self, delta: float) -> float:
        """Pure DP implies (epsilon, delta)-DP for every delta >= 0."""
        check_probability("PureDP.epsilon_at", "delta", delta)
        return self.epsilon

    def __str__(self) -> str:
        return f"{self.epsilon:g}-DP"


@dataclass(frozen=True)
class ApproxDP:
    """(epsilon, delta)-DP: ``P[M(D) in S] <= e^epsilon P[M(D') in S] + delta`` [DR14, Def 2.4]."""

    epsilon: float
    delta: float
    relation: NeighborRelation | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_nonnegative("ApproxDP", "epsilon", self.epsilon, allow_inf=True))
        object.__setattr__(self, "delta", check_probability("ApproxDP", "delta", self.delta))

    def epsilon_at(self, delta: float) -> float:
        """The claimed epsilon if ``delta >= self.delta``; otherwise nothing is promised (inf)."""
        delta = check_probability("ApproxDP.epsilon_at", "delta", delta)
        return self.epsilon if delta >= self.delta else math.inf

    def __str__(self) -> str:
        return f"({self.epsilon:g}, {self.delta:g})-DP"


@dataclass(frozen=True)
class GDP:
    """mu-Gaussian DP: every test is at least as hard as N(0,1) vs N(mu,1) [DRS19, Def 2.6]."""

    mu: float
    relation: NeighborRelation | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", check_nonnegative("GDP", "mu", self.mu, allow_inf=True))

    @property
    def delta(self) -> float:
        """Zero: mu-GDP gives an epsilon at every delta >= 0 (:meth:`epsilon_at`), so any delta may be audited."""
        return 0.0

    def epsilon_at(self, delta: float) -> float:
        """Tight (epsilon, delta) conversion [DRS19, Cor 2.13]; inf at delta = 0 for mu > 0."""
        from dpaudit.accounting.conversions import gdp_epsilon

        delta = check_probability("GDP.epsilon_at", "delta", delta)
        if self.mu == 0.0:
            return 0.0
        if delta == 0.0:
            return math.inf
        return gdp_epsilon(self.mu, delta)

    def __str__(self) -> str:
        return f"{self.mu:g}-GDP"


Guarantee = PureDP | ApproxDP | GDP
