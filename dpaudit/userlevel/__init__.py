"""The papers' user-level algorithms, one package per paper, and the parts they share.

========================  ==================================================================
where                     what
========================  ==================================================================
:mod:`.levy2021`          Levy et al. 2021: winsorized means, PrivateRange, Phased ERM
:mod:`.ghazi2023`         Ghazi et al. 2023: output perturbation for low local deletion sensitivity
:mod:`.ghazi2025`         Ghazi et al. 2025: robust-statistics SGD and localization
:mod:`.lowy2024`          Lowy et al. 2024: phased SGD with outlier removal, accelerated phased ERM
:mod:`.losses`            per-item losses of linear predictors (shared)
:mod:`.projections`       projections onto boxes and balls (shared)
:mod:`.robust_stats`      coordinate-wise median and trimmed mean (shared)
:mod:`.hadamard`          the fast Walsh-Hadamard transform and random rotations (shared)
:mod:`.domain`            declared domains: per-item clamps, the 2^960 cap on public constants (shared)
:mod:`.observed`          a run as its caller sees it: release, non-finite release or error (shared)
:mod:`.baselines`         naive user-level baselines: clipped user means, group privacy (shared)
:mod:`.comparison`        utility across papers on one instance with a known optimum
:mod:`.conditions`        stated preconditions evaluated for a configuration (shared)
:mod:`.transcript`        threat models (``observe``), transcript step records, worst pairs (shared);
                          ``.transcript_profile``: a record's certified profile on its pair
:mod:`.full_algorithms`   the full algorithms on their worst pairs: catalogue group, benchmark, outcomes
========================  ==================================================================

Imports flow one way: the shared modules import no paper package, each paper package imports only
the shared modules (and dpaudit's core), and :mod:`.comparison` sits on top of the papers. The
public names of every paper stay importable from here.
"""

from dpaudit.userlevel.baselines import (
    ClippedUserMeanGaussian,
    ClippedUserMeanLaplace,
    GroupPrivateItemMean,
)
from dpaudit.userlevel.comparison import plot_excess_risk_comparison
from dpaudit.userlevel.ghazi2023 import (
    DelOutputPert,
    ERMProblem,
    PhasedSCO,
    SCOutputPert,
    StronglyConvexERM,
    StronglyConvexSCO,
    ghazi2023_audit_cases,
)
from dpaudit.userlevel.ghazi2023 import (
    PhasedERM as Ghazi2023PhasedERM,
)
from dpaudit.userlevel.ghazi2025 import (
    ConcentrationTest,
    DiagonallyDominantQuadratic,
    LinearLoss,
    RobustGradientEstimator,
    RobustStatsLocalization,
    RobustStatsSGD,
    SeparableHuberLoss,
    StreamingAboveThreshold,
    check_ghazi2025_assumptions,
    concentration_score,
    ghazi2025_audit_cases,
    robust_gradient_estimate,
    robust_sgd_path,
)
from dpaudit.userlevel.levy2021 import (
    PhasedERM,
    PrivateRange,
    UserMeanEstimator,
    WinsorizedFirstOrder,
    WinsorizedMean1D,
    WinsorizedMeanHighD,
    levy_audit_cases,
)
from dpaudit.userlevel.losses import (
    AbsoluteLoss,
    HingeLoss,
    LogisticLoss,
    Loss,
    SquaredLoss,
    split_items,
)
from dpaudit.userlevel.lowy2024 import (
    AcceleratedMinibatchSGD,
    AcceleratedPhasedERM,
    MinibatchConcentrationTest,
    OutlierRemovalPhasedSGD,
    RandomizedSmoothing,
    lowy2024_audit_cases,
)
from dpaudit.userlevel.projections import clamp, project_box, project_l2_ball, project_linf_ball
from dpaudit.userlevel.robust_stats import CoordinateMedian, RobustStatistic, TrimmedMean

__all__ = [
    "AbsoluteLoss",
    "AcceleratedMinibatchSGD",
    "AcceleratedPhasedERM",
    "ClippedUserMeanGaussian",
    "ClippedUserMeanLaplace",
    "ConcentrationTest",
    "CoordinateMedian",
    "DelOutputPert",
    "DiagonallyDominantQuadratic",
    "ERMProblem",
    "Ghazi2023PhasedERM",
    "GroupPrivateItemMean",
    "HingeLoss",
    "LinearLoss",
    "LogisticLoss",
    "Loss",
    "MinibatchConcentrationTest",
    "OutlierRemovalPhasedSGD",
    "PhasedERM",
    "PhasedSCO",
    "PrivateRange",
    "RandomizedSmoothing",
    "RobustGradientEstimator",
    "RobustStatistic",
    "RobustStatsLocalization",
    "RobustStatsSGD",
    "SCOutputPert",
    "SeparableHuberLoss",
    "SquaredLoss",
    "StreamingAboveThreshold",
    "StronglyConvexERM",
    "StronglyConvexSCO",
    "TrimmedMean",
    "UserMeanEstimator",
    "WinsorizedFirstOrder",
    "WinsorizedMean1D",
    "WinsorizedMeanHighD",
    "check_ghazi2025_assumptions",
    "clamp",
    "concentration_score",
    "ghazi2023_audit_cases",
    "ghazi2025_audit_cases",
    "levy_audit_cases",
    "lowy2024_audit_cases",
    "plot_excess_risk_comparison",
    "project_box",
    "project_l2_ball",
    "project_linf_ball",
    "robust_gradient_estimate",
    "robust_sgd_path",
    "split_items",
]
