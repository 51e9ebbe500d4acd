"""TDLap (Def 3.4): normaliser and lower-tail CDF in closed form, symmetric about kappa with its mode there."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.mechanisms.discrete import tdlap_kappa, tdlap_pmf
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "ghazi2023/tdlap_normaliser_and_cdf"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("TDLap(eps, delta): support {0, ..., 2 kappa}, p(x) ∝ exp(-eps |x - kappa|), kappa = 1 + ceil(ln(1/delta)/eps)")
    proof.assume("pairing of the terms", "Z = 1 + 2 S(kappa) with S(k) = sum_{j=1}^{k} r^j, r = e^{-eps}: the terms at "
                 "kappa - j and kappa + j are equal (symmetry, shown below)")
    r = sp.Symbol("r", positive=True)
    k = sp.Symbol("k", positive=True, integer=True)
    s_closed = r * (1 - r**k) / (1 - r)
    proof.zero("induction base: S(1) = r", s_closed.subs(k, 1) - r)
    proof.zero("induction step: S(k + 1) - S(k) = r^{k+1}", s_closed.subs(k, k + 1) - s_closed - r ** (k + 1),
               hypotheses=[r < 1])  # r = e^{-eps} < 1 (the closed form divides by 1 - r)
    eps = sp.Symbol("epsilon", positive=True)
    z_note = (1 + sp.exp(-eps) - 2 * sp.exp(-eps * (k + 1))) / (1 - sp.exp(-eps))
    proof.zero("Z = 1 + 2 S(kappa) equals (1 + e^-eps - 2 e^{-eps(kappa+1)})/(1 - e^-eps)", (1 + 2 * s_closed).subs(r, sp.exp(-eps)) - z_note)
    x = sp.Symbol("x", nonnegative=True, integer=True)
    cdf_sum = sp.exp(-eps * k) * (sp.exp(eps * (x + 1)) - 1) / (sp.exp(eps) - 1)  # sum_{y=0}^{x} e^{-eps(k - y)}
    proof.zero("lower tail: sum_{y=0}^{0} e^{-eps(kappa-y)} = e^{-eps kappa}", cdf_sum.subs(x, 0) - sp.exp(-eps * k))
    proof.zero("lower tail step: adds e^{-eps(kappa - x - 1)}", cdf_sum.subs(x, x + 1) - cdf_sum - sp.exp(-eps * (k - x - 1)))
    a = sp.Symbol("a", nonnegative=True)
    proof.zero("symmetry: |(kappa + a) - kappa| = |(kappa - a) - kappa|", sp.Abs(a) - sp.Abs(-a))
    rng = proof.rng
    errs_z, errs_cdf, ones, where, shape_ok = [], [], [], [], []
    for _ in range(150):
        e_ = float(rng.uniform(0.01, 5.0))
        d_ = float(np.exp(rng.uniform(np.log(1e-12), np.log(0.5))))
        kap = tdlap_kappa(e_, d_)
        pmf = tdlap_pmf(e_, d_)
        zc = (1 + np.exp(-e_) - 2 * np.exp(-e_ * (kap + 1))) / (-np.expm1(-e_))
        errs_z.append(pmf[kap] * zc)  # p(kappa) = 1/Z, so p(kappa) Z = 1
        xs = np.arange(kap + 1)
        cdf = np.exp(-e_ * kap) * np.expm1(e_ * (xs + 1)) / np.expm1(e_) / zc
        errs_cdf.append(np.max(np.abs(np.cumsum(pmf)[: kap + 1] - cdf)))
        ones.append(float(pmf.sum()))
        where.append(f"eps={e_:.4f}, delta={d_:.3e}, kappa={kap}")
        shape_ok.append(bool(np.argmax(pmf) == kap and np.allclose(pmf, pmf[::-1], rtol=1e-12, atol=0)))
    w = {"setting": np.array(where)}
    bad = [where[i] for i, ok in enumerate(shape_ok) if not ok]
    proof.numeric_count("dpaudit tdlap_pmf: mode at kappa and symmetric (150 seeded (eps, delta))", len(shape_ok), len(bad),
                        {"setting": bad[0]} if bad else None)
    proof.numeric_eq("dpaudit tdlap_pmf: p(kappa) Z_closed = 1 (150 seeded (eps, delta))", errs_z, 1.0, w)
    proof.numeric_le("dpaudit tdlap_pmf: |cumsum - closed-form lower-tail CDF| <= 1e-12", errs_cdf, 1e-12, w)
    proof.numeric_eq("dpaudit tdlap_pmf sums to 1", ones, 1.0, w)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2023, Def 3.4 (shifted truncated discrete Laplace)",
    statement=("For TDLap(eps, delta) on {0..2 kappa}: Z = sum_x e^{-eps|x - kappa|} = (1 + e^{-eps} - 2 e^{-eps(kappa+1)})/(1 - e^{-eps}), "
               "P[R <= r] = e^{-eps kappa}(e^{eps(r+1)} - 1)/((e^eps - 1) Z) for 0 <= r <= kappa, the pmf is symmetric about kappa "
               "and its mode is kappa."),
    expected=Verdict.PROVED,
    papers=("ghazi2023",),
    check=_run,
)
