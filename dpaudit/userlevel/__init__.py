"""The papers' user-level algorithms, and the optimisation parts they share."""

from dpaudit.userlevel.ghazi2025 import (  # Ghazi et al. 2025 (issue 6)
    ConcentrationTest,
    RobustGradientEstimator,
    RobustStatsLocalization,
    RobustStatsSGD,
    StreamingAboveThreshold,
    concentration_score,
    robust_gradient_estimate,
    robust_sgd_path,
)
from dpaudit.userlevel.ghazi2025_audit import ghazi2025_audit_cases  # Ghazi et al. 2025 (issue 6)
from dpaudit.userlevel.ghazi2025_compare import (
    plot_excess_risk_comparison,  # Ghazi et al. 2025 (issue 6)
)
from dpaudit.userlevel.ghazi2025_losses import (  # Ghazi et al. 2025 (issue 6)
    DiagonallyDominantQuadratic,
    LinearLoss,
    SeparableHuberLoss,
    check_ghazi2025_assumptions,
)
from dpaudit.userlevel.levy import PhasedERM, WinsorizedFirstOrder  # Levy et al. 2021 (issue 4)
from dpaudit.userlevel.losses import (
    AbsoluteLoss,
    HingeLoss,
    LogisticLoss,
    Loss,
    SquaredLoss,
    split_items,
)
from dpaudit.userlevel.private_range import PrivateRange  # Levy et al. 2021 (issue 4)
from dpaudit.userlevel.projections import clamp, project_box, project_l2_ball, project_linf_ball
from dpaudit.userlevel.robust_stats import (  # Ghazi et al. 2025 (issue 6)
    CoordinateMedian,
    RobustStatistic,
    TrimmedMean,
)
from dpaudit.userlevel.winsorized import (  # Levy et al. 2021 (issue 4)
    UserMeanEstimator,
    WinsorizedMean1D,
    WinsorizedMeanHighD,
)

__all__ = [
    "AbsoluteLoss",
    "ConcentrationTest",
    "CoordinateMedian",
    "DiagonallyDominantQuadratic",
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
    "plot_excess_risk_comparison",
    "project_box",
    "project_l2_ball",
    "project_linf_ball",
    "robust_gradient_estimate",
    "robust_sgd_path",
    "split_items",
]
