"""Cor 2's conditions (T and gamma) for the rounds PhasedERM runs (Alg 4 with Cor 2's accuracy).

See levy2021/round_length. Round t uses gamma_t = sigma^2 d^2/(lambda_t^2 n_t^2 m eps^2 R^2) (Cor 2
with mu = lambda_t, n = n_t, R the diameter) and the fewest steps T_t with q_t^{2 T_t} D_t^2 <=
tol_t = sigma^2 d^2/(lambda_t^2 n_t^2 m eps^2), q_t = H/(H + lambda_t). That T_t reaches Cor 2's
accuracy and is at most half of Cor 2's T = (H'/mu) log(D^2/tol) with H' = H + lambda_t, mu =
lambda_t (PROVED); the schedule's gamma_t and T_t are cross-checked against these formulas.
"""

from __future__ import annotations

import math

import sympy as sp

from dpaudit.userlevel import SquaredLoss
from dpaudit.userlevel.levy2021 import PhasedERM
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "levy2021/corollary2_conditions"

_CONFIGS = ((10**5, 10, 4, 1.0, 1e-6), (4096, 3, 2, 0.5, 1e-8), (10**6, 50, 16, 1.0, 1e-12), (2**12, 1, 1, 0.25, 1e-6))


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("round t: objective (7) is lambda_t-strongly convex and (H + lambda_t)-smooth; a step of size 1/(H + lambda_t) "
                "shrinks the distance to its minimiser by q_t = H/(H + lambda_t) [RB16 Sec. 6]; D_t bounds the start distance",
                "T_t = max(1, ceil(ln(D_t^2/tol_t)/(-2 ln q_t))) (localization_steps)")
    k = sp.Symbol("k", positive=True)  # q = 1/(1 + k), k = lambda_t/H
    r, f = sp.symbols("r f", nonnegative=True)  # D^2/tol = e^r; T = r/(2 ln(1 + k)) + f with f >= 0 the ceiling's slack
    proof.equal("q^{2T} D^2/tol = (1 + k)^{-2T} e^r = (1 + k)^{-2f} at T = r/(2 ln(1 + k)) + f",
                sp.exp(-2 * (r / (2 * sp.log(1 + k)) + f) * sp.log(1 + k) + r), (1 + k) ** (-2 * f))
    proof.monotone_nonneg("(1 + k)^{-2f} <= 1 for f >= 0: the round reaches Cor 2's accuracy", 1 - (1 + k) ** (-2 * f), f, 0)
    x = sp.Symbol("x", nonnegative=True)
    proof.monotone_nonneg("(1 + x) ln(1 + x) - x >= 0, i.e. ln(1 + x) >= x/(1 + x)", (1 + x) * sp.log(1 + x) - x, x, 0)
    proof.equal("((1 + k)/k - 1/ln(1 + k)) k ln(1 + k) = (1 + k) ln(1 + k) - k, so r/(2 ln(1 + k)) <= ((1 + k)/(2k)) r = "
                "((H + lambda_t)/(2 lambda_t)) r: half of Cor 2's (H'/mu) log(D^2/tol)",
                ((1 + k) / k - 1 / sp.log(1 + k)) * k * sp.log(1 + k), (1 + k) * sp.log(1 + k) - k)
    bad, cases = [], 0
    for n, m, d, eps, delta in _CONFIGS:
        erm = PhasedERM(SquaredLoss(), epsilon=eps, delta=delta, radius=1.0, feature_bound=1.0)
        sigma, big_r, hh = erm.lipschitz, 2.0, erm.smooth_constant
        for ph in erm.schedule(n, m, d):
            cases += 1
            tol = sigma**2 * d**2 / (ph.lam**2 * ph.n_users**2 * m * eps**2)
            gamma = min(0.5, tol / big_r**2)
            qq = hh / (hh + ph.lam)
            ratio = ph.initial_distance**2 / tol
            want = 1 if ratio <= 1 else max(1, math.ceil(math.log(ratio) / (-2 * math.log(qq))))
            ok = (math.isclose(ph.gamma, gamma, rel_tol=1e-12) and math.isclose(ph.tolerance, tol, rel_tol=1e-12) and ph.steps == want
                  and (ratio <= 1 or ph.steps <= math.ceil((hh + ph.lam) / (2 * ph.lam) * math.log(ratio))))
            if not ok:
                bad.append({"config": (n, m, d, eps, delta), "round": ph.index, "steps": ph.steps, "want": want, "gamma": ph.gamma})
    proof.numeric_count(f"PhasedERM.schedule: gamma_t, tol_t and T_t equal Cor 2's formulas ({cases} rounds, 4 configurations)",
                        cases, len(bad), bad[0] if bad else None)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Levy et al. 2021, Cor 2 (T = (H/mu) log(.), gamma = sigma^2 d^2/(mu^2 n^2 m eps^2 R^2)) as used by Alg 4; PhasedERM.schedule",
    statement=("For each round of PhasedERM (mu = lambda_t, n = n_t, H' = H + lambda_t): gamma_t = sigma^2 d^2/(lambda_t^2 n_t^2 m eps^2 R^2) "
               "(capped at 1/2), and T_t, the fewest steps with q_t^{2T} D_t^2 <= tol_t, satisfies q_t^{2T_t} D_t^2 <= tol_t and "
               "T_t - 1 < ((H + lambda_t)/(2 lambda_t)) ln(D_t^2/tol_t), at most half of Cor 2's T."),
    expected=Verdict.PROVED,
    papers=("levy2021",),
    check=_run,
)
