"""Lemma 3.12's proof: a false inequality between powers of logs, and the exact condition.

'1/(log m)^{log n} <= 1/(nm) when m <= n^{log log n}' is false (n = 100, m = 10; DISPROVED); the
exact condition is log n log(log m) >= log n + log m (PROVED).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

PRINTED = "ghazi2025/lemma_3_12_log_power_printed"
CORRECTED = "ghazi2025/lemma_3_12_log_power_condition"


def _printed() -> CheckResult:
    proof = Proof(PRINTED)
    n, m = sp.Integer(100), sp.Integer(10)
    cond = n ** sp.log(sp.log(n)) - m
    lhs = 1 / sp.log(m) ** sp.log(n)
    proof.refute("1/(log m)^{log n} vs 1/(nm)", {"n": 100, "m": 10, "1/(log m)^(log n)": lhs, "1/(nm)": sp.Rational(1, 1000),
                 "n^(log log n)": n ** sp.log(sp.log(n))}, sp.Rational(1, 1000) - lhs,
                 conditions={"n = 100, m = 10 satisfies m <= n^{log log n}": cond})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("n > 1, m > 1 (so log n > 0, log m > 0); log is increasing, both sides positive")
    n, m = sp.symbols("n m", positive=True)
    a, b = sp.symbols("a b", positive=True)  # n = e^a, m = e^b
    proof.equal("log(1/(log m)^{log n}) = -log n log(log m)", sp.log(1 / sp.log(m) ** sp.log(n)).subs({n: sp.exp(a), m: sp.exp(b)}),
                -a * sp.log(b))
    proof.equal("log(1/(nm)) = -(log n + log m)", sp.log(1 / (n * m)).subs({n: sp.exp(a), m: sp.exp(b)}), -(a + b))
    rng = proof.rng
    nn = np.exp(rng.uniform(0.1, 20, 2000))
    mm = np.exp(rng.uniform(0.1, 20, 2000))
    direct = -np.log(nn) * np.log(np.log(mm)) <= -np.log(nn) - np.log(mm)
    cond = np.log(nn) * np.log(np.log(mm)) >= np.log(nn) + np.log(mm)
    bad = int(np.sum(direct != cond))
    proof.numeric_count("both forms agree at 2000 seeded (n, m)", 2000, bad)
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=PRINTED,
        source="Ghazi et al. 2025, proof of Lemma 3.12 ('1/(log m)^{log n} <= 1/(nm) when m <= n^{log log n}'); note section 4 [ERRATUM]",
        statement="(as printed) If m <= n^{log log n}, then 1/(log m)^{log n} <= 1/(nm).",
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2025, proof of Lemma 3.12, the inequality's exact condition (note section 4)",
        statement="(corrected) For n, m > 1: 1/(log m)^{log n} <= 1/(nm) if and only if log n log(log m) >= log n + log m.",
        expected=Verdict.PROVED,
        papers=("ghazi2025",),
        check=_corrected,
        role="corrected",
        sibling=PRINTED,
    ),
)
