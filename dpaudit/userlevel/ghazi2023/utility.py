"""Utility of Ghazi et al. (2023)'s algorithms on problems whose optimum is known exactly.

The instance is one-dimensional mean estimation with the shared squared loss: items ``(x, y) = (1, y)``,
``l(theta; z) = (theta - y)^2 / 2``, labels ``y = location + U[-spread, spread]`` i.i.d., and
``K = [-radius, radius]`` containing every minimiser. With the regulariser ``(l2/2) theta^2``:

* the empirical minimiser is ``y_bar / (1 + l2)`` and the excess empirical risk of any ``theta`` is
  exactly ``(1 + l2)(theta - theta*)^2 / 2`` (a quadratic);
* without a regulariser the population minimiser is ``location`` and the excess population risk is
  exactly ``(theta - location)^2 / 2``.

The rates compared with (all up to the polylogarithmic factors that ``O~_eps`` hides):

* SCOutputPert (Thm 3.1 through Thm 4.3's first step): noise ``sigma ∝ Delta ∝ 1/(n sqrt(m))``, so
  excess empirical risk ``∝ d/(n^2 m)``: slopes -2 in ``n`` and -1 in ``m``;
* Phased-SCO (Thm 5.1): ``RG (sqrt(d)/(n sqrt(m)) + 1/sqrt(nm))``: slope -1/2 in ``m``. Its proof leaves a
  last-phase term ``G sqrt(d) sigma_T`` that does not decrease with ``m`` (erratum E8(c)):
  :func:`last_phase_sigma` reads it from the mechanism's own resolved phases.

Slopes are fitted with the shared :func:`dpaudit.userlevel.comparison.fit_log_slope` (in the tests and
benchmarks, which sit above the paper packages).

References
----------
.. [GKKMMZ23] B. Ghazi, P. Kamath, R. Kumar, R. Meka, P. Manurangsi and C. Zhang. On user-level
   private convex optimization. ICML 2023, Thms 3.1, 4.3, 5.1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_int, check_nonnegative, check_positive
from dpaudit.userlevel.ghazi2023.erm import ERMProblem
from dpaudit.userlevel.ghazi2023.phased import PhasedSCO
from dpaudit.userlevel.losses import SquaredLoss

__all__ = ["MeanProblem", "last_phase_sigma"]


@dataclass(frozen=True)
class MeanProblem:
    """1-d mean estimation with the squared loss (see the module docstring)."""

    location: float = 0.25
    spread: float = 0.5
    radius: float = 1.0
    l2: float = 1.0

    def __post_init__(self) -> None:
        check_nonnegative("MeanProblem", "l2", self.l2)
        check_positive("MeanProblem", "spread", self.spread)
        if abs(self.location) + self.spread > self.radius:
            raise argument_error("MeanProblem", "location", f"such that |location| + spread <= radius = {self.radius} "
                                 f"(the minimisers interior); spread = {self.spread}", self.location)

    @property
    def label_bound(self) -> float:
        """The largest label: ``|location| + spread``."""
        return abs(self.location) + self.spread

    def erm(self) -> ERMProblem:
        """The problem as an :class:`ERMProblem` (squared loss, unit features, this label bound and ``l2``)."""
        return ERMProblem(SquaredLoss(), radius=self.radius, feature_bound=1.0, label_bound=self.label_bound, l2=self.l2)

    def sample(self, n_users: int, m_items: int, rng: np.random.Generator) -> NDArray[np.float64]:
        """``(n, m, 2)`` items ``(1, y)``."""
        n = check_int("MeanProblem.sample", "n_users", n_users, minimum=1)
        m = check_int("MeanProblem.sample", "m_items", m_items, minimum=1)
        data = np.empty((n, m, 2))
        data[..., 0] = 1.0
        data[..., 1] = self.location + rng.uniform(-self.spread, self.spread, size=(n, m))
        return data

    def empirical_minimiser(self, data: NDArray[np.float64]) -> float:
        """``argmin (1/N) sum (theta - y)^2/2 + (l2/2) theta^2 = y_bar / (1 + l2)`` (interior of K here)."""
        return float(np.mean(data[..., 1]) / (1.0 + self.l2))

    def excess_empirical_risk(self, data: NDArray[np.float64], theta: NDArray[np.float64]) -> NDArray[np.float64]:
        """``F(theta) - F(theta*) = (1 + l2)(theta - theta*)^2 / 2``, exactly (F is a quadratic)."""
        return 0.5 * (1.0 + self.l2) * (np.asarray(theta, dtype=float) - self.empirical_minimiser(data)) ** 2

    def excess_population_risk(self, theta: NDArray[np.float64]) -> NDArray[np.float64]:
        """Unregularised population risk: ``E (theta - y)^2/2`` minus its minimum: ``(theta - location)^2 / 2``."""
        return 0.5 * (np.asarray(theta, dtype=float) - self.location) ** 2


def last_phase_sigma(mechanism: PhasedSCO, n_users: int, m_items: int, dim: int = 1) -> float:
    """sigma of Phased-SCO's last SCOutputPert call, in the user's units (from the mechanism's resolved phases)."""
    calls = mechanism.calls(n_users, m_items, dim)
    return calls[-1].spec.sigma
