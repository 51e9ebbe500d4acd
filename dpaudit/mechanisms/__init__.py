"""Primitive mechanisms (and, in :mod:`dpaudit.mechanisms.faulty`, deliberately broken ones)."""

from dpaudit.mechanisms.base import MechanismBase, UnsafeMechanism
from dpaudit.mechanisms.discrete import (
    DiscreteLaplaceMechanism,
    TruncatedDiscreteLaplaceMechanism,
    sample_tdlap,
    tdlap_kappa,
    tdlap_pmf,
)
from dpaudit.mechanisms.gaussian import GaussianMechanism
from dpaudit.mechanisms.laplace import LaplaceMechanism
from dpaudit.mechanisms.randomized_response import RandomizedResponse
from dpaudit.mechanisms.selection import ExponentialMechanism, ReportNoisyMax
from dpaudit.mechanisms.sparse_vector import AboveThreshold, SparseVector

__all__ = [
    "AboveThreshold",
    "DiscreteLaplaceMechanism",
    "ExponentialMechanism",
    "GaussianMechanism",
    "LaplaceMechanism",
    "MechanismBase",
    "RandomizedResponse",
    "ReportNoisyMax",
    "SparseVector",
    "TruncatedDiscreteLaplaceMechanism",
    "UnsafeMechanism",
    "sample_tdlap",
    "tdlap_kappa",
    "tdlap_pmf",
]
