"""Thm 2's constant c_0 = 102400 is an identity: d * 2 (8 tau'/(n eps'))^2 = 102400 d tau^2 log(dn/gamma) log(1/delta)/(n^2 eps^2)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "levy2021/variance_constant_c0"
PRINTED = "levy2021/variance_log_alpha_printed"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("Thm 2 as printed: Var(A'|X^n) <= c_0 d tau^2 log(dn/alpha) log(1/delta)/(n^2 eps^2), alpha not defined in the theorem",
                "Var(A'|X^n) = d * 2 (8 tau'/(n eps'))^2 > 0 (the Laplace noise of Alg 2; levy2021/variance_constant_c0)")
    d, n, tau, eps, gamma, delta = sp.Integer(1), sp.Integer(10), sp.Integer(1), sp.Integer(1), sp.Rational(1, 2), 1 / sp.E
    tau_p = 10 * tau * sp.sqrt(sp.log(d * n / gamma) / d)
    eps_p = eps / sp.sqrt(8 * d * sp.log(1 / delta))
    var = d * 2 * (8 * tau_p / (n * eps_p)) ** 2
    alpha = d * n
    bound = 102400 * d * tau**2 * sp.log(d * n / alpha) * sp.log(1 / delta) / (n**2 * eps**2)
    proof.refute("alpha read as a free parameter, alpha = dn: the bound is 0 < Var", {"d": 1, "n": 10, "tau": 1, "epsilon": 1,
                 "gamma": gamma, "delta": "1/e", "alpha": alpha, "bound": bound, "Var": var}, bound - var)
    return proof.result()


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("tau' = 10 tau sqrt(log(dn/gamma)/d), eps' = eps/sqrt(8 d log(1/delta)) (Alg 2 line 3)")
    proof.assume("variances add and the rotation keeps their sum", "the d independent per-coordinate Laplace variances "
                 "2 (8 tau'/(n eps'))^2 add, and the orthogonal U^{-1} preserves the trace of the covariance")
    d, n, tau, eps, lg1, lg2 = sp.symbols("d n tau epsilon L_g L_d", positive=True)  # L_g = log(dn/gamma), L_d = log(1/delta)
    tau_p = 10 * tau * sp.sqrt(lg1 / d)
    eps_p = eps / sp.sqrt(8 * d * lg2)
    var = d * 2 * (8 * tau_p / (n * eps_p)) ** 2
    proof.equal("d * 2 (8 tau'/(n eps'))^2 = 102400 d tau^2 L_g L_d / (n^2 eps^2)", var, 102400 * d * tau**2 * lg1 * lg2 / (n**2 * eps**2))
    rng = proof.rng
    dd, nn, tt, ee = rng.integers(1, 1024, 300), rng.integers(10, 10**6, 300), rng.uniform(0.01, 5, 300), rng.uniform(0.05, 5, 300)
    gg, dl = rng.uniform(1e-6, 0.5, 300), np.exp(rng.uniform(np.log(1e-12), np.log(0.5), 300))
    tp = 10 * tt * np.sqrt(np.log(dd * nn / gg) / dd)
    ep = ee / np.sqrt(8 * dd * np.log(1 / dl))
    proof.numeric_eq("at 300 seeded points", dd * 2 * (8 * tp / (nn * ep)) ** 2,
                     102400 * dd * tt**2 * np.log(dd * nn / gg) * np.log(1 / dl) / (nn**2 * ee**2), {"d": dd, "n": nn})
    return proof.result()


CHECKS = (LemmaCheck(
    name=PRINTED,
    source="Levy et al. 2021, Thm 2 as printed ('log(dn/alpha)', alpha undefined there); docs/papers/levy2021.md, reading 0(b)",
    statement="(as printed) Var(A'|X^n) <= c_0 d tau^2 log(dn/alpha) log(1/delta)/(n^2 eps^2) for every alpha > 0 (alpha free).",
    expected=Verdict.DISPROVED,
    papers=("levy2021",),
    check=_printed,
    role="printed",
    sibling=NAME,
), LemmaCheck(
    name=NAME,
    source=("Levy et al. 2021, Thm 2 (Var(A'|X^n) <= c_0 d tau^2 log(dn/gamma) log(1/delta)/(n^2 eps^2), c_0 = 102400); docs/papers/levy2021.md, "
            "check L9 and reading 0(b)"),
    statement=("(corrected, alpha read as gamma) With tau' = 10 tau sqrt(log(dn/gamma)/d) and eps' = eps/sqrt(8 d log(1/delta)), the total Laplace variance "
               "d * 2 (8 tau'/(n eps'))^2 equals 102400 d tau^2 log(dn/gamma) log(1/delta)/(n^2 eps^2) exactly."),
    expected=Verdict.PROVED,
    papers=("levy2021",),
    check=_run,
    role="corrected",
    sibling=PRINTED,
))
