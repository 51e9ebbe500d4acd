"""The papers' user-level algorithms, and the optimisation parts they share."""

from dpaudit.userlevel.losses import AbsoluteLoss, HingeLoss, LogisticLoss, Loss, SquaredLoss, split_items
from dpaudit.userlevel.projections import clamp, project_box, project_l2_ball, project_linf_ball

__all__ = [
    "AbsoluteLoss",
    "HingeLoss",
    "LogisticLoss",
    "Loss",
    "SquaredLoss",
    "clamp",
    "project_box",
    "project_l2_ball",
    "project_linf_ball",
    "split_items",
]
