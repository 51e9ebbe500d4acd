"""Erratum A8: eta_s = eta (log m)^{-s} grows with s for m < e; eta_s = eta kappa^{-s} decreases.

eta_s = eta (log m)^{-s} (Alg 5 line 3) grows for m < e (and is undefined for m = 1), so phase 1's 6
beta eta_1 B <= 1 does not cover later phases (DISPROVED at m = 2); with eta_s = eta kappa^{-s},
kappa = max(ln m, 4), the steps decrease for every m >= 1 (PROVED) and the safe preset's steps
satisfy 6 beta eta_s B <= 1 (cross-checked).
"""

from __future__ import annotations

import itertools

import sympy as sp
from dpaudit.proofs.ghazi2025._preset import safe_parameters

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "ghazi2025/step_decay_printed"
CORRECTED = "ghazi2025/step_decay_kappa"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("Alg 5 line 3: eta_s = (log^{-s} m) eta, natural log")
    eta, m = sp.Integer(1), sp.Integer(2)
    eta1, eta2 = eta * sp.log(m) ** -1, eta * sp.log(m) ** -2
    proof.refute("m = 2: eta_2 = eta/ln(2)^2 > eta_1 = eta/ln 2 (the step grows)", {"m": 2, "eta_1/eta": eta1, "eta_2/eta": eta2},
                 eta1 - eta2)
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("kappa = max(ln m, 4), eta_s = eta kappa^{-s}, m >= 1, s >= 1")
    m = sp.Symbol("m", positive=True)
    kappa = sp.Max(sp.log(m), 4)
    eta, s = sp.Symbol("eta", positive=True), sp.Symbol("s", positive=True, integer=True)
    proof.nonneg("kappa >= 4 > 1", kappa - 4)
    w = sp.Symbol("w", nonnegative=True)  # kappa = 4 + w
    proof.nonneg("eta_s - eta_{s+1} = eta kappa^{-s} (1 - 1/kappa) >= 0", (eta * (4 + w) ** -s * (1 - 1 / (4 + w))))
    proof.nonneg("eta_s <= eta_1 <= eta/4 <= eta (so 6 beta eta_1 B <= 1 covers every phase)", eta - eta * (4 + w) ** -1)
    for cfg, params in safe_parameters():
        steps, b, beta = params.phase_step_sizes, params.batch_size, params.smoothness
        ok = all(a >= c for a, c in itertools.pairwise(steps)) and all(6 * beta * e * b <= 1 + 1e-12 for e in steps)
        proof.instance(f"implementation at {cfg}: eta_s non-increasing and 6 beta eta_s B <= 1 in every phase", ok,
                       point={"config": cfg, "eta_s": steps, "B": b, "beta": beta})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2025, Alg 5 line 3 (eta_s = (log^{-s} m) eta); note 2.7 A8 and pitfall P3",
        statement="(as printed) eta_s = eta (ln m)^{-s} is non-increasing in s for every m >= 2, so eta_s <= eta_1.",
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2025, Alg 5 with eta_s = eta kappa^{-s}, kappa = max(ln m, 4) (note 2.7 A8); RobustStatsLocalization.parameters",
        statement=("(corrected) With kappa = max(ln m, 4) >= 4, eta_s = eta kappa^{-s} is decreasing and at most eta/4 for every m >= 1; "
                   "the safe preset's eta_s (5 configurations) are non-increasing with 6 beta eta_s B <= 1 in every phase."),
        expected=Verdict.PROVED,
        papers=("ghazi2025",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
