"""Ghazi, Kumar, Liu and Manurangsi (2025), *Linear-Time User-Level DP-SCO via Robust Statistics*.

Everything about this paper in dpaudit: the algorithms here, the theorems in
:mod:`dpaudit.bounds.ghazi2025`, and the lemma checks in ``proofs/ghazi2025/``. The robust statistics
the paper builds on are shared (:mod:`dpaudit.userlevel.robust_stats`).

============================  ===========================================================
module                        what it holds
============================  ===========================================================
:mod:`.losses`                losses satisfying Assumptions 2.4-2.5
:mod:`.assumptions`           the per-user check of those assumptions
:mod:`.gradient_estimation`   Algorithm 2, the clipped robust gradient estimate
:mod:`.concentration`         Eq. (3), Algorithms 3 and 4 (the concentration test)
:mod:`.sgd`                   the deterministic part of Algorithm 1
:mod:`.parameters`            presets, resolved parameters, stated conditions, run records
:mod:`.base`                  parameter resolution and trial-vectorised sampling
:mod:`.algorithms`            Algorithm 1 (+ output noise) and Algorithm 5 (localization)
:mod:`.audit_cases`           the paper note's pitfalls P2 and P10 as audit cases
:mod:`.worst_pairs`           worst-case pairs of the full algorithms and their transcripts' records
:mod:`.utility`               the lower-bound instance, noise-free outputs and the rate
:mod:`.usefulness`            where the safe preset beats the trivial output (sigma_1/D, drift model)
============================  ===========================================================

Both mechanisms take ``preset="safe"`` (default: the note's corrections, each needed for the privacy
proof) or ``preset="paper"`` (as printed; warns :class:`~dpaudit.errors.UnsoundMechanismWarning`).

References
----------
.. [GKLM25] B. Ghazi, R. Kumar, D. Liu and P. Manurangsi. Linear-time user-level DP-SCO via robust
   statistics. arXiv:2502.08889v1, 2025.
"""

from dpaudit.userlevel.ghazi2025.algorithms import RobustStatsLocalization, RobustStatsSGD
from dpaudit.userlevel.ghazi2025.assumptions import AssumptionReport, check_ghazi2025_assumptions
from dpaudit.userlevel.ghazi2025.audit_cases import ghazi2025_audit_cases
from dpaudit.userlevel.ghazi2025.concentration import (
    ConcentrationTest,
    StreamingAboveThreshold,
    concentration_score,
)
from dpaudit.userlevel.ghazi2025.gradient_estimation import (
    RobustGradientEstimator,
    robust_gradient_estimate,
)
from dpaudit.userlevel.ghazi2025.losses import (
    DiagonallyDominantQuadratic,
    Ghazi2025Loss,
    LinearLoss,
    SeparableHuberLoss,
)
from dpaudit.userlevel.ghazi2025.parameters import PRESETS, Ghazi2025Parameters, Ghazi2025Run
from dpaudit.userlevel.ghazi2025.sgd import SGDPath, robust_sgd_path
from dpaudit.userlevel.ghazi2025.utility import LinearUtilityProblem, noise_free_output

__all__ = [
    "PRESETS",
    "AssumptionReport",
    "ConcentrationTest",
    "DiagonallyDominantQuadratic",
    "Ghazi2025Loss",
    "Ghazi2025Parameters",
    "Ghazi2025Run",
    "LinearLoss",
    "LinearUtilityProblem",
    "RobustGradientEstimator",
    "RobustStatsLocalization",
    "RobustStatsSGD",
    "SGDPath",
    "SeparableHuberLoss",
    "StreamingAboveThreshold",
    "check_ghazi2025_assumptions",
    "concentration_score",
    "ghazi2025_audit_cases",
    "noise_free_output",
    "robust_gradient_estimate",
    "robust_sgd_path",
]
