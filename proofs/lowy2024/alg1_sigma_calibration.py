"""Algorithm 1's printed sigma_i covers the Gaussian mechanism at (eps/4, delta/n) for Lemma B.2's explicit sensitivity.

sigma_i = 100 tau_i log^2(n/delta)/(eps C) [Alg 1 line 25] against Lemma A.6's sigma for (eps/4, delta/n) at
Delta_1 = 9 tau_i (1 + t)/C, t = max(33, ceil(log2(1/zeta))), zeta = delta/(10 e^eps) (proof of Thm B.1): PROVED
for eps <= 4, n >= 10 e^eps and log(n/delta) >= 7. Above eps = 4 the Gaussian's share eps/4 exceeds 1, where
Lemma A.6's classical proof does not apply (pitfall P14).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpaudit.userlevel.lowy2024.privacy import note_coupling_sensitivity
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "lowy2024/alg1_sigma_calibration"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("eps in (0, 4], delta in (0, 1), n >= 10 e^eps, L := log(n/delta) >= 7; C > 6 groups",
                "sigma_i = 100 tau_i L^2/(eps C) [Alg 1 line 25]; Delta_1 = 9 tau_i (1 + t)/C with t = max(33, ceil(log2(1/zeta))), "
                "zeta = delta/(10 e^eps) (Lemma B.2, lowy2024/lemma_b2_explicit_coupling)")
    proof.cite("[LLA24] Lemma A.6", "sigma^2 = 2 Delta^2 log(2/delta')/eps'^2 gives (eps', delta')-DP for eps' <= 1 (the classical "
               "Gaussian mechanism, [DR14] Thm A.1 with 2 in place of 1.25)")
    big_l = sp.Symbol("L", positive=True)
    # needed / printed at eps' = eps/4, delta' = delta/n: 4 sqrt(2) Delta_1 sqrt(log(2n/delta))/eps over 100 tau L^2/(eps C)
    #   = 36 sqrt(2) (1 + t) sqrt(L + log 2)/(100 L^2); and log2(1/zeta) = log2(10 e^eps/delta) <= log2(n/delta) = L/log 2
    proof.given("n >= 10 e^eps gives log2(1/zeta) <= L/log 2, so 1 + t <= max(34, 2 + L/log 2)")
    lam = sp.Symbol("l", nonnegative=True)  # L = 7 + l
    for label, one_plus_t in (("t = 33", sp.Integer(34)), ("t = ceil(log2(1/zeta)) <= 1 + L/log 2", 2 + big_l / sp.log(2))):
        # printed >= needed  <=>  (100 L^2)^2 >= (36 sqrt 2)^2 (1 + t)^2 (L + log 2)
        residual = (100 * big_l**2) ** 2 - 2592 * one_plus_t**2 * (big_l + sp.log(2))
        proof.monotone_nonneg(f"printed sigma >= needed sigma, {label}, L >= 7", residual.subs(big_l, 7 + lam), lam, 0)
    rng = proof.rng
    eps = rng.uniform(0.05, 4.0, 400)
    n = np.exp(rng.uniform(np.log(10 * math.e**4), np.log(1e9), 400))
    delta = np.exp(rng.uniform(np.log(1e-30), np.log(0.5), 400))
    keep = np.log(n / delta) >= 7
    need, printed = [], []
    for eps_i, nn, d in zip(eps[keep], n[keep], delta[keep], strict=True):
        sens = note_coupling_sensitivity(1.0, 100, d / (10 * math.exp(eps_i)))  # tau = 1, C = 100: both sides scale alike
        need.append(sens * math.sqrt(2 * math.log(2 * nn / d)) / (eps_i / 4))
        printed.append(100 * math.log(nn / d) ** 2 / (eps_i * 100))
    proof.numeric_le("needed <= printed at seeded (eps, n, delta) with the implementation's note constant", np.array(need),
                     np.array(printed), {"epsilon": eps[keep], "n": n[keep], "delta": delta[keep]})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Lowy et al. 2024, Alg 1 line 25 and proof of Thm B.1 (eq. (4)); Lemma A.6; docs/papers/lowy2024.md, pitfall P14",
    statement=("For eps in (0, 4], n >= 10 e^eps and log(n/delta) >= 7: 100 tau L^2/(eps C) >= sqrt(2 Delta_1^2 log(2n/delta))/(eps/4) "
               "with L = log(n/delta), Delta_1 = 9 tau (1 + max(33, ceil(log2(10 e^eps/delta))))/C: the printed sigma_i gives the "
               "Gaussian step (eps/4, delta/n) through Lemma A.6 (valid as eps/4 <= 1)."),
    expected=Verdict.PROVED,
    papers=("lowy2024",),
    check=_run,
)
