"""The l2-ball projection written as an expression is PROVED 1-Lipschitz in l2 (dpaudit.verify.radial).

The route reduces the pair residual of a radial map ``x G(||x||)`` to the three numbers ``(||x||, ||y||, <x, y>)``
with Cauchy-Schwarz as a hypothesis; every step (the identity, Cauchy-Schwarz, the reduced inequality) is
decided by the kernel. Wrong constants and maps that are not nonexpansive are never PROVED.
"""

from __future__ import annotations

import pytest
import sympy as sp

from dpaudit.verify import lipschitz
from dpaudit.verify.radial import NORM_X, radial_factor

X1, X2, X3 = sp.symbols("x1 x2 x3", real=True)
R = sp.Symbol("r", positive=True)
NORM = sp.sqrt(X1**2 + X2**2)
AWAY_FROM_0 = [sp.Gt(X1**2 + X2**2, 0)]


def _map(factor: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    return X1 * factor, X2 * factor


def test_radial_factor_reads_the_common_factor_of_the_norm():
    assert radial_factor(_map(sp.Min(1, R / NORM)), [X1, X2]) == sp.Min(1, R / NORM_X)
    assert radial_factor(_map(R / sp.Max(R, NORM)), [X1, X2]) == R / sp.Max(R, NORM_X)
    # not radial: different factors, a factor that is not a function of the norm, components swapped
    assert radial_factor((X1 * sp.Min(1, R / NORM), X2), [X1, X2]) is None
    assert radial_factor(_map(sp.Min(1, R / sp.Abs(X1))), [X1, X2]) is None
    assert radial_factor((X2 * sp.Min(1, R / NORM), X1 * sp.Min(1, R / NORM)), [X1, X2]) is None
    assert radial_factor(_map(sp.Min(1, R / NORM)), [X1, X2, X3]) is None


def test_l2_ball_projection_is_proved_nonexpansive_with_its_steps_printed():
    result = lipschitz(_map(sp.Min(1, R / NORM)), 1, where=AWAY_FROM_0, variables=[X1, X2])
    assert result.proved, result.reason
    assert "given x1**2 + x2**2 > 0" in result.claim  # the domain actually covered is printed
    steps = result.details
    assert "Cauchy-Schwarz" in steps and "reduced residual" in steps and "identity" in steps, steps
    assert "unproved" not in steps and result.premises_text() == "", result.premises_text()


def test_wrong_constant_and_maps_that_expand_are_not_proved():
    half = lipschitz(_map(sp.Min(1, R / NORM)), sp.Rational(1, 2), where=AWAY_FROM_0, variables=[X1, X2])
    push_out = lipschitz(_map(sp.Max(1, R / NORM)), 1, where=AWAY_FROM_0, variables=[X1, X2])  # inside -> sphere
    double = lipschitz(_map(sp.Min(2, R / NORM)), 1, where=AWAY_FROM_0, variables=[X1, X2])  # 2x inside the ball
    for result in (half, push_out, double):
        assert result.disproved, result


@pytest.mark.slow
def test_projection_undefined_at_the_origin_is_not_proved_on_all_of_r2_but_its_max_form_is():
    """``x min(1, r/||x||)`` is 0 * min(1, r/0) at x = 0 (undefined as written): on R^2 it is not PROVED; the same
    map written ``x r / max(r, ||x||)`` is defined everywhere and PROVED on R^2."""
    assert not lipschitz(_map(sp.Min(1, R / NORM)), 1, variables=[X1, X2]).proved
    assert lipschitz(_map(R / sp.Max(R, NORM)), 1, variables=[X1, X2]).proved


def test_refutation_skips_case_points_where_the_map_is_undefined():
    """With r an input too (no variables=), the case split's points include ||x|| = 0, where sympy cannot even build
    Min(1, r/0): the refutation skips that point instead of crashing (a ValueError before)."""
    result = lipschitz(_map(sp.Min(1, R / NORM)), 1)
    assert not result.proved and not result.disproved
