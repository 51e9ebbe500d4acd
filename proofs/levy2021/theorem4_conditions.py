"""Thm 4's conditions (eps <= 1, delta <= 1/n^2) and Alg 4's privacy, for the rounds PhasedERM runs.

For 0 < eps <= 1 and any delta in (0, 1) (so in particular delta <= 1/n^2) every round (Alg 3 with
any T >= 1 steps at the full (eps, delta)) is (eps, delta)-DP: the T steps compose to (eps, delta)
and each step's Alg 2 call, at (eps', delta'), composes its d' coordinates to (eps', delta') for
every d'. The rounds use disjoint users, so Alg 4 is (eps, delta)-DP (parallel composition). PROVED;
the construction check and the schedule's disjoint rounds are cross-checked at eps = 1, delta =
1/n^2.
"""

from __future__ import annotations

import itertools

import sympy as sp

from dpaudit.bounds.levy2021 import prove_alg3_budget
from dpaudit.userlevel import SquaredLoss
from dpaudit.userlevel.levy2021 import PhasedERM
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "levy2021/theorem4_conditions"


def _run() -> CheckResult:
    proof = Proof(NAME)
    prove_alg3_budget(proof)  # T steps at (eps', delta') compose to (eps, delta) for eps <= 1
    proof.cite("[DR14] Prop 2.1, parallel composition", "mechanisms on disjoint users compose in parallel; post-processing is free "
               "(theta_hat_{t-1} enters round t as a released, public centre)")
    a, ell, t1 = sp.symbols("a ell t", nonnegative=True)
    cap = 1 / (2 * sp.sqrt(2 * sp.log(2)))  # eps' at eps = 1, T = 1, delta -> 1
    eps_p = (1 / (1 + a)) / (2 * sp.sqrt(2 * (1 + t1) * (sp.log(2) + ell)))  # eps <= 1, T >= 1, ln(2/delta) >= ln 2
    proof.nonneg("eps' <= 1/(2 sqrt(2 ln 2)) < 1 for eps <= 1, T >= 1, delta < 1 (compared squared)", cap**2 - eps_p**2)
    b, lp = sp.symbols("b l_p", nonnegative=True)  # eps' = cap/(1 + b), ln(1/delta') = ln 2 + l_p (delta' = delta/(2T) < 1/2)
    e1 = cap / (1 + b)
    proof.nonneg("Alg 2 at (eps', delta'): second DRV term (e - 1) eps'^2/(8 ln(1/delta')) <= eps'/2 "
                 "(chord bound at eps'' = eps'/sqrt(8 d' ln(1/delta')) <= 1; the first term is eps'/2 for every d')",
                 e1 / 2 - (sp.E - 1) * e1**2 / (8 * (sp.log(2) + lp)))
    bad: list[dict[str, object]] = []
    cases = 0
    for n in (4, 100, 10**4, 10**6):
        for d in (1, 7, 64):
            cases += 1
            try:
                erm = PhasedERM(SquaredLoss(), epsilon=1.0, delta=1.0 / n**2, radius=1.0, feature_bound=1.0)
                plan = erm.schedule(n, 3, d)
            except Exception as exc:  # the construction check refusing eps = 1, delta = 1/n^2 is a counterexample
                bad.append({"n": n, "d": d, "error": str(exc)})
                continue
            disjoint = all(p.stop <= q.start for p, q in itertools.pairwise(plan)) and plan[-1].stop <= n
            claim = erm.claimed_guarantee()
            if not (disjoint and claim.epsilon == 1.0 and claim.delta == 1.0 / n**2):
                bad.append({"n": n, "d": d, "rounds": [(p.start, p.stop) for p in plan]})
    proof.numeric_count("PhasedERM at eps = 1, delta = 1/n^2 (n = 4 .. 1e6, d = 1, 7, 64): accepted, (eps, delta) claimed, rounds disjoint",
                        cases, len(bad), bad[0] if bad else None)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Levy et al. 2021, Thm 4 and Alg 4 (Require: eps <= 1, delta <= 1/n^2; privacy from Alg 3 and disjoint S_t); note P5; PhasedERM",
    statement=("For 0 < eps <= 1 and 0 < delta < 1 (in particular delta <= 1/n^2), every round of PhasedERM, Alg 3 with any T >= 1 steps at "
               "(eps, delta) whose steps call Alg 2 at (eps', delta') in any padded dimension d', is (eps, delta)-DP, and the rounds use "
               "disjoint users, so Alg 4 is (eps, delta)-user-level DP; delta <= 1/n^2 is not needed for privacy."),
    expected=Verdict.PROVED,
    papers=("levy2021",),
    check=_run,
)
