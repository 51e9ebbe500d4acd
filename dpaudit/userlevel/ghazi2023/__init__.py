"""Ghazi, Kamath, Kumar, Meka, Manurangsi and Zhang (2023), *On User-Level Private Convex Optimization*.

Everything about this paper in dpaudit: the algorithms here, the theorems in
:mod:`dpaudit.bounds.ghazi2023`, and the lemma checks in ``proofs/ghazi2023/``. The shifted
truncated discrete Laplace (Def 3.4) is a shared primitive (:mod:`dpaudit.mechanisms.discrete`) and
the losses are shared (:mod:`dpaudit.userlevel.losses`).

============================  ===========================================================
module                        what it holds
============================  ===========================================================
:mod:`.parameters`            presets, Alg 1's budget split and sigma, the thresholds Delta
:mod:`.erm`                   the regularised ERM problem, its declared domain, unit scale
:mod:`.solver`                deterministic batched minimisers with a stated accuracy
:mod:`.stability`             Alg 1's stability search: bitmask reference and type-canonical
:mod:`.functions`             functions ``f`` for the generic Alg 1 (mean, two-camp)
:mod:`.del_output_pert`       Algorithm 1, DelOutputPert
:mod:`.sc_output_pert`        Algorithm 2, SCOutputPert, with the certified fast path (App. C)
:mod:`.phased`                Algorithms 3-4, Phased-ERM and Phased-SCO
:mod:`.strongly_convex`       Algorithms 5-6, Strongly-Convex-ERM and -SCO
:mod:`.faulty`                the paper note's pitfalls P4, P5, P9 as broken variants
:mod:`.audit_cases`           the golden pair (note App. B2) and the pairs exposing each variant
:mod:`.worst_pairs`           worst-case pairs of Algorithms 3-6 and their transcripts' records
:mod:`.faulty_full`           the broken SCOutputPert components inside Algorithms 4 and 6
:mod:`.utility`               problems with an exactly known optimum, excess risk and slopes
============================  ===========================================================

Every mechanism takes ``preset="corrected"`` (default: errata E1, E2, E5, E6, E7, E8 of the note
applied) or ``preset="paper"`` (as printed; warns :class:`~dpaudit.errors.UnsoundMechanismWarning`,
since its sigma is not private on data of large scale).

References
----------
.. [GKKMMZ23] B. Ghazi, P. Kamath, R. Kumar, R. Meka, P. Manurangsi and C. Zhang. On user-level
   private convex optimization. ICML 2023.
"""

from dpaudit.userlevel.ghazi2023.audit_cases import ghazi2023_audit_cases
from dpaudit.userlevel.ghazi2023.del_output_pert import DelOutputPert
from dpaudit.userlevel.ghazi2023.erm import ERMProblem
from dpaudit.userlevel.ghazi2023.functions import TwoCampScore, UserFunction, UserMean
from dpaudit.userlevel.ghazi2023.parameters import (
    PRESETS,
    THRESHOLDS,
    DelOutputPertParameters,
    alg1_parameters,
)
from dpaudit.userlevel.ghazi2023.phased import PhasedERM, PhasedSCO
from dpaudit.userlevel.ghazi2023.sc_output_pert import SCOutputPert, SCParameters
from dpaudit.userlevel.ghazi2023.stability import (
    EnumerationTooLarge,
    bitmask_stability,
    typed_stability,
)
from dpaudit.userlevel.ghazi2023.strongly_convex import StronglyConvexERM, StronglyConvexSCO

__all__ = [
    "PRESETS",
    "THRESHOLDS",
    "DelOutputPert",
    "DelOutputPertParameters",
    "ERMProblem",
    "EnumerationTooLarge",
    "PhasedERM",
    "PhasedSCO",
    "SCOutputPert",
    "SCParameters",
    "StronglyConvexERM",
    "StronglyConvexSCO",
    "TwoCampScore",
    "UserFunction",
    "UserMean",
    "alg1_parameters",
    "bitmask_stability",
    "ghazi2023_audit_cases",
    "typed_stability",
]
