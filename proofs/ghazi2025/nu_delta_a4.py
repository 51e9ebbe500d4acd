"""Erratum A4: two readings of the delta that sets nu, both safe.

Alg 1 passes delta/(2Tmnd) to Alg 3, whose body never uses it, while Thm 3.1 sets nu with the global
delta; the two readings give different thresholds (DISPROVED: they differ by 2 ln(2Tmnd)/eps).
Either reading is safe: the smaller delta only raises nu, and a larger nu only lowers the pass
probability of a non-aligned batch (PROVED); the safe preset uses the global delta and the Lemma 3.8
margin (cross-checked).
"""

from __future__ import annotations

import math

import sympy as sp
from dpaudit.proofs.ghazi2025._preset import safe_parameters

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "ghazi2025/nu_delta_printed"
CORRECTED = "ghazi2025/nu_delta_either"

C0 = sp.Rational(2, 3) + 1 / (3 * sp.E)


def nu(big_b: sp.Expr, big_t: sp.Expr, delta: sp.Expr, eps: sp.Expr) -> sp.Expr:
    """nu = 0.9 B + 2 log(T/delta)/eps [Thm 3.1, Lemma 3.8]."""
    return sp.Rational(9, 10) * big_b + 2 * sp.log(big_t / delta) / eps


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("Thm 3.1: nu = 0.9B + 2 log(T/delta)/eps; Alg 1 line 7 calls Alg 3 with delta' = delta/(2Tmnd)")
    big_b, big_t, m, n, d, eps, delta = 100, 10, 5, 1000, 3, sp.Integer(1), sp.Rational(1, 10**6)
    thm, alg = nu(big_b, big_t, delta, eps), nu(big_b, big_t, delta / (2 * big_t * m * n * d), eps)
    proof.refute("B = 100, T = 10, m = 5, n = 1000, d = 3, eps = 1, delta = 1e-6: nu with delta' vs nu with delta",
                 {"nu (Thm 3.1, delta)": thm, "nu (Alg 3's argument, delta')": alg, "difference": alg - thm}, -sp.Abs(alg - thm))
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("0 < delta' <= delta < 1, eps > 0, T >= 1; a batch passes when s + L_q >= nu - L_th")
    big_b, big_t, eps, delta = sp.symbols("B T epsilon delta", positive=True)
    k = sp.Symbol("k", nonnegative=True)  # delta' = delta e^{-k}
    proof.nonneg("nu(delta') - nu(delta) = 2k/eps >= 0 for delta' = delta e^{-k}",
                 nu(big_b, big_t, delta * sp.exp(-k), eps) - nu(big_b, big_t, delta, eps))
    t, v = sp.symbols("t v", nonnegative=True)
    b = sp.Symbol("b", positive=True)  # b_th = b, b_q = 2b (both readings of Alg 4)
    tail = ((2 * b) ** 2 * sp.exp(-t / (2 * b)) - b**2 * sp.exp(-t / b)) / (2 * ((2 * b) ** 2 - b**2))
    proof.nonneg("the pass probability P(L_q + L_th >= t) decreases in t >= 0 (a larger nu passes less; t = 2b ln(1 + v))",
                 sp.simplify((-sp.diff(tail, t)).subs(t, 2 * b * sp.log(1 + v))))
    for cfg, params in safe_parameters():
        _n, _m, _d, e, dl, _ = cfg
        b_count = params.batch_size
        floor = 2.0 / 3.0 + 1.0 / (3.0 * math.e)
        ok = all(nu_s >= 0.9 * b_count + 2 * math.log(t_s / dl) / e - 1e-9 and
                 nu_s >= floor * b_count + (params.query_scale + params.threshold_scale) * math.log(2 * math.exp(e) / dl) - 1e-9
                 for nu_s, t_s in zip(params.phase_thresholds, params.phase_steps, strict=True))
        proof.instance(f"implementation at {cfg}: nu_s >= 0.9B + 2 ln(T_s/delta)/eps and >= c0 B + (b_q + b_th) ln(2e^eps/delta)", ok,
                       point={"config": cfg, "nu_s": params.phase_thresholds})
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2025, Thm 3.1 (nu = 0.9B + 2 log(T/delta)/eps) vs Alg 1 line 7 (Alg 3 called with delta/(2Tmnd)); note 2.7 A4",
        statement="(as printed) The threshold nu is the same whether it is computed with Thm 3.1's delta or with the delta/(2Tmnd) Alg 1 passes to Alg 3.",
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2025, Lemma 3.8 / Thm 3.1 with either delta (note 2.7 A4); RobustStatsLocalization.parameters",
        statement=("(corrected) nu(delta') >= nu(delta) for delta' <= delta, and the pass probability of a batch decreases as nu grows, "
                   "so Lemma 3.8's failure bound holds under either reading; the safe preset's nu_s (global delta) is at least the "
                   "paper's nu and the Lemma 3.8 margin c0 B + (b_q + b_th) ln(2 e^eps/delta) (5 configurations)."),
        expected=Verdict.PROVED,
        papers=("ghazi2025",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
