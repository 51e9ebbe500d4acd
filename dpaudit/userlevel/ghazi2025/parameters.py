"""Resolved parameters, stated conditions and run records of Ghazi et al. (2025)'s algorithms.

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
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from dpaudit.userlevel.conditions import Condition

__all__ = ["LEMMA_3_8_SCORE_CEILING", "PRESETS", "Condition", "Ghazi2025Parameters", "Ghazi2025Run"]


Preset = Literal["safe", "paper"]


PRESETS: tuple[str, ...] = ("safe", "paper")


LEMMA_3_8_SCORE_CEILING = 2.0 / 3.0 + 1.0 / (3.0 * math.e)
"""``c0 = 2/3 + 1/(3e)``: a batch with no ``(1/tau)``-ball holding ``2B/3`` points scores below ``c0 B``
[GKLM25, proof of Lemma 3.8, read with 2B/3 (Note000 A6)]."""


@dataclass(frozen=True)
class Ghazi2025Parameters:
    """Every resolved parameter of one configuration (per phase where it varies), and its conditions."""

    algorithm: str
    preset: str
    n_users: int
    m_items: int
    dim: int
    epsilon: float
    delta: float
    radius: float
    gradient_bound: float
    smoothness: float
    batch_size: int
    phases: int
    phase_users: tuple[int, ...]
    phase_steps: tuple[int, ...]
    step_size: float
    phase_step_sizes: tuple[float, ...]
    tau: float
    varsigma: float
    alignment_radius: float
    phase_thresholds: tuple[float, ...]
    at_epsilon: float
    at_sensitivity: float
    threshold_scale: float
    query_scale: float
    phase_linf_sensitivities: tuple[float, ...]
    phase_sigmas: tuple[float, ...]
    gaussian_epsilon: float
    gaussian_delta: float
    project_between_phases: bool
    project_output: bool
    conditions: tuple[Condition, ...]

    @property
    def users_used(self) -> int:
        """Users consumed over all phases."""
        return int(sum(self.phase_users))

    @property
    def gradient_evaluations(self) -> int:
        """Gradient computations per trial: ``m`` per used user [GKLM25, Thm 3.1: "mn"]."""
        return self.users_used * self.m_items

    @property
    def score_pair_terms(self) -> int:
        """Terms of Eq. (3) evaluated per trial: ``B^2`` per step."""
        return int(sum(self.phase_steps)) * self.batch_size**2

    def failed_conditions(self) -> tuple[Condition, ...]:
        """The conditions that do not hold for this configuration."""
        return tuple(c for c in self.conditions if not c.holds)

    def report(self) -> str:
        """Conditions as text, one per line."""
        return "\n".join(str(c) for c in self.conditions)


@dataclass(frozen=True, eq=False)
class Ghazi2025Run:
    """Outputs of :meth:`RobustStatsLocalization.sample_with_info` and what the run did.

    ``passed[i, s]``: trial ``i`` passed every concentration test of phase ``s``;
    ``halt_step[i, s]``: the 0-based step of phase ``s`` at which AboveThreshold answered ⊥, or -1.
    ``gradient_evaluations`` counts calls of the per-item gradient per trial;
    ``score_pair_terms`` counts the ``B^2`` terms of Eq. (3) per step per trial (the score's work,
    counted separately); ``user_gradient_evaluations[u]`` is how many item gradients of user ``u``
    one trial computed (``None`` when ``shuffle=True``: then it differs per trial);
    ``phase_outputs[i, s]`` is phase ``s``'s noisy output ``x_s`` (before any projection).
    """

    outputs: NDArray[np.float64]
    passed: NDArray[np.bool_]
    halt_step: NDArray[np.int64]
    gradient_evaluations: int
    score_pair_terms: int
    user_gradient_evaluations: NDArray[np.int64] | None
    parameters: Ghazi2025Parameters
    phase_outputs: NDArray[np.float64] | None = None
