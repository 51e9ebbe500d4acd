"""Report-noisy-max's pieces where a float "interior point" of an interval rounds onto its end.

:mod:`dpaudit.exact.selection` and :mod:`dpaudit.exact.noisy_max` integrate the noise's density and
CDF piece by piece between the answers. Which piece applies used to be read at a float point
inside the interval, ``0.5 * (lo + hi)`` or ``hi - 1.0``: between two adjacent floats the midpoint
rounds to ``hi``, and above ``2**53`` ``hi - 1.0 == hi``, so the wrong piece was integrated over
the whole interval (an "exact" epsilon of 0.246833 for 0.221309, laws summing to more than 1, or
an ``EnclosureError``). The reference is the law of two answers ``q_0 < q_1`` from the definition:
``P(argmax = 0) = P(Z_0 - Z_1 > x b)`` with ``x = (q_1 - q_0) / b``, and ``Z_0 - Z_1`` of density
``(1 + |t|) e^{-|t|} / 4`` for Laplace noise (tail ``(2 + x) e^{-x} / 4``) and ``e^{-|t|} / 2`` for
exponential noise (tail ``e^{-x} / 2``) [DR14, Claim 3.9], evaluated in mpmath at 60 digits with
``x`` exact.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb

from dpaudit.errors import EnclosureError
from dpaudit.exact.noisy_max import _Factors, _grid, noisy_max_value_profile
from dpaudit.exact.selection import _right_of, argmax_law, report_noisy_max_profile

ONE_UP = float(np.nextafter(1.0, 2.0))
TWO_UP = float(np.nextafter(ONE_UP, 2.0))
BIG = 2.0**60

#: (q_0, q_1, scale): adjacent floats (the midpoint rounds to q_1) at scales 1e-15 and 1e-16, and answers above
#: 2**53 (``q - 1.0 == q``).
CASES = [(ONE_UP, TWO_UP, 1e-15), (ONE_UP, TWO_UP, 1e-16), (BIG, BIG + 256.0, 100.0)]


def _first_wins(q0: float, q1: float, scale: float, noise: str) -> mpmath.mpf:
    """``P(q_0 + Z_0 > q_1 + Z_1)`` for ``q_0 <= q_1`` in closed form (module docstring), the gap exact."""
    ratio = (Fraction(q1) - Fraction(q0)) / Fraction(scale)
    assert ratio >= 0
    with mpmath.workdps(60):
        x = mpmath.mpf(ratio.numerator) / ratio.denominator
        return +((2 + x) * mpmath.exp(-x) / 4 if noise == "laplace" else mpmath.exp(-x) / 2)


def _ball_contains(ball: arb, truth: mpmath.mpf) -> bool:
    assert ball.rad() < 1e-12, ball  # a narrow ball: containing the truth is not for free
    with mpmath.workdps(60):
        lo, hi = mpmath.mpf(ball.lower().str(50, radius=False)), mpmath.mpf(ball.upper().str(50, radius=False))
        return lo - mpmath.mpf("1e-45") <= truth <= hi + mpmath.mpf("1e-45")  # slack for the 50-digit decimal ends


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
@pytest.mark.parametrize("case", CASES)
def test_argmax_law_contains_the_closed_form_and_sums_to_one(case, noise):
    q0, q1, scale = case
    law = argmax_law([q0, q1], scale, noise)
    first = _first_wins(q0, q1, scale, noise)
    assert _ball_contains(law[0], first), (case, noise, law, mpmath.nstr(first, 20))
    assert _ball_contains(law[1], 1 - first), (case, noise, law, mpmath.nstr(1 - first, 20))
    assert _ball_contains(law[0] + law[1], mpmath.mpf(1)), (case, noise, law)
    assert all(p > 0 for p in law), law  # certainly positive, not merely overlapping 0


@pytest.mark.parametrize("case", CASES)
def test_report_noisy_max_epsilon_is_the_closed_forms(case):
    """Swapped answers: ``epsilon(0) = ln((1 - p) / p)`` with ``p`` the first answer's chance (0.221309 at 1e-15)."""
    q0, q1, scale = case
    p = _first_wins(q0, q1, scale, "laplace")
    with mpmath.workdps(60):
        eps = float(mpmath.log((1 - p) / p))
    bracket = report_noisy_max_profile([q0, q1], [q1, q0], scale).epsilon(0.0)
    assert bracket.lower <= eps * (1 + 1e-15) and eps * (1 - 1e-15) <= bracket.upper, (case, bracket, eps)
    assert bracket.upper - bracket.lower < 1e-9, bracket


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
@pytest.mark.parametrize("case", CASES)
def test_noisy_max_with_index_branch_masses_are_the_closed_forms(case, noise):
    """The (index, value) release: each branch's cells add up to that index's chance of winning."""
    q0, q1, scale = case
    prof = noisy_max_value_profile([q0, q1], [q1, q0], scale, noise, with_index=True)
    first = _first_wins(q0, q1, scale, noise)
    lo, hi = prof.masses(0)
    n = prof.size // 2  # branch 0's cells, then branch 1's (both cover the same cells of positive mass here)
    for part, truth in ((slice(0, n), first), (slice(n, None), 1 - first)):
        low, high = math.fsum(lo[part]), math.fsum(hi[part])
        slack = 1e-15 * prof.size  # fsum of float bounds: one rounding of the sum and the cells' own
        assert low - slack <= float(truth) <= high + slack, (case, noise, low, high, mpmath.nstr(truth, 20))
        assert high - low < 1e-12, (low, high)


def _factor(kind: str, noise: str, y: mpmath.mpf, scale: mpmath.mpf) -> mpmath.mpf:
    """The noise's density (``"f"``) or CDF (``"F"``) at ``y``, from the definition."""
    if noise == "exponential":
        if y < 0:
            return mpmath.mpf(0)
        return mpmath.exp(-y / scale) / scale if kind == "f" else 1 - mpmath.exp(-y / scale)
    if kind == "f":
        return mpmath.exp(-abs(y) / scale) / (2 * scale)
    return mpmath.exp(y / scale) / 2 if y < 0 else 1 - mpmath.exp(-y / scale) / 2


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_value_release_cell_factors_enclose_the_noise_where_hi_minus_one_rounds(noise):
    """:class:`~dpaudit.exact.noisy_max._Factors` splits each factor on a cell as ``e^{mu x / b} h(x)`` with a range of ``h``.

    Above ``2**53`` the old interior point of ``(-inf, q]``, ``q - 1.0``, is ``q``: the factor was split as the right
    piece (the density as ``e^{-x/b}`` where it grows as ``e^{x/b}``, ``F``'s range ``[1/2, 1]`` where it is at
    most ``1/2``). Checked at exact points of every cell (ends,
    midpoints, a few scales past a finite end) against the definition at 60 digits.
    """
    answers, scale = [BIG, BIG + 2.0**52], 2.0**53  # q / scale = 128: every coefficient is a finite float
    factors = _Factors(noise, scale)
    with mpmath.workdps(60):
        b = mpmath.mpf(scale)
        for lo, hi in _grid(answers, scale):
            if math.isinf(lo):
                points = {Fraction(hi) - k * Fraction(scale) for k in (0, 1, 3)}
            elif math.isinf(hi):
                points = {Fraction(lo) + k * Fraction(scale) for k in (0, 1, 3)}
            else:
                points = {Fraction(lo), (Fraction(lo) + Fraction(hi)) / 2, Fraction(hi)}
            for kind in ("f", "F"):
                for q in answers:
                    mu, h = factors.split(kind, q, lo, hi)
                    for x in points:
                        xm = mpmath.mpf(x.numerator) / x.denominator
                        truth = _factor(kind, noise, xm - mpmath.mpf(q), b)
                        if h is None:  # zero inside the cell (an exponential density may jump at its end)
                            assert truth == 0 or x in {Fraction(e) for e in (lo, hi) if not math.isinf(e)}, (kind, q, lo, hi, x)
                            continue
                        grow = mpmath.exp(mu * xm / b)
                        low, high = grow * mpmath.mpf(h.lo), grow * mpmath.mpf(h.hi)
                        assert low * (1 - mpmath.mpf("1e-40")) <= truth <= high * (1 + mpmath.mpf("1e-40")), (
                            kind, q, lo, hi, float(x), mu, h, mpmath.nstr(truth, 20))


def test_an_interval_across_a_breakpoint_is_refused():
    """The side is read from the exact ends only when no breakpoint lies inside: otherwise an error, never a guess."""
    assert _right_of(ONE_UP, ONE_UP, TWO_UP) and not _right_of(TWO_UP, ONE_UP, TWO_UP)
    assert not _right_of(BIG, None, BIG) and _right_of(BIG, BIG, None)
    for lo, hi in ((1.0, TWO_UP), (None, TWO_UP), (1.0, None), (None, None)):
        with pytest.raises(EnclosureError, match="straddles"):
            _right_of(ONE_UP, lo, hi)
