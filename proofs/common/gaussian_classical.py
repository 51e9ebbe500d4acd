"""The classical Gaussian calibration sigma = Delta sqrt(2 ln(c/delta)) / epsilon, and where it holds.

False for large epsilon as printed (no epsilon <= 1), true for epsilon in (0, 1).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.accounting.calibrate import gaussian_sigma_classical
from dpaudit.accounting.conversions import analytic_gaussian_delta
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED_GHAZI = "common/gaussian_classical_any_epsilon[ghazi2025_propA2]"
PRINTED_LOWY = "common/gaussian_classical_any_epsilon[lowy2024_lemmaA6]"
CORRECTED = "common/gaussian_classical_epsilon_below_1"

_BW18 = ("[BW18] Balle & Wang 2018, Thm 8: the Gaussian mechanism with l_2 sensitivity Delta and noise sigma is "
         "(eps, delta)-DP iff delta >= Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta)")


def _phi(x: sp.Expr) -> sp.Expr:
    return (1 + sp.erf(x / sp.sqrt(2))) / 2


def exact_delta(eps: sp.Expr, sigma: sp.Expr, sens: sp.Expr | int = 1) -> sp.Expr:
    """Closed form of the exact delta(eps) [BW18, Thm 8] as a sympy number."""
    sens = sp.sympify(sens)
    a, b = sens / (2 * sigma), eps * sigma / sens
    return _phi(a - b) - sp.exp(eps) * _phi(-a - b)


def _printed(name: str, const: sp.Rational, label: str) -> CheckResult:
    proof = Proof(name)
    proof.cite("[BW18] Thm 8", _BW18)
    eps, delta = sp.Integer(10), sp.Rational(1, 10**5)
    sigma = sp.sqrt(2 * sp.log(const / delta)) / eps
    achieved = exact_delta(eps, sigma)
    proof.refute(f"{label} at eps = 10, delta = 1e-5, Delta = 1", {"epsilon": 10, "delta": "1e-5", "sigma": sigma,
                 "exact delta(eps)": achieved}, delta - achieved)
    # float cross-check through dpaudit's log-space implementation of the same curve
    impl = analytic_gaussian_delta(10.0, float(sigma), 1.0)
    proof.numeric_le("dpaudit analytic_gaussian_delta agrees (relative 1e-9)", abs(impl - float(achieved)),
                     1e-9 * float(achieved), {"impl": impl})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.cite("[DR14] Thm A.1", "[DR14] Dwork & Roth 2014, Thm A.1: for eps in (0, 1) and c^2 > 2 ln(1.25/delta), "
               "sigma >= c Delta/eps gives (eps, delta)-DP")
    proof.cite("[BW18] Thm 8 (monotone in sigma)", "the exact delta(eps) of [BW18, Thm 8] decreases in sigma, so a larger sigma "
               "stays private; it is continuous in sigma, so the boundary c^2 = 2 ln(1.25/delta) of [DR14] Thm A.1 (stated for "
               "c^2 > 2 ln(1.25/delta)) is private too")
    d = sp.Symbol("delta", positive=True)
    proof.nonneg("Lowy et al. 2024 Def A.5: 2 ln(2/delta) - 2 ln(1.25/delta) >= 0",
                 sp.expand_log(2 * sp.log(2 / d) - 2 * sp.log(sp.Rational(5, 4) / d), force=True))
    db = sp.Symbol("deltabar", positive=True)
    proof.monotone_nonneg("Ghazi et al. 2023 Alg 1 l.4: (2 sqrt(ln(2/db)))^2 - 2 ln(1.25/db) >= 0 for db <= 1",
                          (4 * sp.log(2 / db) - 2 * sp.log(sp.Rational(5, 4) / db)).subs(db, 1 / sp.Symbol("z")),
                          sp.Symbol("z"), 1)
    rng = proof.rng
    n = 400
    eps = rng.uniform(0.01, 0.999, size=n)
    delta = np.exp(rng.uniform(np.log(1e-12), np.log(0.5), size=n))
    sigma = np.sqrt(2 * np.log(1.25 / delta)) / eps
    achieved = np.array([analytic_gaussian_delta(e, s) for e, s in zip(eps, sigma, strict=True)])
    proof.numeric_le("exact delta(eps) <= delta at 400 seeded (eps, delta), eps in (0, 1)", achieved, delta,
                     {"epsilon": eps, "delta": delta})
    impl = np.array([gaussian_sigma_classical(1.0, e, dl) for e, dl in zip(eps[:100], delta[:100], strict=True)])
    proof.numeric_le("dpaudit gaussian_sigma_classical >= the formula", sigma[:100], impl, {"epsilon": eps[:100], "delta": delta[:100]})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED_GHAZI,
        source="Ghazi et al. 2025, Prop A.2 (no restriction on epsilon); note section 1.6 and pitfall P17",
        statement=("(as printed) For every eps > 0 and delta in (0, 1), adding N(0, sigma^2 I) with "
                   "sigma^2 = 2 Delta^2 log(1.25/delta)/eps^2 to a function of l_2 sensitivity Delta is (eps, delta)-DP."),
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=lambda: _printed(PRINTED_GHAZI, sp.Rational(5, 4), "sigma^2 = 2 log(1.25/delta)/eps^2"),
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=PRINTED_LOWY,
        source="Lowy et al. 2024, Def A.5 / Lemma A.6 (stated for every eps > 0; the theorems allow eps <= 10); note pitfall P14",
        statement=("(as printed) For every eps > 0 and delta in (0, 1), the Gaussian mechanism with "
                   "sigma^2 = 2 Delta^2 log(2/delta)/eps^2 is (eps, delta)-DP."),
        expected=Verdict.DISPROVED,
        papers=("lowy2024",),
        check=lambda: _printed(PRINTED_LOWY, sp.Integer(2), "sigma^2 = 2 log(2/delta)/eps^2"),
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Dwork & Roth 2014, Thm A.1, as used by Ghazi et al. 2025 Prop A.2, Lowy et al. 2024 Lemma A.6, Ghazi et al. 2023 Alg 1 line 4",
        statement=("(corrected) For eps in (0, 1) and delta in (0, 1), sigma = Delta sqrt(2 ln(1.25/delta))/eps gives (eps, delta)-DP, "
                   "and so do the larger sigma of Lowy et al. (2/delta) and of Ghazi et al. 2023 (c = 2 sqrt(ln(2/deltabar)))."),
        expected=Verdict.PROVED,
        papers=("ghazi2025", "lowy2024", "ghazi2023"),
        check=_corrected,
        role="corrected",
        sibling=PRINTED_GHAZI,
    ),
)
