"""Symbolic verification of the papers' bounds (sympy), with three-valued verdicts.

* :mod:`~dpaudit.bounds.symbols`: canonical symbols with their domains.
* :mod:`~dpaudit.bounds.theorem`: frozen :class:`Bound`, :class:`Theorem`, :class:`Paper` objects.
* :mod:`~dpaudit.bounds.levy2021`, :mod:`~dpaudit.bounds.ghazi2023`, :mod:`~dpaudit.bounds.lowy2024`,
  :mod:`~dpaudit.bounds.ghazi2025`: each paper's results, re-derivation and calibration checks.
* :func:`evaluate` (numbers), :func:`leading_rate` and :func:`compare_rates` (rates),
  :func:`check_identity`, :func:`check_inequality`, :func:`check_rate` (check engines),
  :mod:`~dpaudit.bounds.calibration` (Laplace, Gaussian, GDP, composition; AboveThreshold from
  :mod:`~dpaudit.bounds.above_threshold`, re-exported),
  :func:`run_checks` (everything), :func:`build_table` / :func:`render_table` (``dpaudit bounds``).
"""

from dpaudit.bounds.checks import CheckSpec, check_identity, check_inequality, random_points
from dpaudit.bounds.evaluate import evaluate
from dpaudit.bounds.rate_checks import check_rate
from dpaudit.bounds.rate_comparison import RateComparison, compare_rates
from dpaudit.bounds.rate_format import format_rate
from dpaudit.bounds.rates import Monomial, Rate, RateError, leading_rate
from dpaudit.bounds.registry import PAPERS, all_bounds, all_checks, find_bound, run_checks
from dpaudit.bounds.symbols import RATE_VARIABLES, SYMBOLS, SymbolInfo
from dpaudit.bounds.table import build_table, render_table
from dpaudit.bounds.theorem import Bound, Citation, Condition, Kind, Paper, Quantity, Theorem
from dpaudit.bounds.verdict import CheckResult, Verdict, combine_verdicts, verdict_from_sympy

__all__ = [
    "PAPERS",
    "RATE_VARIABLES",
    "SYMBOLS",
    "Bound",
    "CheckResult",
    "CheckSpec",
    "Citation",
    "Condition",
    "Kind",
    "Monomial",
    "Paper",
    "Quantity",
    "Rate",
    "RateComparison",
    "RateError",
    "SymbolInfo",
    "Theorem",
    "Verdict",
    "all_bounds",
    "all_checks",
    "build_table",
    "check_identity",
    "check_inequality",
    "check_rate",
    "combine_verdicts",
    "compare_rates",
    "evaluate",
    "find_bound",
    "format_rate",
    "leading_rate",
    "random_points",
    "render_table",
    "run_checks",
    "verdict_from_sympy",
]
