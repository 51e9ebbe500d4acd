"""The adaptive-query error of the introduction and of Sec 3 differ by sqrt(d), not a log.

The introduction states O~(tau sqrt(K)/(n eps)); Sec 3 (Thm 10) gives O~(sqrt(dK) tau/(n eps))
(DISPROVED: the ratio is unbounded in d). Alg 2 at the per-query budget eps_0 = eps/(2 sqrt(2K
log(2/delta))), delta_0 = delta/(2K) has l2 error^2 = d K tau^2/(n^2 eps^2) times logs (PROVED).
"""

from __future__ import annotations

import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "levy2021/adaptive_queries_intro_rate"
CORRECTED = "levy2021/adaptive_queries_sqrt_dk"

tau, K, n, eps, d, delta, gamma = sp.symbols("tau K n epsilon d delta gamma", positive=True)


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("intro: error O~(tau sqrt(K)/(n eps)); Sec 3 / Thm 10: O~(sqrt(dK) tau/(n eps)); O~ hides polylog factors only")
    ratio = (sp.sqrt(d * K) * tau / (n * eps)) / (tau * sp.sqrt(K) / (n * eps))
    lim = sp.limit(ratio / sp.log(d) ** 10, d, sp.oo)
    proof.refute("Thm 10's rate / the intro's rate = sqrt(d): divided by log(d)^10 it still diverges as d -> oo",
                 {"ratio": str(sp.simplify(ratio)), "limit of ratio/log(d)^10": str(lim)}, sp.S.NegativeInfinity if lim is sp.oo else sp.Integer(1))
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("K adaptive queries, each by Alg 2 at eps_0 = eps/(2 sqrt(2K log(2/delta))), delta_0 = delta/(2K) (Alg 3's split, note ALG-4)",
                "Alg 2's error: E||A' - mean||^2 = c_0 d tau^2 log(dn/gamma) log(1/delta_0)/(n^2 eps_0^2) (Thm 2; levy2021/variance_constant_c0)")
    eps0 = eps / (2 * sp.sqrt(2 * K * sp.log(2 / delta)))
    var = 102400 * d * tau**2 * sp.log(d * n / gamma) * sp.log(2 * K / delta) / (n**2 * eps0**2)
    logs = 8 * 102400 * sp.log(2 / delta) * sp.log(d * n / gamma) * sp.log(2 * K / delta)
    proof.equal("error^2 / (d K tau^2/(n^2 eps^2)) = 819200 log(2/delta) log(dn/gamma) log(2K/delta): logs only",
                var / (d * K * tau**2 / (n**2 * eps**2)), logs)
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Levy et al. 2021, Sec 1.1 (adaptive queries: O~(tau sqrt(K)/(n eps))) vs Sec 3 / Thm 10 (O~(sqrt(dK) tau/(n eps))); note section 4",
        statement="(as printed) The intro's O~(tau sqrt(K)/(n eps)) and Thm 10's O~(sqrt(dK) tau/(n eps)) agree up to polylog factors.",
        expected=Verdict.DISPROVED,
        papers=("levy2021",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Levy et al. 2021, Thm 10 error from Thm 2 at Alg 3's budget split (note ALG-4, L9)",
        statement=("(corrected) Answering each of K adaptive queries with Alg 2 at eps_0 = eps/(2 sqrt(2K log(2/delta))) has l2 error^2 "
                   "= d K tau^2/(n^2 eps^2) times 819200 log(2/delta) log(dn/gamma) log(2K/delta), i.e. error O~(sqrt(dK) tau/(n eps))."),
        expected=Verdict.PROVED,
        papers=("levy2021",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
