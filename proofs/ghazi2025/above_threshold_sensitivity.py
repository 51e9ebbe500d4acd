"""Erratum A3: Alg 4 at budget eps/2 is calibrated for sensitivity-1 queries, but the scores have sensitivity 2.

Lap(4/eps) / Lap(8/eps): the test then leaks up to eps, not eps/2 (DISPROVED by exact quadrature);
doubling both scales restores eps/2 (PROVED).
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from dpaudit.proofs.common._above_threshold import privacy_loss

from dpaudit.mechanisms.sparse_vector import AboveThreshold
from dpaudit.verify import CheckResult, Fact, LemmaCheck, Proof, Verdict, le

PRINTED = "ghazi2025/above_threshold_scales_printed"
CORRECTED = "ghazi2025/above_threshold_scales_doubled"

#: privacy loss of the test's transcript on score streams differing by <= 2 per query, and eps (for Proof.depends).
TRANSCRIPT_LOSS, EPS = sp.symbols("transcript_loss eps_total", positive=True)
_STREAMS = ((5, -10.0), (10, -20.0), (20, -30.0))  # T queries at `base` below the threshold; D' shifts them by +2 / -2


def _worst(b_th: float, b_q: float, nu: float) -> tuple[float, float, dict[str, object]]:
    best: tuple[float, float, dict[str, object]] = (0.0, 0.0, {})
    for k, base in _STREAMS:
        s = [nu + base] * k
        s2 = [nu + base + 2] * (k - 1) + [nu + base - 2]
        loss, low = privacy_loss(s2, s, nu, b_th, b_q)
        if low > best[1]:
            best = (loss, low, {"T": k, "scores D": f"{k} x (nu {base:+g})", "scores D'": f"{k - 1} x (nu {base + 2:+g}), then nu {base - 2:+g}"})
    return best


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    proof.given("eq. (4) and Lemma 3.9: neighbouring score streams differ by up to 2 per query",
                 "exact output law of the mirrored AboveThreshold by quadrature (scipy.integrate.quad, error bound carried)")
    eps, nu = 1.0, 90.0  # B = 100, nu = 0.9 B
    mech = AboveThreshold(epsilon=eps / 2, threshold=nu, sensitivity=1.0, variant="ghazi2025")
    loss, low, where = _worst(mech.threshold_scale, mech.query_scale, nu)
    proof.refute("eps = 1 (AT at eps/2 = 0.5 with Lap(4), Lap(8)): privacy loss of an output pattern", {"epsilon": eps,
                 "threshold scale": mech.threshold_scale, "query scale": mech.query_scale, **where, "loss": loss,
                 "loss lower bound (quadrature error)": low}, sp.Float(eps / 2) - sp.Float(low), method="quadrature")
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.cite("[DR14] Thm 3.23", "[DR14] Thm 3.23: threshold noise Lap(2/e), query noise Lap(4/e), sensitivity-1 queries: e-DP")
    proof.given("queries of sensitivity Delta_q = 2")
    proof.assume("rescaling the comparisons", "dividing every comparison by Delta_q turns the stream into sensitivity-1 queries "
                 "with the noise scales divided by Delta_q, which leaves the output unchanged")
    eps, s, nu, a, b = sp.symbols("epsilon s nu a b", real=True)
    dq = 2
    proof.equal("rescaling: (s + (4 dq/e) a - (nu - (2 dq/e) b))/dq = s/dq + (4/e) a - (nu/dq - (2/e) b), e = eps/2",
                (s + 4 * dq / (eps / 2) * a - (nu - 2 * dq / (eps / 2) * b)) / dq, s / dq + 4 / (eps / 2) * a - (nu / dq - 2 / (eps / 2) * b),
                hypotheses=[eps > 0])  # a privacy budget is positive (the identity divides by it)
    mech = AboveThreshold(epsilon=0.5, threshold=90.0, sensitivity=2.0, variant="ghazi2025")
    proof.numeric_eq("dpaudit AboveThreshold(eps/2, sensitivity 2) scales are 8/eps, 16/eps at eps = 1",
                     [mech.threshold_scale, mech.query_scale], [8.0, 16.0], {"scale": np.array(["threshold", "query"])})
    loss, _low, _where = _worst(mech.threshold_scale, mech.query_scale, 90.0)
    rng = proof.rng
    losses = [loss]
    for _ in range(40):
        k = int(rng.integers(1, 5))
        base = 90.0 + rng.uniform(-30, 30, size=k)
        shift = rng.choice([-2.0, 2.0], size=k) * rng.uniform(0.5, 1.0, size=k)
        losses.append(privacy_loss(list(base), list(base + shift), 90.0, mech.threshold_scale, mech.query_scale)[0])
    proof.numeric_le("quadrature: max loss <= eps/2 = 0.5 on the leaking family and 40 seeded stream pairs", losses, 0.5,
                     {"stream": np.arange(len(losses))}, atol=1e-9)
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2025, Alg 3 line 1 / Alg 4 at eps/2 (Lap(2/e), Lap(4/e), e = eps/2) with sensitivity-2 scores (eq. (4), Lemma 3.9); note A3, P1",
        statement=("(as printed) AboveThreshold with privacy parameter eps/2, i.e. threshold noise Lap(4/eps) and query noise Lap(8/eps), "
                   "is (eps/2)-DP on streams whose queries change by at most 2 between neighbours."),
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2025, Alg 3/4 with scales multiplied by Delta_q = 2 (note 2.8: b_th = 8/eps, b_q = 16/eps)",
        statement=("(corrected) AboveThreshold with threshold noise Lap(8/eps) and query noise Lap(16/eps) is (eps/2)-DP on streams whose "
                   "queries change by at most 2 between neighbours."),
        expected=Verdict.PROVED,
        papers=("ghazi2025",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
        facts=(Fact("transcript", le(TRANSCRIPT_LOSS, EPS / 2)),),
    ),
)
