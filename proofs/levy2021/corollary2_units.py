"""Cor 2's condition on n and its T are not unit-consistent as printed; the dimensionless reading is.

n = Omega~(sqrt(dH)/mu) compares a count with (loss/theta^2)^{-1/2}, and T = (H/mu) log(n^2 m
(G/Gt)^2 mu R eps^2/d) takes a log of a gradient-sized quantity: DISPROVED. Read as n =
Omega~(sqrt(dH/mu)/eps) and with the log's argument D^2/tol = G^2 n^2 m eps^2/(sigma^2 d^2) (what
PhasedERM uses), both are dimensionless (PROVED).
"""

from __future__ import annotations

import sympy as sp
from dpaudit.proofs._units import C, L, scaling_exponents

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "levy2021/corollary2_units_printed"
CORRECTED = "levy2021/corollary2_units_corrected"

R, H, G, sigma, mu, d, n, m, eps = sp.symbols("R H G sigma mu d n m epsilon", positive=True)
Gt = sigma * sp.sqrt(d)
#: theta -> c theta, loss -> a loss (see levy2021/thm3_units)
SCALING = {R: C * R, H: L * H / C**2, mu: L * mu / C**2, G: L * G / C, sigma: L * sigma / C}


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.assume("invariance under units", "a count (n) and the argument of a log are dimensionless in a statement valid for all instances")
    for label, term in {"sqrt(dH)/mu (compared with n)": sp.sqrt(d * H) / mu,
                        "n^2 m (G/Gt)^2 mu R eps^2/d (inside T's log)": n**2 * m * (G / Gt) ** 2 * mu * R * eps**2 / d}.items():
        exps = scaling_exponents(term, SCALING)
        assert exps is not None
        proof.refute(f"{label}: exponents (loss, theta) vs (0, 0)", {"term": str(term), "loss exponent": exps[0], "theta exponent": exps[1]},
                     -(sp.Abs(exps[0]) + sp.Abs(exps[1])), method="sympy")
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.assume("invariance under units", "a count (n) and the argument of a log are dimensionless in a statement valid for all instances")
    tol = sigma**2 * d**2 / (mu**2 * n**2 * m * eps**2)  # Cor 2's accuracy
    for label, term in {"sqrt(dH/mu)/eps": sp.sqrt(d * H / mu) / eps, "D^2/tol with D = G/mu": (G / mu) ** 2 / tol}.items():
        proof.equal(f"{label} is invariant under theta -> c theta, loss -> a loss", term.subs(SCALING, simultaneous=True) / term, 1)
    proof.equal("D^2/tol = G^2 n^2 m eps^2/(sigma^2 d^2)", (G / mu) ** 2 / tol, G**2 * n**2 * m * eps**2 / (sigma**2 * d**2))
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Levy et al. 2021, Cor 2 (n = Omega~(sqrt(dH)/mu), T = (H/mu) log(n^2 m (G/Gt)^2 mu R eps^2/d)); note 0(c) and L19",
        statement="(as printed) sqrt(dH)/mu and n^2 m (G/Gt)^2 mu R eps^2/d are dimensionless (invariant under a change of units).",
        expected=Verdict.DISPROVED,
        papers=("levy2021",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Levy et al. 2021, Cor 2 read as n = Omega~(sqrt(dH/mu)/eps) with T's log argument D^2/tol (note 0(c), L19; levy2021/round_length)",
        statement="(corrected) sqrt(dH/mu)/eps and D^2/tol = G^2 n^2 m eps^2/(sigma^2 d^2) (D = G/mu, tol = sigma^2 d^2/(mu^2 n^2 m eps^2)) are dimensionless.",
        expected=Verdict.PROVED,
        papers=("levy2021",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
