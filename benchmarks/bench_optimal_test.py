"""The most any audit can reach on a pair: the optimal test's expected 95% bound, from the pair's exact law.

For a full algorithm whose transcript on its worst-case pair has an exact privacy-loss distribution
(:mod:`dpaudit.userlevel.transcript_profile`, a :class:`~dpaudit.exact.pld.PLDProfile` of the pair's own
law, ``kind == "exact"``; a dominating pair's is refused, as it bounds the pair from above only),
the most powerful test of the pair at every level is a threshold on the privacy loss ``L = ln(dP/dQ)``
(Neyman-Pearson). This benchmark takes the loss distribution under ``P`` from the profile's grid
(its ``lower`` measure: losses rounded down, so the figures lean low), the law under ``Q`` from
``dQ = e^{-L} dP``, and for each threshold ``t`` the *expected* counts of ``{L >= t}`` on ``n``
estimation rows per dataset. The bound is the auditor's: ``ln((lo - delta) / hi)`` with ``lo`` the
Clopper-Pearson 97.5% lower limit of ``P``'s count and ``hi`` the 97.5% upper limit of ``Q``'s
[CP34], the best threshold chosen with the law known. An audit that selects its test on data and
pays for it cannot do better in expectation (up to the counts' noise), so when this figure is below
half the claim no audit at that size reaches "tight" on the pair; when it is above, it says how much
of it the auditor's selection leaves.

Run: ``python -m benchmarks.bench_optimal_test [--only "Levy Alg"] [--trials 1e6 3e6 1e7] [--estimation 0.7]``
(``--estimation``: the share of the trials the auditor keeps for estimation; its default split is 0.7).

References
----------
.. [CP34] C. J. Clopper and E. S. Pearson. The use of confidence or fiducial limits illustrated in the
   case of the binomial. Biometrika 26(4), 1934.
.. [NP33] J. Neyman and E. S. Pearson. On the problem of the most efficient tests of statistical
   hypotheses. Phil. Trans. R. Soc. A 231, 1933.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
from scipy import stats

from dpaudit.exact.pld import PLDProfile
from dpaudit.exact.profile import ProfileUnavailable
from dpaudit.userlevel.full_algorithms import FULL_ALGORITHMS, TIGHT
from dpaudit.userlevel.transcript_profile import transcript_profile

CONFIDENCE = 0.95


def optimal_bound(profile: PLDProfile, n_est: int, delta: float = 0.0) -> tuple[float, float, float]:
    """``(bound, threshold, P(L >= threshold))``: the best expected bound of a threshold on the loss, both directions."""
    best = (0.0, float("nan"), 0.0)
    tail = (1.0 - CONFIDENCE) / 2.0
    for direction in profile.directions:
        m = direction.lower
        loss = (m.start + np.arange(m.masses.size)) * direction.step
        p_tail = np.cumsum(m.masses[::-1])[::-1] + m.infinite  # P(L >= loss_j)
        q_tail = np.cumsum((m.masses * np.exp(-loss))[::-1])[::-1]  # Q(L >= loss_j); Q puts no mass at L = inf
        k_p, k_q = np.floor(p_tail * n_est), np.ceil(q_tail * n_est)
        ok = (k_p > 0) & (k_q < n_est)
        lo = stats.beta.ppf(tail, k_p[ok], n_est - k_p[ok] + 1)
        hi = np.where(k_q[ok] >= n_est, 1.0, stats.beta.ppf(1.0 - tail, k_q[ok] + 1, n_est - k_q[ok]))
        with np.errstate(divide="ignore", invalid="ignore"):
            bound = np.where(lo > delta, np.log(np.maximum(lo - delta, 1e-300)) - np.log(hi), -np.inf)
        if bound.size and np.max(bound) > best[0]:
            i = int(np.argmax(bound))
            best = (float(bound[i]), float(loss[ok][i]), float(p_tail[ok][i]))
    return best


def rows(only: str, trials: list[float], estimation: float) -> list[dict[str, Any]]:
    out = []
    for alg in FULL_ALGORITHMS:
        if only.lower() not in alg.name.lower():
            continue
        wp = alg.pair()
        try:
            profile = transcript_profile(wp.transcript_steps())
        except ProfileUnavailable as exc:
            out.append({"name": alg.name, "why": str(exc)})
            continue
        if not isinstance(profile, PLDProfile):
            out.append({"name": alg.name, "why": f"not a loss-grid profile ({type(profile).__name__})"})
            continue
        if profile.kind != "exact":  # a dominating pair's optimal test says nothing about what an audit of the pair reaches
            out.append({"name": alg.name, "why": f"a dominating pair ({profile.kind}), not the pair's own law"})
            continue
        for n in trials:
            bound, t, mass = optimal_bound(profile, int(estimation * n), wp.delta)
            out.append({"name": alg.name, "claim": wp.epsilon, "trials": int(n), "bound": bound, "threshold": t,
                        "mass": mass, "tight": TIGHT * wp.epsilon})
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_optimal_test", description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="Levy Alg", help="a substring of the algorithms' names (default: Levy Alg)")
    parser.add_argument("--trials", type=float, nargs="+", default=[1e6, 3e6, 1e7], help="trials per dataset")
    parser.add_argument("--estimation", type=float, default=0.7, help="share of the trials used for estimation")
    args = parser.parse_args(argv)
    print(f"{'algorithm':<24} {'claim':>7} {'trials':>10} {'optimal bound':>14} {'half claim':>11} "
          f"{'loss >=':>8} {'P-mass':>8}")
    for r in rows(args.only, args.trials, args.estimation):
        if "why" in r:
            print(f"{r['name']:<24} no loss-grid profile: {r['why']}")
            continue
        print(f"{r['name']:<24} {r['claim']:7.4f} {r['trials']:10,d} {r['bound']:14.4f} {r['tight']:11.4f} "
              f"{r['threshold']:8.4f} {r['mass']:8.4f}")


if __name__ == "__main__":
    main()
