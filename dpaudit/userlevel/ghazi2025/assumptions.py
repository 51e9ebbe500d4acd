"""Per-user check of Assumptions 2.4 and 2.5 of Ghazi, Kumar, Liu and Manurangsi (2025).

:func:`check_ghazi2025_assumptions` reports, per user, which assumption fails (also for the
linear-predictor :class:`~dpaudit.userlevel.losses.SquaredLoss` and
:class:`~dpaudit.userlevel.losses.LogisticLoss`, whose Hessians ``phi'' x x^T`` are diagonally
dominant only for special feature vectors).

References
----------
.. [GKLM25] B. Ghazi, R. Kumar, D. Liu and P. Manurangsi. Linear-time user-level DP-SCO via robust
   statistics. arXiv:2502.08889v1, 2025.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
.. [Note000] The readings, corrections and pitfalls of Ghazi, Kumar, Liu and Manurangsi (2025)
   kept in ``docs/papers/ghazi2025.md`` (readings A1-A14, pitfalls P1-P20).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    argument_error,
    check_finite_array,
    check_nonnegative,
    check_positive,
)
from dpaudit.userlevel.ghazi2025.losses import Ghazi2025Loss
from dpaudit.userlevel.losses import LogisticLoss, Loss, SquaredLoss

__all__ = ["AssumptionReport", "check_ghazi2025_assumptions"]


def _linear_predictor_constants(loss: Loss, items: NDArray[np.float64], radius: float) -> dict[str, NDArray[Any]]:
    """Exact per-item constants for ``phi(<theta, x>, y)`` losses over ``[-radius, radius]^d``.

    The Hessian is ``phi''(<theta, x>) x x^T``; with ``phi'' > 0`` it is diagonally dominant iff every
    non-zero ``|x_i|`` is at least ``sum_{j != i} |x_j|``, i.e. ``2 |x_i| >= ||x||_1``.
    """
    x, y = items[..., :-1], items[..., -1]
    # Items near 1.8e308 make these suprema overflow to inf, the right value of a supremum (never NaN:
    # every term is non-negative), which the comparisons against G and beta then report.
    with np.errstate(over="ignore"):
        l1 = np.abs(x).sum(axis=-1)
        linf = np.abs(x).max(axis=-1)
        nz = x != 0
        dd = np.all(~nz | (2 * np.abs(x) >= l1[..., None] * (1 - 1e-12)), axis=-1)
        if isinstance(loss, SquaredLoss):
            slope_sup = radius * l1 + np.abs(y)  # |<theta, x> - y| over the box
            curv_sup = np.ones(y.shape)
        else:  # LogisticLoss: |phi'| <= |y| expit(radius ||x||_1 |y|) <= |y|, phi'' <= 1/4
            slope_sup = np.abs(y)
            curv_sup = np.full(y.shape, 0.25)
        gradient_sup = slope_sup * linf
        rowsum_sup = curv_sup * linf * l1
    return {
        "gradient_sup": gradient_sup,
        "rowsum_sup": rowsum_sup,
        "diagonally_dominant": dd,
        "convex": np.ones(y.shape, dtype=bool),
        "in_universe": np.ones(y.shape, dtype=bool),
    }


@dataclass(frozen=True, eq=False)
class AssumptionReport:
    """Which users' losses violate [GKLM25, Assumptions 2.4-2.5] on ``[-radius, radius]^d``.

    Every per-user array has shape ``(n_users,)``; a user passes a check when all of its ``m``
    items do. ``gradient_bound`` and ``smoothness`` are the ``G`` and ``beta`` checked against.
    """

    loss_name: str
    radius: float
    gradient_bound: float
    smoothness: float
    convex: NDArray[np.bool_]
    lipschitz: NDArray[np.bool_]
    smooth: NDArray[np.bool_]
    diagonally_dominant: NDArray[np.bool_]
    in_universe: NDArray[np.bool_]
    worst_gradient: float
    worst_rowsum: float

    @property
    def user_ok(self) -> NDArray[np.bool_]:
        """Per user: every check passes (convex, Lipschitz, smooth, diagonally dominant, in the universe)."""
        return self.convex & self.lipschitz & self.smooth & self.diagonally_dominant & self.in_universe

    @property
    def ok(self) -> bool:
        """True when every user passes every check."""
        return bool(self.user_ok.all())

    @property
    def violating_users(self) -> NDArray[np.intp]:
        """The indices of the users that fail a check."""
        return np.flatnonzero(~self.user_ok)

    def failures(self) -> dict[str, NDArray[np.intp]]:
        """Violating user indices per check (only the checks that fail)."""
        checks = {
            "convexity (Assumption 2.4)": self.convex,
            f"G-Lipschitz in l_1, ||grad||_inf <= {self.gradient_bound:g} (Assumption 2.4)": self.lipschitz,
            f"beta-smooth, max row sum of |Hessian| <= {self.smoothness:g} (Def. 2.2)": self.smooth,
            "diagonally dominant Hessian (Assumption 2.5)": self.diagonally_dominant,
            "item inside the loss's declared universe": self.in_universe,
        }
        return {name: np.flatnonzero(~ok) for name, ok in checks.items() if not ok.all()}

    def summary(self) -> str:
        """One line: all users pass, or which checks fail for how many users (the first few listed)."""
        if self.ok:
            return f"{self.loss_name}: all {self.convex.size} users satisfy Assumptions 2.4-2.5 on [-{self.radius:g}, {self.radius:g}]^d"
        parts = []
        for name, users in self.failures().items():
            shown = ", ".join(str(int(u)) for u in users[:8]) + (", ..." if users.size > 8 else "")
            parts.append(f"{name} fails for {users.size} user(s) [{shown}]")
        return f"{self.loss_name}: " + "; ".join(parts)

    def raise_if_violated(self, owner: str, data: Any = None) -> None:
        """Raise :class:`~dpaudit.errors.InvalidArgument` naming the violating users and checks."""
        if not self.ok:
            raise argument_error(
                owner, "data", "a dataset whose every user's loss satisfies Assumptions 2.4 and 2.5 of [GKLM25]",
                data, fix=self.summary() + ".",
            )


def check_ghazi2025_assumptions(
    loss: Any,
    data: Any,
    radius: float,
    *,
    gradient_bound: float | None = None,
    smoothness: float | None = None,
) -> AssumptionReport:
    """Check, per user, Assumptions 2.4 and 2.5 of [GKLM25] on the box ``[-radius, radius]^d``.

    Parameters
    ----------
    loss : Ghazi2025Loss, SquaredLoss or LogisticLoss
        The per-item loss.
    data : array_like, shape (n_users, m_items, d + 1)
        User-level dataset of items ``(x, y)``.
    radius : float
        ``D``: the domain is ``[-D, D]^d`` [GKLM25, Assumption 2.4].
    gradient_bound, smoothness : float, optional
        ``G`` and ``beta`` to check against. Default: the loss's declared constants
        (:meth:`Ghazi2025Loss.gradient_bound`, :attr:`Ghazi2025Loss.smoothness_constant`); for the
        linear-predictor losses, the largest value over the data (so only convexity and diagonal
        dominance can fail unless bounds are given).

    Returns
    -------
    AssumptionReport
        Per-user flags; ``report.ok`` is True when every user passes.

    Notes
    -----
    The constants are exact suprema over the box for each item (closed forms), not samples at
    probe points; a user passes when all of its items do. Diagonal dominance and convexity are
    properties of each ``f(.; z)`` (the paper assumes them for every function of the universe).
    """
    owner = "check_ghazi2025_assumptions"
    d_ = check_positive(owner, "radius", radius)
    x = check_finite_array(owner, "data", data, ndim=3)
    if x.shape[0] < 1 or x.shape[1] < 1 or x.shape[2] < 2:
        raise argument_error(owner, "data", "shaped (n_users >= 1, m_items >= 1, d + 1 >= 2)", data)
    if isinstance(loss, Ghazi2025Loss):
        consts = loss.item_constants(x, d_)
        g_default, b_default = loss.gradient_bound(d_), loss.smoothness_constant
    elif isinstance(loss, SquaredLoss | LogisticLoss):
        consts = _linear_predictor_constants(loss, x, d_)
        g_default, b_default = float(consts["gradient_sup"].max()), float(consts["rowsum_sup"].max())
    else:
        raise argument_error(owner, "loss", "a Ghazi2025Loss, SquaredLoss or LogisticLoss", loss)
    g = g_default if gradient_bound is None else check_nonnegative(owner, "gradient_bound", gradient_bound)
    b = b_default if smoothness is None else check_nonnegative(owner, "smoothness", smoothness)
    # one part in 1e12 of slack below: the suprema are computed in floating point (an infinite G or
    # beta, from data near 1.8e308 with no bound given, makes g * (1 + 1e-12) inf, not an overflow)
    def per_user(flags: Any) -> NDArray[np.bool_]:
        return np.asarray(np.asarray(flags).all(axis=1), dtype=bool)

    return AssumptionReport(
        loss_name=getattr(loss, "name", type(loss).__name__),
        radius=d_,
        gradient_bound=float(g),
        smoothness=float(b),
        convex=per_user(consts["convex"]),
        lipschitz=per_user(consts["gradient_sup"] <= g * (1 + 1e-12)),
        smooth=per_user(consts["rowsum_sup"] <= b * (1 + 1e-12)),
        diagonally_dominant=per_user(consts["diagonally_dominant"]),
        in_universe=per_user(consts["in_universe"]),
        worst_gradient=float(consts["gradient_sup"].max()),
        worst_rowsum=float(consts["rowsum_sup"].max()),
    )
