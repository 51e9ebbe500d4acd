"""TDLap (T1): P[R = 0] = P[R = 2 kappa] = e^{-eps kappa}/Z <= delta e^{-eps} <= delta."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.mechanisms.discrete import tdlap_kappa, tdlap_pmf
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "ghazi2023/tdlap_edge_mass"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("kappa = 1 + ceil(ln(1/delta)/eps), written ceil(y) = y + f with f in [0, 1)")
    proof.assume("Z >= 1", "the normaliser Z of TDLap is >= 1: its x = kappa term is 1 and the others are positive")
    eps, delta = sp.symbols("epsilon delta", positive=True)
    f = sp.Symbol("f", nonnegative=True)
    kappa = 1 + sp.log(1 / delta) / eps + f
    edge = sp.exp(-eps * kappa)
    proof.zero("e^{-eps kappa} = delta e^{-eps} e^{-eps f}", sp.expand(sp.powsimp(sp.expand_log(edge, force=True))) - delta * sp.exp(-eps) * sp.exp(-eps * f))
    proof.monotone_nonneg("delta e^{-eps} - delta e^{-eps} e^{-eps f} >= 0 for f >= 0",
                          delta * sp.exp(-eps) * (1 - sp.exp(-eps * f)), f, 0)
    proof.monotone_nonneg("delta e^{-eps} <= delta (eps >= 0)", delta - delta * sp.exp(-eps), eps, 0)
    rng = proof.rng
    ee = rng.uniform(0.005, 8.0, 400)
    dd = np.exp(rng.uniform(np.log(1e-15), np.log(0.9), 400))
    edge0, edge_end, bound, kap_ok = [], [], [], []
    for e_, d_ in zip(ee, dd, strict=True):
        pmf = tdlap_pmf(float(e_), float(d_))
        edge0.append(pmf[0])
        edge_end.append(pmf[-1])
        bound.append(d_ * np.exp(-e_))
        kap_ok.append(tdlap_kappa(float(e_), float(d_)) - (1 + np.ceil(np.log(1 / d_) / e_)))
    w = {"epsilon": ee, "delta": dd}
    proof.numeric_le("dpaudit tdlap_pmf: P[R = 0] <= delta e^{-eps} (400 seeded points)", edge0, bound, w)
    proof.numeric_le("dpaudit tdlap_pmf: P[R = 2 kappa] <= delta e^{-eps}", edge_end, bound, w)
    proof.numeric_le("dpaudit tdlap_kappa >= 1 + ceil(ln(1/delta)/eps)", np.zeros(400), kap_ok, w)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2023, Def 3.4 and proof of Thm 3.3 (P[R1 = 0] <= deltabar, P[R1 = 2 kappa] <= deltabar)",
    statement="For TDLap(eps, delta): P[R = 0] = P[R = 2 kappa] = e^{-eps kappa}/Z <= delta e^{-eps} <= delta.",
    expected=Verdict.PROVED,
    papers=("ghazi2023",),
    check=_run,
)
