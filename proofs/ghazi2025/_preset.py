"""The safe preset's resolved parameters at a few configurations, for cross-checks against the implementation.

Only public names are used: :class:`dpaudit.userlevel.RobustStatsLocalization` and its ``parameters`` method.
"""

from __future__ import annotations

from dpaudit.userlevel import (
    DiagonallyDominantQuadratic,
    LinearLoss,
    RobustStatsLocalization,
    SeparableHuberLoss,
)

#: (n, m, d, eps, delta, loss) spanning small and large n, m = 1 and m > e, beta = 0 and beta > 0.
CONFIGS = (
    (10**5, 1, 1, 1.0, 1e-5, "huber"),
    (10**6, 2, 3, 0.5, 1e-6, "linear"),
    (10**7, 10, 2, 1.0, 1e-6, "huber"),
    (3 * 10**6, 100, 4, 0.25, 1e-8, "quadratic"),
    (10**9, 1000, 8, 1.0, 1e-9, "huber"),
)


def _loss(name: str):
    if name == "linear":
        return LinearLoss(1.0)
    if name == "quadratic":
        return DiagonallyDominantQuadratic(hessian_matrix=[[2.0, -1.0], [-1.0, 3.0]])
    return SeparableHuberLoss(beta=1.0)


def safe_parameters():
    """``[(config, Ghazi2025Parameters)]`` of the safe preset (``dim`` 2 for the 2x2 quadratic)."""
    out = []
    for n, m, d, eps, delta, loss in CONFIGS:
        dim = 2 if loss == "quadratic" else d
        mech = RobustStatsLocalization(_loss(loss), epsilon=eps, delta=delta)
        out.append(((n, m, dim, eps, delta, loss), mech.parameters(n, m, dim)))
    return out
