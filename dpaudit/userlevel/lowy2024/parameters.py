"""Presets, resolved parameters and run records of Lowy, Liu and Asi (2024)'s algorithms.

Two presets, for every algorithm:

``"paper"``
    The theorems' constants as printed (Alg 1: ``C = 100 log(20nme^eps/delta)/eps``, ``Lap(20/eps)``,
    threshold ``4C/5``, ``tau_i = 1000 eta_i L sqrt(T_i) log(ndm)``, ``sigma_i = 100 tau_i
    log^2(n/delta)/(eps C)``; Alg 2/3: ``K_i = 500 log(n_i^2 m^2 e^eps/delta)(1/eps + n_i eps/sqrt(T_i
    log(1/delta)))``, ``Lap(8/eps)``/``Lap(16/eps)``, ``sigma_i = 1000 tau sqrt(T_i) log(nde^eps/delta)
    /(eps n_i)``). They need about ``10^6`` users. The claim is the paper's ``(epsilon, delta)``;
    constructing warns :class:`~dpaudit.errors.UnsoundMechanismWarning` where the ``docs/papers/lowy2024.md``
    findings say the printed proof does not cover the configuration (F1, P14 for Alg 1; F6 for
    Alg 2/3), and the recomputed budget is reported beside it (``parameters().recomputed``).
``"audit"``
    Smaller constants, so that audits run with a few hundred users. Noise is calibrated from the
    budget with the explicit couplings of :mod:`dpaudit.userlevel.lowy2024.privacy`, and the
    ``delta`` that the Laplace bad events consume is recomputed (:mod:`dpaudit.userlevel.lowy2024.privacy`): the claim is
    that recomputed ``(epsilon, delta)``, never the paper's.

References
----------
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. NeurIPS 2024.
.. [Note003] The readings, corrections and pitfalls of Lowy, Liu and Asi (2024)
   kept in ``docs/papers/lowy2024.md`` (findings F1-F7, pitfalls P1-P25).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpaudit.userlevel.conditions import Condition, evaluate_condition

__all__ = [
    "ALG1_CONSTANTS",
    "ALG3_CONSTANTS",
    "PRESETS",
    "Alg1Constants",
    "Alg1Parameters",
    "Alg3Constants",
    "Alg3Parameters",
    "Condition",
    "Lowy2024Run",
]

PRESETS: tuple[str, ...] = ("audit", "paper")


def condition(name: str, citation: str, value: float, relation: str, bound: float) -> Condition:
    """Evaluate ``value relation bound`` with relative slack (:func:`~dpaudit.userlevel.conditions.evaluate_condition`)."""
    return evaluate_condition(name, citation, value, relation, bound)


# ---------------------------------------------------------------------------------------------
# Algorithm 1
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Alg1Constants:
    """The numeric constants of Algorithm 1 [LLA24, Alg 1; Note003, Sec. 2.6].

    ``groups``: ``C = groups * log(20 n m e^eps/delta)/eps``; ``test_scale``: the score's Laplace
    scale is ``test_scale/eps``; ``threshold``: the test is ``s_hat >= threshold * C``; ``tau``:
    ``tau_i = tau * eta_i L sqrt(T_i) log(ndm)``; ``sigma``: the printed ``sigma_i = sigma tau_i
    log^2(n/delta)/(eps C)`` (``None``: calibrated from the budget instead).
    """

    groups: float
    test_scale: float
    threshold: float
    tau: float
    sigma: float | None


ALG1_CONSTANTS: dict[str, Alg1Constants] = {
    "paper": Alg1Constants(groups=100.0, test_scale=20.0, threshold=4.0 / 5.0, tau=1000.0, sigma=100.0),
    "audit": Alg1Constants(groups=12.0, test_scale=4.0, threshold=0.9, tau=2.0, sigma=None),
}


class _Reported:
    """Printing and filtering of a parameter record's ``conditions``."""

    conditions: tuple[Condition, ...]

    def failed_conditions(self) -> tuple[Condition, ...]:
        return tuple(c for c in self.conditions if not c.holds)

    def report(self) -> str:
        """Conditions as text, one per line."""
        return "\n".join(str(c) for c in self.conditions)


@dataclass(frozen=True)
class _Problem(_Reported):
    """The fields every algorithm's record shares: the preset, the problem and the assumptions."""

    preset: str
    n_users: int
    m_items: int
    dim: int
    epsilon: float
    delta: float
    radius: float
    lipschitz: float
    smoothness: float
    q: float
    p: float


@dataclass(frozen=True)
class Alg1Parameters(_Problem):
    """Every resolved parameter of one Algorithm 1 configuration (per phase where it varies)."""

    groups: int
    phases: int
    phase_users: tuple[int, ...]
    group_users: tuple[int, ...]
    phase_steps: tuple[int, ...]
    step_size: float
    phase_step_sizes: tuple[float, ...]
    phase_taus: tuple[float, ...]
    phase_sigmas: tuple[float, ...]
    test_scale: float
    threshold: float
    budgets: tuple[object, ...]
    claimed_epsilon: float
    claimed_delta: float
    recomputed: tuple[float, float]
    conditions: tuple[Condition, ...]

    @property
    def gradient_evaluations(self) -> int:
        """``sum_i T_i C = sum_i N_i m C`` per trial [LLA24, proof of Thm B.1, the display before Lemma B.2]."""
        return int(sum(t * self.groups for t in self.phase_steps))

    @property
    def score_pair_terms(self) -> int:
        """The test's work: ``C^2`` distances per phase (not gradients)."""
        return self.phases * self.groups * self.groups

    @property
    def users_used(self) -> int:
        """Users consumed over all phases: ``sum_i groups * group_users[i]``."""
        return int(sum(self.groups * nu for nu in self.group_users))


# ---------------------------------------------------------------------------------------------
# Algorithms 2 and 3
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Alg3Constants:
    """The numeric constants of Algorithms 2 and 3 [LLA24, Alg 2, Alg 3; Note003, Sec. 2.6].

    ``users``: ``K_i = users * log(n_i^2 m^2 e^eps/delta)(1/eps + n_i eps/sqrt(T_i log(1/delta)))``
    (capped at ``n_i``, F5); ``threshold``: the noisy threshold is ``threshold * K + Lap``;
    ``above_threshold_share``: AboveThreshold's share of ``eps`` (scales ``8/eps``, ``16/eps`` at the
    paper's ``1/2``); ``tau``: ``tau = tau * L log(ndm)/sqrt(m)``; ``sigma``: the printed
    ``sigma_i = sigma tau sqrt(T_i) log(nde^eps/delta)/(eps n_i)`` (``None``: calibrated).
    """

    users: float
    threshold: float
    above_threshold_share: float
    tau: float
    sigma: float | None


ALG3_CONSTANTS: dict[str, Alg3Constants] = {
    "paper": Alg3Constants(users=500.0, threshold=4.0 / 5.0, above_threshold_share=0.5, tau=1.0, sigma=1000.0),
    "audit": Alg3Constants(users=4.0, threshold=0.9, above_threshold_share=0.5, tau=2.0, sigma=None),
}


@dataclass(frozen=True)
class Alg3Parameters(_Problem):
    """Every resolved parameter of one Algorithm 3 configuration (one call of Algorithm 2 per phase)."""

    lam: float
    phases: int
    phase_users: tuple[int, ...]
    phase_lams: tuple[float, ...]
    phase_steps: tuple[int, ...]
    phase_batch_uncapped: tuple[float, ...]
    phase_batch: tuple[int, ...]
    tau: float
    phase_sigmas: tuple[float, ...]
    threshold_fraction: float
    above_threshold_epsilon: float
    budgets: tuple[object, ...]
    claimed_epsilon: float
    claimed_delta: float
    recomputed: tuple[float, float]
    conditions: tuple[Condition, ...]

    @property
    def gradient_evaluations(self) -> int:
        """``sum_i T_i K_i m`` per trial [LLA24, proof of Thm C.3: "the gradient complexity is sum T_i K_i m"]."""
        return int(sum(t * k * self.m_items for t, k in zip(self.phase_steps, self.phase_batch, strict=True)))

    @property
    def score_pair_terms(self) -> int:
        """The test's work: ``K_i^2`` distances per step."""
        return int(sum(t * k * k for t, k in zip(self.phase_steps, self.phase_batch, strict=True)))


@dataclass(frozen=True, eq=False)
class Lowy2024Run:
    """Outputs of ``sample_with_info`` and what the run did.

    ``halted_phase[i]``: the (0-based) phase in which trial ``i`` halted, or -1.
    ``gradient_evaluations``: per-item gradients computed per trial (counted by the loops);
    ``score_pair_terms``: pairwise distances the tests evaluated per trial (the test's work,
    counted separately); ``transcript``: every run's transcript when the mechanism observes it
    (``observe="transcript"``), else None.
    """

    outputs: NDArray[np.float64]
    halted_phase: NDArray[np.int64]
    gradient_evaluations: int
    score_pair_terms: int
    parameters: Alg1Parameters | Alg3Parameters
    transcript: NDArray[np.float64] | None = None
