"""Levy, Sun, Amin, Kale, Kulesza, Mohri and Suresh (2021), *Learning with User-Level Privacy*.

Everything about this paper in dpaudit: the algorithms here, the theorems in
:mod:`dpaudit.bounds.levy2021`, and the lemma checks in ``proofs/levy2021/``.

============================  ===========================================================
module                        what it holds
============================  ===========================================================
:mod:`.private_range`         PrivateRange (App. D.1, reconstructed)
:mod:`.winsorized_1d`         Algorithm 1, WinsorizedMean1D, and its two stages
:mod:`.winsorized_highd`      Algorithm 2, WinsorizedMeanHighD (random Hadamard rotation)
:mod:`.mean_estimation`       Corollary 1, the user-level mean estimator
:mod:`.first_order`           Algorithm 3, Winsorized first-order optimisation
:mod:`.phased_erm`            Algorithm 4, Phased ERM
:mod:`.parameters`            budget splits, radii and trial batching shared by the above
:mod:`.faulty`                the paper note's bugs B1-B18 (and the old overflow), built as broken variants
:mod:`.exact_laws`            exact output laws from the paper's formulas: the budget a pair spends
:mod:`.audit_cases`           the pairs that audit each component and expose each variant
:mod:`.worst_pairs`           worst-case pairs of Algorithms 3-4 and their transcripts' records
:mod:`.faulty_full`           the broken components inside the whole Algorithm 3
============================  ===========================================================

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845.
"""

from dpaudit.userlevel.levy2021.audit_cases import levy_audit_cases
from dpaudit.userlevel.levy2021.first_order import (
    GradientQuery,
    WinsorizedFirstOrder,
    gradient_concentration_radius,
    user_mean_gradients,
)
from dpaudit.userlevel.levy2021.mean_estimation import UserMeanEstimator, user_mean_radius
from dpaudit.userlevel.levy2021.phased_erm import PhasedERM, PhasedERMRound, PhaseRound
from dpaudit.userlevel.levy2021.private_range import PrivateRange
from dpaudit.userlevel.levy2021.winsorized_1d import LaplaceStage, RangeStage, WinsorizedMean1D
from dpaudit.userlevel.levy2021.winsorized_highd import RotatedCoordinate, WinsorizedMeanHighD

__all__ = [
    "GradientQuery",
    "LaplaceStage",
    "PhaseRound",
    "PhasedERM",
    "PhasedERMRound",
    "PrivateRange",
    "RangeStage",
    "RotatedCoordinate",
    "UserMeanEstimator",
    "WinsorizedFirstOrder",
    "WinsorizedMean1D",
    "WinsorizedMeanHighD",
    "gradient_concentration_radius",
    "levy_audit_cases",
    "user_mean_gradients",
    "user_mean_radius",
]
