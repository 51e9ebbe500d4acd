"""Thm 3 (iii) as printed (H^2 R / T) is not invariant under a change of units; H^2 R^2 / T is, as are (i), (ii)."""

from __future__ import annotations

import sympy as sp
from dpaudit.proofs._units import C, L, scaling_exponents

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "levy2021/thm3_iii_units_printed"
CORRECTED = "levy2021/thm3_units_corrected"

R, H, T, G, sigma, mu, d, n, m, eps = sp.symbols("R H T G sigma mu d n m epsilon", positive=True)
Gt = sigma * sp.sqrt(d)
#: theta -> c theta, loss -> a loss: diameter R ~ theta, gradients G, sigma ~ loss/theta,
#: smoothness H and strong convexity mu ~ loss/theta^2; d, n, m, eps, T are dimensionless.
SCALING = {R: C * R, H: L * H / C**2, mu: L * mu / C**2, G: L * G / C, sigma: L * sigma / C}
GRAD2 = (sp.Integer(2), sp.Integer(-2))  # E ||gradient mapping||^2 ~ (loss/theta)^2
LOSS = (sp.Integer(1), sp.Integer(0))


def _check_terms(proof: Proof, label: str, terms: dict[str, sp.Expr], lhs: tuple[sp.Expr, sp.Expr]) -> None:
    for name, term in terms.items():
        scaled = term.subs(SCALING, simultaneous=True) / term
        proof.equal(f"{label}: {name} scales like the left-hand side (a^{lhs[0]} c^{lhs[1]})", scaled, L ** lhs[0] * C ** lhs[1])


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.assume("invariance under units", "a bound valid for all instances is invariant under theta -> c theta and loss -> a loss")
    term = H**2 * R / T
    exps = scaling_exponents(term, SCALING)
    assert exps is not None
    proof.refute("term H^2 R / T vs E||G||^2: exponent of c", {"term": "H**2*R/T", "loss exponent": exps[0],
                 "theta exponent": exps[1], "lhs exponents": list(GRAD2)}, -sp.Abs(exps[1] - GRAD2[1]), method="sympy")
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.assume("invariance under units", "a bound valid for all instances is invariant under theta -> c theta and loss -> a loss")
    _check_terms(proof, "(i) convex", {"R^2 H/T": R**2 * H / T, "R Gt sqrt(d)/(n sqrt(m) eps)": R * Gt * sp.sqrt(d) / (n * sp.sqrt(m) * eps)}, LOSS)
    _check_terms(proof, "(ii) strongly convex", {"G R exp(-mu T/H)": G * R * sp.exp(-mu * T / H),
                                                 "Gt^2 d/(mu n^2 m eps^2)": Gt**2 * d / (mu * n**2 * m * eps**2)}, LOSS)
    _check_terms(proof, "(iii) corrected", {"H^2 R^2/T": H**2 * R**2 / T,
                                           "H R Gt sqrt(d)/(n sqrt(m) eps)": H * R * Gt * sp.sqrt(d) / (n * sp.sqrt(m) * eps)}, GRAD2)
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source=("Levy et al. 2021, Thm 3 (iii) as printed in the seed (O~(H^2 R/T + H R Gt sqrt(d)/(n sqrt(m) eps))); docs/papers/levy2021.md, "
                "reading 0(c) and check L19"),
        statement=("(as printed) The bound E||G_{L,1/H}(theta_hat)||^2 <= O~(H^2 R/T + H R Gt sqrt(d)/(n sqrt(m) eps)) is invariant "
                   "under a change of units of theta and of the loss (every term scales like (loss/theta)^2)."),
        expected=Verdict.DISPROVED,
        papers=("levy2021",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Levy et al. 2021, Thm 3 (i)-(iii) with (iii)'s first term read as H^2 R^2/T; docs/papers/levy2021.md, reading 0(c) and check L19",
        statement=("(corrected) Every term of Thm 3 (i), (ii) scales like the loss and every term of (iii), with H^2 R^2/T, "
                   "like (loss/theta)^2, under theta -> c theta and loss -> a loss."),
        expected=Verdict.PROVED,
        papers=("levy2021",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
