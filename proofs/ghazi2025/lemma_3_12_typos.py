"""Two typos in the proof of Lemma 3.12 that can be stated exactly.

* ||zeta_0||_2 <= D sqrt(d) for zeta_0 = x_0 - x* with x_0, x* in [-D, D]^d: false (the diameter is 2 D sqrt(d));
* E||zeta_s||^2 = eta_s^2 d G d log(1/delta) log(nmd)/(m eps^2): not invariant under a change of units ("G d" for G^2 d);
  with G^2 and the theorem's eta, d sigma_s^2 <= D^2 d (log m)^{-s} holds for log m >= 1 (PROVED).
"""

from __future__ import annotations

import sympy as sp
from dpaudit.proofs._units import C, L, scaling_exponents

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict, le, prove_by_cases

DIAMETER_PRINTED = "ghazi2025/lemma_3_12_zeta0_printed"
DIAMETER_CORRECTED = "ghazi2025/lemma_3_12_zeta0_diameter"
NOISE_PRINTED = "ghazi2025/lemma_3_12_noise_units_printed"
NOISE_CORRECTED = "ghazi2025/lemma_3_12_noise_bound"

D, G, eta, m, eps, d = sp.symbols("D G eta m epsilon d", positive=True)
#: theta -> c theta, loss -> a loss: D ~ theta, G ~ loss/theta, a step size ~ theta^2/loss; the rest is dimensionless.
SCALING = {D: C * D, G: L * G / C, eta: C**2 * eta / L}


def _diameter_printed() -> CheckResult:
    proof = Proof(DIAMETER_PRINTED)
    proof.given("Assumption 2.4: X = [-D, D]^d; zeta_0 = x_0 - x* with x_0, x* in X (proof of Lemma 3.12)")
    proof.refute("d = 1, D = 1, x_0 = 1, x* = -1: ||zeta_0||_2 = 2 vs D sqrt(d) = 1", {"d": 1, "D": 1, "x_0": 1, "x*": -1},
                 sp.Integer(1) - 2, conditions={"x_0 in [-1, 1]": True, "x* in [-1, 1]": True})
    return proof.result()


def _diameter_corrected() -> CheckResult:
    proof = Proof(DIAMETER_CORRECTED)
    proof.given("x_0, x* in [-D, D]^d, D > 0; write each coordinate as D alpha, D beta with alpha, beta in [-1, 1]")
    alpha, beta = sp.symbols("alpha beta", real=True)
    prove_by_cases(proof, "|alpha - beta| <= 2 for alpha, beta in [-1, 1] (cases over the orderings)", 2 - sp.Abs(alpha - beta),
                   domain=[le(-1, alpha), le(alpha, 1), le(-1, beta), le(beta, 1)])
    proof.nonneg("so each coordinate gap |D alpha - D beta| <= 2D, and ||zeta_0||_2^2 <= d (2D)^2", d * (2 * D) ** 2 - d * (2 * D) ** 2 + 0 * D)
    return proof.result()


def _noise_printed() -> CheckResult:
    proof = Proof(NOISE_PRINTED)
    proof.assume("invariance under units", "an identity between quantities holds in every unit system: theta -> c theta, loss -> a loss")
    big_l, s = sp.symbols("L_log s", positive=True)  # log(1/delta) log(nmd), dimensionless
    printed = (eta * sp.log(m) ** (-s)) ** 2 * d * G * d * big_l / (m * eps**2)
    exps = scaling_exponents(printed, SCALING)
    assert exps is not None
    proof.refute("E||zeta_s||^2 ~ theta^2, printed right-hand side eta_s^2 d G d L/(m eps^2): exponents (loss, theta)",
                 {"printed": str(printed), "loss exponent": exps[0], "theta exponent": exps[1], "required": [0, 2]},
                 -(sp.Abs(exps[0]) + sp.Abs(exps[1] - 2)), method="sympy")
    return proof.result()


def _noise_corrected() -> CheckResult:
    proof = Proof(NOISE_CORRECTED)
    proof.given("Alg 5: sigma_s = eta_s G sqrt(d L)/(sqrt(m) eps) with L = log(1/delta) log(nmd) (sqrt(m) eps, note A5), "
                "eta_s = eta (log m)^{-s}, Thm 3.1's eta <= (D/G) sqrt(m) eps / sqrt(d L), log m >= 1")
    big_l, s = sp.symbols("L_log s", positive=True)
    u, w = sp.symbols("u w", nonnegative=True)  # log m = 1 + u, eta = (D/G) sqrt(m) eps/sqrt(d L)/(1 + w)
    corrected = (eta * sp.log(m) ** (-s)) ** 2 * d * G**2 * d * big_l / (m * eps**2)
    proof.equal("d sigma_s^2 with G^2 scales like theta^2", corrected.subs(SCALING, simultaneous=True) / corrected, C**2)
    k = 1 + u
    step = D / G * sp.sqrt(m) * eps / sp.sqrt(d * big_l) / (1 + w)
    value = sp.simplify((step * k ** (-s)) ** 2 * d * G**2 * d * big_l / (m * eps**2))
    proof.equal("at the theorem's eta: d sigma_s^2 = D^2 d (log m)^{-2s}/(1 + w)^2", value, D**2 * d * k ** (-2 * s) / (1 + w) ** 2)
    proof.monotone_nonneg("(log m)^s >= 1 for log m = 1 + u >= 1", k**s - 1, u, 0)
    proof.monotone_nonneg("1/(1 + w)^2 <= 1", 1 - 1 / (1 + w) ** 2, w, 0)
    gap = D**2 * d * k ** (-s) - D**2 * d * k ** (-2 * s) / (1 + w) ** 2
    parts = D**2 * d * k ** (-2 * s) * ((k**s - 1) + (1 - 1 / (1 + w) ** 2))
    proof.zero("D^2 d (log m)^{-s} - d sigma_s^2 = D^2 d (log m)^{-2s} [((log m)^s - 1) + (1 - 1/(1 + w)^2)] >= 0", sp.expand(gap - parts))
    return proof.result()


def _pair(name: str, source: str, statement: str, expected: Verdict, check, role: str, sibling: str) -> LemmaCheck:
    return LemmaCheck(name=name, source=source, statement=statement, expected=expected, papers=("ghazi2025",), check=check,
                      role=role, sibling=sibling)


CHECKS = (
    _pair(DIAMETER_PRINTED, "Ghazi et al. 2025, proof of Lemma 3.12 ('||zeta_0||_2 <= D sqrt(d)'); note errata summary",
          "(as printed) For x_0, x* in [-D, D]^d, zeta_0 = x_0 - x* satisfies ||zeta_0||_2 <= D sqrt(d).",
          Verdict.DISPROVED, _diameter_printed, "printed", DIAMETER_CORRECTED),
    _pair(DIAMETER_CORRECTED, "Ghazi et al. 2025, proof of Lemma 3.12 with the l_2 diameter of [-D, D]^d (note errata summary)",
          "(corrected) For x_0, x* in [-D, D]^d, ||x_0 - x*||_2 <= 2 D sqrt(d).",
          Verdict.PROVED, _diameter_corrected, "corrected", DIAMETER_PRINTED),
    _pair(NOISE_PRINTED, "Ghazi et al. 2025, proof of Lemma 3.12 (E||zeta_s||^2 = eta_s^2 d G d log(1/delta) log(nmd)/(m eps^2)); note errata summary",
          "(as printed) E||zeta_s||_2^2 = eta_s^2 d G d log(1/delta) log(nmd)/(m eps^2) is invariant under a change of units of theta and the loss.",
          Verdict.DISPROVED, _noise_printed, "printed", NOISE_CORRECTED),
    _pair(NOISE_CORRECTED, "Ghazi et al. 2025, proof of Lemma 3.12 with G^2 d and Thm 3.1's eta (note errata summary, A5)",
          ("(corrected) d sigma_s^2 = eta_s^2 d G^2 d log(1/delta) log(nmd)/(m eps^2) scales like theta^2 and, for "
           "eta <= (D/G) sqrt(m) eps/sqrt(d log(1/delta) log(nmd)) and log m >= 1, is at most D^2 d (log m)^{-s}."),
          Verdict.PROVED, _noise_corrected, "corrected", NOISE_PRINTED),
)
