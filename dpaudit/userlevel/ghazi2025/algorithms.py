"""Algorithm 1 (+ output perturbation) and Algorithm 5 (localization) of Ghazi et al. (2025).

* :class:`RobustStatsSGD`: Algorithm 1 with the Gaussian output perturbation of Algorithm 5,
  line 7 (one phase over all users), an (epsilon, delta) user-level mechanism;
* :class:`RobustStatsLocalization`: Algorithm 5 (localization), the paper's full algorithm.

The presets, parameter resolution and sampling are shared (:mod:`dpaudit.userlevel.ghazi2025.base`).

References
----------
.. [GKLM25] B. Ghazi, R. Kumar, D. Liu and P. Manurangsi. Linear-time user-level DP-SCO via robust
   statistics. arXiv:2502.08889v1, 2025.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
.. [Note000] The readings, corrections and pitfalls of Ghazi, Kumar, Liu and Manurangsi (2025)
   kept in ``docs/papers/ghazi2025.md`` (readings A1-A14, pitfalls P1-P20).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpaudit._validation import (
    argument_error,
    check_int,
)
from dpaudit.userlevel.ghazi2025.base import _Ghazi2025Base

__all__ = ["RobustStatsLocalization", "RobustStatsSGD"]


@dataclass(frozen=True)
class RobustStatsSGD(_Ghazi2025Base):
    """Algorithm 1 of [GKLM25] plus the Gaussian output perturbation of Algorithm 5, line 7.

    One phase over all users: ``T = floor(n/B)`` steps of ``B`` users; the concentration test
    (Algorithm 3 on Algorithm 4) on every step's batch; output ``x_bar + N(0, sigma^2 I_d)`` where
    ``x_bar`` is the average iterate if every test passed and ``x_0`` otherwise. This is one phase of
    :class:`RobustStatsLocalization` with ``eta_1 = eta`` (no decay) and is
    ``(epsilon, delta)``-user-level DP under ``preset="safe"`` by the argument of Lemma 3.10.

    Parameters
    ----------
    loss : Ghazi2025Loss
        Per-item loss with declared ``G`` and ``beta`` (Assumptions 2.4-2.5).
    epsilon : float
        In ``(0, 1]`` ("epsilon <= O(1)", Thm 3.1; read as 1).
    delta : float
        In ``(0, 1)``.
    radius : float
        ``D``: the domain is ``[-D, D]^d``.
    preset : {"safe", "paper"}
        See the module docstring.
    batch_size : int, optional
        ``B``; default ``ceil(100 ln(mnd/delta)/eps)`` [Thm 3.1].
    step_size : float, optional
        ``eta``; default from Thm 3.1 (and, when safe, capped at ``1/(6 beta B)``).
    tau : float, optional
        Inverse radius of the score and of the clip (``varsigma = rho = 1/tau``).
    threshold : float, optional
        ``nu`` for every phase; safe: must be at least ``c0 B + (b_q + b_th) ln(2 e^eps/delta)``.
    tau_constant : float
        ``C_tau`` of the safe ``1/tau = C_tau * (Hoeffding radius)`` (utility only).
    statistic : RobustStatistic
        Default: coordinate-wise median.
    initial_point : sequence of float, optional
        ``x_0`` in the box; default the origin.
    shuffle : bool
        Draw a random assignment of users to steps per trial (default: consecutive users).
    project_output : bool, optional
        Project the released point onto the box (default: safe yes, paper no).
    observe : {"final", "transcript"}
        What ``sample`` releases: the output, or per phase the AboveThreshold halting step and the
        noisy phase output (:mod:`dpaudit.userlevel.transcript`).

    Examples
    --------
    >>> import numpy as np
    >>> from dpaudit.userlevel.ghazi2025 import LinearLoss
    >>> rng = np.random.default_rng(0)
    >>> data = np.zeros((40, 2, 2)); data[:, :, 0] = 0.5
    >>> mech = RobustStatsSGD(LinearLoss(1.0), epsilon=1.0, delta=1e-3, batch_size=10)
    >>> mech.sample(data, 3, rng=rng).shape
    (3, 1)
    """

    _algorithm = "Algorithm 1 + output perturbation"

    def _phase_layout(self, n: int, b: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        if n < b:
            raise argument_error(self._owner, "data", f"at least B = {b} users (one batch) [GKLM25, Alg. 1]", n)
        return (b * (n // b),), (n // b,)

    def _decay(self, m: int) -> float:
        return 1.0


@dataclass(frozen=True)
class RobustStatsLocalization(_Ghazi2025Base):
    """Algorithm 5 of [GKLM25]: localization over ``S`` phases of Algorithm 1 with output noise.

    Phase ``s = 1..S`` runs :class:`RobustStatsSGD`'s phase on fresh users (about ``n/2^s`` of them;
    the last phase takes every remaining full batch) with step size ``eta_s`` from ``x_{s-1}`` and
    releases ``x_s = x_bar_s + N(0, sigma_s^2 I_d)``; the output is ``x_S``. Users are never reused,
    so the phases compose in parallel and the mechanism is ``(epsilon, delta)``-user-level DP under
    ``preset="safe"`` [GKLM25, Lemma 3.10, with the note's fixes]. All parameters are those of
    :class:`RobustStatsSGD`, plus ``phases`` (default ``floor(log2(n/B))``, Note000 A7).

    Examples
    --------
    >>> import numpy as np
    >>> from dpaudit.userlevel.ghazi2025 import LinearLoss
    >>> mech = RobustStatsLocalization(LinearLoss(1.0), epsilon=1.0, delta=1e-3, batch_size=10)
    >>> p = mech.parameters(80, 2, 1)
    >>> p.phases, p.phase_users, p.gradient_evaluations
    (3, (40, 20, 20), 160)
    """

    phases: int | None = None
    _algorithm = "Algorithm 5"

    def _check_extra(self) -> None:
        if self.phases is not None:
            check_int(self._owner, "phases", self.phases, minimum=1)

    def _phase_layout(self, n: int, b: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        owner = self._owner
        if n < 2 * b:
            raise argument_error(owner, "data", f"at least 2B = {2 * b} users (phase 1 uses n/2) [GKLM25, Alg. 5]", n)
        max_phases = math.floor(math.log2(n / b))  # S = floor(log2(n/B)) (Note000 A7)
        while b * 2 ** (max_phases + 1) <= n:  # guard against log2 rounding
            max_phases += 1
        while max_phases > 1 and b * 2**max_phases > n:
            max_phases -= 1
        s_count = max_phases if self.phases is None else self.phases
        if s_count > max_phases:
            raise argument_error(owner, "phases", f"at most floor(log2(n/B)) = {max_phases} for n={n}, B={b}", self.phases)
        users = [b * (n // (2**s * b)) for s in range(1, s_count)]  # n_s = n/2^s in full batches [GKLM25, Alg. 5, line 4]
        users.append(b * ((n - sum(users)) // b))  # last phase: every remaining full batch
        return tuple(users), tuple(u // b for u in users)

    def _decay(self, m: int) -> float:
        if self.preset == "safe":
            return max(math.log(m), 4.0)  # kappa (Note000 A8)
        if m < 2:
            raise argument_error(self._owner, "data", "users with m_items >= 2 under preset='paper' "
                                 "(eta_s = eta (ln m)^-s [GKLM25, Alg. 5, line 4] is undefined for m = 1)", m)
        return math.log(m)  # [GKLM25, Alg. 5, line 4]
