"""Exponential mechanism on bin counts: P(k) ∝ exp(eps_r c_k / 2) is eps_r-DP for ||c - c'||_inf <= 1.

Without the /2 it is not (bug B3).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.mechanisms.selection import ExponentialMechanism
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Region, Verdict

NAME = "levy2021/exponential_mechanism_privacy"
CONTROL = "levy2021/exponential_mechanism_without_half"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("counts c, c' in R^K with |c_j - c'_j| <= 1 for all j (replace-one changes each bin count by <= 1)",
                "P_c(k) = exp(eps c_k/2)/Z_c with Z_c = sum_j exp(eps c_j/2), so ln P_c(k) - ln P_c'(k) = (eps/2)(c_k - c'_k) - ln(Z_c/Z_c')")
    eps = sp.Symbol("epsilon", positive=True)
    t = sp.Symbol("t", nonnegative=True)
    # term-wise: w'_j = w_j exp(eps delta_j / 2), delta_j in [-1, 1]; write delta_j = 1 - t or -1 + t
    proof.monotone_nonneg("e^{eps/2} - e^{eps delta/2} >= 0 for delta = 1 - t <= 1", sp.exp(eps / 2) - sp.exp(eps * (1 - t) / 2), t, 0)
    proof.monotone_nonneg("e^{eps delta/2} - e^{-eps/2} >= 0 for delta = -1 + t >= -1", sp.exp(eps * (t - 1) / 2) - sp.exp(-eps / 2), t, 0)
    proof.assume("summing term-wise bounds", "summing the term-wise bounds gives e^{-eps/2} Z_c <= Z_c' <= e^{eps/2} Z_c, i.e. |ln(Z_c/Z_c')| <= eps/2")
    # total: |(eps/2) delta_k - lam| <= eps for delta_k = c_k - c'_k in [-1, 1] and lam = ln(Z_c/Z_c') in [-eps/2, eps/2]
    dl, lam = sp.symbols("delta_k lambda", real=True)
    box = [sp.Le(dl, 1), sp.Le(-1, dl), sp.Le(lam, eps / 2), sp.Le(-eps / 2, lam)]
    proof.cases("(eps/2) delta_k - lam <= eps", eps - (eps / 2 * dl - lam),
                [Region.where("delta_k <= 1, lam >= -eps/2", sp.Le(dl, 1), sp.Le(-eps / 2, lam))], domain=box)
    proof.cases("(eps/2) delta_k - lam >= -eps", eps + (eps / 2 * dl - lam),
                [Region.where("delta_k >= -1, lam <= eps/2", sp.Le(-1, dl), sp.Le(lam, eps / 2))], domain=box)
    rng = proof.rng
    ratios, labels, tols = [], [], []
    for size in (2, 5, 40):
        for top in (10, 10**3, 10**6):
            for eps_r in (0.1, 1.0, 5.0):
                counts = rng.integers(0, top, size=(20, size)).astype(float)
                shift = rng.integers(-1, 2, size=(20, size)).astype(float)
                mech = ExponentialMechanism(epsilon=eps_r, sensitivity=1.0)
                for c, c2 in zip(counts, counts + shift, strict=True):
                    logp = np.log(np.maximum(mech.probabilities(c), np.finfo(float).tiny))
                    logp2 = np.log(np.maximum(mech.probabilities(c2), np.finfo(float).tiny))
                    finite = (logp > np.log(np.finfo(float).tiny)) & (logp2 > np.log(np.finfo(float).tiny))
                    ratios.append(float(np.max(np.abs(logp - logp2)[finite], initial=0.0)) / eps_r)
                    labels.append(f"K={size}, max count {top}, eps_r={eps_r}")
                    # float logits eps_r c / 2 of size up to eps_r * top / 2 carry an absolute rounding error of
                    # a few ulps of that size; in units of eps_r that is 8 * machine-eps * top
                    tols.append(8 * np.finfo(float).eps * top)
    proof.numeric_le("dpaudit ExponentialMechanism.probabilities: max_k |ln P - ln P'| <= eps_r (K <= 40, counts up to 1e6)",
                     ratios, 1.0, {"setting": np.array(labels)}, atol=np.array(tols))
    return proof.result()


def _control() -> CheckResult:
    proof = Proof(CONTROL)
    eps = sp.Integer(1)
    # K = 2 bins, c = (0, 0) -> c' = (1, -1); weights exp(eps c) (no /2)
    p_c = sp.Rational(1, 2)
    p_c2 = sp.exp(-eps) / (sp.exp(eps) + sp.exp(-eps))
    loss = sp.log(p_c / p_c2)
    proof.refute("K = 2, c = (0, 0), c' = (1, -1), eps_r = 1, output k = 2", {"c": [0, 0], "c'": [1, -1], "eps_r": 1,
                 "privacy loss": loss}, eps - loss)
    mech = ExponentialMechanism(epsilon=2.0, sensitivity=1.0)  # logits eps_r * c, the missing-/2 variant
    impl = float(np.log(mech.probabilities([0.0, 0.0])[1] / mech.probabilities([1.0, -1.0])[1]))
    proof.numeric_le("dpaudit ExponentialMechanism with logits eps c reproduces the loss", abs(impl - float(loss)), 1e-12, {"impl": impl})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=NAME,
        source="Levy et al. 2021, Thm 1 (PrivateRange at eps/2, Alg 6 in App D.1, not in the seed); note ALG-A and L4",
        statement=("For counts c, c' in R^K with ||c - c'||_inf <= 1 and P_c(k) = exp(eps_r c_k/2) / sum_j exp(eps_r c_j/2): "
                   "max_k |ln P_c(k) - ln P_c'(k)| <= eps_r."),
        expected=Verdict.PROVED,
        papers=("levy2021",),
        check=_run,
    ),
    LemmaCheck(
        name=CONTROL,
        source="Levy et al. 2021 note, pitfall B3 (EM weights exp(eps cnt), no /2)",
        statement="(negative control) With weights exp(eps_r c_k) (no /2), the mechanism is still eps_r-DP for ||c - c'||_inf <= 1.",
        expected=Verdict.DISPROVED,
        papers=("levy2021",),
        check=_control,
        role="control",
    ),
)
