"""Lowy, Liu and Asi (2024), *Faster Algorithms for User-Level Private Stochastic Convex Optimization*.

Everything about this paper in dpaudit: the algorithms here, the theorems in
:mod:`dpaudit.bounds.lowy2024`, and the lemma checks in ``proofs/lowy2024/``. The AboveThreshold
of Algorithms 2-4 is the shared :class:`~dpaudit.mechanisms.sparse_vector.AboveThreshold`.

============================  ===========================================================
module                        what it holds
============================  ===========================================================
:mod:`.outlier_removal`       the concentration score, per-point score, ramp and robust mean
:mod:`.domain`                the declared public domain and overflow-safe user gradients
:mod:`.sgd`                   one-pass projected SGD (Alg 1 line 8) and AC-SA steps [GL12]
:mod:`.privacy`               explicit Lemmas B.2 / C.2, per-phase budgets, eq. (10), F6
:mod:`.parameters`            presets ("paper", "audit"), resolved parameters, run records
:mod:`.phased_sgd`            Algorithm 1 (linear time)
:mod:`.minibatch_sgd`         Algorithm 2, one call, vectorised over trials
:mod:`.minibatch_outliers`    Algorithm 2's test alone (the AboveThreshold transcript)
:mod:`.phased_erm`            Algorithm 3, its smoothed form (Sec. 4), Algorithm 2 as a mechanism
:mod:`.smoothing`             uniform randomized smoothing (Lemma D.1, F2's direction)
:mod:`.faulty`                the note's pitfalls P2, P7, P10, P12, P14 as broken variants
:mod:`.audit_cases`           the pairs that audit each correct mechanism and expose each variant
:mod:`.worst_pairs`           worst-case pairs of Algorithms 1-2 and their transcripts' records
:mod:`.with_replacement`      Algorithm 2 with replacement (P7): a step's law, a dominating pair
:mod:`.utility`               a problem with a known optimum, noise-free outputs, rates
============================  ===========================================================

Every mechanism takes ``preset="audit"`` (default: smaller constants, the consumed budget
recomputed and claimed) or ``preset="paper"`` (the theorems' constants, about ``10^6`` users; warns
:class:`~dpaudit.errors.UnsoundMechanismWarning` where findings F1, P14 or F6 leave the printed proof
without cover).

References
----------
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. NeurIPS 2024.
"""

from dpaudit.userlevel.lowy2024.audit_cases import HaltingIndicator, lowy2024_audit_cases
from dpaudit.userlevel.lowy2024.domain import PublicDomain
from dpaudit.userlevel.lowy2024.faulty import (
    HardThresholdPhasedSGD,
    LeakyHaltPhasedSGD,
    LemmaA6OutputPerturbation,
    RedrawnThresholdTest,
    WithReplacementTest,
)
from dpaudit.userlevel.lowy2024.minibatch_outliers import MinibatchConcentrationTest
from dpaudit.userlevel.lowy2024.minibatch_sgd import MinibatchPhase, run_minibatch_phase
from dpaudit.userlevel.lowy2024.outlier_removal import (
    concentration_score,
    inclusion_probability,
    pairwise_sq_distances,
    point_scores,
    robust_mean,
)
from dpaudit.userlevel.lowy2024.parameters import (
    ALG1_CONSTANTS,
    ALG3_CONSTANTS,
    PRESETS,
    Alg1Parameters,
    Alg3Parameters,
    Lowy2024Run,
)
from dpaudit.userlevel.lowy2024.phased_erm import AcceleratedMinibatchSGD, AcceleratedPhasedERM
from dpaudit.userlevel.lowy2024.phased_sgd import OutlierRemovalPhasedSGD
from dpaudit.userlevel.lowy2024.privacy import (
    alg1_coupling_sensitivity,
    alg1_phase_guarantee,
    alg2_coupling_sensitivity,
    alg2_phase_guarantee,
    f6_comparison,
)
from dpaudit.userlevel.lowy2024.smoothing import RandomizedSmoothing, smoothing_radius

__all__ = [
    "ALG1_CONSTANTS",
    "ALG3_CONSTANTS",
    "PRESETS",
    "AcceleratedMinibatchSGD",
    "AcceleratedPhasedERM",
    "Alg1Parameters",
    "Alg3Parameters",
    "HaltingIndicator",
    "HardThresholdPhasedSGD",
    "LeakyHaltPhasedSGD",
    "LemmaA6OutputPerturbation",
    "Lowy2024Run",
    "MinibatchConcentrationTest",
    "MinibatchPhase",
    "OutlierRemovalPhasedSGD",
    "PublicDomain",
    "RandomizedSmoothing",
    "RedrawnThresholdTest",
    "WithReplacementTest",
    "alg1_coupling_sensitivity",
    "alg1_phase_guarantee",
    "alg2_coupling_sensitivity",
    "alg2_phase_guarantee",
    "concentration_score",
    "f6_comparison",
    "inclusion_probability",
    "lowy2024_audit_cases",
    "pairwise_sq_distances",
    "point_scores",
    "robust_mean",
    "run_minibatch_phase",
    "smoothing_radius",
]
