"""Thm 2's beta: the derived 2 gamma + d (sqrt(d) B/tau') e^{-n eps'/8} is at most the stated beta (log(dn/gamma) >= 1/10)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "levy2021/beta_derived_le_stated"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("L = log(dn/gamma) >= 1/10, L' = log(1/delta) > 0; tau', eps' as in Alg 2 line 3",
                "derived failure probability (docs/papers/levy2021.md, check L10): per coordinate, Thm 1 fails w.p. <= (sqrt(d) B/tau') "
                "e^{-n eps'/8}; union over d coordinates, plus gamma (data) and gamma (rotation)")
    d, n, tau, eps, big_b, lp = sp.symbols("d n tau epsilon B Lp", positive=True)
    ell = sp.Symbol("ell", nonnegative=True)
    lg = sp.Rational(1, 10) + ell
    tau_p = 10 * tau * sp.sqrt(lg / d)
    eps_p = eps / sp.sqrt(8 * d * lp)
    pre_derived = d * sp.sqrt(d) * big_b / tau_p
    pre_stated = d**2 * big_b * sp.sqrt(lg) / tau
    proof.zero("prefactor: d sqrt(d) B/tau' = d^2 B/(10 tau sqrt(L))", pre_derived - d**2 * big_b / (10 * tau * sp.sqrt(lg)))
    proof.nonneg("prefactor: d^2 B sqrt(L)/tau - d^2 B/(10 tau sqrt(L)) >= 0 for L >= 1/10", sp.together(pre_stated - pre_derived))
    rate_derived = n * eps_p / 8
    rate_stated = n * eps / (24 * sp.sqrt(d * lp))
    proof.nonneg("exponent: n eps'/8 - n eps/(24 sqrt(d L')) >= 0 (8 sqrt(8) <= 24)", sp.simplify(rate_derived - rate_stated))
    proof.assume("product of ordered non-negative factors", "0 <= a <= a' and 0 <= b <= b' give a b <= a' b'; both betas add the same 2 gamma")
    rng = proof.rng
    m = 2000
    dd, nn = rng.integers(1, 512, m), rng.integers(1, 10**5, m)
    gg = rng.uniform(1e-6, 0.5, m)
    keep = np.log(dd * nn / gg) >= 0.1
    tt, ee, bb = rng.uniform(0.01, 2, m), rng.uniform(0.01, 5, m), rng.uniform(0.1, 100, m)
    dl = np.exp(rng.uniform(np.log(1e-12), np.log(0.5), m))
    lgv, lpv = np.log(dd * nn / gg), np.log(1 / dl)
    tp = 10 * tt * np.sqrt(lgv / dd)
    epv = ee / np.sqrt(8 * dd * lpv)
    derived = 2 * gg + dd * (np.sqrt(dd) * bb / tp) * np.exp(-nn * epv / 8)
    stated = 2 * gg + dd**2 * bb * np.sqrt(lgv) / tt * np.exp(-nn * ee / (24 * np.sqrt(dd * lpv)))
    proof.numeric_le("beta_derived <= beta_stated at 2000 seeded points with log(dn/gamma) >= 0.1", derived[keep], stated[keep],
                     {"d": dd[keep], "n": nn[keep], "gamma": gg[keep]})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source=("Levy et al. 2021, Thm 2 (beta = min{1, 2 gamma + (d^2 B sqrt(log(dn/gamma))/tau) exp(-n eps/(24 sqrt(d log(1/delta))))}); "
            "docs/papers/levy2021.md, check L10"),
    statement=("If log(dn/gamma) >= 1/10, the failure probability derived from Alg 2's steps, 2 gamma + d (sqrt(d) B/tau') "
               "exp(-n eps'/8), is at most Thm 2's stated 2 gamma + (d^2 B sqrt(log(dn/gamma))/tau) exp(-n eps/(24 sqrt(d log(1/delta))))."),
    expected=Verdict.PROVED,
    papers=("levy2021",),
    check=_run,
)
