"""Report-noisy-max: the exact law of the winning index.

With i.i.d. noise of density ``f`` and CDF ``F`` on the answers ``q``,
``P(argmax = i) = int f(x - q_i) prod_{j != i} F(x - q_j) dx`` (ties have probability 0). For
Laplace noise [DR14, Claim 3.9] and exponential noise [MS20; DKSSWXZ21] every factor is an
exponential polynomial in ``x`` between the points ``x = q_j``, so the integral is exact in Arb
(:mod:`dpaudit.exact.exppoly`). Gumbel noise gives the exponential mechanism's law,
``P(i) ∝ exp(q_i / scale)`` [MT07; DR14, Thm 3.10], in closed form
(:func:`~dpaudit.exact.closed_forms.exponential_mechanism_profile`).

References
----------
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
.. [MS20] R. McKenna and D. Sheldon. Permute-and-flip. NeurIPS 2020.
.. [DKSSWXZ21] Z. Ding et al. The permute-and-flip mechanism is identical to report-noisy-max
   with exponential noise. 2021.
.. [MT07] F. McSherry and K. Talwar. FOCS 2007.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from flint import arb

from dpaudit._validation import check_exact_float, check_exact_floats, check_one_of, check_positive
from dpaudit.errors import EnclosureError
from dpaudit.exact.enclosure import arb_of, precision
from dpaudit.exact.exppoly import ExpPoly
from dpaudit.exact.finite import FiniteProfile, finite_from_arbs

__all__ = ["argmax_law", "report_noisy_max_profile"]


def _pieces(scale: float, centre: float, lo: float | None, hi: float | None, noise: str) -> tuple[ExpPoly, ExpPoly]:
    """``(f(x - c), F(x - c))`` on the interval as exponential polynomials in ``x`` (one scale).

    The interval must not contain ``c`` inside (its ends may equal it): which piece applies is read
    from the exact ends (``x - c >= 0`` on the whole interval iff ``lo >= c``), never from a float
    interior point, which rounds onto an end between adjacent floats (then the other piece would be
    integrated over the whole interval).
    """
    scales = (scale,)
    b, c = arb_of(scale), arb_of(centre)
    positive = _right_of(centre, lo, hi)
    zero, one = ExpPoly(scales), ExpPoly.constant(scales, 1)
    if noise == "laplace":
        if positive:  # f = e^{-(x-c)/b}/2b, F = 1 - e^{-(x-c)/b}/2
            tail = ExpPoly.exponential(scales, 0, -1, (c / b).exp())
            return tail.scaled(1 / (2 * b)), one + tail.scaled(arb(-1) / 2)
        head = ExpPoly.exponential(scales, 0, 1, (-c / b).exp())  # f = e^{(x-c)/b}/2b, F = e^{(x-c)/b}/2
        return head.scaled(1 / (2 * b)), head.scaled(arb(1) / 2)
    if not positive:  # exponential noise: nothing below its centre
        return zero, zero
    tail = ExpPoly.exponential(scales, 0, -1, (c / b).exp())
    return tail.scaled(1 / b), one + tail.scaled(arb(-1))


def _right_of(centre: float, lo: float | None, hi: float | None) -> bool:
    """Whether the interval ``[lo, hi]`` (``None``: infinite end) lies right of ``centre`` (else left of it), exactly."""
    low = None if lo is None or math.isinf(lo) else Fraction(lo)
    high = None if hi is None or math.isinf(hi) else Fraction(hi)
    c = Fraction(centre)
    if (low is None or low < c) and (high is None or high > c):
        raise EnclosureError(f"the interval [{lo}, {hi}] straddles the breakpoint {centre}: the noise's pieces are split there")
    return low is not None and low >= c


def argmax_law(queries: Sequence[float], scale: float, noise: str = "laplace") -> list[arb]:
    """Arb balls of ``P(argmax_i (q_i + Z_i) = i)`` for i.i.d. ``Z`` of ``scale`` (``"laplace"`` or ``"exponential"``)."""
    noise = check_one_of("argmax_law", "noise", noise, ("laplace", "exponential"))
    q = check_exact_floats("argmax_law", "queries", queries)  # refused, not rounded, when no float64 holds them
    scale = check_positive("argmax_law", "scale", check_exact_float("argmax_law", "scale", scale))
    cuts = sorted(set(q))
    intervals = list(zip([None, *cuts], [*cuts, None], strict=True))
    with precision():
        parts = {c: [_pieces(scale, c, lo, hi, noise) for lo, hi in intervals] for c in cuts}
        law = []
        for i, qi in enumerate(q):
            total = arb(0)
            for j, (lo, hi) in enumerate(intervals):
                poly = parts[qi][j][0]
                for k, qk in enumerate(q):
                    if k != i:
                        poly = poly * parts[qk][j][1]
                if not poly.is_zero():
                    total += poly.integrate(lo, hi)
            law.append(total)
        return law


def report_noisy_max_profile(q0: Sequence[float], q1: Sequence[float], scale: float, noise: str = "laplace") -> FiniteProfile:
    """The exact profile of report-noisy-max (the index) on the answer vectors ``q0``, ``q1``.

    Every number is read as the float it equals (:func:`dpaudit._validation.check_exact_float`).
    """
    owner = "report_noisy_max_profile"
    q0, q1 = check_exact_floats(owner, "q0", q0), check_exact_floats(owner, "q1", q1)
    scale = check_positive(owner, "scale", check_exact_float(owner, "scale", scale))
    with precision():
        return finite_from_arbs(argmax_law(q0, scale, noise), argmax_law(q1, scale, noise), labels=[str(i) for i in range(len(q0))],
                                description=f"report-noisy-max, {noise} noise of scale {scale:g}, {len(q0)} queries")
