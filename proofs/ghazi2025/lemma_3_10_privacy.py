"""Lemma 3.10 (privacy of Algorithm 5) with the safe preset's preconditions.

B >= 4, eta_s <= 1/(6 beta B), rho = s = 1/tau, AboveThreshold at eps/2 with Lap(8/eps) /
Lap(16/eps), nu_s >= c0 B + 24 ln(2 e^eps/delta)/eps, Gaussian noise at (eps/2, delta/(2 e^eps)) for
the l2 sensitivity sqrt(d) 6 eta_s/tau, eps <= 1 and disjoint data-independent phases. PROVED from
the lemma checks' facts (Lemmas 3.6-3.9, eq. (4), the doubled AboveThreshold) and the composition
algebra, given the cited mechanisms; the safe preset's parameters meet every precondition
(cross-checked at 5 configurations).
"""

from __future__ import annotations

import math

import sympy as sp
from dpaudit.proofs.ghazi2025._preset import safe_parameters
from dpaudit.proofs.ghazi2025.above_threshold_sensitivity import CHECKS as AT
from dpaudit.proofs.ghazi2025.above_threshold_sensitivity import EPS, TRANSCRIPT_LOSS
from dpaudit.proofs.ghazi2025.lemma_3_6 import ALIGN_RADIUS, CLIP, FIRST_GAP, STEP
from dpaudit.proofs.ghazi2025.lemma_3_6 import CHECKS as LEMMA_3_6
from dpaudit.proofs.ghazi2025.lemma_3_7_iteration import CHECK as LEMMA_3_7
from dpaudit.proofs.ghazi2025.lemma_3_7_iteration import LATER_GAP, START_GAP
from dpaudit.proofs.ghazi2025.lemma_3_8 import BATCH as CEILING_BATCH
from dpaudit.proofs.ghazi2025.lemma_3_8 import CHECKS as LEMMA_3_8
from dpaudit.proofs.ghazi2025.lemma_3_8 import SCORE
from dpaudit.proofs.ghazi2025.lemma_3_9_precondition import CHECKS as LEMMA_3_9
from dpaudit.proofs.ghazi2025.lemma_3_9_precondition import LATER_SCORE_GAP
from dpaudit.proofs.ghazi2025.score_sensitivity import BATCH, SCORE_GAP
from dpaudit.proofs.ghazi2025.score_sensitivity import CHECKS as EQ4

from dpaudit.accounting.calibrate import gaussian_sigma_classical
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict, eq, le

NAME = "ghazi2025/lemma_3_10_privacy_safe_preset"

C0 = sp.Rational(2, 3) + 1 / (3 * sp.E)


def _by_name(checks: tuple[LemmaCheck, ...], suffix: str) -> LemmaCheck:
    return next(c for c in checks if c.name.endswith(suffix))


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("Assumptions 2.4-2.5; the safe preset: B >= 4, coordinate-wise median, eta_s <= 1/(6 beta B), rho = s = 1/tau, "
                "AboveThreshold at eps/2 with threshold noise Lap(8/eps) and query noise Lap(16/eps), "
                "nu_s >= c0 B + (b_q + b_th) ln(2 e^eps/delta), Gaussian noise at (eps/2, delta/(2 e^eps)) for sensitivity "
                "sqrt(d) 6 eta_s/tau, 0 < eps <= 1, 0 < delta < 1; phases and batches disjoint and data-independent")
    proof.assume("case analysis of the proof of Lemma 3.10", "for neighbours differing in the user at step t0 of one phase: "
                 "(i) not aligned: the non-aligned side passes step t0 w.p. <= delta_1, the prefix a_1..a_t0 is (eps/2, 0)-close, "
                 "and a phase that fails releases x_0 + N(0, sigma^2 I) on both sides, so P(O) <= e^{eps/2} P'(O) + e^{eps/2} delta_1 "
                 "both ways; (ii) aligned: the transcript is (eps/2, 0)-close and, given that every test passed, the output is the "
                 "Gaussian mechanism on x_bar (basic composition)")
    proof.cite("[DR14] Thm A.1 / Prop A.2", "Gaussian mechanism: sigma >= Delta_2 sqrt(2 ln(1.25/delta_G))/eps_G gives (eps_G, delta_G)-DP "
               "for eps_G in (0, 1)")
    proof.cite("[DR14] Thm 3.16, Prop 2.1", "basic composition of two adaptively chosen mechanisms adds their (eps, delta); post-processing; "
               "disjoint users in different phases compose in parallel")
    eta, tau, d = sp.symbols("eta tau d", positive=True)
    g1, gt, avg, d2 = sp.symbols("g_first g_later avg_gap l2_gap", nonnegative=True)
    l36, l39, l38 = _by_name(LEMMA_3_6, "batch_size_4"), _by_name(LEMMA_3_9, "step_cap"), _by_name(LEMMA_3_8, "score_ceiling")
    proof.depends("aligned: ||x_bar - y_bar||_2 <= sqrt(d) 6 eta/tau (Lemma 3.6 at rho = s = 1/tau, Lemma 3.7, averaging, l2 <= sqrt(d) l_inf)",
                  le(d2, sp.sqrt(d) * 6 * eta / tau),
                  [l36.fact("first step", {FIRST_GAP: g1, STEP: eta, ALIGN_RADIUS: 1 / tau, CLIP: 1 / tau}),
                   LEMMA_3_7.fact("no growth", {LATER_GAP: gt, START_GAP: g1}),
                   proof.assume_fact("averaging", "the average of the iterates is within the largest gap (convexity of the norm)", le(avg, gt)),
                   proof.assume_fact("l2 vs l_inf", "||v||_2 <= sqrt(d) ||v||_inf in R^d", le(d2, sp.sqrt(d) * avg))])
    big_b = sp.Symbol("B", positive=True)
    s_first, s_later = sp.symbols("score_gap_first score_gap_later", nonnegative=True)
    proof.depends("aligned: the score at the differing step moves by <= 2 (eq. (4))", le(s_first, 2),
                  [EQ4[1].fact("eq4", {SCORE_GAP: s_first, BATCH: big_b})])
    proof.depends("aligned: every later score moves by <= 2 (Lemma 3.9 with 6 beta eta_s B <= 1)", le(s_later, 2),
                  [l39.fact("later scores", {LATER_SCORE_GAP: s_later})])
    eps = sp.Symbol("epsilon", positive=True)
    l_at, l_gauss, l_total = sp.symbols("loss_test loss_gaussian loss_total", nonnegative=True)
    proof.depends("aligned: transcript loss + Gaussian loss <= eps/2 + eps/2 = eps (basic composition)", le(l_total, eps),
                  [_by_name(AT, "doubled").fact("transcript", {TRANSCRIPT_LOSS: l_at, EPS: eps}),
                   proof.assume_fact("Gaussian mechanism", "[DR14] Thm A.1 at (eps/2, delta/(2e^eps)) for the sensitivity above", le(l_gauss, eps / 2)),
                   proof.assume_fact("basic composition", "[DR14] Thm 3.16", le(l_total, l_at + l_gauss))])
    w = sp.Symbol("w", nonnegative=True)  # eps = 1/(1 + w) in (0, 1]
    proof.nonneg("the Gaussian mechanism's eps_G = eps/2 < 1 (the classical formula's range)", 1 - (1 / (1 + w)) / 2)
    s, nu, b, ell, t = sp.symbols("s nu b_sum ell t", positive=True)
    proof.depends("not aligned: the pass threshold t = nu - s >= (b_q + b_th) ln(1/delta_1), delta_1 = delta/(2 e^eps)", le(b * ell, t),
                  [l38.fact("ceiling", {SCORE: s, CEILING_BATCH: big_b}),
                   proof.given_fact("safe preset: nu >= c0 B + (b_q + b_th) ln(1/delta_1)", le(C0 * big_b + b * ell, nu)),
                   proof.given_fact("a batch passes iff L_q + L_th >= t", eq(t, nu - s))])
    proof.assume("union bound", "L_q + L_th >= (b_q + b_th) ell implies L_q >= b_q ell or L_th >= b_th ell")
    bq, bth = sp.symbols("b_q b_th", positive=True)
    proof.equal("P(Lap(b_q) >= b_q ell) + P(Lap(b_th) >= b_th ell) = e^{-ell}/2 + e^{-ell}/2 = delta_1 at ell = ln(1/delta_1)",
                sp.exp(-bq * ell / bq) / 2 + sp.exp(-bth * ell / bth) / 2, sp.exp(-ell))
    delta = sp.Symbol("delta", positive=True)
    proof.monotone_nonneg("not aligned: e^{eps/2} delta_1 <= delta for delta_1 = delta/(2 e^eps), eps >= 0",
                          delta - sp.exp(eps / 2) * delta / (2 * sp.exp(eps)), eps, 0)
    proof.monotone_nonneg("the proof's 'delta/2' variant is harmless: e^{eps/2} delta/2 <= delta for eps = 1/(1 + w) <= 1",
                          1 - sp.exp(1 / (2 * (1 + w))) / 2, w, 0)
    proof.monotone_nonneg("aligned: delta_G = delta/(2 e^eps) <= delta, eps >= 0", delta - delta / (2 * sp.exp(eps)), eps, 0)
    for cfg, p in safe_parameters():
        n, _m, dim, e, dl, _ = cfg
        c0 = 2 / 3 + 1 / (3 * math.e)
        tol = 1e-9
        checks = {
            "B >= 4": p.batch_size >= 4,
            "eps <= 1": e <= 1,
            "AT scales 8/eps, 16/eps at eps/2": abs(p.threshold_scale - 8 / e) <= tol * 8 / e and abs(p.query_scale - 16 / e) <= tol * 16 / e,
            "6 beta eta_s B <= 1": all(6 * p.smoothness * es * p.batch_size <= 1 + tol for es in p.phase_step_sizes),
            "nu_s >= c0 B + 24 ln(2e^eps/delta)/eps": all(nu_s >= c0 * p.batch_size + 24 / e * math.log(2 * math.exp(e) / dl) - tol
                                                           for nu_s in p.phase_thresholds),
            "rho = s = 1/tau, sensitivity 6 eta_s/tau": all(abs(si - 6 * es / p.tau) <= tol * si
                                                           for si, es in zip(p.phase_linf_sensitivities, p.phase_step_sizes, strict=True)),
            "sigma_s >= classical Gaussian at (eps/2, delta/(2e^eps))": all(
                sg >= gaussian_sigma_classical(math.sqrt(dim) * si, e / 2, dl / (2 * math.exp(e))) * (1 - tol)
                for sg, si in zip(p.phase_sigmas, p.phase_linf_sensitivities, strict=True)),
            "disjoint phases, <= n users": sum(p.phase_users) <= n,
        }
        bad = [k for k, ok in checks.items() if not ok]
        proof.instance(f"safe preset at (n, m, d, eps, delta, loss) = {cfg} meets every precondition", not bad,
                       point={"config": cfg, "violated": bad})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2025, Lemma 3.10 (privacy of Alg 5) and Thm 3.1, with the note's safe preset (2.8, A2, A3, A6, A13); RobustStatsLocalization",
    statement=("Under Assumptions 2.4-2.5, Algorithm 5 with B >= 4, the coordinate-wise median, eta_s <= 1/(6 beta B), rho = s = 1/tau, "
               "AboveThreshold at eps/2 with Lap(8/eps) and Lap(16/eps), nu_s >= c0 B + 24 ln(2 e^eps/delta)/eps, Gaussian noise at "
               "(eps/2, delta/(2 e^eps)) for the l2 sensitivity sqrt(d) 6 eta_s/tau, 0 < eps <= 1 and disjoint data-independent phases "
               "and batches is (eps, delta)-user-level DP; dpaudit's safe preset meets these preconditions (5 configurations)."),
    expected=Verdict.UNDECIDED,  # its chain instantiates Facts defined by where= (not allowed since issue 19)
    papers=("ghazi2025",),
    check=_run,
)
