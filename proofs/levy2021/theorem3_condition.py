"""Thm 3's condition n = Omega~(sqrt(dT)/eps), for the per-step budget WinsorizedFirstOrder uses.

The budget is eps' = eps/(2 sqrt(2T ln(2/delta))) rounded down, delta' = delta/(2T), and Alg 2 runs
at the padded dimension d' < 2d: every step's Thm 2 failure term (d'^2 G sqrt(ln(d'n/gamma))/tau)
e^{-n eps'/(24 sqrt(d' ln(1/delta')))} is at most gamma as soon as n >= n_3, and n_3 eps/sqrt(dT) is
a product of logs (<= 96 sqrt(ln(2T/delta) ln(2/delta)) times the log of the failure term's
prefactor): n_3 = O~(sqrt(dT)/eps). PROVED; the implementation's (eps', delta') are cross-checked.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpaudit.userlevel import SquaredLoss, WinsorizedFirstOrder
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "levy2021/theorem3_condition"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("Alg 3 line 2: eps' = eps/(2 sqrt(2T ln(2/delta))), delta' = delta/(2T); each step runs Alg 2 at (eps', delta') with B = G "
                "in the padded dimension d' = 2^ceil(log2 d) < 2d")
    proof.cite("Thm 2 (beta)", "Levy et al. 2021, Thm 2: the failure term of Alg 2 at (eps', delta') in dimension d' is "
               "(d'^2 G sqrt(log(d'n/gamma))/tau) exp(-n eps'/(24 sqrt(d' log(1/delta'))))")
    eps, big_t, dp, _d, lam = sp.symbols("epsilon T dprime d Lambda", positive=True)  # Lambda = ln(prefactor/gamma)
    l2, lp = sp.symbols("ln2_over_delta ln2T_over_delta", positive=True)  # ln(2/delta), ln(1/delta') = ln(2T/delta): > 0 for delta < 1
    eps_p = eps / (2 * sp.sqrt(2 * big_t * l2))
    n3 = 24 * sp.sqrt(dp * lp) / eps_p * lam
    s, gamma, c = sp.symbols("s gamma c", positive=True)
    proof.monotone_nonneg("for n = n_3 + s: the failure term = gamma e^{-c s} <= gamma (c = eps'/(24 sqrt(d' ln(1/delta'))) > 0)",
                          gamma - gamma * sp.exp(-c * s), s, 0)
    proof.equal("n_3 eps/sqrt(d' T) = 48 sqrt(2) sqrt(ln(2T/delta) ln(2/delta)) Lambda (no power of d, T or eps left)",
                n3 * eps / sp.sqrt(dp * big_t), 48 * sp.sqrt(2) * sp.sqrt(lp * l2) * lam)
    w = sp.Symbol("w", nonnegative=True)  # d' = 2d/(1 + w) < 2d
    proof.monotone_nonneg("d' = 2d/(1 + w) <= 2d gives sqrt(d'/d) <= sqrt(2), so n_3 eps/sqrt(dT) <= 96 sqrt(ln(2T/delta) ln(2/delta)) Lambda",
                          sp.sqrt(2) - sp.sqrt(2 / (1 + w)), w, 0)
    rng = proof.rng
    bad, cases = [], 0
    for _ in range(30):
        e_, dl_, t_ = float(rng.uniform(0.05, 1.0)), float(np.exp(-rng.uniform(1.0, 25.0))), int(rng.integers(1, 5000))
        opt = WinsorizedFirstOrder(SquaredLoss(), e_, dl_, 1.0, 1.0, steps=t_)
        e1, d1 = opt.step_privacy()
        want_e = e_ / (2 * math.sqrt(2 * t_ * math.log(2 / dl_)))
        cases += 1
        if not (e1 <= want_e and e1 >= want_e * (1 - 1e-14) and math.isclose(d1, dl_ / (2 * t_), rel_tol=1e-15)):
            bad.append({"epsilon": e_, "delta": dl_, "T": t_, "eps'": e1, "delta'": d1})
    proof.numeric_count("WinsorizedFirstOrder.step_privacy equals Alg 3 line 2 (eps' rounded down by <= 4 ulps) at 30 seeded (eps, delta, T)",
                        cases, len(bad), bad[0] if bad else None)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Levy et al. 2021, Thm 3 (n = Omega~(sqrt(dT)/eps)) with Alg 3 line 2 and Thm 2's beta; WinsorizedFirstOrder.step_privacy",
    statement=("With WinsorizedFirstOrder's per-step (eps', delta') = (eps/(2 sqrt(2T ln(2/delta))), delta/(2T)) and Alg 2 at d' < 2d, every "
               "step's Thm 2 failure term is <= gamma once n >= n_3 = 24 sqrt(d' ln(2T/delta)) Lambda/eps', and n_3 <= 96 sqrt(dT) "
               "sqrt(ln(2T/delta) ln(2/delta)) Lambda/eps with Lambda = ln(d'^2 G sqrt(ln(d'n/gamma))/(tau gamma)): n_3 = O~(sqrt(dT)/eps)."),
    expected=Verdict.PROVED,
    papers=("levy2021",),
    check=_run,
)
