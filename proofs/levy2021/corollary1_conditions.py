"""Cor 1's conditions (n and tau) for the parameters UserMeanEstimator uses.

gamma = 1/(m(dn + n^2 eps^2)) and tau_m = (B/sqrt(m))(1 + sqrt(2 ln(n/gamma))). (i) The user means
are (tau_m, gamma)-concentrated (McDiarmid); (ii) Cor 1's n >= (c_1 sqrt(d) log(1/delta)/eps)
log(m(dn + n^2 eps^2)) with the explicit c_1 = 221 (delta <= 1/e, Alg 2 at the padded dimension d' <
2d) makes Thm 2's failure term at most gamma, so beta <= 3 gamma. PROVED; the estimator's gamma and
tau are cross-checked against these formulas.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpaudit.userlevel import UserMeanEstimator
from dpaudit.userlevel.hadamard import next_power_of_two
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "levy2021/corollary1_conditions"

#: c_1 = 24 sqrt(2) * 6.5, rounded up: Thm 2's exponent at d' < 2d, and the log argument <= A^6.5 (see the proof).
C1 = 221


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("supp P_0 in B_2(0, B); user means X_u of m i.i.d. items; gamma = 1/A with A = m(dn + n^2 eps^2) >= 2; "
                "tau = tau_m = (B/sqrt(m))(1 + sqrt(2 ln(n/gamma))); 0 < delta <= 1/e; Alg 2 runs at d' = 2^ceil(log2 d) < 2d")
    proof.cite("[McD89]", "McDiarmid: a function of m independent items with bounded differences c exceeds its mean by t w.p. <= exp(-2t^2/(m c^2))")
    proof.cite("Thm 2 (beta)", "Levy et al. 2021, Thm 2: beta = min{1, 2 gamma + (d^2 B sqrt(log(dn/gamma))/tau) exp(-n eps/(24 sqrt(d log(1/delta))))}")
    proof.assume("E||X_u - mu|| <= B/sqrt(m)", "Jensen and Var(X_u) = Var(P_0)/m <= B^2/m for a support in B_2(0, B)")
    proof.assume("log is increasing", "x <= y implies ln x <= ln y for x, y > 0")
    big_b, m, n, gamma = sp.symbols("B m n gamma", positive=True)
    t = big_b * sp.sqrt(2 * sp.log(n / gamma) / m)
    proof.equal("McDiarmid with c = 2B/m at t = B sqrt(2 ln(n/gamma)/m): exp(-2 t^2/(m (2B/m)^2)) = gamma/n",
                sp.exp(-2 * t**2 / (m * (2 * big_b / m) ** 2)), gamma / n)
    # ln(n/gamma) >= 0 (gamma = 1/A <= 1/2 < 1 <= n, and log is increasing: the premise above) is named ell here:
    # the kernel proves sqrt defined only from an argument it can sign, and it does not sign ln(n/gamma) from gamma <= n
    ell = sp.Symbol("ell", nonnegative=True)
    proof.assume("ell = ln(n/gamma) >= 0", "gamma = 1/A <= 1/2 < 1 <= n and log is increasing")
    proof.equal("tau_m = B/sqrt(m) + t (the mean's bound plus the deviation), with ell = ln(n/gamma) >= 0",
                big_b / sp.sqrt(m) * (1 + sp.sqrt(2 * ell)), big_b / sp.sqrt(m) + t.subs(sp.log(n / gamma), ell))
    proof.zero("union over the n users: n * gamma/n = gamma", n * (gamma / n) - gamma)
    a, b, c, e = sp.symbols("a b c e", nonnegative=True)  # d = 1 + a, n = 1 + b, m = 1 + c, eps^2 = e
    dd, nn, mm = 1 + a, 1 + b, 1 + c
    big_a = mm * (dd * nn + nn**2 * e)
    proof.nonneg("m <= A", big_a - mm)
    proof.nonneg("d n <= A (so d <= A and ln(dn/gamma) = ln(dn A) <= 2 ln A)", big_a - dd * nn)
    r = sp.Symbol("r", nonnegative=True)  # tau = (B/sqrt(m))(1 + r)
    proof.nonneg("ln(B/tau) <= (1/2) ln m since tau >= B/sqrt(m)", sp.log(1 + r))
    u = sp.Symbol("u", nonnegative=True)  # A = 2 + u
    proof.monotone_nonneg("sqrt(3 ln A) <= A for A = 2 + u >= 2, so with d' n <= 2dn <= 2A, ln(d' n/gamma) = ln(d' n A) <= ln(2A^2) "
                          "<= 3 ln A and ln sqrt(ln(d' n/gamma)) <= ln A", 2 + u - sp.sqrt(3 * sp.log(2 + u)), u, 0)
    proof.nonneg("ln 4 <= 2 ln A for A >= 2, so ln d'^2 <= ln(4 d^2) <= 4 ln A", 2 * sp.log(2 + u) - sp.log(4))
    # so ln(d'^2 B sqrt(ln(d' n/gamma))/(tau gamma)) <= 4 lnA + lnA/2 + lnA + lnA = 6.5 lnA
    proof.nonneg("c_1 = 221 >= 24 sqrt(2) * 6.5: n >= (c_1 sqrt(d) L_delta/eps) lnA implies n eps/(24 sqrt(d' L_delta)) >= 6.5 lnA "
                 "when L_delta = ln(1/delta) >= 1 (sqrt(L_delta) <= L_delta) and d' < 2d", C1 - 24 * sp.sqrt(2) * sp.Rational(13, 2))
    proof.assume("exponents add up", "then (d'^2 B sqrt(ln(d'n/gamma))/(tau gamma)) e^{-n eps/(24 sqrt(d' L_delta))} <= e^{6.5 lnA - 6.5 lnA} = 1, "
                 "i.e. Thm 2's failure term is <= gamma and beta <= 2 gamma + gamma")
    rng = proof.rng
    bad, cases = [], 0
    covered = 0
    for k in range(40):
        mm_, dd_ = int(rng.integers(1, 200)), int(rng.integers(1, 64))
        ee_, dl_, bb_ = float(rng.uniform(0.05, 1.0)), float(np.exp(-rng.uniform(1.0, 25.0))), float(rng.uniform(0.1, 10.0))
        nn_ = int(rng.integers(50, 10**6))
        if k % 2 == 0:  # at (a little above) Cor 1's n: the fixed point of n = c_1 sqrt(d) L/eps ln(m(dn + n^2 eps^2))
            for _ in range(20):
                nn_ = math.ceil(C1 * math.sqrt(dd_) * math.log(1 / dl_) / ee_ * math.log(mm_ * (dd_ * nn_ + nn_**2 * ee_**2)))
            nn_ = int(nn_ * (1 + rng.uniform(0, 0.1)))
        est = UserMeanEstimator(epsilon=ee_, delta=dl_, bound=bb_)
        g_ = est.failure_probability(nn_, mm_, dd_)
        tau_ = est.radius(nn_, mm_, dd_)
        big_a_ = mm_ * (dd_ * nn_ + nn_**2 * ee_**2)
        want_g = min(0.5, 1 / big_a_)
        want_tau = bb_ / math.sqrt(mm_) * (1 + math.sqrt(2 * math.log(nn_ / want_g)))
        cases += 1
        if not (math.isclose(g_, want_g, rel_tol=1e-12) and math.isclose(tau_, want_tau, rel_tol=1e-12)):
            bad.append({"n": nn_, "m": mm_, "d": dd_, "gamma": g_, "tau": tau_})
        dp = next_power_of_two(dd_)
        n_req = C1 * math.sqrt(dd_) * math.log(1 / dl_) / ee_ * math.log(big_a_)
        if nn_ >= n_req and big_a_ >= 2:  # the failure term at the estimator's parameters must then be <= gamma
            covered += 1
            log_term = (math.log(dp**2 * bb_ * math.sqrt(math.log(dp * nn_ / g_)) / tau_)
                        - nn_ * ee_ / (24 * math.sqrt(dp * math.log(1 / dl_))))
            if log_term > math.log(g_) + 1e-9:
                bad.append({"n": nn_, "m": mm_, "d": dd_, "failure term (log)": log_term, "log gamma": math.log(g_)})
    proof.numeric_count(f"UserMeanEstimator's gamma and tau equal the formulas (40 seeded configurations), and at the {covered} meeting "
                        "Cor 1's n the failure term is <= gamma", cases, len(bad), bad[0] if bad else None)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Levy et al. 2021, Cor 1 (n >= (c_1 sqrt(d) log(1/delta)/eps) log(m(dn + n^2 eps^2)); tau) with Thm 2's beta; note ALG-3; UserMeanEstimator",
    statement=("For UserMeanEstimator's gamma = 1/(m(dn + n^2 eps^2)) and tau_m = (B/sqrt(m))(1 + sqrt(2 ln(n/gamma))): the user means are "
               "(tau_m, gamma)-concentrated, and if delta <= 1/e, m(dn + n^2 eps^2) >= 2 and n >= (221 sqrt(d) log(1/delta)/eps) "
               "log(m(dn + n^2 eps^2)), Thm 2's beta at Alg 2's padded dimension d' < 2d is at most 3 gamma."),
    expected=Verdict.PROVED,
    papers=("levy2021",),
    check=_run,
)
