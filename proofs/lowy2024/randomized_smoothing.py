"""Finding F2 (Lemma D.1, first bullet): the sandwich of the smoothed function is reversed.

'f_r(x) <= f(x) <= f_r(x) + L r' has the direction reversed (DISPROVED with f = |x|); for convex
L-Lipschitz f, f(x) <= f_r(x) <= f(x) + L r (PROVED).
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy import integrate

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "lowy2024/lemma_d1_smoothing_printed"
CORRECTED = "lowy2024/lemma_d1_smoothing_corrected"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("f_r(x) = E f(x + Y), Y uniform on the l_2 ball of radius r (Section 4 / App D)")
    y = sp.Symbol("y", real=True)
    r = sp.Integer(1)
    f_r0 = sp.integrate(sp.Abs(y), (y, -r, r)) / (2 * r)  # d = 1, x = 0, f = |x| (convex, 1-Lipschitz)
    proof.refute("f = |x|, d = 1, r = 1, x = 0: f_r(0) <= f(0) fails", {"f": "|x|", "d": 1, "r": 1, "x": 0, "f_r(0)": f_r0, "f(0)": 0},
                 0 - f_r0)
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.cite("Jensen's inequality", "f convex: E f(x + Y) >= f(x + E Y)")
    proof.assume("Lipschitz bound inside the expectation", "f(x + Y) - f(x) <= L ||Y||, so f_r(x) - f(x) <= L E||Y||")
    proof.given("Y uniform on B(0, r) in R^d")
    proof.assume("law of the uniform ball", "Y is symmetric (E Y = 0), and ||Y|| has density d rho^{d-1}/r^d on [0, r]")
    rho, r, d = sp.symbols("rho r d", positive=True)
    mean_norm = sp.integrate(rho * d * rho ** (d - 1) / r**d, (rho, 0, r))
    proof.equal("E||Y|| = r d/(d + 1)", mean_norm, r * d / (d + 1))
    proof.nonneg("r - r d/(d + 1) = r/(d + 1) >= 0, so f_r - f <= L E||Y|| <= L r", r - r * d / (d + 1))
    yv = sp.Symbol("y", real=True)
    proof.instance("E Y = 0 for d = 1 (the integral of y over [-r, r])", sp.integrate(yv, (yv, -r, r)) == 0, point={"d": 1})
    rng = proof.rng
    # name: (f, Lipschitz constant, kinks)
    funcs = {"|x|": (lambda x: abs(x), 1.0, (0.0,)), "hinge max(0, 1 - x)": (lambda x: max(0.0, 1.0 - x), 1.0, (1.0,)),
             "max(2x, -x/2, 1)": (lambda x: max(2 * x, -x / 2, 1.0), 2.0, (-2.0, 0.5))}
    low_gap, high_gap, where = [], [], []
    for name, (f, lip, kinks) in funcs.items():
        for _ in range(40):
            x0, rr = float(rng.uniform(-3, 3)), float(rng.uniform(0.05, 2.0))
            inside = [k - x0 for k in kinks if -rr < k - x0 < rr]
            val, _err = integrate.quad(lambda y, f=f, x0=x0: f(x0 + y), -rr, rr, points=inside or None, limit=200)
            f_r = val / (2 * rr)
            low_gap.append(f(x0) - f_r)
            high_gap.append(f_r - f(x0) - lip * rr)
            where.append(f"{name}, x={x0:.3f}, r={rr:.3f}")
    w = {"case": np.array(where)}
    proof.numeric_le("1-D quadrature: f(x) <= f_r(x) (3 convex functions, 40 seeded points each)", low_gap, 0.0, w, atol=1e-12)
    proof.numeric_le("1-D quadrature: f_r(x) <= f(x) + L r", high_gap, 0.0, w, atol=1e-12)
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Lowy et al. 2024, Lemma D.1 first bullet (randomized smoothing [YNS12, DBW12]); note finding F2",
        statement="(as printed) For convex L-Lipschitz f and its uniform-ball smoothing f_r: f_r(x) <= f(x) <= f_r(x) + L r for all x.",
        expected=Verdict.DISPROVED,
        papers=("lowy2024",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Lowy et al. 2024, Lemma D.1 first bullet with the direction corrected; note F2",
        statement="(corrected) For convex L-Lipschitz f and its uniform-ball smoothing f_r: f(x) <= f_r(x) <= f(x) + L r for all x.",
        expected=Verdict.PROVED,
        papers=("lowy2024",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
