"""Proof of Lemma 3.11: the printed per-user bound does not give the all-users event the proof uses.

It is printed as 'Pr[||q_t(Z) - grad F||_inf >= G log(ndm/omega)/sqrt(m)] <= 1 - omega/nm', which
does not give the all-users event up to omega (DISPROVED); Hoeffding per coordinate at radius G
sqrt(2 ln(2nd/omega)/m) gives omega/(nd) per user and coordinate, hence omega in total (PROVED; the
safe preset's 1/tau is C_tau = 40 times that radius, cross-checked).
"""

from __future__ import annotations

import math

import sympy as sp
from dpaudit.proofs.ghazi2025._preset import safe_parameters

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "ghazi2025/lemma_3_11_tail_printed"
CORRECTED = "ghazi2025/lemma_3_11_tail_hoeffding"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("proof of Lemma 3.11: each of the n users' events has probability <= 1 - omega/(nm); the proof then conditions on "
                "all users being within tau, 'which means d_TV(...) <= omega'")
    n, m, omega = sp.Integer(2), sp.Integer(1), sp.Rational(1, 2)
    each = 1 - omega / (n * m)
    proof.refute("n = 2, m = 1, omega = 1/2, both users' bad events the same event of probability 1 - omega/(nm) = 3/4: "
                 "P(some user bad) = 3/4 vs omega", {"n": 2, "m": 1, "omega": omega, "P(each bad)": each, "P(some bad)": each},
                 omega - each, conditions={"each event meets the printed bound": sp.Le(each, 1 - omega / (n * m))})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.cite("[Hoe63] Thm 2", "Hoeffding: the mean of m independent variables in [-G, G] deviates from its expectation by >= r "
               "with probability <= 2 exp(-2 m r^2/(2G)^2)")
    proof.given("Assumption 2.4: every gradient coordinate lies in [-G, G]; q_t(Z) is the mean of the user's m i.i.d. gradients")
    g, m, n, d, omega = sp.symbols("G m n d omega", positive=True)
    r = g * sp.sqrt(2 * sp.log(2 * n * d / omega) / m)
    proof.equal("2 exp(-m r^2/(2 G^2)) = omega/(nd) at r = G sqrt(2 ln(2nd/omega)/m)", 2 * sp.exp(-m * r**2 / (2 * g**2)), omega / (n * d))
    proof.zero("union over n users and d coordinates: nd * omega/(nd) = omega", n * d * (omega / (n * d)) - omega)
    for cfg, params in safe_parameters():
        n_, m_, d_ = cfg[0], cfg[1], cfg[2]
        hoeffding = params.gradient_bound * math.sqrt(2 * (math.log(2 * n_ * d_) + 3 * math.log(n_ * m_ * d_)) / m_)
        proof.instance(f"implementation at {cfg}: 1/tau >= G sqrt(2 ln(2nd/omega)/m) with omega = (nmd)^-3",
                       1 / params.tau >= hoeffding * (1 - 1e-12), point={"config": cfg, "1/tau": 1 / params.tau, "radius": hoeffding})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2025, proof of Lemma 3.11 ('<= 1 - omega/nm', then 'd_TV <= omega'); note section 4 Lem3.11-pf",
        statement=("(as printed) If each of the n users' deviation events has probability <= 1 - omega/(nm), "
                   "all users are within the radius except with probability <= omega."),
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2025, proof of Lemma 3.11 with Hoeffding per coordinate (note 2.7 A1, 2.8); RobustStatsLocalization.parameters",
        statement=("(corrected) With gradient coordinates in [-G, G], each user's mean gradient is within G sqrt(2 ln(2nd/omega)/m) of its "
                   "expectation in every coordinate except with probability omega/(nd), so all n users are, except with probability omega."),
        expected=Verdict.PROVED,
        papers=("ghazi2025",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
