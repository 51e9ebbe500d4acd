"""Erratum A1: Thm 3.1's tau is a radius, but eq. (3) needs tau in 1/gradient units.

Thm 3.1 sets tau = O(G log(nmd)/sqrt(m)) (units of a gradient) but eq. (3) uses exp(-tau ||q - q'||)
(DISPROVED by a change of units); reading 1/tau = C G sqrt(2 ln(2nd/omega)/m) makes every use
consistent (PROVED).
"""

from __future__ import annotations

import sympy as sp
from dpaudit.proofs._units import C, L, scaling_exponents

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "ghazi2025/tau_units_printed"
CORRECTED = "ghazi2025/tau_units_inverse_radius"

G, q, eta, n, m, d, omega, c_tau = sp.symbols("G q eta n m d omega C_tau", positive=True)
#: theta -> c theta, loss -> a loss: gradients (G, q = ||q_t(Z) - q_t(Z')||_inf) ~ a/c, step eta ~ c^2/a (eta * gradient ~ theta)
SCALING = {G: L * G / C, q: L * q / C, eta: C**2 * eta / L}
NONE, GRAD, THETA = (sp.Integer(0), sp.Integer(0)), (sp.Integer(1), sp.Integer(-1)), (sp.Integer(0), sp.Integer(1))


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.assume("invariance under units", "a valid parameter choice is invariant under theta -> c theta and loss -> a loss; "
                 "exp's argument must be unit-free")
    tau = G * sp.log(n * m * d) / sp.sqrt(m)
    exps = scaling_exponents(tau * q, SCALING)
    assert exps is not None
    proof.refute("eq. (3): tau ||q - q'||_inf with tau = G log(nmd)/sqrt(m) scales like a^2 c^-2", {"tau": "G log(nmd)/sqrt(m)",
                 "exponents (loss, theta) of tau * distance": [str(e) for e in exps], "required": [0, 0]},
                 -(sp.Abs(exps[0]) + sp.Abs(exps[1])), method="sympy")
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.assume("invariance under units", "a valid parameter choice is invariant under theta -> c theta and loss -> a loss")
    tau = 1 / (c_tau * G * sp.sqrt(2 * sp.log(2 * n * d / omega) / m))
    uses = {"eq. (3) argument tau ||q - q'||": (tau * q, NONE), "clip radius s = 1/tau (compared with gradients)": (1 / tau, GRAD),
            "alignment radius rho = 1/tau": (1 / tau, GRAD), "sensitivity eta (4 rho + 2 s) = 6 eta/tau (compared with ||x_t - y_t||)": (6 * eta / tau, THETA)}
    for name, (expr, want) in uses.items():
        proof.equal(f"{name} scales like a^{want[0]} c^{want[1]}", expr.subs(SCALING, simultaneous=True) / expr, L ** want[0] * C ** want[1])
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2025, Thm 3.1 / Lemma 3.11 (tau = O(G log(nmd)/sqrt(m))) vs eq. (3), Alg 1 line 5 (s = 1/tau); note 2.7 A1",
        statement="(as printed) With tau = G log(nmd)/sqrt(m), the score exp(-tau ||q_t(Z) - q_t(Z')||_inf) of eq. (3) is invariant under a change of units.",
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2025 with tau read as an inverse radius, 1/tau = C_tau G sqrt(2 ln(2nd/omega)/m) (note 2.7 A1, 2.8)",
        statement=("(corrected) With 1/tau = C_tau G sqrt(2 ln(2nd/omega)/m): tau ||q - q'|| is unit-free, s = rho = 1/tau have gradient "
                   "units, and the sensitivity 6 eta/tau has parameter units."),
        expected=Verdict.PROVED,
        papers=("ghazi2025",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
