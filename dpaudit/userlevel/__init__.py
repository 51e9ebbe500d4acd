"""The papers' user-level algorithms, one package per paper, and the parts they share.

========================  ==================================================================
where                     what
========================  ==================================================================
:mod:`.levy2021`          Levy et al. 2021: winsorized means, PrivateRange, Phased ERM
:mod:`.ghazi2025`         Ghazi et al. 2025: robust-statistics SGD and localization
:mod:`.losses`            per-item losses of linear predictors (shared)
:mod:`.projections`       projections onto boxes and balls (shared)
:mod:`.robust_stats`      coordinate-wise median and trimmed mean (shared)
:mod:`.hadamard`          the fast Walsh-Hadamard transform and random rotations (shared)
:mod:`.baselines`         naive user-level baselines: clipped user means, group privacy (shared)
:mod:`.comparison`        utility across papers on one instance with a known optimum
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
from dpaudit.userlevel.projections import clamp, project_box, project_l2_ball, project_linf_ball
from dpaudit.userlevel.robust_stats import CoordinateMedian, RobustStatistic, TrimmedMean

__all__ = [
    "AbsoluteLoss",
    "ClippedUserMeanGaussian",
    "ClippedUserMeanLaplace",
    "ConcentrationTest",
    "CoordinateMedian",
    "DiagonallyDominantQuadratic",
    "GroupPrivateItemMean",
    "HingeLoss",
    "LinearLoss",
    "LogisticLoss",
    "Loss",
    "PhasedERM",
    "PrivateRange",
    "RobustGradientEstimator",
    "RobustStatistic",
    "RobustStatsLocalization",
    "RobustStatsSGD",
    "SeparableHuberLoss",
    "SquaredLoss",
    "StreamingAboveThreshold",
    "TrimmedMean",
    "UserMeanEstimator",
    "WinsorizedFirstOrder",
    "WinsorizedMean1D",
    "WinsorizedMeanHighD",
    "check_ghazi2025_assumptions",
    "clamp",
    "concentration_score",
    "ghazi2025_audit_cases",
    "levy_audit_cases",
    "plot_excess_risk_comparison",
    "project_box",
    "project_l2_ball",
    "project_linf_ball",
    "robust_gradient_estimate",
    "robust_sgd_path",
    "split_items",
]
