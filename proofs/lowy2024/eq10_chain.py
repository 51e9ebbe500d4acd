"""eq. (10): Gaussian, then subsampling, then advanced composition.

The chain's epsilon falls strictly as sigma grows, so the sigma that spends eps/2 is unique and
every larger sigma is valid (what calibrating by bisection relies on).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from dpaudit.proofs.lowy2024.alg2_sigma_f6 import chain

from dpaudit.accounting.composition import advanced_composition
from dpaudit.userlevel.lowy2024.privacy import _gradient_composition, paper_chain_epsilon
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "lowy2024/eq10_chain_monotone"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("sensitivity Delta > 0, T >= 1, r = K/n_i in (0, 1], delta0, delta' in (0, 1)",
                "eps0 = Delta sqrt(2 log(2/delta0))/sigma [Lemma A.6], eps1 = r (e^eps0 - 1) [Lemma A.8], "
                "eps2 = sqrt(2 T log(1/delta')) eps1 + T eps1 (e^eps1 - 1) [Lemma A.7] (proof of Thm C.1, eq. (10))")
    proof.cite("[LLA24] Lemmas A.6-A.8", "each link is a valid (eps, delta) bound (A.6 for eps0 <= 1)")
    sigma, sens, c, r, big_t, a = sp.symbols("sigma Delta c r T a", positive=True)  # c = sqrt(2 log(2/delta0)), a = sqrt(2T log(1/delta'))
    e0, e1 = sp.symbols("e0 e1", nonnegative=True)
    proof.nonneg("d eps0/d sigma < 0: -(d/d sigma) Delta c/sigma = Delta c/sigma^2", -sp.diff(sens * c / sigma, sigma))
    proof.nonneg("d eps1/d eps0 = r e^eps0 > 0", sp.diff(r * (sp.exp(e0) - 1), e0))
    proof.monotone_nonneg("d eps2/d eps1 = a + T (e^eps1 - 1) + T eps1 e^eps1 >= 0",
                          sp.diff(a * e1 + big_t * e1 * (sp.exp(e1) - 1), e1), e1, 0)
    proof.equal("sigma -> inf: eps0 -> 0, so eps1 -> 0 and eps2 -> 0", sp.limit(sens * c / sigma, sigma, sp.oo), 0)
    # the implementation's two versions of the chain agree with the formula, and the tight links never spend more
    rng = proof.rng
    sig = np.exp(rng.uniform(-1, 4, 200))
    dd = rng.uniform(0.01, 1.0, 200)
    tt = rng.integers(1, 200, 200)
    rr = rng.uniform(0.01, 1, 200)
    d0 = np.exp(rng.uniform(np.log(1e-12), np.log(1e-3), 200))
    dp = np.exp(rng.uniform(np.log(1e-9), np.log(1e-2), 200))
    ours = np.array([paper_chain_epsilon(*p) for p in zip(sig, dd, tt, rr, d0, dp, strict=True)])
    formula = np.array([float(chain(sp.Float(s), sp.Float(x), int(t), sp.Float(q), sp.Float(u), sp.Float(v)))
                        for s, x, t, q, u, v in zip(sig[:40], dd[:40], tt[:40], rr[:40], d0[:40], dp[:40], strict=True)])
    finite = np.isfinite(ours[:40])
    proof.numeric_le("paper_chain_epsilon equals the formula (upper side)", ours[:40][finite], formula[finite] * (1 + 1e-9),
                     {"sigma": sig[:40][finite]})
    proof.numeric_le("paper_chain_epsilon equals the formula (lower side)", formula[finite], ours[:40][finite] * (1 + 1e-9),
                     {"sigma": sig[:40][finite]})
    tight = np.array([_gradient_composition(s, x, int(t), q, u, 0.0, v)[1] for s, x, t, q, u, v in
                      zip(sig, dd, tt, rr, d0, dp, strict=True)])
    ok = np.isfinite(ours)
    proof.numeric_le("the audit preset's links ([BW18], [BBG18], [DR14] Thm 3.20) never spend more than the paper's",
                     tight[ok], ours[ok] * (1 + 1e-9), {"sigma": sig[ok]})
    adv = [advanced_composition(0.01 * k, 1e-9, 50, 1e-6).epsilon for k in range(1, 6)]
    a7 = [math.sqrt(2 * 50 * math.log(1e6)) * 0.01 * k + 50 * 0.01 * k * math.expm1(0.01 * k) for k in range(1, 6)]
    proof.numeric_le("dpaudit.accounting.advanced_composition is Lemma A.7", np.array(adv), np.array(a7) * (1 + 1e-12),
                     {"eps": np.arange(1, 6) / 100})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Lowy et al. 2024, proof of Thm C.1, eq. (10) (Lemmas A.6, A.8, A.7); note Sec. 3.5",
    statement=("eq. (10)'s composed epsilon eps2(sigma) = sqrt(2 T log(1/delta')) eps1 + T eps1 (e^eps1 - 1), eps1 = r (e^eps0 - 1), "
               "eps0 = Delta sqrt(2 log(2/delta0))/sigma, is strictly decreasing in sigma > 0 and tends to 0: the sigma spending "
               "eps/2 is unique and every larger sigma spends less."),
    expected=Verdict.PROVED,
    papers=("lowy2024",),
    check=_run,
)
