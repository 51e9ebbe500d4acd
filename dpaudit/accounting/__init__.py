"""Calibration, conversion and composition (pessimistic rounding by default)."""

from dpaudit.accounting.calibrate import (
    gaussian_sigma_analytic,
    gaussian_sigma_classical,
    laplace_scale,
    round_up,
)
from dpaudit.accounting.composition import advanced_composition, basic_composition
from dpaudit.accounting.conversions import (
    analytic_gaussian_delta,
    gdp_delta,
    gdp_epsilon,
    gdp_mu_from_rates,
)

__all__ = [
    "advanced_composition",
    "analytic_gaussian_delta",
    "basic_composition",
    "gaussian_sigma_analytic",
    "gaussian_sigma_classical",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_mu_from_rates",
    "laplace_scale",
    "round_up",
]
