"""Optional cross-check against the independent ``dp-accounting`` library (the ``crosscheck`` extra).

The analytic Gaussian sigma [BW18, Thm 8] and the GDP -> (epsilon, delta) conversion [DRS19, Cor 2.13]
are computed three ways: from the sympy closed forms of :mod:`dpaudit.bounds.calibration`
(mpmath bisection), by :mod:`dpaudit.accounting` (scipy), and by dp_accounting. mu-GDP is the
Gaussian mechanism with sensitivity/sigma = mu, so dp_accounting's ``get_epsilon_gaussian`` with
``sigma = 1/mu`` gives the GDP epsilon. Required agreement: relative 1e-6.
"""

from __future__ import annotations

import pytest

from dpaudit import accounting
from dpaudit.bounds import calibration as cal

dp_accounting = pytest.importorskip("dp_accounting")

pytestmark = pytest.mark.crosscheck

TOL = 1e-6


@pytest.mark.parametrize(("eps", "delta", "reference"), [
    (0.1, 1e-5, 30.7496), (0.5, 1e-5, 7.0318), (1.0, 1e-5, 3.7306), (2.0, 1e-5, 1.9938),
    (4.0, 1e-5, 1.0812), (8.0, 1e-5, 0.6002), (1.0, 1e-6, 4.2247),
])
def test_analytic_gaussian_sigma_matches_dp_accounting(eps, delta, reference):
    theirs = dp_accounting.get_sigma_gaussian(eps, delta)
    ours = cal.analytic_gaussian_sigma(eps, delta)
    acc = accounting.gaussian_sigma_analytic(1.0, eps, delta)
    assert ours == pytest.approx(theirs, rel=TOL)
    assert acc == pytest.approx(theirs, rel=TOL)
    assert theirs == pytest.approx(reference, abs=6e-5)


@pytest.mark.parametrize(("mu", "reference"), [(0.5, 1.993), (1.0, 4.377), (2.0, 9.997)])
def test_gdp_epsilon_matches_dp_accounting(mu, reference):
    delta = 1e-5
    theirs = dp_accounting.get_epsilon_gaussian(1.0 / mu, delta)
    ours = cal.gdp_epsilon_from_curve(mu, delta)
    acc = accounting.gdp_epsilon(mu, delta)
    assert ours == pytest.approx(theirs, rel=TOL)
    assert acc == pytest.approx(theirs, rel=TOL)
    assert theirs == pytest.approx(reference, abs=6e-4)


def test_random_points_agree_with_dp_accounting(rng):
    for _ in range(10):
        eps = float(rng.uniform(0.05, 6.0))
        delta = float(10 ** rng.uniform(-10, -2))
        assert cal.analytic_gaussian_sigma(eps, delta) == pytest.approx(dp_accounting.get_sigma_gaussian(eps, delta), rel=TOL)
        mu = float(rng.uniform(0.1, 4.0))
        assert cal.gdp_epsilon_from_curve(mu, delta) == pytest.approx(
            dp_accounting.get_epsilon_gaussian(1.0 / mu, delta), rel=TOL, abs=1e-9)
