"""PrivateRange width: the printed 4 tau interval can clip concentrated points; 6 tau cannot.

The interval [c - 2 tau, c + 2 tau] around a non-empty bin can clip concentrated points (printed |b
- a| = 4 tau, DISPROVED); [c - 3 tau, c + 3 tau] always contains them (PROVED).
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from dpaudit.proofs.levy2021.private_range_failure_term import bin_counts

from dpaudit.mechanisms.selection import ExponentialMechanism
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Region, Verdict

PRINTED = "levy2021/private_range_width_4tau"
CORRECTED = "levy2021/private_range_width_6tau"
_SETUP = ("[DERIVED] reconstruction of Alg 6 (not in the seed): bins of width 2 tau with midpoints c_k tiling [-B, B]; "
          "the output interval is centred at the chosen bin's midpoint")


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given(_SETUP, "data (tau, gamma)-concentrated: every point within tau of some x_0 (Def 2)")
    tau = sp.Integer(1)
    x0 = sp.Rational(299, 100)
    pts = {sp.Rational(1991, 1000): 60, sp.Rational(399, 100): 40}
    c = sp.Integer(1)  # chosen bin [0, 2): midpoint 1, non-empty (holds the 60 points at 1.991)
    outside = sp.Rational(399, 100)
    proof.refute("tau = 1, bin [0, 2) (c = 1, non-empty), 40 of 100 points at 3.99 outside [c - 2, c + 2] = [-1, 3]",
                 {"tau": 1, "x_0": "2.99", "points": "60 x 1.991, 40 x 3.99", "chosen bin": "[0, 2)", "interval": "[-1, 3]"},
                 (c + 2 * tau) - outside,
                 conditions={"tau-concentrated around x_0 = 2.99": all(abs(p - x0) <= tau for p in pts),
                             "the bin [0, 2) holds a point": any(0 <= p < 2 for p in pts)})
    x = np.array([1.991] * 60 + [3.99] * 40)
    counts = bin_counts(x, 1.0, 4.0)
    p = ExponentialMechanism(epsilon=0.5, sensitivity=1.0).probabilities(counts)
    proof.numeric_le("this bin is the EM's likely pick (eps = 1: P(bin [0, 2)) >= 0.99)", 0.99, float(p[2]),
                     {"counts": counts.tolist()})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given(_SETUP, "data within tau of x_0; the chosen bin holds a point p, so |p - c| <= tau (half-width of the bin)")
    tau = sp.Symbol("tau", positive=True)
    # q - c = (q - x0) + (x0 - p) + (p - c) = e1 + e2 + e3 with each |e_i| <= tau
    e1, e2, e3 = sp.symbols("e1 e2 e3", real=True)
    bounds = [sp.Le(e, tau) for e in (e1, e2, e3)] + [sp.Le(-tau, e) for e in (e1, e2, e3)]
    upper = Region.where("e_i <= tau", *bounds[:3])
    lower = Region.where("e_i >= -tau", *bounds[3:])
    proof.cases("q - c <= 3 tau", 3 * tau - (e1 + e2 + e3), [upper], domain=bounds[:3])
    proof.cases("q - c >= -3 tau", 3 * tau + (e1 + e2 + e3), [lower], domain=bounds[3:])
    rng = proof.rng
    gaps, width = [], []
    for _ in range(400):
        tau_ = float(rng.uniform(0.1, 2.0))
        big = float(rng.uniform(4.0, 20.0))
        x0 = float(rng.uniform(-big + tau_, big - tau_))
        x = x0 + rng.uniform(-tau_, tau_, size=int(rng.integers(1, 60)))
        counts = bin_counts(x, tau_, big)
        mids = -big + 2 * tau_ * (np.arange(counts.size) + 0.5)
        for k in np.flatnonzero(counts):
            gaps.append(float(np.max(np.abs(x - mids[k]))))
            width.append(3 * tau_)
    proof.numeric_le("every point within 3 tau of any non-empty bin's midpoint (400 seeded samples)", gaps, width,
                     {"case": np.arange(len(gaps))})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Levy et al. 2021, Alg 1 line 1 / Thm 1 (PrivateRange returns [a, b] with |b - a| = 4 tau); note ALG-A [DERIVED]",
        statement=("(as printed, for the bin-EM construction) If the data are tau-concentrated and the chosen bin is non-empty, "
                   "[c - 2 tau, c + 2 tau] (width 4 tau) contains every data point."),
        expected=Verdict.DISPROVED,
        papers=("levy2021",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Levy et al. 2021 note ALG-A, safe mode (width 6 tau, Laplace 12 tau/(n eps))",
        statement=("(corrected) If the data are tau-concentrated and the chosen bin (width 2 tau, midpoint c) is non-empty, "
                   "[c - 3 tau, c + 3 tau] contains every data point."),
        expected=Verdict.PROVED,
        papers=("levy2021",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
