"""The four papers, all their bounds, and all checks, in one place.

:data:`PAPERS` lists the encoded papers; :func:`all_bounds` and :func:`find_bound` look bounds up;
:func:`all_checks` lists every check (the papers' re-derivations, calibrations and composition
steps, plus the generic calibration checks of :mod:`dpaudit.bounds.calibration`);
:func:`run_checks` runs them, each with its own generator derived from one root seed and the
check's name, so a check's result does not depend on which other checks ran.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np
import sympy as sp

from dpaudit._validation import argument_error, check_int
from dpaudit.bounds import calibration, ghazi2023, ghazi2025, levy2021, lowy2024
from dpaudit.bounds.checks import CheckSpec
from dpaudit.bounds.symbols import epsilon
from dpaudit.bounds.theorem import Bound, Paper
from dpaudit.bounds.verdict import CheckResult

__all__ = ["CALIBRATION_CHECKS", "PAPERS", "all_bounds", "all_checks", "find_bound", "run_checks"]

PAPERS: tuple[Paper, ...] = (levy2021.PAPER, ghazi2023.PAPER, lowy2024.PAPER, ghazi2025.PAPER)
"""The encoded papers, in chronological order."""

CALIBRATION_CHECKS: tuple[CheckSpec, ...] = (
    CheckSpec("calibration.laplace", "calibration", "Laplace scale Delta/eps is eps-DP [DR14, Thm 3.6]",
              lambda rng: calibration.check_laplace_calibration(rng=rng)),
    CheckSpec("calibration.gaussian_classical", "calibration",
              "classical Gaussian sigma, eps < 1, vs accounting and the exact curve [DR14, Thm A.1]",
              lambda rng: calibration.check_gaussian_classical(rng=rng)),
    CheckSpec("calibration.gaussian_classical_large_eps", "calibration",
              "classical Gaussian sigma outside its hypothesis, 1 <= eps <= 20 [DR14, Thm A.1]",
              lambda rng: calibration.check_gaussian_classical(rng=rng, eps_range=(1.0, 20.0))),
    CheckSpec("calibration.gaussian_analytic", "calibration",
              "accounting's analytic Gaussian sigma: safe, tight, equal to an independent bisection [BW18, Thm 8]",
              lambda rng: calibration.check_analytic_gaussian(rng=rng)),
    CheckSpec("calibration.gdp", "calibration", "GDP -> (eps, delta) [DRS19, Cor 2.13] vs accounting",
              lambda rng: calibration.check_gdp_conversion(rng=rng)),
    CheckSpec("calibration.advanced_composition", "composition", "advanced composition [DR14, Thm 3.20] vs accounting",
              lambda rng: calibration.check_advanced_composition(rng=rng)),
    CheckSpec("calibration.above_threshold", "calibration",
              "AboveThreshold Lap(2/eps), Lap(4/eps) on sensitivity-1 queries is eps-DP [DR14, Thm 3.23]",
              lambda rng: calibration.check_above_threshold(
                  sensitivity=sp.Integer(1), threshold_scale=2 / epsilon, query_scale=4 / epsilon, budget=epsilon,
                  claim="AboveThreshold (Lap(2/eps), Lap(4/eps), sensitivity 1) is eps-DP", source="[DR14, Thm 3.23]",
                  rng=rng, region={epsilon: (0.05, 5.0)})),
)



def all_bounds() -> tuple[Bound, ...]:
    """Every bound of every encoded paper."""
    return tuple(b for paper in PAPERS for b in paper.bounds())


def find_bound(name: str) -> Bound:
    """The bound with the given name (e.g. ``"levy2021.thm4.risk"``).

    Raises
    ------
    InvalidArgument
        If no bound has that name.
    """
    for b in all_bounds():
        if b.name == name:
            return b
    raise argument_error("find_bound", "name", "the name of an encoded bound (see all_bounds())", name)


def all_checks() -> tuple[CheckSpec, ...]:
    """Every check: generic calibrations first, then each paper's checks."""
    return CALIBRATION_CHECKS + levy2021.CHECKS + ghazi2023.CHECKS + lowy2024.CHECKS + ghazi2025.CHECKS


def run_checks(*, seed: int = 0, only: Sequence[str] | None = None) -> list[tuple[CheckSpec, CheckResult]]:
    """Run the checks (all, or those whose name contains one of the ``only`` substrings).

    Parameters
    ----------
    seed : int
        Root seed. Check ``name`` draws its random points from
        ``np.random.default_rng([seed, crc32(name)])``.
    only : sequence of str, optional
        Substring filters on check names.

    Returns
    -------
    list of (CheckSpec, CheckResult)
    """
    seed = check_int("run_checks", "seed", seed, minimum=0)
    specs = all_checks()
    if only is not None:
        if isinstance(only, str):
            raise argument_error("run_checks", "only", "a sequence of substrings (not a single string)", only)
        specs = tuple(s for s in specs if any(part in s.name for part in only))
    out = []
    for spec in specs:
        rng = np.random.default_rng([seed, zlib.crc32(spec.name.encode())])
        out.append((spec, spec(rng=rng)))
    return out
